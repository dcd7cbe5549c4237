//! Sessions: transcripts on disk, resume, fork.

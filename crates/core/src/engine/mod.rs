//! The conversation engine.

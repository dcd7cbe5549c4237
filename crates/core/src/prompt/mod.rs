//! The system prompt: who the agent is, its tools, the environment, and the
//! memory files (AGENTS.md / CLAUDE.md).

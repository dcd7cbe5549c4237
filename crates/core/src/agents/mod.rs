//! Sub-agents (Agent tool, built-in agent types) — see the sub-agents issue.

//! The session's agent types in one place, shared by the Agent tool (which
//! lists them to the model and checks each call) and the runner (which
//! starts them): the built-ins, the agent files, and the agents an SDK
//! application defines (`--agents`, `initialize.agents`), which may arrive
//! after the session started and are offered from the next request on.

use std::sync::{Arc, RwLock};

use super::AgentDefinition;

/// Every agent type of a session. Cheap to clone; clones share.
#[derive(Clone, Default)]
pub struct AgentCatalog(Arc<RwLock<Vec<AgentDefinition>>>);

impl AgentCatalog {
    pub fn new(definitions: Vec<AgentDefinition>) -> Self {
        AgentCatalog(Arc::new(RwLock::new(definitions)))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<AgentDefinition>> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Every agent type, in the order they are listed to the model.
    pub fn all(&self) -> Vec<AgentDefinition> {
        self.read().clone()
    }

    /// The agent type called `name`.
    pub fn find(&self, name: &str) -> Option<AgentDefinition> {
        self.read().iter().find(|d| d.name == name).cloned()
    }

    /// Whether `name` is an agent type that only reads.
    pub fn is_read_only(&self, name: &str) -> bool {
        self.read().iter().any(|d| d.name == name && d.read_only)
    }

    /// Whether `name` is an agent type that may run in plan mode.
    pub fn may_run_while_planning(&self, name: &str) -> bool {
        self.read()
            .iter()
            .any(|d| d.name == name && d.may_run_while_planning())
    }

    /// The names of the agent types that may run in plan mode.
    pub fn planning_names(&self) -> Vec<String> {
        self.read()
            .iter()
            .filter(|d| d.may_run_while_planning())
            .map(|d| d.name.clone())
            .collect()
    }

    pub fn names(&self) -> Vec<String> {
        self.read().iter().map(|d| d.name.clone()).collect()
    }

    /// Adds `definitions`; one with the name of an existing type replaces
    /// it (an application's own agent wins over a file or a built-in).
    pub fn add(&self, definitions: Vec<AgentDefinition>) {
        let mut all = self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for def in definitions {
            all.retain(|d| d.name != def.name);
            all.push(def);
        }
    }
}

//! How a plan session reaches the plan library, which the session layer
//! owns: [`LibraryHooks`] (set by the builder) looks a plan up, tells the
//! transcript about a new slug, names new plans (`planNames`) and hands an
//! approved plan to a background agent (the approval's fifth choice).
//! Taking a plan up (`/plan use`) is `plan::pick_up`, above this.

use std::sync::{Arc, Mutex};

use catui_protocol::PermissionMode;

use crate::sync::lock;

/// What the library knows about one plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LibraryPlan {
    /// The last approved text, if the plan was ever approved.
    pub approved: Option<String>,
    /// The file no longer holds `approved` (its progress section aside).
    pub changed_since_approval: bool,
    /// `draft`, `parked`, `approved`, `in_progress`, `done`, `abandoned`.
    pub state: String,
}

type Lookup = Arc<dyn Fn(&str) -> Option<LibraryPlan> + Send + Sync>;
type SlugChanged = Arc<dyn Fn(&str) + Send + Sync>;
/// What an approval that dispatches a plan hands over.
#[derive(Debug, Clone, Copy)]
pub struct DispatchRequest<'a> {
    pub slug: &'a str,
    /// The permission mode chosen at approval (`None`: the dispatch's
    /// default).
    pub mode: Option<PermissionMode>,
    /// The ExitPlanMode call approved (its background task names it).
    pub tool_use_id: Option<&'a str>,
}

/// Hands a plan to a background agent: what was started, or why not.
pub type Dispatcher = Arc<dyn Fn(DispatchRequest<'_>) -> Result<String, String> + Send + Sync>;

/// How the plan layer reaches the library and tells the transcript about
/// a new slug; both set by the builder.
#[derive(Default)]
pub struct LibraryHooks {
    lookup: Mutex<Option<Lookup>>,
    slug_changed: Mutex<Option<SlugChanged>>,
    /// `planNames: "date-topic"`.
    date_topic: std::sync::atomic::AtomicBool,
    /// The last input while there was no plan file: a topic for a plan
    /// without a heading.
    request: Mutex<Option<String>>,
    dispatcher: Mutex<Option<Dispatcher>>,
}

impl std::fmt::Debug for LibraryHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LibraryHooks")
    }
}

impl LibraryHooks {
    pub fn set_lookup(&self, lookup: Lookup) {
        *lock(&self.lookup) = Some(lookup);
    }

    pub fn set_slug_changed(&self, observer: SlugChanged) {
        *lock(&self.slug_changed) = Some(observer);
    }

    pub fn set_dispatcher(&self, dispatcher: Dispatcher) {
        *lock(&self.dispatcher) = Some(dispatcher);
    }

    /// Hands a plan to a background agent (the approval's fifth choice),
    /// in the mode chosen at approval.
    pub fn dispatch(&self, request: DispatchRequest<'_>) -> Result<String, String> {
        let dispatcher = lock(&self.dispatcher).clone();
        match dispatcher {
            Some(dispatch) => dispatch(request),
            None => Err("this session cannot start background agents".to_string()),
        }
    }

    /// How new plan files are named (`planNames`).
    pub fn set_names(&self, names: crate::plan::files::topic::PlanNames) {
        self.date_topic.store(
            names == crate::plan::files::topic::PlanNames::DateTopic,
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// An input arrived while the session had no plan file yet.
    pub fn note_request(&self, text: &str) {
        if !text.trim().is_empty() && !text.trim_start().starts_with('/') {
            *lock(&self.request) = Some(text.to_string());
        }
    }

    pub(in crate::plan) fn lookup(&self, slug: &str) -> Option<LibraryPlan> {
        let lookup = lock(&self.lookup).clone()?;
        lookup(slug)
    }

    pub(in crate::plan) fn slug_changed(&self, slug: &str) {
        let observer = lock(&self.slug_changed).clone();
        if let Some(observer) = observer {
            observer(slug);
        }
    }

    /// Whether new plans are named `{date}-{topic}` (`planNames`).
    pub(in crate::plan) fn names_by_date_topic(&self) -> bool {
        self.date_topic.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The last input while there was no plan file.
    pub(in crate::plan) fn request(&self) -> Option<String> {
        lock(&self.request).clone()
    }
}

//! Where a rewind goes back to, and its id for scripts (`--rewind-to`,
//! `/rewind ID`): a user message, an approval of a plan, or just before an
//! earlier rewind. A plain value below both the rewind ([`super::rewind`])
//! and its words ([`super::report`]), so the words need nothing of the
//! rewind and the imports run one way.

/// Where to go back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RewindTarget {
    /// The moment before the user message with this id (its transcript
    /// uuid, the `uuid` a client gave it or saw echoed).
    Message(String),
    /// An approval of plan `slug` (`None`: of any plan): the `approval`-th
    /// of them, counted from 1 in the order they were made (`None`: the
    /// last). A plan approved again after a revision keeps its slug, so
    /// each of its approvals is its own point.
    Plan {
        slug: Option<String>,
        approval: Option<usize>,
    },
    /// Just before an earlier rewind (the id of its checkpoint).
    BeforeRewind(String),
}

impl RewindTarget {
    /// Reads an id as written by [`Self::id`]: `plan:SLUG#N`, `plan:SLUG`,
    /// `plan`, `undo:ID`, or a message id.
    pub fn parse(id: &str) -> RewindTarget {
        let id = id.trim();
        if id == "plan" {
            RewindTarget::Plan {
                slug: None,
                approval: None,
            }
        } else if let Some(rest) = id.strip_prefix("plan:") {
            let (slug, approval) = match rest.rsplit_once('#') {
                Some((slug, n)) => match n.parse::<usize>() {
                    Ok(n) => (slug, Some(n)),
                    Err(_) => (rest, None),
                },
                None => (rest, None),
            };
            RewindTarget::Plan {
                slug: Some(slug.to_string()),
                approval,
            }
        } else if let Some(entry) = id.strip_prefix("undo:") {
            RewindTarget::BeforeRewind(entry.to_string())
        } else {
            RewindTarget::Message(id.to_string())
        }
    }

    pub fn id(&self) -> String {
        match self {
            RewindTarget::Message(uuid) => uuid.clone(),
            RewindTarget::Plan {
                slug: Some(slug),
                approval: Some(n),
            } => format!("plan:{slug}#{n}"),
            RewindTarget::Plan {
                slug: Some(slug),
                approval: None,
            } => format!("plan:{slug}"),
            RewindTarget::Plan { slug: None, .. } => "plan".to_string(),
            RewindTarget::BeforeRewind(entry) => format!("undo:{entry}"),
        }
    }
}

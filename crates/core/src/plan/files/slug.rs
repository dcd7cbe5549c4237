//! Plan slugs: the `{word}-{word}-{word}` name of a session's plan
//! file, generated lazily once per session and cached so every lookup in the
//! session (permission checks, `/plan`, attachments, ExitPlanMode) resolves
//! to the same file.

use crate::sync::lock;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use rand::seq::IndexedRandom;

use crate::plan::files::slug_words::{FIRST, SECOND, THIRD};

/// How many fresh slugs are tried before accepting one whose file exists.
pub const MAX_SLUG_ATTEMPTS: usize = 10;

/// A new random slug such as `brisk-cedar-otter`.
pub fn generate_slug() -> String {
    let mut rng = rand::rng();
    let pick = |list: &[&'static str], rng: &mut rand::rngs::ThreadRng| {
        list.choose(rng).copied().unwrap_or("plan")
    };
    let a = pick(FIRST, &mut rng);
    let b = pick(SECOND, &mut rng);
    let c = pick(THIRD, &mut rng);
    format!("{a}-{b}-{c}")
}

/// Whether `slug` is safe to use as a plan file stem: 1 to 100 characters of
/// lowercase ASCII letters, digits and `-`, not starting or ending with `-`.
/// Slugs restored from a transcript go through this check so a crafted
/// transcript cannot point the plan file outside the plans directory.
pub fn is_valid_slug(slug: &str) -> bool {
    !slug.is_empty()
        && slug.len() <= 100
        && !slug.starts_with('-')
        && !slug.ends_with('-')
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A slug that failed [`is_valid_slug`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid plan slug '{0}': a slug is 1-100 lowercase letters, digits and '-' (for example 'brisk-cedar-otter')"
)]
pub struct InvalidSlug(pub String);

/// Session id → slug. Thread-safe; one instance per process (or per engine)
/// shared by everything that needs the plan file path.
#[derive(Debug, Default)]
pub struct PlanSlugs {
    cache: Mutex<HashMap<String, String>>,
}

impl PlanSlugs {
    pub fn new() -> Self {
        Self::default()
    }

    /// The session's slug, generating one on first use. A new slug avoids an
    /// existing `{slug}.md` in `dir` for up to [`MAX_SLUG_ATTEMPTS`] tries;
    /// after that the last candidate is used (and a warning logged).
    pub fn get_or_create(&self, session_id: &str, dir: &Path) -> String {
        self.get_or_create_with(session_id, dir, generate_slug)
    }

    /// [`Self::get_or_create`] with an explicit generator (tests).
    pub fn get_or_create_with(
        &self,
        session_id: &str,
        dir: &Path,
        mut generate: impl FnMut() -> String,
    ) -> String {
        let mut cache = lock(&self.cache);
        if let Some(slug) = cache.get(session_id) {
            return slug.clone();
        }
        let mut slug = generate();
        let mut attempts = 1;
        while dir.join(format!("{slug}.md")).exists() {
            if attempts >= MAX_SLUG_ATTEMPTS {
                tracing::warn!(
                    slug = %slug,
                    dir = %dir.display(),
                    "every generated plan slug names an existing plan file; reusing the last one"
                );
                break;
            }
            slug = generate();
            attempts += 1;
        }
        cache.insert(session_id.to_string(), slug.clone());
        slug
    }

    /// The cached slug of a session, if one was generated or set.
    pub fn get(&self, session_id: &str) -> Option<String> {
        lock(&self.cache).get(session_id).cloned()
    }

    /// Pins a session to a slug (resume: the slug recorded in the transcript).
    pub fn set(&self, session_id: &str, slug: &str) -> Result<(), InvalidSlug> {
        if !is_valid_slug(slug) {
            return Err(InvalidSlug(slug.to_string()));
        }
        lock(&self.cache).insert(session_id.to_string(), slug.to_string());
        Ok(())
    }

    /// Forgets one session's slug (the next lookup generates a new one).
    pub fn clear(&self, session_id: &str) {
        lock(&self.cache).remove(session_id);
    }

    /// Forgets every slug (`/clear`).
    pub fn clear_all(&self) {
        lock(&self.cache).clear();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn word_lists_are_large_clean_and_distinct() {
        let mut all = HashSet::new();
        for list in [FIRST, SECOND, THIRD] {
            assert!(list.len() >= 100, "list has only {} words", list.len());
            let unique: HashSet<_> = list.iter().collect();
            assert_eq!(unique.len(), list.len(), "duplicate word in a list");
            for w in list {
                assert!(
                    !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()),
                    "bad word {w:?}"
                );
                assert!(all.insert(*w), "{w:?} appears in two lists");
            }
        }
        let combinations = FIRST.len() * SECOND.len() * THIRD.len();
        assert!(combinations >= 1_000_000, "{combinations} combinations");
    }

    #[test]
    fn generated_slugs_are_three_listed_words() {
        for _ in 0..200 {
            let slug = generate_slug();
            assert!(is_valid_slug(&slug), "{slug}");
            let parts: Vec<_> = slug.split('-').collect();
            assert_eq!(parts.len(), 3, "{slug}");
            assert!(FIRST.contains(&parts[0]));
            assert!(SECOND.contains(&parts[1]));
            assert!(THIRD.contains(&parts[2]));
        }
    }

    #[test]
    fn same_session_keeps_its_slug_and_sessions_differ() {
        // The slug must not be regenerated per lookup.
        let dir = tempfile::tempdir().unwrap();
        let slugs = PlanSlugs::new();
        let first = slugs.get_or_create("s1", dir.path());
        for _ in 0..5 {
            assert_eq!(slugs.get_or_create("s1", dir.path()), first);
        }
        let mut n = 0;
        let other = slugs.get_or_create_with("s2", dir.path(), || {
            n += 1;
            format!("other-slug-{n}")
        });
        assert_eq!(other, "other-slug-1");
        assert_ne!(other, first);
        assert_eq!(slugs.get("s2").as_deref(), Some("other-slug-1"));
    }

    #[test]
    fn avoids_existing_plan_files() {
        let dir = tempfile::tempdir().unwrap();
        for taken in ["taken-a", "taken-b"] {
            std::fs::write(dir.path().join(format!("{taken}.md")), "x").unwrap();
        }
        let mut candidates = vec!["taken-a", "taken-b", "free-slug"].into_iter();
        let slugs = PlanSlugs::new();
        let slug =
            slugs.get_or_create_with("s", dir.path(), || candidates.next().unwrap().to_string());
        assert_eq!(slug, "free-slug");
    }

    #[test]
    fn gives_up_after_ten_attempts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("same-same-same.md"), "x").unwrap();
        let mut calls = 0;
        let slug = PlanSlugs::new().get_or_create_with("s", dir.path(), || {
            calls += 1;
            "same-same-same".to_string()
        });
        assert_eq!(slug, "same-same-same");
        assert_eq!(calls, MAX_SLUG_ATTEMPTS);
    }

    #[test]
    fn set_clear_and_clear_all() {
        let dir = tempfile::tempdir().unwrap();
        let slugs = PlanSlugs::new();
        slugs.set("s1", "brave-cedar-otter").unwrap();
        assert_eq!(slugs.get_or_create("s1", dir.path()), "brave-cedar-otter");
        assert!(slugs.set("s1", "../escape").is_err());
        assert!(slugs.set("s1", "a/b").is_err());
        assert!(slugs.set("s1", "").is_err());
        assert!(slugs.set("s1", "Upper-Case").is_err());
        assert_eq!(slugs.get("s1").as_deref(), Some("brave-cedar-otter"));
        slugs.clear("s1");
        assert_eq!(slugs.get("s1"), None);
        slugs.set("a", "one-two-three").unwrap();
        slugs.set("b", "four-five-six").unwrap();
        slugs.clear_all();
        assert_eq!(slugs.get("a"), None);
        assert_eq!(slugs.get("b"), None);
    }
}

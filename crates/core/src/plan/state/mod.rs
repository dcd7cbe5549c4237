//! Plan-mode session state and the decision table for
//! entering plan mode.
//!
//! [`PlanState`] holds the one-shot flags the attachment system consumes.
//! It uses atomics so the engine, tools and front ends can share one
//! instance (`Arc<PlanState>`) without a lock. The permission context itself
//! (`mode`, `prePlanMode`, stripped rules) belongs to the permission layer;
//! [`plan_entry_effects`] only tells that layer what to do.

pub mod auto_exit;
pub mod library_hooks;
pub mod plan_session;

#[cfg(test)]
mod auto_exit_tests;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use catui_protocol::PermissionMode;

/// Session-wide plan-mode flags. All methods take `&self`.
#[derive(Debug, Default)]
pub struct PlanState {
    needs_plan_mode_exit_attachment: AtomicBool,
    has_exited_plan_mode_in_session: AtomicBool,
    needs_auto_mode_exit_attachment: AtomicBool,
    /// The pending exit notice is for a parked plan (nothing approved).
    exit_was_park: AtomicBool,
    /// Plan mode was entered again since the last request: the next
    /// request announces it whatever the throttle says (the model may have
    /// been told the mode ended, by a park or an approval, without the
    /// exit reminder ever reaching it).
    entered: AtomicBool,
    full_reminders_sent: AtomicU32,
    sparse_reminders_sent: AtomicU32,
}

impl PlanState {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets everything (`/clear`: a new conversation).
    pub fn reset(&self) {
        for flag in [
            &self.needs_plan_mode_exit_attachment,
            &self.has_exited_plan_mode_in_session,
            &self.needs_auto_mode_exit_attachment,
            &self.exit_was_park,
            &self.entered,
        ] {
            flag.store(false, Ordering::SeqCst);
        }
        self.full_reminders_sent.store(0, Ordering::SeqCst);
        self.sparse_reminders_sent.store(0, Ordering::SeqCst);
    }

    /// Must be called on every permission-mode change, whichever way it
    /// happens (`/plan`, Shift+Tab, EnterPlanMode, ExitPlanMode, the
    /// `set_permission_mode` control). Entering plan mode cancels a pending
    /// exit notice; leaving it schedules one.
    pub fn handle_plan_mode_transition(&self, from: PermissionMode, to: PermissionMode) {
        if to == PermissionMode::Plan && from != PermissionMode::Plan {
            self.set_needs_plan_mode_exit_attachment(false);
            self.exit_was_park.store(false, Ordering::SeqCst);
            self.entered.store(true, Ordering::SeqCst);
        }
        if from == PermissionMode::Plan && to != PermissionMode::Plan {
            self.entered.store(false, Ordering::SeqCst);
        }
        if from == PermissionMode::Plan && to != PermissionMode::Plan {
            self.set_needs_plan_mode_exit_attachment(true);
        }
    }

    /// What ExitPlanMode does when the plan is approved: remember the exit for the re-entry notice and schedule
    /// the exit attachment.
    pub fn record_plan_approved_exit(&self) {
        self.set_has_exited_plan_mode(true);
        self.set_needs_plan_mode_exit_attachment(true);
        self.exit_was_park.store(false, Ordering::SeqCst);
    }

    /// What parking a plan does once plan mode has ended: the exit notice
    /// says nothing was approved, and entering plan mode again re-attaches
    /// the parked plan (the re-entry notice).
    pub fn record_plan_parked(&self) {
        self.set_has_exited_plan_mode(true);
        self.set_needs_plan_mode_exit_attachment(true);
        self.exit_was_park.store(true, Ordering::SeqCst);
    }

    /// Whether plan mode was entered since the last plan-mode reminder;
    /// cleared.
    pub fn take_entered(&self) -> bool {
        self.entered.swap(false, Ordering::SeqCst)
    }

    /// Whether the pending exit notice is for a parked plan; cleared.
    pub fn take_exit_was_park(&self) -> bool {
        self.exit_was_park.swap(false, Ordering::SeqCst)
    }

    pub fn needs_plan_mode_exit_attachment(&self) -> bool {
        self.needs_plan_mode_exit_attachment.load(Ordering::SeqCst)
    }

    pub fn set_needs_plan_mode_exit_attachment(&self, value: bool) {
        self.needs_plan_mode_exit_attachment
            .store(value, Ordering::SeqCst);
    }

    /// Reads and clears the exit flag in one step, so two concurrent
    /// requests cannot both inject the exit attachment.
    pub fn take_needs_plan_mode_exit_attachment(&self) -> bool {
        self.needs_plan_mode_exit_attachment
            .swap(false, Ordering::SeqCst)
    }

    pub fn has_exited_plan_mode_in_session(&self) -> bool {
        self.has_exited_plan_mode_in_session.load(Ordering::SeqCst)
    }

    pub fn set_has_exited_plan_mode(&self, value: bool) {
        self.has_exited_plan_mode_in_session
            .store(value, Ordering::SeqCst);
    }

    pub fn needs_auto_mode_exit_attachment(&self) -> bool {
        self.needs_auto_mode_exit_attachment.load(Ordering::SeqCst)
    }

    pub fn set_needs_auto_mode_exit_attachment(&self, value: bool) {
        self.needs_auto_mode_exit_attachment
            .store(value, Ordering::SeqCst);
    }

    /// Reads and clears the auto-mode exit flag in one step.
    pub fn take_needs_auto_mode_exit_attachment(&self) -> bool {
        self.needs_auto_mode_exit_attachment
            .swap(false, Ordering::SeqCst)
    }

    /// Counts an injected plan-mode reminder. These counters are for
    /// reporting only (context-cost measurements); the full/sparse cadence
    /// is computed from the conversation itself so it survives resume.
    pub fn count_reminder(&self, full: bool) {
        let counter = if full {
            &self.full_reminders_sent
        } else {
            &self.sparse_reminders_sent
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// `(full, sparse)` reminders injected by this process.
    pub fn reminders_sent(&self) -> (u32, u32) {
        (
            self.full_reminders_sent.load(Ordering::Relaxed),
            self.sparse_reminders_sent.load(Ordering::Relaxed),
        )
    }
}

pub use crate::permissions::mode::{
    PlanAutoModeChange, PlanEntryEffects, plan_auto_mode_change, plan_entry_effects,
};

#[cfg(test)]
mod tests {
    use super::*;
    use PermissionMode::*;

    #[test]
    fn transition_into_plan_clears_exit_flag_and_out_of_plan_sets_it() {
        let s = PlanState::new();
        s.set_needs_plan_mode_exit_attachment(true);
        s.handle_plan_mode_transition(Default, Plan);
        assert!(!s.needs_plan_mode_exit_attachment());
        s.handle_plan_mode_transition(Plan, Plan);
        assert!(!s.needs_plan_mode_exit_attachment());
        s.handle_plan_mode_transition(Plan, AcceptEdits);
        assert!(s.needs_plan_mode_exit_attachment());
        // Unrelated transitions leave the flag alone.
        s.handle_plan_mode_transition(AcceptEdits, Default);
        assert!(s.needs_plan_mode_exit_attachment());
        assert!(s.take_needs_plan_mode_exit_attachment());
        assert!(!s.take_needs_plan_mode_exit_attachment());
        // The transition alone does not mark an exit for re-entry purposes.
        assert!(!s.has_exited_plan_mode_in_session());
    }

    #[test]
    fn approved_exit_sets_both_flags() {
        // Both flags, or the re-entry notice or the exit attachment is lost.
        let s = PlanState::new();
        s.record_plan_approved_exit();
        assert!(s.has_exited_plan_mode_in_session());
        assert!(s.needs_plan_mode_exit_attachment());
    }

    #[test]
    fn state_is_shareable_across_threads() {
        let s = std::sync::Arc::new(PlanState::new());
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let s = s.clone();
                std::thread::spawn(move || s.count_reminder(true))
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(s.reminders_sent(), (4, 0));
    }

    fn effects(mode: PermissionMode, auto: bool) -> PlanEntryEffects {
        plan_entry_effects(mode, auto).unwrap()
    }

    #[test]
    fn row_plan_any_is_unchanged() {
        assert_eq!(plan_entry_effects(Plan, true), None);
        assert_eq!(plan_entry_effects(Plan, false), None);
    }

    #[test]
    fn row_auto_with_plan_auto_mode_keeps_auto() {
        let e = effects(Auto, true);
        assert_eq!(e.pre_plan_mode, Auto);
        assert_eq!(e.set_auto_active, None);
        assert!(!e.strip_dangerous && !e.restore_dangerous);
        assert!(!e.needs_auto_mode_exit_attachment);
    }

    #[test]
    fn row_auto_without_plan_auto_mode_turns_auto_off() {
        let e = effects(Auto, false);
        assert_eq!(e.pre_plan_mode, Auto);
        assert_eq!(e.set_auto_active, Some(false));
        assert!(e.restore_dangerous && !e.strip_dangerous);
        assert!(e.needs_auto_mode_exit_attachment);
    }

    #[test]
    fn row_default_and_accept_edits_with_plan_auto_mode_turn_auto_on() {
        for mode in [Default, AcceptEdits] {
            let e = effects(mode, true);
            assert_eq!(e.pre_plan_mode, mode);
            assert_eq!(e.set_auto_active, Some(true));
            assert!(e.strip_dangerous && !e.restore_dangerous);
            assert!(!e.needs_auto_mode_exit_attachment);
        }
    }

    #[test]
    fn row_bypass_with_plan_auto_mode_does_not_turn_auto_on() {
        let e = effects(BypassPermissions, true);
        assert_eq!(e.pre_plan_mode, BypassPermissions);
        assert_eq!(e.set_auto_active, None);
        assert!(!e.strip_dangerous && !e.restore_dangerous);
    }

    #[test]
    fn row_others_without_plan_auto_mode_only_record() {
        for mode in [Default, AcceptEdits, BypassPermissions] {
            let e = effects(mode, false);
            assert_eq!(
                e,
                PlanEntryEffects {
                    pre_plan_mode: mode,
                    set_auto_active: None,
                    strip_dangerous: false,
                    restore_dangerous: false,
                    needs_auto_mode_exit_attachment: false,
                }
            );
        }
    }

    #[test]
    fn settings_change_during_plan_mode() {
        use PlanAutoModeChange::*;
        assert_eq!(
            plan_auto_mode_change(Plan, Some(Default), true, true),
            Some(Restrip)
        );
        assert_eq!(
            plan_auto_mode_change(Plan, Some(Default), true, false),
            Some(Activate)
        );
        assert_eq!(
            plan_auto_mode_change(Plan, Some(Auto), false, true),
            Some(Deactivate)
        );
        assert_eq!(
            plan_auto_mode_change(Plan, Some(Default), false, false),
            None
        );
        assert_eq!(plan_auto_mode_change(Default, None, true, false), None);
        assert_eq!(
            plan_auto_mode_change(Plan, Some(BypassPermissions), true, false),
            None
        );
    }
}

//! Plan mode: plan files, transitions, EnterPlanMode/ExitPlanMode, attachments, workflow prompts.

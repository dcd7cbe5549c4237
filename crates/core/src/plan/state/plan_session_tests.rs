//! Tests of one plan's session state: the verification section, exporting,
//! revisions.

use super::*;

#[test]
fn finds_the_verification_section() {
    let plan = "# Plan\n\n## Steps\n1. do\n\n## Verification\n- cargo test\n- run the demo\n\n## Risks\nnone\n";
    assert_eq!(
        verification_section(plan).unwrap(),
        "- cargo test\n- run the demo"
    );
    assert_eq!(
        verification_section("# Plan\n## Testing\n\n`make check`").unwrap(),
        "`make check`"
    );
    assert_eq!(verification_section("# Plan\nno sections"), None);
}

#[test]
fn export_says_whether_the_session_cannot_export_or_the_export_failed() {
    use crate::plan::export::ExportError;
    let dir = tempfile::tempdir().unwrap();
    let files = || PlanFiles::new(dir.path().into(), "s");
    let bare = PlanSession::new(files(), PlanModeConfig::default(), None);
    let err = bare.export(None).unwrap_err();
    assert!(matches!(err, PlanExportError::Unavailable), "{err}");
    assert_eq!(
        err.to_string(),
        "plan export is not available in this session"
    );
    let never = PlanSession::new(files(), PlanModeConfig::default(), None).with_exporter(
        PlanExporter(Arc::new(|slug: &str, _: Option<&std::path::Path>| {
            Err(ExportError::NeverApproved(slug.to_string()))
        })),
    );
    let err = never.export(None).unwrap_err();
    assert!(
        matches!(&err, PlanExportError::Export(ExportError::NeverApproved(slug)) if *slug == never.files.slug()),
        "{err}"
    );
    // The user reads the exporter's own text.
    assert_eq!(
        err.to_string(),
        ExportError::NeverApproved(never.files.slug()).to_string()
    );
}

#[test]
fn revisions_diff_against_the_previous_one() {
    let dir = tempfile::tempdir().unwrap();
    let s = PlanSession::new(
        PlanFiles::new(dir.path().into(), "s"),
        PlanModeConfig::default(),
        None,
    );
    assert_eq!(s.present_revision("a\nb\n"), RevisionChange::First);
    let RevisionChange::Changed(diff) = s.present_revision("a\nc\n") else {
        panic!("a changed plan has a diff");
    };
    assert!(diff.contains("-b") && diff.contains("+c"), "{diff}");
    assert!(!s.presented_unchanged());
    assert_eq!(
        s.present_revision("a\nc\n"),
        RevisionChange::Unchanged,
        "an unchanged plan is marked as such"
    );
    assert!(s.presented_unchanged());
    s.clear_revisions();
    assert_eq!(s.present_revision("x\n"), RevisionChange::First);
}

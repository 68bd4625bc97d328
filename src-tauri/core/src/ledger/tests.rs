use std::os::unix::fs::PermissionsExt;

use super::*;

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

fn version(name: &str, hash: &str) -> MemoryVersion {
    MemoryVersion {
        scope: Scope::Project,
        project: Some("repo-00000000".into()),
        name: name.into(),
        content_hash: hash.into(),
    }
}

#[test]
fn a_context_holds_what_it_was_given_until_compaction_and_history_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path().join("home"));
    let mut ledger = Ledger::open(&home).unwrap();
    assert_eq!(
        std::fs::metadata(ledger_path(&home))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    let g = ledger
        .start_context("s1", "claude", "startup", true, at("2026-01-01T00:00:00Z"))
        .unwrap();
    assert_eq!(g, 1);
    ledger
        .record(
            "s1",
            "claude",
            g,
            &[
                (version("a", "h1"), Form::Body),
                (version("b", "h2"), Form::Line),
            ],
            at("2026-01-01T00:01:00Z"),
        )
        .unwrap();
    let held = ledger.held("s1").unwrap();
    assert!(held.has_body(&version("a", "h1")));
    assert!(!held.has_body(&version("a", "h9")), "an edit counts as new");
    assert!(held.has_line(&version("b", "h2")) && !held.has_body(&version("b", "h2")));
    assert!(ledger.held("other").unwrap().items.is_empty());

    // A resume keeps the context; a compaction opens the next generation.
    let resumed = ledger
        .start_context("s1", "claude", "resume", false, at("2026-01-01T00:02:00Z"))
        .unwrap();
    assert_eq!(resumed, 1);
    assert!(ledger.held("s1").unwrap().has_body(&version("a", "h1")));
    let compacted = ledger
        .start_context("s1", "claude", "compact", true, at("2026-01-01T00:03:00Z"))
        .unwrap();
    assert_eq!(compacted, 2);
    assert!(ledger.held("s1").unwrap().items.is_empty());

    let history = ledger.injections(Some("s1"), None).unwrap();
    assert_eq!(history.len(), 2, "history rows are kept");
    assert!(history.iter().all(|i| !i.in_context));
    assert_eq!(
        ledger
            .injections(None, Some(at("2026-01-01T00:05:00Z")))
            .unwrap()
            .len(),
        0
    );
    let counts = ledger.use_counts().unwrap();
    assert_eq!(
        counts.get(&(Scope::Project, "repo-00000000".into(), "a".into())),
        Some(&1)
    );
    assert_eq!(
        counts.get(&(Scope::Project, "repo-00000000".into(), "b".into())),
        None,
        "a one-line mention is not a use of the body"
    );
}

#[test]
fn a_corrupt_ledger_is_set_aside_and_a_link_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(LEDGER_FILE);
    std::fs::write(&path, vec![0x5a; 4096]).unwrap();
    let ledger = Ledger::open_at(&path).unwrap();
    assert_eq!(ledger.generation("s").unwrap(), None);
    assert!(tmp.path().join("ledger.sqlite.corrupt-1").exists());

    let linked = tmp.path().join("linked.sqlite");
    std::os::unix::fs::symlink(&path, &linked).unwrap();
    assert!(Ledger::open_at(&linked).is_err());
}

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
    let mut ledger = Ledger::open_at(&path, COMMAND_WAIT).unwrap();
    assert_eq!(ledger.generation("s").unwrap(), None);
    assert!(tmp.path().join("ledger.sqlite.corrupt-1").exists());

    let linked = tmp.path().join("linked.sqlite");
    std::os::unix::fs::symlink(&path, &linked).unwrap();
    assert!(Ledger::open_at(&linked, COMMAND_WAIT).is_err());
}

/// A ledger whose header reads fine but whose pages are damaged ("database disk image is
/// malformed" on the first query, not on open): set aside and started anew on first use, so a
/// context is tracked again from the next turn instead of being given everything every turn.
#[test]
fn a_ledger_damaged_in_the_middle_is_set_aside_on_first_use() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(LEDGER_FILE);
    {
        let mut ledger = Ledger::open_at(&path, COMMAND_WAIT).unwrap();
        let g = ledger
            .start_context("s1", "claude", "startup", true, at("2026-01-01T00:00:00Z"))
            .unwrap();
        let items: Vec<_> = (0..400)
            .map(|i| (version(&format!("memory-{i}"), "h"), Form::Body))
            .collect();
        ledger
            .record("s1", "claude", g, &items, at("2026-01-01T00:01:00Z"))
            .unwrap();
        // Everything into the main file, so the damage below is what a reader finds.
        ledger
            .conn
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    let page = 4096;
    assert!(bytes.len() >= 6 * page, "several pages: {}", bytes.len());
    let mut damaged = bytes.clone();
    // Page 1 (the header and the schema) stays; every other page is overwritten.
    for b in &mut damaged[page..] {
        *b = 0xA5;
    }
    std::fs::write(&path, &damaged).unwrap();

    let mut ledger = Ledger::open_at(&path, COMMAND_WAIT).expect("the header still reads");
    let held = ledger
        .held("s1")
        .expect("a damaged ledger is started over, not an error");
    assert!(held.items.is_empty());
    assert!(
        tmp.path().join("ledger.sqlite.corrupt-1").exists(),
        "the damaged file is kept"
    );
    let g = ledger
        .start_context(
            "s1",
            "claude",
            "first_turn",
            true,
            at("2026-01-01T00:02:00Z"),
        )
        .unwrap();
    ledger
        .record(
            "s1",
            "claude",
            g,
            &[(version("a", "h1"), Form::Body)],
            at("2026-01-01T00:03:00Z"),
        )
        .unwrap();
    assert!(
        ledger.held("s1").unwrap().has_body(&version("a", "h1")),
        "the new ledger tracks"
    );
}

/// Another process holding the write lock costs a caller `busy_wait` and a `Busy` error
/// naming it — not the fifteen seconds every call used to wait.
#[test]
fn a_held_write_lock_fails_a_turn_after_its_own_wait() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(LEDGER_FILE);
    Ledger::open_at(&path, COMMAND_WAIT).unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder
        .execute_batch("BEGIN EXCLUSIVE; INSERT INTO contexts VALUES ('x', 1, 'a', 's', 't');")
        .unwrap();
    let mut ledger = Ledger::open_at(&path, std::time::Duration::from_millis(50)).unwrap();
    let err = ledger
        .start_context("s1", "claude", "startup", true, at("2026-01-01T00:00:00Z"))
        .unwrap_err();
    assert!(
        matches!(err, LedgerError::Busy { waited, .. } if waited.as_millis() == 50),
        "{err}"
    );
    assert!(err.to_string().contains("is busy"), "{err}");
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(
        ledger
            .start_context("s1", "claude", "startup", true, at("2026-01-01T00:00:00Z"))
            .unwrap(),
        1
    );
}

#[test]
fn the_sessions_composed_for_are_listed_newest_context_first() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path().join("home"));
    let mut ledger = Ledger::open(&home).unwrap();
    assert!(ledger.sessions(10).unwrap().is_empty());
    ledger
        .start_context("old", "codex", "startup", true, at("2026-01-01T00:00:00Z"))
        .unwrap();
    ledger
        .start_context("new", "claude", "startup", true, at("2026-01-02T00:00:00Z"))
        .unwrap();
    ledger
        .start_context("old", "codex", "compact", true, at("2026-01-03T00:00:00Z"))
        .unwrap();
    let listed = ledger.sessions(10).unwrap();
    let ids: Vec<(&str, u32)> = listed
        .iter()
        .map(|s| (s.session_id.as_str(), s.generation))
        .collect();
    assert_eq!(ids, [("old", 2), ("new", 1)]);
    assert_eq!(listed[0].agent, "codex");
    assert_eq!(ledger.sessions(1).unwrap().len(), 1);
}

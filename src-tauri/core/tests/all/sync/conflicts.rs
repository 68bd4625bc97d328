//! Never blocks, never loses (DESIGN §15): a memory changed on two machines keeps the later
//! edit in the file, archives the other and files a finding with both texts; delete against
//! edit keeps the edit; rename against edit keeps the new name and the edit.

use super::*;

/// Two machines that have synced `deploy-steps` once.
fn two_synced(tmp: &Path) -> (PathBuf, Machine, Machine) {
    let remote = bare_remote(tmp);
    let a = Machine::new(tmp, "a");
    let b = Machine::new(tmp, "b");
    a.save("deploy-steps", "Tag, build, roll out.", 1);
    a.init(&remote, 2);
    b.init(&remote, 3);
    assert_eq!(
        b.body("deploy-steps").as_deref(),
        Some("Tag, build, roll out.")
    );
    (remote, a, b)
}

fn converged(a: &Machine, b: &Machine, t: i64) {
    a.sync(t);
    b.sync(t + 1);
    a.sync(t + 2);
    assert_eq!(a.files(), b.files(), "the machines did not converge");
    for m in [a, b] {
        m.assert_index_matches();
        m.assert_no_conflict_markers();
    }
}

#[test]
fn an_edit_on_both_machines_keeps_the_later_one_and_files_both_texts() {
    for later_syncs_first in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let (_remote, a, b) = two_synced(tmp.path());
        // `a` edits later than `b`; which one reaches the remote first varies.
        b.save("deploy-steps", "Tag, build, canary, roll out.", 10);
        a.save("deploy-steps", "Tag, build, roll out to eu first.", 20);
        let (first, second) = if later_syncs_first {
            (&a, &b)
        } else {
            (&b, &a)
        };
        first.sync(30);
        let merged = second.sync(31);
        assert_eq!(merged.conflicts.len(), 1, "{merged:?}");
        converged(&a, &b, 40);
        for m in [&a, &b] {
            assert_eq!(
                m.body("deploy-steps").as_deref(),
                Some("Tag, build, roll out to eu first.")
            );
        }
        // The earlier edit is archived, and the inbox has both texts.
        let archived: Vec<String> = [&a, &b].iter().flat_map(|m| m.archived_texts()).collect();
        assert!(archived
            .iter()
            .any(|t| t.contains("Tag, build, canary, roll out.")));
        let findings = second.two_machine_findings();
        assert_eq!(findings.len(), 1, "{findings:?}");
        let f = &findings[0];
        assert_eq!(f.name.as_deref(), Some("deploy-steps"));
        assert!(f.kept.text.contains("roll out to eu first."), "{f:?}");
        assert!(f.other.text.contains("canary"), "{f:?}");
        // Settled from the inbox, it leaves it.
        assert!(second.ws.sync_dismiss(&f.id).unwrap());
        assert!(second.two_machine_findings().is_empty());
    }
}

#[test]
fn deleted_on_one_machine_and_edited_on_the_other_keeps_the_edit() {
    for deleter_syncs_first in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let (_remote, a, b) = two_synced(tmp.path());
        a.forget("deploy-steps", 10);
        b.save("deploy-steps", "Tag, build, canary, roll out.", 11);
        let (first, second) = if deleter_syncs_first {
            (&a, &b)
        } else {
            (&b, &a)
        };
        first.sync(20);
        let merged = second.sync(21);
        assert_eq!(merged.conflicts.len(), 1, "{merged:?}");
        assert!(
            merged.conflicts[0].other.deleted || merged.conflicts[0].kept.text.contains("canary")
        );
        converged(&a, &b, 30);
        for m in [&a, &b] {
            assert_eq!(
                m.body("deploy-steps").as_deref(),
                Some("Tag, build, canary, roll out.")
            );
        }
        let f = &second.two_machine_findings()[0];
        assert!(f.kept.text.contains("canary"), "{f:?}");
        assert!(
            f.other.deleted && f.other.text.contains("Tag, build, roll out."),
            "{f:?}"
        );
    }
}

#[test]
fn a_rename_on_one_machine_and_an_edit_on_the_other_keep_the_new_name_and_the_edit() {
    for renamer_syncs_first in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let (_remote, a, b) = two_synced(tmp.path());
        a.rename("deploy-steps", "release-steps", 10);
        b.save("deploy-steps", "Tag, build, canary, roll out.", 11);
        let (first, second) = if renamer_syncs_first {
            (&a, &b)
        } else {
            (&b, &a)
        };
        first.sync(20);
        let merged = second.sync(21);
        assert!(merged.conflicts.is_empty(), "{merged:?}");
        converged(&a, &b, 30);
        for m in [&a, &b] {
            assert_eq!(m.body("deploy-steps"), None, "{:?}", m.files().keys());
            assert_eq!(
                m.body("release-steps").as_deref(),
                Some("Tag, build, canary, roll out.")
            );
        }
    }
}

#[test]
fn the_anchor_changed_on_both_machines_keeps_one_text_and_files_the_other() {
    let tmp = tempfile::tempdir().unwrap();
    let (_remote, a, b) = two_synced(tmp.path());
    std::fs::write(a.home.join("USER.md"), "I like short answers.\n").unwrap();
    std::fs::write(b.home.join("USER.md"), "I like long answers.\n").unwrap();
    a.sync(10);
    let merged = b.sync(11);
    assert_eq!(merged.conflicts.len(), 1, "{merged:?}");
    a.sync(12);
    let read = |m: &Machine| std::fs::read_to_string(m.home.join("USER.md")).unwrap();
    assert_eq!(read(&a), read(&b));
    let f = &b.two_machine_findings()[0];
    assert_eq!(f.path, "USER.md");
    let both = format!("{}{}", f.kept.text, f.other.text);
    assert!(
        both.contains("short answers") && both.contains("long answers"),
        "{f:?}"
    );
    // The text the other machine replaced is kept there.
    let replaced: String = std::fs::read_dir(a.home.join("sync/replaced"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(replaced.contains("short answers"), "{replaced}");
}

#[test]
fn two_syncs_of_one_home_never_run_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (_remote, a, _b) = two_synced(tmp.path());
    let held = ambry_store::storage::ScopeLock::acquire(&a.home.join("sync")).unwrap();
    let err = a.ws.sync_now(at(10), false).unwrap_err();
    assert_eq!(ambry_core::report(&err).code, "busy");
    drop(held);
    a.sync(11);
}

#[test]
fn adopting_a_remote_merges_a_memory_both_machines_already_had() {
    let tmp = tempfile::tempdir().unwrap();
    let remote = bare_remote(tmp.path());
    let a = Machine::new(tmp.path(), "a");
    let b = Machine::new(tmp.path(), "b");
    a.save("deploy-steps", "Tag, build, roll out.", 1);
    b.save("deploy-steps", "Tag, build, canary, roll out.", 5);
    a.init(&remote, 10);
    let adopted = b.init(&remote, 11);
    assert_eq!(adopted.conflicts.len(), 1, "{adopted:?}");
    converged(&a, &b, 20);
    assert_eq!(
        a.body("deploy-steps").as_deref(),
        Some("Tag, build, canary, roll out.")
    );
    assert!(b
        .archived_texts()
        .iter()
        .any(|t| t.contains("Tag, build, roll out.")));
    assert!(a
        .archived_texts()
        .iter()
        .any(|t| t.contains("Tag, build, roll out.")));
}

#[test]
fn a_conflict_settled_with_the_other_version_brings_it_back_on_both_machines() {
    let tmp = tempfile::tempdir().unwrap();
    let (_remote, a, b) = two_synced(tmp.path());
    b.save("deploy-steps", "Tag, build, canary, roll out.", 10);
    a.save("deploy-steps", "Tag, build, roll out to eu first.", 20);
    a.sync(30);
    b.sync(31);
    let f = b.two_machine_findings().remove(0);
    assert!(f.kept.text.contains("eu first"), "{f:?}");
    let settled = b.ws.sync_use_other(&f.id, at(40)).unwrap().unwrap();
    assert_eq!(settled.id, f.id);
    assert_eq!(
        b.body("deploy-steps").as_deref(),
        Some("Tag, build, canary, roll out.")
    );
    assert!(b.two_machine_findings().is_empty());
    assert!(b.ws.sync_use_other(&f.id, at(41)).unwrap().is_none());
    converged(&a, &b, 50);
    assert_eq!(
        a.body("deploy-steps").as_deref(),
        Some("Tag, build, canary, roll out.")
    );
    // The version it replaced is archived.
    assert!(b.archived_texts().iter().any(|t| t.contains("eu first")));
}

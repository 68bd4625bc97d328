//! A rename on a real temp home with a project: history, links and test cases follow.

use std::fs;

use chrono::{DateTime, Utc};

use super::*;
use crate::home::AmbryHome;
use crate::memory::MemoryDraft;
use crate::project::Project;

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

fn store() -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().unwrap();
    let project = Project {
        slug: "repo-00000000".into(),
        root: tmp.path().join("repo"),
        remote: None,
    };
    let store = Store::new(AmbryHome::new(tmp.path().join("home")), Some(project));
    (tmp, store)
}

fn draft(name: &str, body: &str) -> MemoryDraft {
    MemoryDraft {
        name: name.into(),
        kind: "project".into(),
        description: format!("about {name}"),
        body: body.into(),
        tags: vec![],
    }
}

#[test]
fn history_links_and_cases_follow_the_new_name() {
    let (_tmp, store) = store();
    let t0 = at("2026-01-01T00:00:00Z");
    store.save(Scope::User, draft("deploy", "v1"), t0).unwrap();
    store
        .save(
            Scope::User,
            draft("deploy", "v2"),
            at("2026-01-02T00:00:00Z"),
        )
        .unwrap();
    store
        .save(
            Scope::User,
            draft(
                "notes",
                "see [[deploy]] and [[deploy|the steps]], not [[deploy-old]]",
            ),
            t0,
        )
        .unwrap();
    store
        .save(
            Scope::Project,
            draft("ci", "ships via [[deploy#release]]"),
            t0,
        )
        .unwrap();
    store
        .save_with_keys(
            Scope::User,
            draft("old-way", "x"),
            &[("superseded_by", "deploy")],
            t0,
        )
        .unwrap();
    let cases = store.dir(Scope::User).unwrap().join("tests.toml");
    fs::write(
        &cases,
        "# my cases\n[[case]]\nprompt = \"ship it\"\nexpect = [\"deploy\", \"notes\"] # both\n",
    )
    .unwrap();

    let now = at("2026-02-01T00:00:00Z");
    let renamed = store
        .rename_keeping_history(Scope::User, "deploy", "release-process", now)
        .unwrap();

    // The memory: new name, created kept, old file and its index line gone.
    let memory = store.get(Some(Scope::User), "release-process").unwrap();
    assert_eq!(memory.body, "v2\n");
    assert_eq!(memory.created, Some(t0));
    assert_eq!(memory.updated, Some(now));
    assert!(store.get(Some(Scope::User), "deploy").is_err());
    let index = store.index_text(Scope::User).unwrap().unwrap();
    assert!(
        index.contains("[release-process](release-process.md)"),
        "{index}"
    );
    assert!(!index.contains("(deploy.md)"), "{index}");

    // History: every version (v1, and v2 archived by the rename) under the new name only.
    assert_eq!(renamed.versions_moved, 2);
    assert!(store
        .versions(Scope::User, Some("deploy"))
        .unwrap()
        .is_empty());
    let versions = store
        .versions(Scope::User, Some("release-process"))
        .unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(
        Some(&versions[0].path),
        renamed.outcome.archived.as_ref(),
        "the rename reports where the prior version went"
    );
    // A moved version restores under the new name.
    let oldest = &versions[1];
    let restored = store
        .restore(Scope::User, "release-process", &oldest.version, now)
        .unwrap();
    assert_eq!(restored.memory.body, "v1\n");

    // Links in both scopes and the supersession key now name it; others untouched.
    let notes = store.get(Some(Scope::User), "notes").unwrap();
    assert_eq!(
        notes.body,
        "see [[release-process]] and [[release-process|the steps]], not [[deploy-old]]\n"
    );
    let ci = store.get(Some(Scope::Project), "ci").unwrap();
    assert_eq!(ci.body, "ships via [[release-process#release]]\n");
    let old_way = store.get(Some(Scope::User), "old-way").unwrap();
    assert_eq!(
        old_way.lifecycle.superseded_by.as_deref(),
        Some("release-process")
    );
    let mut relinked: Vec<_> = renamed.relinked.iter().map(|r| r.name.as_str()).collect();
    relinked.sort();
    assert_eq!(relinked, ["ci", "notes", "old-way"]);
    // Each relink was an archived save.
    assert_eq!(store.versions(Scope::User, Some("notes")).unwrap().len(), 1);

    // The case file: renamed in place, comments kept.
    assert_eq!(
        fs::read_to_string(&cases).unwrap(),
        "# my cases\n[[case]]\nprompt = \"ship it\"\nexpect = [\"release-process\", \"notes\"] # both\n"
    );
    assert_eq!(renamed.cases_updated, vec![cases]);
    assert!(renamed.notes.is_empty(), "{:?}", renamed.notes);
}

#[test]
fn refusals_write_nothing() {
    let (_tmp, store) = store();
    let t0 = at("2026-01-01T00:00:00Z");
    store.save(Scope::User, draft("a", "x"), t0).unwrap();
    store.save(Scope::User, draft("b", "y"), t0).unwrap();
    let err = |new: &str| {
        store
            .rename_keeping_history(Scope::User, "a", new, t0)
            .unwrap_err()
            .to_string()
    };
    assert!(err("b").contains("already exists"), "{}", err("b"));
    assert!(err("memory").contains("reserved"));
    assert!(err("Bad Name").contains("invalid name"));
    assert!(err("a").contains("already the memory's name"));
    assert!(store
        .rename_keeping_history(Scope::User, "missing", "c", t0)
        .unwrap_err()
        .to_string()
        .contains("no memory named `missing`"));
    assert_eq!(store.get(Some(Scope::User), "a").unwrap().body, "x\n");
    assert!(store.versions(Scope::User, None).unwrap().is_empty());
}

#[test]
fn a_scope_with_its_own_memory_of_the_old_name_keeps_its_links() {
    let (_tmp, store) = store();
    let t0 = at("2026-01-01T00:00:00Z");
    store
        .save(Scope::User, draft("style", "user style"), t0)
        .unwrap();
    store
        .save(Scope::Project, draft("style", "project style"), t0)
        .unwrap();
    store
        .save(Scope::Project, draft("lint", "see [[style]]"), t0)
        .unwrap();
    store
        .rename_keeping_history(Scope::User, "style", "writing-style", t0)
        .unwrap();
    assert_eq!(
        store.get(Some(Scope::Project), "lint").unwrap().body,
        "see [[style]]\n"
    );
}

#[test]
fn retitling_touches_only_the_name_line() {
    let text = "---\nname: 'old'\ntype: user\ndescription: d\nsource: name: old\n---\nname: old\n";
    assert_eq!(
        retitled(text, "old", "new"),
        "---\nname: new\ntype: user\ndescription: d\nsource: name: old\n---\nname: old\n"
    );
}

/// `forget bar; rename foo bar`: bar's history is foo's alone (the old bar's versions, found
/// by name, used to be mixed into it), and the old bar's versions are kept apart under a name of
/// their own, from which they still restore.
#[test]
fn renaming_onto_a_forgotten_name_keeps_the_two_histories_apart() {
    let (_tmp, store) = store();
    let t0 = at("2026-01-01T00:00:00Z");
    store
        .save(Scope::User, draft("bar", "old bar"), t0)
        .unwrap();
    store.save(Scope::User, draft("foo", "foo v1"), t0).unwrap();
    let t1 = at("2026-01-02T00:00:00Z");
    store.save(Scope::User, draft("foo", "foo v2"), t1).unwrap();
    store.forget(Scope::User, "bar", t1).unwrap();
    // A memory already called `bar-forgotten` is left alone: the next free name is taken.
    store
        .save(Scope::User, draft("bar-forgotten", "unrelated"), t0)
        .unwrap();

    let now = at("2026-02-01T00:00:00Z");
    let renamed = store
        .rename_keeping_history(Scope::User, "foo", "bar", now)
        .unwrap();

    let history = store.versions(Scope::User, Some("bar")).unwrap();
    assert_eq!(history.len(), 2, "{history:?}");
    for v in &history {
        let text = store.version_text(Scope::User, "bar", &v.version).unwrap();
        assert!(text.contains("foo v"), "only foo's versions: {text}");
    }
    let earlier = renamed.earlier_history.clone().expect("set aside");
    assert_eq!(earlier.name, "bar-forgotten-2");
    assert_eq!(earlier.versions, 1);
    let aside = store
        .versions(Scope::User, Some("bar-forgotten-2"))
        .unwrap();
    assert_eq!(aside.len(), 1);
    let restored = store
        .restore(Scope::User, "bar-forgotten-2", &aside[0].version, now)
        .unwrap();
    assert_eq!(restored.memory.body, "old bar\n");
    assert_eq!(
        store.get(Some(Scope::User), "bar-forgotten").unwrap().body,
        "unrelated\n"
    );
    assert!(store
        .versions(Scope::User, Some("bar-forgotten"))
        .unwrap()
        .is_empty());
}

#[test]
fn the_set_aside_name_stays_a_valid_name() {
    assert_eq!(forgotten_name("bar", 1), "bar-forgotten");
    assert_eq!(forgotten_name("bar", 3), "bar-forgotten-3");
    let long = "a".repeat(60);
    let aside = forgotten_name(&long, 12);
    assert!(
        validate_name(&aside).is_ok() && aside.ends_with("-forgotten-12"),
        "{aside}"
    );
    let hyphen = format!("{}-b", "a".repeat(53));
    assert!(validate_name(&forgotten_name(&hyphen, 1)).is_ok());
}

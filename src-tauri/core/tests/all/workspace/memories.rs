//! Saving, creating, forgetting and renaming memories through the workspace, and the archive's
//! leaked secrets.

use super::*;

#[test]
fn create_refuses_a_taken_name_even_when_two_creators_race() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.place_of(None).unwrap();
    let winners: Vec<bool> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let (ws, store) = (&ws, &store);
                s.spawn(move || {
                    ws.create(
                        store,
                        Scope::User,
                        draft("shared-name", &format!("writer {i}"), "body"),
                        at(i),
                    )
                    .is_ok()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        winners.iter().filter(|w| **w).count(),
        1,
        "exactly one creator wins: {winners:?}"
    );
    let err = ws
        .create(
            &store,
            Scope::User,
            draft("shared-name", "again", "b"),
            at(9),
        )
        .unwrap_err();
    assert_eq!(err.code(), "already_exists");
    assert_eq!(err.field(), Some("name"));
    // Nothing was archived: no creator overwrote another.
    assert!(ws.versions(&store, Scope::User, None).unwrap().is_empty());
}

#[test]
fn timestamps_come_from_the_clock_passed_in() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.place_of(None).unwrap();
    ws.save(&store, Scope::User, draft("clocked", "d", "one"), at(1))
        .unwrap();
    let saved = ws
        .save(&store, Scope::User, draft("clocked", "d", "two"), at(2))
        .unwrap();
    assert_eq!(
        saved.outcome.memory.created,
        Some(at(1)),
        "an overwrite keeps created"
    );
    assert_eq!(saved.outcome.memory.updated, Some(at(2)));
    let versions = ws.versions(&store, Scope::User, Some("clocked")).unwrap();
    assert_eq!(versions.len(), 1);
    assert!(versions[0].current_exists);
}

#[test]
fn a_leaked_secret_in_the_archive_is_listed_and_purging_it_removes_that_version_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.place_of(None).unwrap();
    assert!(
        ws.leaked_secrets(&store, Scope::User).unwrap().is_empty(),
        "a home with no memories has nothing to report"
    );

    ws.save(
        &store,
        Scope::User,
        draft("db", "database", "connect as app"),
        at(1),
    )
    .unwrap();
    ws.save(
        &store,
        Scope::User,
        draft("db", "database", "connect as the app user"),
        at(2),
    )
    .unwrap();
    ws.save(
        &store,
        Scope::User,
        draft("db", "database", "the password lives in the vault"),
        at(3),
    )
    .unwrap();
    let versions = ws.versions(&store, Scope::User, Some("db")).unwrap();
    assert_eq!(versions.len(), 2);
    // The older version, as an earlier filter let it through, holds a password.
    let (leaked, clean) = (&versions[1], &versions[0]);
    std::fs::write(
        &leaked.path,
        "---\nname: db\ntype: project\ndescription: database\n---\nDB_PASSWORD=Xk9mP2vL7qRt\n",
    )
    .unwrap();
    let current = store.dir(Scope::User).unwrap().join("db.md");
    let (current_before, clean_before) = (
        std::fs::read(&current).unwrap(),
        std::fs::read(&clean.path).unwrap(),
    );

    let found = ws.leaked_secrets(&store, Scope::User).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].name.as_str(), found[0].version.as_deref()),
        ("db", Some(leaked.version.as_str()))
    );
    assert!(
        !found[0].excerpt.contains("7qRt"),
        "the excerpt is masked: {}",
        found[0].excerpt
    );

    let removed = ws
        .purge_version(&store, Scope::User, "db", &leaked.version)
        .unwrap();
    assert_eq!(removed, leaked.path);
    assert!(!leaked.path.exists());
    assert_eq!(
        std::fs::read(&current).unwrap(),
        current_before,
        "the memory itself is untouched"
    );
    assert_eq!(
        std::fs::read(&clean.path).unwrap(),
        clean_before,
        "the other version is untouched"
    );
    assert_eq!(
        ws.versions(&store, Scope::User, Some("db")).unwrap().len(),
        1
    );
    assert!(ws.leaked_secrets(&store, Scope::User).unwrap().is_empty());

    // A version that is gone, or that is not a version id at all, is an error that removes nothing.
    for version in [leaked.version.as_str(), "../db", "1.zz"] {
        let err = ws
            .purge_version(&store, Scope::User, "db", version)
            .unwrap_err();
        assert_eq!(err.code(), "version_not_found", "{version}: {err}");
    }
    let err = ws
        .purge_version(&store, Scope::User, "../db", &clean.version)
        .unwrap_err();
    assert_eq!(err.field(), Some("name"), "{err}");
    assert!(clean.path.exists() && current.exists());
}

/// The app's in-place name edit (a save whose draft carries a new name) renames the way
/// `memory rename` does: the history, the `[[links]]` and the retrieval-test cases follow.
#[test]
fn an_in_place_name_edit_keeps_history_links_and_retrieval_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.place_of(None).unwrap();
    ws.create(
        &store,
        Scope::User,
        draft("deploy", "How to deploy", "make deploy"),
        at(0),
    )
    .unwrap();
    ws.save(
        &store,
        Scope::User,
        draft("deploy", "How to deploy", "make deploy-prod"),
        at(1),
    )
    .unwrap();
    ws.create(
        &store,
        Scope::User,
        draft(
            "release-notes",
            "Release steps",
            "First [[deploy]], then announce.",
        ),
        at(2),
    )
    .unwrap();
    ws.add_memory_test(
        None,
        ambry_compose::compose::cases::CaseSpec {
            prompt: "how do I deploy".into(),
            expect: vec!["deploy".into()],
            reject: vec![],
            within: None,
        },
    )
    .unwrap();

    // An edit the save refuses (a secret) renames nothing either.
    let refused = ws.rename(
        &store,
        Scope::User,
        "deploy",
        draft(
            "ship-it",
            "How to deploy",
            "key id AKIAZ3MXQ7V2LPRT4K9B in prod",
        ),
        at(3),
    );
    assert!(refused.is_err());
    assert!(ws.get(&store, Some(Scope::User), "deploy").is_ok());
    assert!(ws.get(&store, Some(Scope::User), "ship-it").is_err());
    let saved = ws
        .rename(
            &store,
            Scope::User,
            "deploy",
            draft(
                "ship-it",
                "How to deploy",
                "make deploy-prod, then watch the dashboard",
            ),
            at(3),
        )
        .unwrap();
    assert_eq!(saved.outcome.memory.name, "ship-it");
    assert!(saved.outcome.memory.body.contains("watch the dashboard"));
    // Both earlier versions and the renamed one are listed under the new name; none under the old.
    let versions = ws.versions(&store, Scope::User, Some("ship-it")).unwrap();
    assert!(versions.len() >= 2, "{versions:?}");
    assert!(ws
        .versions(&store, Scope::User, Some("deploy"))
        .unwrap()
        .is_empty());
    let notes = ws.get(&store, Some(Scope::User), "release-notes").unwrap();
    assert!(notes.body.contains("[[ship-it]]"), "{}", notes.body);
    let cases = std::fs::read_to_string(tmp.path().join("home/memory/tests.toml")).unwrap();
    assert!(
        cases.contains("ship-it") && !cases.contains("\"deploy\""),
        "{cases}"
    );
    assert!(ws.get(&store, Some(Scope::User), "deploy").is_err());
}

/// A merge and a supersede from the review are each undone by the versions they replaced: every
/// file they touched is back byte for byte, the forgotten one included.
#[test]
fn a_review_merge_and_a_supersede_are_undone_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let place = ws.place_of(None).unwrap();
    for (name, body) in [
        (
            "test-style",
            "Tests use real databases. Each test cleans up.",
        ),
        (
            "test-rules",
            "Tests use real databases.\nRun them with nextest.",
        ),
    ] {
        ws.create(
            &place,
            Scope::User,
            draft(name, "How tests are written", body),
            at(0),
        )
        .unwrap();
    }
    let file = |name: &str| tmp.path().join("home/memory").join(format!("{name}.md"));
    let text = |name: &str| std::fs::read_to_string(file(name)).ok();
    let before = (text("test-style").unwrap(), text("test-rules").unwrap());

    let merged = ws
        .review_merge(
            &place,
            (Scope::User, "test-style"),
            (Scope::User, "test-rules"),
            ambry_core::MergeText {
                body: None,
                description: Some("How tests are written and run".into()),
            },
            at(1),
        )
        .unwrap();
    assert_eq!(
        merged.memory.body,
        "Tests use real databases. Each test cleans up.\nRun them with nextest.\n"
    );
    assert_eq!(merged.memory.description, "How tests are written and run");
    assert_eq!(text("test-rules"), None);
    ws.review_undo(&place, &merged.undo, at(2)).unwrap();
    assert_eq!(text("test-style").as_deref(), Some(before.0.as_str()));
    assert_eq!(text("test-rules").as_deref(), Some(before.1.as_str()));

    let superseded = ws
        .review_supersede(&place, Scope::User, "test-rules", "test-style", at(3))
        .unwrap();
    assert!(text("test-rules")
        .unwrap()
        .contains("superseded_by: test-style"));
    ws.review_undo(&place, &superseded.undo, at(4)).unwrap();
    assert_eq!(text("test-rules").as_deref(), Some(before.1.as_str()));
}

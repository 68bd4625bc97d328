//! Two machines, one remote: what travels arrives byte for byte, through the store; what never
//! travels stays home.

use super::*;
use crate::support::StoreBelow;

/// A git repository with an `origin`, as a person's project checkout.
fn checkout(dir: &Path, origin: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "--quiet"]);
    git(dir, &["remote", "add", "origin", origin]);
    dir.to_path_buf()
}

#[test]
fn memories_the_anchor_tests_and_remote_projects_arrive_on_the_other_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let remote = bare_remote(tmp.path());
    let a = Machine::new(tmp.path(), "a");
    let b = Machine::new(tmp.path(), "b");

    a.save("deploy-steps", "Tag, build, roll out.", 1);
    std::fs::write(a.home.join("USER.md"), "# Me\nI like short answers.\n").unwrap();
    std::fs::write(
        a.home.join("memory/tests.toml"),
        "[[case]]\nquery = \"how do we deploy\"\nexpect = [\"deploy-steps\"]\n",
    )
    .unwrap();
    let ledger = checkout(
        &tmp.path().join("src/ledger"),
        "git@github.com:acme/ledger.git",
    );
    let project_store = a.ws.place_at(&ledger);
    a.ws.save(
        &project_store,
        Scope::Project,
        draft("ledger-rounding", "Banker's rounding."),
        at(2),
    )
    .unwrap();
    // A folder without a remote: its slug is a hash of a path on this machine only.
    let plain = tmp.path().join("src/scratch");
    std::fs::create_dir_all(&plain).unwrap();
    a.ws.save(
        &a.ws.place_at(&plain),
        Scope::Project,
        draft("scratch-note", "Local only."),
        at(3),
    )
    .unwrap();

    let first = a.init(&remote, 4);
    assert!(first.pushed, "{first:?}");
    b.save("code-style", "rustfmt; clippy clean.", 5);
    let adopted = b.init(&remote, 6);
    assert!(
        adopted
            .received
            .contains(&"memory/deploy-steps.md".to_string()),
        "{adopted:?}"
    );
    a.sync(7);

    // Both machines hold the same bytes.
    assert_eq!(a.files(), b.files());
    assert_eq!(a.files().len(), 2);
    assert_eq!(
        std::fs::read_to_string(b.home.join("USER.md")).unwrap(),
        "# Me\nI like short answers.\n"
    );
    assert!(std::fs::read_to_string(b.home.join("memory/tests.toml"))
        .unwrap()
        .contains("deploy-steps"));
    // The project arrived under the same slug, known by its remote.
    let slug = project_store.project().unwrap().slug.clone();
    let known = b.ws.project(&slug).unwrap();
    assert_eq!(known.remote.as_deref(), Some("github.com/acme/ledger"));
    let b_project = b.ws.store_for(Some(&slug)).unwrap();
    assert_eq!(
        b_project
            .get(Some(Scope::Project), "ledger-rounding")
            .unwrap()
            .body,
        "Banker's rounding.\n"
    );
    assert!(b_project.index_drift(Scope::Project).unwrap().is_empty());
    a.assert_index_matches();
    b.assert_index_matches();
    assert!(b.body("scratch-note").is_none());

    // The remote holds only what travels.
    let paths = remote_paths(&remote);
    assert!(
        paths.contains(&format!("projects/{slug}/memory/ledger-rounding.md")),
        "{paths:?}"
    );
    for path in &paths {
        assert!(
            ambry_sync::sync::allowlist::Kind::of(path).is_ok(),
            "{path} is on the remote"
        );
        for never in [
            "MEMORY.md",
            ".vec",
            ".archive",
            "config.toml",
            "project.toml",
            "scratch",
        ] {
            assert!(!path.contains(never), "{path} is on the remote");
        }
    }
    let status = b.ws.sync_status().unwrap();
    assert_eq!(status.state.last_error, None);
    assert_eq!((status.state.ahead, status.state.behind), (0, 0));
    assert!(status.state.last_sync.is_some());

    // A project record that lost its remote does not turn into deletes on the other machines.
    std::fs::remove_file(b.home.join(format!("projects/{slug}/project.toml"))).unwrap();
    b.save("another-note", "Still here.", 8);
    b.sync(9);
    a.sync(10);
    assert!(remote_paths(&remote).contains(&format!("projects/{slug}/memory/ledger-rounding.md")));
    assert!(a
        .ws
        .store_for(Some(&slug))
        .unwrap()
        .get(Some(Scope::Project), "ledger-rounding")
        .is_ok());
}

#[test]
fn a_sync_with_nothing_new_changes_nothing_and_a_dry_run_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let remote = bare_remote(tmp.path());
    let a = Machine::new(tmp.path(), "a");
    let b = Machine::new(tmp.path(), "b");
    a.save("deploy-steps", "Tag, build, roll out.", 1);
    a.init(&remote, 2);
    b.init(&remote, 3);
    let head = git(&remote, &["rev-parse", "main"]);
    let again = b.sync(4);
    assert!(
        again.sent.is_empty() && again.received.is_empty() && !again.pushed,
        "{again:?}"
    );
    assert_eq!(git(&remote, &["rev-parse", "main"]), head);
    assert_eq!(b.ws.sync_status().unwrap().unsent, Some(0));
    b.save("code-style", "rustfmt.", 4);
    assert_eq!(
        b.ws.sync_status().unwrap().unsent,
        Some(1),
        "a local change not sent yet"
    );
    b.sync(4);
    assert_eq!(b.ws.sync_status().unwrap().unsent, Some(0));

    a.save("deploy-steps", "Tag, build, canary, roll out.", 5);
    a.sync(6);
    let preview = b.ws.sync_now(at(7), true).unwrap();
    assert_eq!(preview.received, vec!["memory/deploy-steps.md".to_string()]);
    assert_eq!(
        b.body("deploy-steps").as_deref(),
        Some("Tag, build, roll out.")
    );
    b.sync(8);
    assert_eq!(
        b.body("deploy-steps").as_deref(),
        Some("Tag, build, canary, roll out.")
    );
    // The store's write path: the prior version is in the archive.
    assert!(b
        .archived_texts()
        .iter()
        .any(|t| t.contains("Tag, build, roll out.")));
}

#[test]
fn a_memory_that_looks_like_a_secret_is_never_committed() {
    let tmp = tempfile::tempdir().unwrap();
    let remote = bare_remote(tmp.path());
    let a = Machine::new(tmp.path(), "a");
    a.save("deploy-steps", "Tag, build, roll out.", 1);
    a.init(&remote, 2);
    // Hand-edited into the file (a save would have refused it).
    let path = a.home.join("memory/deploy-steps.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace(
            "roll out.",
            "token ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R",
        ),
    )
    .unwrap();
    std::fs::write(
        a.home.join("memory/aws.md"),
        "---\nname: aws\ntype: reference\ndescription: keys\n---\nkey id AKIAZ3MXQ7V2LPRT4K9B in prod\n",
    )
    .unwrap();
    let report = a.sync(3);
    let withheld: Vec<&str> = report.withheld.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(
        withheld,
        ["memory/aws.md", "memory/deploy-steps.md"],
        "{report:?}"
    );
    let everything = git(&remote, &["log", "--all", "-p"]);
    assert!(
        !everything.contains("ghp_4f8Kq2"),
        "the secret was committed"
    );
    assert!(
        !everything.contains("AKIAZ3MXQ7"),
        "the secret was committed"
    );
    // Held back is not deleted: the last clean version stays on the remote.
    assert!(remote_paths(&remote).contains(&"memory/deploy-steps.md".to_string()));
    assert_eq!(a.ws.sync_status().unwrap().state.withheld.len(), 2);
}

#[test]
fn an_unreachable_remote_is_a_clear_error_naming_it_and_status_keeps_it() {
    let tmp = tempfile::tempdir().unwrap();
    let a = Machine::new(tmp.path(), "a");
    a.save("deploy-steps", "Tag, build, roll out.", 1);
    let missing = tmp.path().join("no-such-remote.git");
    let started = std::time::Instant::now();
    let err =
        a.ws.sync_init(&missing.display().to_string(), &a.home, at(2))
            .unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let report = ambry_core::report(&err);
    assert_eq!(report.code, "remote_unreachable", "{report:?}");
    assert!(
        report.message.contains("no-such-remote.git"),
        "{}",
        report.message
    );
    let status = a.ws.sync_status().unwrap();
    let last = status.state.last_error.expect("status keeps the error");
    assert_eq!(last.code, "remote_unreachable");
    // Not set up: the remote was not written to the configuration.
    assert!(!a.ws.sync_configured().unwrap());
    let not_set_up = a.ws.sync_now(at(3), false).unwrap_err();
    assert_eq!(ambry_core::report(&not_set_up).code, "sync_not_initialized");
    // Local work goes on.
    a.save("deploy-steps", "Tag, build, canary.", 4);
}

//! The watcher: appends and new roots indexed as they happen.

use super::*;

#[test]
fn the_watcher_indexes_appends_and_new_roots() {
    let env = Env::new();
    let path = env.ambry().join("w1.jsonl");
    write(&path, &line("user", "lima"));
    let changes: Arc<Mutex<Vec<SessionChange>>> = Arc::default();
    let sink = changes.clone();
    let cfg = SessionsConfig::default();
    let watcher = SessionWatcher::start(
        env.home.index_db(),
        env.roots.clone(),
        cfg,
        Box::new(|| NOW + 60),
        Box::new(move |c| sink.lock().unwrap().push(c)),
    )
    .unwrap();
    let wait_for = |what: &str, check: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !check() {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; changes: {:?}",
                changes.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_for("the catch-up run", &|| count(&env.open(), "lima") == 1);

    append(&path, &line("assistant", "mike nectarine"));
    wait_for("the append", &|| count(&env.open(), "nectarine") == 1);
    assert!(changes.lock().unwrap().iter().any(|c| matches!(c, SessionChange::Indexed { session_id, messages: 1, .. } if session_id == "w1")));

    // The Codex root did not exist when the watcher started.
    let rollout = env
        .codex()
        .join("2026/06/01/rollout-2026-06-01T10-00-00-new.jsonl");
    let s = &session_fixture::SESSIONS[2];
    write(&rollout, &session_fixture::codex_lines(s, 0));
    wait_for("the new root", &|| count(&env.open(), "grace") >= 1);

    fs::remove_file(&path).unwrap();
    wait_for("the removal", &|| {
        changes
            .lock()
            .unwrap()
            .iter()
            .any(|c| matches!(c, SessionChange::Removed { .. }))
    });
    assert_eq!(
        count(&env.open(), "nectarine"),
        1,
        "the vault keeps a deleted transcript searchable"
    );
    let vaulted = env.open().vaulted().unwrap();
    assert_eq!(vaulted.len(), 1);
    assert_eq!(
        vaulted[0].source_removed_at,
        NOW + 60,
        "dated by the watcher's clock"
    );
    drop(watcher);
}

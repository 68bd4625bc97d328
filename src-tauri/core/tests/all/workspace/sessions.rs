//! The workspace's session index: the transcript folders it reads and a reindex that waits for
//! another indexer.

use super::*;

#[test]
fn each_agents_transcript_folder_is_the_one_the_session_index_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let codex_home = tmp.path().join("codex-home");
    let env = LaunchEnv::from_lookup(
        |k| (k == "CODEX_HOME").then(|| codex_home.display().to_string()),
        Some(tmp.path().join("me")),
    );
    let ws = Workspace::new(AmbryHome::new(tmp.path().join("home")), env);
    let statuses = ws.agent_statuses().unwrap();
    let roots = ws.session_roots();
    let folders: Vec<_> = statuses
        .iter()
        .map(|s| (s.connection.agent, s.transcripts_dir.clone()))
        .collect();
    assert_eq!(
        folders,
        [
            (
                ambry_compose::agents::Agent::Claude,
                Some(tmp.path().join("me/.claude/projects"))
            ),
            (
                ambry_compose::agents::Agent::Codex,
                Some(codex_home.join("sessions"))
            ),
        ]
    );
    assert_eq!(folders[0].1, roots.claude);
    assert_eq!(folders[1].1, roots.codex);
    assert!(statuses.iter().all(|s| !s.connected));

    let homeless = Workspace::new(
        AmbryHome::new(tmp.path().join("home2")),
        LaunchEnv::from_lookup(|_| None, None),
    );
    assert!(
        matches!(
            homeless.agent_statuses(),
            Err(ambry_core::WorkspaceError::NoUserHome)
        ),
        "no home directory: nothing to show rather than a guess"
    );
}

/// The app's Reindex while another session indexer runs (`ambry sessions index` in a
/// terminal): it says it is waiting, waits for that run to end, then indexes.
#[test]
fn a_reindex_says_it_waits_for_another_session_indexer_and_then_indexes() {
    use ambry_core::ReindexPhase;
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let ws = workspace(&home, &tmp.path().join("no-models"));
    std::fs::create_dir_all(home.join("sessions")).unwrap();
    let line = serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": "user", "text": "rotate the signing keys"});
    std::fs::write(home.join("sessions/s.jsonl"), format!("{line}\n")).unwrap();
    // What another indexer's run holds, as any process takes it.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(home.join("index.sqlite.writer"))
        .unwrap();
    lock.lock().unwrap();

    let (phases, heard) = std::sync::mpsc::channel();
    let reindex = {
        let ws = ws.clone();
        std::thread::spawn(move || {
            ws.reindex(None, at(1), &mut |phase, _, _| {
                let _ = phases.send(phase);
            })
        })
    };
    let waiting =
        std::iter::from_fn(|| heard.recv_timeout(std::time::Duration::from_secs(60)).ok())
            .find(|p| *p == ReindexPhase::WaitingForIndexer);
    assert!(
        waiting.is_some(),
        "the reindex said it waits for the other indexer"
    );
    assert!(
        !reindex.is_finished(),
        "and waits while the other run holds the index"
    );
    drop(lock);
    let summary = reindex.join().unwrap().unwrap();
    let sessions = summary
        .sessions
        .expect("sessions indexed once the other run ended");
    assert_eq!(sessions.messages_indexed, 1);
}

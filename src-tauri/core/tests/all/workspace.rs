//! The one core façade every front end uses: the operations the app, the CLI, the compose
//! service and the MCP server share, on temporary homes.

use crate::support;

use std::path::Path;
use std::sync::Arc;

use ambry_core::memory::{MemoryDraft, Scope, ScopeFilter};
use ambry_core::workspace::{Coverage, SearchOptions};
use ambry_core::{AmbryHome, ErrorCode, LaunchEnv, Workspace};
use chrono::{DateTime, TimeZone, Utc};

/// A fixed clock: the store's timestamps come from here, never from sleeping.
fn at(second: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, second).unwrap()
}

fn draft(name: &str, description: &str, body: &str) -> MemoryDraft {
    MemoryDraft {
        name: name.into(),
        kind: "project".into(),
        description: description.into(),
        body: body.into(),
        tags: vec![],
    }
}

fn repo(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    assert!(std::process::Command::new("git")
        .arg("init")
        .arg("-q")
        .arg(dir)
        .status()
        .unwrap()
        .success());
    dir.to_path_buf()
}

fn workspace(home: &Path, models: &Path) -> Arc<Workspace> {
    Workspace::with_models(AmbryHome::new(home), models)
}

#[test]
fn create_refuses_a_taken_name_even_when_two_creators_race() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.store_of(None).unwrap();
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
    let store = ws.store_of(None).unwrap();
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
fn search_over_everything_labels_each_hit_with_its_project_and_shadows_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let (a, b) = (
        repo(&tmp.path().join("alpha")),
        repo(&tmp.path().join("beta")),
    );
    ws.save(
        &ws.store_at(&a),
        Scope::Project,
        draft(
            "deploy-steps",
            "How alpha deploys with helm",
            "helm upgrade",
        ),
        at(1),
    )
    .unwrap();
    ws.save(
        &ws.store_at(&b),
        Scope::Project,
        draft("deploy-steps", "How beta deploys with helm", "helm install"),
        at(2),
    )
    .unwrap();
    ws.save(
        &ws.store_of(None).unwrap(),
        Scope::User,
        draft("deploy-steps", "My usual helm deploy", "helm"),
        at(3),
    )
    .unwrap();

    let options = SearchOptions {
        strategy: Some(ambry_core::config::Strategy::Bm25),
        ..Default::default()
    };
    let all = ws
        .search("helm deploy", Coverage::Everything, &options)
        .unwrap();
    let mut labels: Vec<(Scope, Option<String>)> = all
        .hits
        .iter()
        .map(|h| (h.hit.scope, h.project.clone()))
        .collect();
    labels.sort();
    let alpha = ws.store_at(&a).project().unwrap().slug.clone();
    let beta = ws.store_at(&b).project().unwrap().slug.clone();
    let mut expected = vec![
        (Scope::User, None),
        (Scope::Project, Some(alpha.clone())),
        (Scope::Project, Some(beta)),
    ];
    expected.sort();
    assert_eq!(labels, expected);

    // As alpha's agent sees it: alpha's memory shadows the user's namesake; beta is not there.
    let store = ws.store_at(&a);
    let agent = ws
        .search(
            "helm deploy",
            Coverage::Agent(&store, ScopeFilter::All),
            &options,
        )
        .unwrap();
    assert_eq!(agent.hits.len(), 1);
    assert_eq!(agent.hits[0].project.as_deref(), Some(alpha.as_str()));
}

#[test]
fn a_workspace_trusting_its_watcher_searches_what_it_just_saved_with_that_version_s_evidence() {
    // The app's overlay: everything, fifty rows, evident hits only, the corpus kept between
    // keystrokes; a save, an edit or a forget through the workspace is seen by the next search.
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let user = ws.store_of(None).unwrap();
    ws.save(
        &user,
        Scope::User,
        draft("deploy-steps", "How we deploy", "helm upgrade"),
        at(1),
    )
    .unwrap();
    ws.save(
        &user,
        Scope::User,
        draft("tabs", "Indentation", "tabs, never spaces"),
        at(1),
    )
    .unwrap();
    ws.trust_watcher();
    let options = SearchOptions {
        limit: Some(50),
        strategy: Some(ambry_core::config::Strategy::Bm25),
        only_evident: true,
        today: None,
    };
    let found = |query: &str| -> Vec<(String, usize)> {
        let results = ws.search(query, Coverage::Everything, &options).unwrap();
        results
            .hits
            .iter()
            .map(|h| (h.hit.name.clone(), h.evidence.matched_terms))
            .collect()
    };
    assert_eq!(
        found("helm rollback"),
        vec![("deploy-steps".to_string(), 1)]
    );
    ws.save(
        &user,
        Scope::User,
        draft(
            "deploy-steps",
            "How we deploy",
            "helm upgrade; helm rollback on failure",
        ),
        at(2),
    )
    .unwrap();
    assert_eq!(
        found("helm rollback"),
        vec![("deploy-steps".to_string(), 2)],
        "the edit's words count at once"
    );
    ws.save(
        &user,
        Scope::User,
        draft("rollback-drill", "Quarterly rollback drill", "practice"),
        at(3),
    )
    .unwrap();
    assert_eq!(
        found("helm rollback"),
        vec![
            ("deploy-steps".to_string(), 2),
            ("rollback-drill".to_string(), 1)
        ]
    );
    ws.forget(&user, Scope::User, "deploy-steps", at(4))
        .unwrap();
    assert_eq!(
        found("helm rollback"),
        vec![("rollback-drill".to_string(), 1)]
    );
}

#[test]
fn the_configuration_is_reread_when_the_file_changes_and_a_bad_file_is_an_error_every_time() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let ws = workspace(&home, &tmp.path().join("no-models"));
    assert_eq!(ws.config().unwrap().retrieval.top_k, 10);
    std::fs::write(home.join("config.toml"), "[retrieval]\ntop_k = 3\n").unwrap();
    assert_eq!(ws.config().unwrap().retrieval.top_k, 3);
    std::fs::write(home.join("config.toml"), "[retrieval]\ntop_k = \"three\"\n").unwrap();
    for _ in 0..2 {
        let err = ws.config().unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }
}

#[test]
fn an_unknown_project_and_a_project_without_a_root_are_structured_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let Err(err) = ws.store_of(Some("nope-12345678")) else {
        panic!("an unknown slug must be refused")
    };
    assert_eq!(err.code(), "unknown_project");
    let report = ambry_core::report(&err);
    assert_eq!(report.code, "unknown_project");
    assert!(
        report.message.contains("nope-12345678"),
        "{}",
        report.message
    );
}

#[test]
fn reindex_covers_the_user_scope_every_known_project_and_the_callers_own() {
    let models = support::model_paths();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    // Saved without a model: no vectors yet.
    let bare = Workspace::new(
        AmbryHome::new(&home),
        LaunchEnv::with_models_dir(tmp.path().join("no-models")),
    );
    let (a, b, c) = (
        repo(&tmp.path().join("a")),
        repo(&tmp.path().join("b")),
        repo(&tmp.path().join("c")),
    );
    bare.save(
        &bare.store_at(&a),
        Scope::Project,
        draft("fact-a", "d", "alpha"),
        at(1),
    )
    .unwrap();
    bare.save(
        &bare.store_at(&b),
        Scope::Project,
        draft("fact-b", "d", "beta"),
        at(2),
    )
    .unwrap();
    bare.save(
        &bare.store_of(None).unwrap(),
        Scope::User,
        draft("fact-u", "d", "user"),
        at(3),
    )
    .unwrap();
    let vectors = || {
        walk(&home)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "vec"))
            .count()
    };
    assert_eq!(vectors(), 0);

    let ws = Workspace::with_models(AmbryHome::new(&home), models.models_dir());
    // Run from a third repository that has no memories of its own.
    let third = ws.project_at(&c).unwrap();
    let mut seen = 0;
    let report = ws
        .reindex_embeddings(Some(&third), &mut |p| seen = seen.max(p.total))
        .unwrap();
    assert_eq!(report.created, 3, "{report:?}");
    assert_eq!(seen, 3);
    assert_eq!(vectors(), 3);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn instruction_files_are_found_where_the_agents_look_and_edited_through_the_workspace() {
    use ambry_core::instructions::InstructionKind;
    let tmp = tempfile::tempdir().unwrap();
    let user_home = tmp.path().join("me");
    let claude_dir = tmp.path().join("claude-config");
    let env = LaunchEnv::from_lookup(
        |k| (k == "CLAUDE_CONFIG_DIR").then(|| claude_dir.display().to_string()),
        Some(user_home.clone()),
    );
    let ws = Workspace::new(AmbryHome::new(tmp.path().join("home")), env);
    let root = repo(&tmp.path().join("shop"));
    std::fs::write(root.join("AGENTS.md"), "Run `make test` before a commit.\n").unwrap();
    let project = ws.add_project(&root).unwrap();

    let files = ws.instruction_files(Some(&project.slug)).unwrap();
    let kinds: Vec<_> = files.iter().map(|f| (f.kind, f.exists)).collect();
    assert_eq!(
        kinds,
        [
            (InstructionKind::UserClaude, false),
            (InstructionKind::UserAgents, false),
            (InstructionKind::ProjectClaude, false),
            (InstructionKind::ProjectDotClaude, false),
            (InstructionKind::ProjectLocalClaude, false),
            (InstructionKind::ProjectAgents, true),
        ]
    );
    assert_eq!(
        files[0].path,
        claude_dir.join("CLAUDE.md"),
        "CLAUDE_CONFIG_DIR is where Claude Code looks"
    );
    assert_eq!(
        files[1].path,
        user_home.join(".codex/AGENTS.md"),
        "Codex's own AGENTS.md for every project"
    );

    let view = ws
        .instruction(Some(&project.slug), InstructionKind::ProjectAgents)
        .unwrap();
    assert_eq!(view.text, "Run `make test` before a commit.\n");
    let saved = ws
        .save_instruction(
            Some(&project.slug),
            InstructionKind::ProjectAgents,
            "Run `make check`.\n",
            Some(Some(&view.text)),
            at(1),
        )
        .unwrap();
    assert!(
        saved
            .archived
            .as_ref()
            .is_some_and(|p| p.starts_with(ws.home().root())),
        "{saved:?}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("AGENTS.md")).unwrap(),
        "Run `make check`.\n"
    );
    assert_eq!(
        ws.instruction(Some(&project.slug), InstructionKind::ProjectAgents)
            .unwrap()
            .archived_versions,
        1
    );

    ws.save_instruction(
        None,
        InstructionKind::UserClaude,
        "Answer briefly.\n",
        Some(None),
        at(2),
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(claude_dir.join("CLAUDE.md")).unwrap(),
        "Answer briefly.\n"
    );
    assert!(
        !user_home.join(".claude").exists(),
        "nothing written where Claude Code does not look"
    );

    assert_eq!(
        ws.instruction_files(None).unwrap().len(),
        2,
        "without a project only the user-wide files (CLAUDE.md, Codex's AGENTS.md)"
    );
    assert_eq!(
        ws.instruction(None, InstructionKind::ProjectClaude)
            .unwrap_err()
            .code(),
        "no_project"
    );
    assert_eq!(
        ws.instruction_files(Some("nope-00000000"))
            .unwrap_err()
            .code(),
        "unknown_project"
    );
    let homeless = Workspace::new(
        AmbryHome::new(tmp.path().join("home")),
        LaunchEnv::default(),
    );
    assert_eq!(
        homeless.instruction_files(None).unwrap_err().code(),
        "no_home"
    );
}

#[test]
fn a_leaked_secret_in_the_archive_is_listed_and_purging_it_removes_that_version_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.store_of(None).unwrap();
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
                ambry_core::agents::Agent::Claude,
                Some(tmp.path().join("me/.claude/projects"))
            ),
            (
                ambry_core::agents::Agent::Codex,
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
            Err(ambry_core::workspace::WorkspaceError::NoUserHome)
        ),
        "no home directory: nothing to show rather than a guess"
    );
}

/// The compose preview's "save as test": a case lands in the scope it belongs to and the next
/// run judges it like any hand-written one; a name that is not a memory is refused, nothing written.
#[test]
fn a_saved_retrieval_case_goes_where_its_memories_live_and_is_run_from_there() {
    use ambry_core::compose::cases::CaseSpec;
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let root = repo(&tmp.path().join("shop"));
    let project = ws.add_project(&root).unwrap();
    let in_project = ws.store_of(Some(&project.slug)).unwrap();
    ws.save(
        &in_project,
        Scope::User,
        draft(
            "deploy-steps",
            "How to ship a release",
            "Tag, build, roll out.",
        ),
        at(1),
    )
    .unwrap();
    ws.save(
        &in_project,
        Scope::Project,
        draft(
            "db-migrations",
            "Database migrations",
            "Run sqlx migrate before the tests.",
        ),
        at(2),
    )
    .unwrap();
    assert!(
        ws.memory_tests_for(Some(&project.slug)).unwrap().is_none(),
        "no cases yet"
    );

    let case = |prompt: &str, expect: &[&str]| CaseSpec {
        prompt: prompt.into(),
        expect: expect.iter().map(|s| s.to_string()).collect(),
        reject: vec![],
        within: None,
    };
    let user_file = ws
        .add_memory_test(
            Some(&project.slug),
            case("how do we ship a release", &["deploy-steps"]),
        )
        .unwrap();
    assert_eq!(
        user_file,
        in_project.dir(Scope::User).unwrap().join("tests.toml")
    );
    let project_file = ws
        .add_memory_test(
            Some(&project.slug),
            case("migrate the database", &["db-migrations", "deploy-steps"]),
        )
        .unwrap();
    assert_eq!(
        project_file,
        in_project.dir(Scope::Project).unwrap().join("tests.toml"),
        "it expects a project memory"
    );

    let err = ws
        .add_memory_test(Some(&project.slug), case("anything", &["no-such-memory"]))
        .unwrap_err();
    assert_eq!(err.code(), "not_found", "{err}");
    assert_eq!(
        std::fs::read_to_string(&user_file)
            .unwrap()
            .matches("[[case]]")
            .count(),
        1,
        "nothing written for the refused case"
    );

    let report = ws
        .memory_tests_for(Some(&project.slug))
        .unwrap()
        .expect("two cases");
    assert_eq!((report.passed + report.failed, report.cases.len()), (2, 2));
    let user_only = ws
        .memory_tests_for(None)
        .unwrap()
        .expect("the user scope's case");
    assert_eq!(
        user_only.cases.len(),
        1,
        "the project's case runs only where the project's memories are"
    );
    assert_eq!(
        user_only.cases[0].expected[0].rank,
        Some(1),
        "{user_only:?}"
    );
}

/// The app's Reindex while another session indexer runs (`ambry sessions index` in a
/// terminal): it says it is waiting, waits for that run to end, then indexes.
#[test]
fn a_reindex_says_it_waits_for_another_session_indexer_and_then_indexes() {
    use ambry_core::workspace::ReindexPhase;
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

/// The app's in-place name edit (a save whose draft carries a new name) renames the way
/// `memory rename` does: the history, the `[[links]]` and the retrieval-test cases follow.
#[test]
fn an_in_place_name_edit_keeps_history_links_and_retrieval_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.store_of(None).unwrap();
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
        ambry_core::compose::cases::CaseSpec {
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

/// Search finds a superseded or expired memory, marked so a person sees it is no longer given
/// to agents.
#[test]
fn search_marks_superseded_and_expired_memories() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.store_of(None).unwrap();
    for name in ["deploy-old", "deploy-new"] {
        ws.create(
            &store,
            Scope::User,
            draft(name, "How to deploy", "make deploy"),
            at(0),
        )
        .unwrap();
    }
    ws.review_supersede(&store, Scope::User, "deploy-old", "deploy-new", at(1))
        .unwrap();
    let options = SearchOptions {
        strategy: Some(ambry_core::config::Strategy::Bm25),
        today: Some(at(2).date_naive()),
        ..Default::default()
    };
    let hits = ws
        .search(
            "deploy",
            Coverage::Agent(&store, ScopeFilter::All),
            &options,
        )
        .unwrap()
        .hits;
    let retired = |name: &str| {
        hits.iter()
            .find(|h| h.hit.name == name)
            .unwrap_or_else(|| panic!("{name} not found"))
            .retired
            .clone()
    };
    assert_eq!(
        retired("deploy-old"),
        Some(ambry_core::memory::Retirement::Superseded {
            by: "deploy-new".into()
        })
    );
    assert_eq!(retired("deploy-new"), None);
    let rows = ws.list_with_usage(&store, ScopeFilter::All, at(2)).unwrap();
    assert!(rows.iter().any(|r| r.name == "deploy-old" && r.retired));
    assert!(rows.iter().any(|r| r.name == "deploy-new" && !r.retired));
}

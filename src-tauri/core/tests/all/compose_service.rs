//! The compose service on a temp home, in a thread, through its real Unix socket: what a client
//! gets is exactly what composing in-process gives, and the service follows the disk.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use ambry_compose::compose::hook::ContextRequest;
use ambry_compose::compose::{compose, Budgets, ComposeInput, Composition};
use ambry_core::{
    call, spawn_compose_service, Call, ComposeCall, ComposeService, RecallCall, Reply, Request,
    ServiceError,
};
use ambry_core::{AmbryHome, ErrorCode};
use ambry_rank::embed::{save_with_vector, ModelPaths, ModelScorer};
use ambry_rank::rank::{CorpusCache, Semantic};
use ambry_store::config::Config;
use ambry_store::memory::{MemoryDraft, Scope, Store};

const TIMEOUT: Duration = Duration::from_secs(30);

struct Fixture {
    _tmp: tempfile::TempDir,
    home: AmbryHome,
    repo: PathBuf,
    models_dir: PathBuf,
}

impl Fixture {
    fn new(config: &str, models_dir: Option<&Path>) -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("home"));
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".ambry")).unwrap();
        std::fs::create_dir_all(home.root()).unwrap();
        std::fs::write(home.config_file(), config).unwrap();
        std::fs::write(home.user_anchor(), "Prefer small commits.\n").unwrap();
        std::fs::write(repo.join(".ambry/AMBRY.md"), "Ledger service in Go.\n").unwrap();
        let models_dir = models_dir
            .map(Path::to_path_buf)
            .unwrap_or_else(|| tmp.path().join("no-models"));
        Fixture {
            _tmp: tmp,
            home,
            repo,
            models_dir,
        }
    }

    fn store(&self) -> Store {
        Store::new(
            self.home.clone(),
            ambry_store::project::resolve(&self.repo).ok(),
        )
    }

    fn save(&self, scope: Scope, name: &str, description: &str, body: &str) {
        self.store()
            .save(
                scope,
                draft(name, description, body),
                "2026-01-01T00:00:00Z".parse().unwrap(),
            )
            .unwrap();
    }

    fn request(&self, query: &str, _top_k: Option<usize>) -> Request {
        Request::new(Call::Compose(ComposeCall {
            home: self.home.root().to_path_buf(),
            models_dir: self.models_dir.clone(),
            cwd: self.repo.clone(),
            request: ContextRequest::query(query, None),
            now: now(),
        }))
    }

    fn served(&self, query: &str, top_k: Option<usize>) -> Composition {
        match call(&self.home, &self.request(query, top_k), TIMEOUT).unwrap() {
            Reply::Composed(c) => *c,
            other => panic!("expected a composition, got {other:?}"),
        }
    }

    /// What a fresh `ambry compose` process computes.
    fn in_process(&self, query: &str, _top_k: Option<usize>) -> Composition {
        ComposeService::new(ambry_core::Workspace::with_models(
            self.home.clone(),
            self.models_dir.clone(),
        ))
        .compose(&self.repo, &ContextRequest::query(query, None), now())
        .unwrap()
    }

    fn status(&self) -> ambry_core::ServiceStatus {
        match call(&self.home, &Request::new(Call::Status), TIMEOUT).unwrap() {
            Reply::Status(s) => s,
            other => panic!("expected a status, got {other:?}"),
        }
    }
}

fn now() -> chrono::DateTime<chrono::Utc> {
    "2026-06-01T00:00:00Z".parse().unwrap()
}

/// A fresh context for `query` straight through core (no ledger: nothing held).
fn fresh_direct(
    store: &Store,
    config: &Config,
    query: &str,
    semantic: Semantic<'_>,
) -> Composition {
    let held = Default::default();
    let uses = Default::default();
    compose(
        store,
        &mut CorpusCache::in_memory(),
        &config.retrieval,
        &ComposeInput {
            start: true,
            resumed: None,
            query: Some(query),
            conversation: None,
            held: &held,
            gate: ambry_rank::rank::Gate::CALIBRATED,
            budgets: Budgets::from_config(&config.compose),
            uses: &uses,
            today: None,
            disagreements: &ambry_compose::compose::NoDisagreements,
        },
        semantic,
    )
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

/// Byte-for-byte: the printed block, the notes and the `--json` form.
fn assert_same(served: &Composition, local: &Composition) {
    assert_eq!(served.text, local.text);
    assert_eq!(served.notes, local.notes);
    assert_eq!(
        serde_json::to_string_pretty(served).unwrap(),
        serde_json::to_string_pretty(local).unwrap()
    );
}

fn seed(f: &Fixture) {
    f.save(
        Scope::User,
        "deploy-steps",
        "How to deploy the ledger",
        "Run make deploy; watch the canary for ten minutes.",
    );
    f.save(
        Scope::User,
        "commit-style",
        "Commit message conventions",
        "Imperative mood, 72 columns.",
    );
    f.save(
        Scope::Project,
        "jwt-refresh-flow",
        "How auth refresh interacts with the token cache",
        "Refresh tokens rotate on use.",
    );
    f.save(
        Scope::Project,
        "db-migrations",
        "Database migrations",
        "Use sqlx migrate before a deploy.",
    );
}

const BM25: &str = "[retrieval]\nstrategy = \"bm25\"\n";

#[test]
fn a_served_block_is_exactly_the_in_process_one_and_follows_the_disk() {
    let f = Fixture::new(BM25, None);
    seed(&f);
    let handle = spawn_compose_service(ambry_core::Workspace::with_models(
        f.home.clone(),
        f.models_dir.clone(),
    ))
    .unwrap();
    let mode = std::fs::metadata(handle.socket())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "socket mode {mode:o}");

    let query = "why does the token cache break after a deploy?";
    let served = f.served(query, None);
    assert!(
        served.text.contains("### jwt-refresh-flow"),
        "{}",
        served.text
    );
    assert_same(&served, &f.in_process(query, None));
    // The plain core call with a cold in-memory cache agrees too.
    let config = Config::load(&f.home.config_file()).unwrap();
    let direct = fresh_direct(
        &f.store(),
        &config,
        query,
        Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
    );
    assert_eq!(served.text, direct.text);
    assert_same(&f.served(query, None), &f.in_process(query, None));

    // A memory saved by someone else, an edited body, a changed config: all seen at once.
    f.save(
        Scope::User,
        "token-cache",
        "Token cache eviction after deploy",
        "The cache is flushed on every deploy.",
    );
    f.save(
        Scope::Project,
        "jwt-refresh-flow",
        "How auth refresh interacts with the token cache",
        "Rotation moved to the gateway, which now refreshes the token cache after a deploy.",
    );
    let served = f.served(query, None);
    assert!(
        served.text.contains("### token-cache") && served.text.contains("Rotation moved"),
        "{}",
        served.text
    );
    assert_same(&served, &f.in_process(query, None));
    std::fs::write(
        f.home.config_file(),
        "[retrieval]\nstrategy = \"bm25\"\n[compose]\nturn_bytes = 150\n",
    )
    .unwrap();
    let served = f.served(query, None);
    assert!(served.selected.len() <= 1, "{:?}", served.selected);
    assert!(served
        .cut
        .iter()
        .any(|c| c.reason == ambry_compose::compose::CutReason::Budget));
    assert_same(&served, &f.in_process(query, None));

    // A broken config is refused (the client then reports it in-process), then picked up fixed.
    std::fs::write(f.home.config_file(), "[retrieval]\ntop_k = \"many\"\n").unwrap();
    let refused = call(&f.home, &f.request(query, None), TIMEOUT).unwrap_err();
    assert!(
        matches!(&refused, ServiceError::Refused { code, .. } if code == "config_invalid"),
        "{refused}"
    );
    std::fs::write(f.home.config_file(), BM25).unwrap();
    assert_same(&f.served(query, None), &f.in_process(query, None));

    assert_eq!(
        f.status().composed,
        5,
        "every compose call is counted, refusals are not"
    );
    let socket = handle.socket().to_path_buf();
    drop(handle);
    assert!(!socket.exists(), "dropping the handle removes the socket");
    assert!(matches!(
        call(&f.home, &Request::new(Call::Status), TIMEOUT),
        Err(ServiceError::Unreachable { .. })
    ));
}

#[test]
fn another_home_or_models_directory_is_refused_not_answered_wrongly() {
    let f = Fixture::new(BM25, None);
    seed(&f);
    let _handle = spawn_compose_service(ambry_core::Workspace::with_models(
        f.home.clone(),
        f.models_dir.clone(),
    ))
    .unwrap();
    let mut request = f.request("deploy", None);
    if let Call::Compose(c) = &mut request.call {
        c.models_dir = PathBuf::from("/elsewhere/models");
    }
    let e = call(&f.home, &request, TIMEOUT).unwrap_err();
    assert!(
        matches!(&e, ServiceError::Refused { code, .. } if code == "models_dir_mismatch"),
        "{e}"
    );
    if let Call::Compose(c) = &mut request.call {
        c.models_dir = f.models_dir.clone();
        c.home = PathBuf::from("/some/other/home");
    }
    let e = call(&f.home, &request, TIMEOUT).unwrap_err();
    assert!(
        matches!(&e, ServiceError::Refused { code, .. } if code == "home_mismatch"),
        "{e}"
    );
}

#[test]
fn bad_lines_on_the_socket_get_error_replies_and_the_service_keeps_serving() {
    let f = Fixture::new(BM25, None);
    seed(&f);
    let handle = spawn_compose_service(ambry_core::Workspace::with_models(
        f.home.clone(),
        f.models_dir.clone(),
    ))
    .unwrap();
    let raw = |line: &[u8]| -> serde_json::Value {
        let mut stream = UnixStream::connect(handle.socket()).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        stream.write_all(line).unwrap();
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        let mut answer = String::new();
        BufReader::new(stream).read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap()
    };
    assert_eq!(
        raw(b"garbage\n")["reply"]["error"]["code"],
        "malformed_request"
    );
    assert_eq!(
        raw(b"{\"protocol\": 99, \"ambry\": \"9.9.9\", \"call\": \"status\"}\n")["reply"]["error"]
            ["code"],
        "version_mismatch"
    );
    assert_eq!(
        raw(b"\xff\xfe{}\n")["reply"]["error"]["code"],
        "malformed_request"
    );
    assert_eq!(
        raw(b"{\"protocol\": 1}")["reply"]["error"]["code"],
        "malformed_request",
        "no newline, then EOF"
    );
    // A client that hangs up without a newline does not take the service down.
    drop(UnixStream::connect(handle.socket()).unwrap());
    assert_same(&f.served("deploy", None), &f.in_process("deploy", None));
}

#[test]
fn a_slow_client_holds_neither_the_service_nor_its_own_connection_past_the_deadline() {
    let f = Fixture::new(BM25, None);
    seed(&f);
    let handle = spawn_compose_service(ambry_core::Workspace::with_models(
        f.home.clone(),
        f.models_dir.clone(),
    ))
    .unwrap();
    // Trickles a byte every 300 ms: each read is quick, the request as a whole never completes.
    let socket = handle.socket().to_path_buf();
    let (trickling, wait_for_trickling) = std::sync::mpsc::channel();
    let trickler = std::thread::spawn(move || {
        let started = std::time::Instant::now();
        let mut stream = UnixStream::connect(&socket).unwrap();
        for _ in 0..40 {
            if stream.write_all(b" ").is_err() {
                return Some(started.elapsed());
            }
            let _ = trickling.send(());
            std::thread::sleep(Duration::from_millis(300));
        }
        None
    });
    // Its connection is in, ahead of every other one, and has sent its first byte.
    wait_for_trickling.recv_timeout(TIMEOUT).unwrap();
    // Meanwhile others are answered at once (bounded by a short timeout, not the 30 s one).
    for _ in 0..3 {
        match call(&f.home, &Request::new(Call::Status), Duration::from_secs(2)).unwrap() {
            Reply::Status(s) => assert_eq!(s.pid, std::process::id()),
            other => panic!("expected a status, got {other:?}"),
        }
    }
    let composed = call(&f.home, &f.request("deploy", None), Duration::from_secs(2)).unwrap();
    assert!(matches!(composed, Reply::Composed(_)), "{composed:?}");
    let cut_off = trickler
        .join()
        .unwrap()
        .expect("the trickling client is cut off at the request deadline");
    assert!(
        cut_off < Duration::from_secs(11),
        "cut off after {cut_off:?}"
    );
}

#[test]
fn one_server_per_home_and_a_stale_socket_is_replaced() {
    let f = Fixture::new(BM25, None);
    seed(&f);
    // A socket file left behind by a server that died without cleaning up.
    drop(UnixListener::bind(f.home.compose_socket()).unwrap());
    assert!(f.home.compose_socket().exists());
    assert!(matches!(
        call(&f.home, &Request::new(Call::Status), TIMEOUT),
        Err(ServiceError::Unreachable { .. })
    ));

    let first = spawn_compose_service(ambry_core::Workspace::with_models(
        f.home.clone(),
        f.models_dir.clone(),
    ))
    .unwrap();
    assert_eq!(f.status().pid, std::process::id());
    let second = spawn_compose_service(ambry_core::Workspace::with_models(
        f.home.clone(),
        f.models_dir.clone(),
    ))
    .unwrap_err();
    assert_eq!(second.code(), "service_already_running");
    assert!(
        second.to_string().contains(&std::process::id().to_string()),
        "{second}"
    );
    // The loser did not disturb the winner.
    assert_same(&f.served("deploy", None), &f.in_process("deploy", None));
    drop(first);
    let third = spawn_compose_service(ambry_core::Workspace::with_models(
        f.home.clone(),
        f.models_dir.clone(),
    ))
    .unwrap();
    assert_same(&f.served("deploy", None), &f.in_process("deploy", None));
    drop(third);

    std::fs::write(f.home.compose_socket(), "not a socket").unwrap();
    let e = spawn_compose_service(ambry_core::Workspace::with_models(
        f.home.clone(),
        f.models_dir.clone(),
    ))
    .unwrap_err();
    assert_eq!(e.code(), "socket_path_taken");
    assert_eq!(
        std::fs::read_to_string(f.home.compose_socket()).unwrap(),
        "not a socket",
        "a foreign file is never removed"
    );
}

/// The real model, when `AMBRY_TEST_MODELS` holds it; otherwise this test says so and returns.
fn test_models() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("AMBRY_TEST_MODELS").map(PathBuf::from) else {
        eprintln!("SKIPPED: AMBRY_TEST_MODELS is not set; run scripts/fetch-models.sh DIR and set it to test the service with the model");
        return None;
    };
    if let Err(e) = ModelPaths::new(&dir, "all-MiniLM-L6-v2").check() {
        eprintln!(
            "SKIPPED: embedding assets missing under AMBRY_TEST_MODELS={}: {e}",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

#[test]
fn with_the_model_the_served_semantic_block_matches_and_new_vectors_are_used() {
    let Some(models) = test_models() else { return };
    let f = Fixture::new("[retrieval]\nstrategy = \"auto\"\n", Some(&models));
    let paths = ModelPaths::new(&models, "all-MiniLM-L6-v2");
    let now = "2026-01-01T00:00:00Z".parse().unwrap();
    let store = f.store();
    for (scope, name, description, body) in [
        (
            Scope::User,
            "cat-care",
            "Feeding the kitten",
            "Wet food twice a day.",
        ),
        (
            Scope::User,
            "stock-notes",
            "Portfolio rebalancing",
            "Rebalance index funds yearly.",
        ),
        (
            Scope::Project,
            "db-migrations",
            "Database migrations",
            "Use sqlx migrate before a deploy.",
        ),
    ] {
        let saved =
            save_with_vector(&store, scope, draft(name, description, body), now, &paths).unwrap();
        assert!(
            matches!(saved.vector, ambry_rank::embed::VectorStatus::Written),
            "{:?}",
            saved.vector
        );
    }
    let handle = spawn_compose_service(ambry_core::Workspace::with_models(
        f.home.clone(),
        models.clone(),
    ))
    .unwrap();
    let query = "what should my pet eat?";
    let served = f.served(query, None);
    assert_eq!(
        served.strategy,
        ambry_store::config::Strategy::Semantic,
        "{:?}",
        served.notes
    );
    assert_eq!(served.selected[0].name, "cat-care");
    assert_same(&served, &f.in_process(query, None));
    assert_eq!(f.status().model_loaded.as_deref(), Some("all-MiniLM-L6-v2"));

    // A memory saved with its vector by another process after the service warmed up.
    save_with_vector(
        &store,
        Scope::User,
        draft(
            "puppy-diet",
            "What the puppy eats",
            "Kibble soaked in water.",
        ),
        now,
        &paths,
    )
    .unwrap();
    let served = f.served("feeding a young dog", None);
    assert!(
        served.selected.iter().any(|s| s.name == "puppy-diet"),
        "{:?}",
        served.selected
    );
    assert_same(&served, &f.in_process("feeding a young dog", None));

    // The in-process path with the same scorer, straight through core, agrees as well.
    let config = Config::load(&f.home.config_file()).unwrap();
    let scorer = ModelScorer::load(&paths);
    let direct = fresh_direct(
        &store,
        &config,
        query,
        ambry_rank::embed::semantic_arg(&scorer),
    );
    assert_eq!(f.served(query, None).text, direct.text);
    drop(handle);
}

/// A recall is answered on a thread of its own: one waiting for its turn at the session index
/// (here the writer lock is held, as by an indexer in another process whose run takes minutes;
/// a first recall on a home creates the session tables and so waits for it) holds up no compose
/// call, and is answered once the turn is free.
#[test]
fn a_compose_is_answered_while_a_recall_waits_for_the_session_index() {
    let f = Fixture::new(BM25, None);
    seed(&f);
    let workspace = ambry_core::Workspace::with_models(f.home.clone(), f.models_dir.clone());
    // Declared before the lock, so dropped after it: a failing check releases the lock first
    // (a service stopping while its recall waits for the lock would wait forever).
    let _service;
    let mut writer = f.home.index_db().into_os_string();
    writer.push(".writer");
    let writer = std::fs::File::create(writer).unwrap();
    writer.lock().unwrap();
    _service = spawn_compose_service(workspace.clone()).unwrap();

    let recall = Request::new(Call::Recall(RecallCall::new(
        f.home.root().to_path_buf(),
        f.models_dir.clone(),
        workspace.session_roots(),
        &ambry_sessions::sessions::RecallQuery::new("token cache"),
        true,
        now(),
    )));
    let (recalled, recall_answer) = std::sync::mpsc::channel();
    let home = f.home.clone();
    std::thread::spawn(move || {
        let _ = recalled.send(call(&home, &recall, TIMEOUT));
    });
    // The recall has reached the workspace (it counts itself as it starts).
    let started = std::time::Instant::now();
    while workspace.calls_answered() == 0 {
        assert!(
            started.elapsed() < TIMEOUT,
            "the recall never reached the service"
        );
        std::thread::sleep(Duration::from_millis(10));
    }

    let query = "why does the token cache break after a deploy?";
    match call(&f.home, &f.request(query, None), Duration::from_secs(5)) {
        Ok(Reply::Composed(served)) => assert_same(&served, &f.in_process(query, None)),
        other => panic!("the compose waited behind the recall: {other:?}"),
    }
    assert!(
        recall_answer.try_recv().is_err(),
        "the recall was answered without its turn"
    );

    writer.unlock().unwrap();
    match recall_answer.recv_timeout(TIMEOUT).unwrap() {
        Ok(Reply::Recalled(_)) => {}
        other => panic!("expected the recall's answer, got {other:?}"),
    }
}

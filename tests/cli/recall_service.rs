//! `ambry recall` through a running `ambry serve`: the served answer is byte for byte the
//! in-process one (text and `--json`, stdout and stderr, notes included), with and without the
//! model, and a service that cannot answer exactly as this process would is passed over.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::Sandbox;

const READY_TIMEOUT: Duration = Duration::from_secs(60);
const SERVED: &str = "recall served by: service";

/// `ambry serve` for the sandbox's home; killed if a test ends without stopping it.
struct Server(Child);

impl Server {
    fn start(sb: &Sandbox, models: &Path) -> Server {
        let child = Command::new(assert_cmd::cargo::cargo_bin("ambry"))
            .env_remove("AMBRY_HOME")
            .env("HOME", sb.home.path())
            .env("AMBRY_MODELS_DIR", models)
            .arg("--home")
            .arg(sb.home.path())
            .arg("serve")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut server = Server(child);
        let started = Instant::now();
        while !sb
            .ambry()
            .args(["serve", "--status"])
            .output()
            .unwrap()
            .status
            .success()
        {
            assert!(server.0.try_wait().unwrap().is_none(), "ambry serve exited");
            assert!(
                started.elapsed() < READY_TIMEOUT,
                "ambry serve never answered"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn say(role: &str, minute: u32, text: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"ts": format!("2026-06-01T10:{minute:02}:00Z"), "role": role, "text": text})
    )
}

/// Sessions in Ambry's own format, and the real Claude Code samples as two more.
fn seed(sb: &Sandbox) {
    let sessions = sb.home.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    for (id, exchanges) in [
        (
            "cache",
            vec![
                (
                    "the redis cache eviction drops hot keys under load",
                    "Switched maxmemory-policy to allkeys-lfu.",
                ),
                (
                    "and the canary deploy is stuck at 10 percent",
                    "The health check path was wrong.",
                ),
            ],
        ),
        (
            "pets",
            vec![(
                "my kitten keeps scratching the new sofa",
                "Give her a scratching post near it.",
            )],
        ),
        (
            "backup",
            vec![
                (
                    "the nightly backup of postgres failed",
                    "The disk was full; I rotated the dumps.",
                ),
                (
                    "the sqlite database is locked during backups",
                    "Use the online backup API.",
                ),
            ],
        ),
    ] {
        let mut text = String::new();
        for (i, (question, answer)) in exchanges.iter().enumerate() {
            text += &say("user", 2 * i as u32, question);
            text += &say("assistant", 2 * i as u32 + 1, answer);
        }
        std::fs::write(sessions.join(format!("{id}.jsonl")), text).unwrap();
    }
    let claude = sb.home.path().join(".claude/projects/-home-dev-spotter");
    std::fs::create_dir_all(&claude).unwrap();
    let formats = crate::support::manifest_dir().join("../core/tests/fixtures/formats/claude-code");
    for sample in ["short.jsonl", "tool_heavy.jsonl"] {
        std::fs::copy(formats.join(sample), claude.join(sample)).unwrap();
    }
}

/// stdout and stderr (debug lines saying who answered taken out) of `ambry recall ARGS`, and
/// whether the service answered it.
fn recall(sb: &Sandbox, models: &Path, args: &[&str], in_process: bool) -> (String, String, bool) {
    let mut cmd = sb.ambry();
    cmd.env("AMBRY_MODELS_DIR", models)
        .env("AMBRY_LOG", "ambry::recall_client=debug");
    if in_process {
        cmd.env("AMBRY_NO_SERVICE", "1");
    } else {
        cmd.env_remove("AMBRY_NO_SERVICE");
    }
    let out = cmd
        .arg("recall")
        .args(args)
        .timeout(READY_TIMEOUT)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let served = stderr.contains(SERVED);
    let stderr: String = stderr
        .lines()
        .filter(|l| !l.contains("served by"))
        .map(|l| format!("{l}\n"))
        .collect();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{args:?}: {stdout}{stderr}");
    (stdout, stderr, served)
}

/// Each question, as text and as JSON, served and in-process: the same bytes.
fn assert_served_as_in_process(sb: &Sandbox, models: &Path, questions: &[&str]) {
    for question in questions {
        for json in [false, true] {
            let mut args = Vec::new();
            if json {
                args.push("--json");
            }
            args.push(question);
            let (out, err, served) = recall(sb, models, &args, false);
            assert!(served, "{args:?} was not served: {err}");
            let (in_out, in_err, in_served) = recall(sb, models, &args, true);
            assert!(!in_served);
            assert_eq!(out, in_out, "stdout of {args:?}");
            assert_eq!(err, in_err, "stderr of {args:?}");
            assert!(!out.is_empty());
        }
    }
}

fn no_models(sb: &Sandbox) -> PathBuf {
    let dir = sb.cwd.path().join("no-models");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_served_recall_prints_what_the_in_process_one_does() {
    let sb = Sandbox::new();
    seed(&sb);
    let models = no_models(&sb);
    let _server = Server::start(&sb, &models);
    // A long pasted question is cut, and its note printed, the same way.
    let pasted: String = (0..40).map(|i| format!("filler{i} ")).collect::<String>() + "redis";
    assert_served_as_in_process(
        &sb,
        &models,
        &[
            "redis cache eviction",
            "why did the canary deploy get stuck?",
            "mix phx.server",
            "\"online backup\" OR kitten",
            "nothing matches zyzzyva",
            &pasted,
        ],
    );
    let (_, err, served) = recall(&sb, &models, &[&pasted], false);
    assert!(served && err.contains("note: the query was cut"), "{err}");
    // Options the service must honour as this process would.
    for args in [
        &["--limit", "1", "backup"][..],
        &["--source", "claude", "phoenix"],
        &["--project", "/home/marco/projects/spotter", "phoenix"],
        &["--no-index", "kitten"],
    ] {
        let (out, err, served) = recall(&sb, &models, args, false);
        assert!(served, "{args:?}: {err}");
        assert_eq!((out, err), {
            let (o, e, _) = recall(&sb, &models, args, true);
            (o, e)
        });
    }
}

#[test]
fn a_service_that_would_answer_differently_is_passed_over() {
    let sb = Sandbox::new();
    seed(&sb);
    let models = no_models(&sb);
    let other_models = sb.cwd.path().join("other-models");
    std::fs::create_dir_all(&other_models).unwrap();
    let _server = Server::start(&sb, &other_models);
    let (out, err, served) = recall(&sb, &models, &["kitten"], false);
    assert!(!served, "a service with other models answered: {err}");
    assert!(out.contains("scratching"), "{out}");
    assert_eq!(out, recall(&sb, &models, &["kitten"], true).0);

    // Transcripts from another folder (CLAUDE_CONFIG_DIR set for this call only): not served.
    let out = sb
        .ambry()
        .env("AMBRY_MODELS_DIR", &other_models)
        .env("AMBRY_LOG", "ambry::recall_client=debug")
        .env("CLAUDE_CONFIG_DIR", sb.cwd.path().join("elsewhere"))
        .args(["recall", "kitten"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !err.contains(SERVED), "{err}");
}

#[test]
fn with_no_service_recall_answers_in_process() {
    let sb = Sandbox::new();
    seed(&sb);
    let models = no_models(&sb);
    let (out, err, served) = recall(&sb, &models, &["kitten"], false);
    assert!(!served, "{err}");
    assert!(out.contains("pets"), "{out}");
}

fn models_dir() -> PathBuf {
    let dir = std::env::var_os("AMBRY_TEST_MODELS")
        .map(PathBuf::from)
        .expect("AMBRY_TEST_MODELS is not set: run `scripts/fetch-models.sh DIR` and set AMBRY_TEST_MODELS=DIR (make test does both)");
    assert!(
        dir.join("all-MiniLM-L6-v2/model.onnx").is_file(),
        "embedding assets missing under AMBRY_TEST_MODELS={}",
        dir.display()
    );
    dir
}

/// The seeded sandbox, its sessions indexed and embedded with the real model.
fn seeded_and_indexed_with_the_model() -> (Sandbox, PathBuf) {
    let sb = Sandbox::new();
    seed(&sb);
    let models = models_dir();
    sb.ambry()
        .env("AMBRY_MODELS_DIR", &models)
        .args(["sessions", "index"])
        .assert()
        .success();
    (sb, models)
}

/// With the model: questions words answer and one only meaning answers, served by the warm
/// model and in-process, print the same.
#[test]
fn a_served_recall_with_the_model_prints_what_the_in_process_one_does() {
    let (sb, models) = seeded_and_indexed_with_the_model();
    let _server = Server::start(&sb, &models);
    assert_served_as_in_process(
        &sb,
        &models,
        &[
            "young cat damaging furniture",
            "redis cache eviction",
            "why did the canary deploy get stuck?",
            "the database copy job broke overnight",
        ],
    );
}

/// The service's status (`serve --status --json`), when one answers for the sandbox's home.
fn service_pid(sb: &Sandbox) -> Option<u64> {
    let out = sb
        .ambry()
        .args(["serve", "--status", "--json"])
        .output()
        .unwrap();
    out.status.success().then(|| {
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["pid"]
            .as_u64()
            .unwrap()
    })
}

/// `ambry recall` with service autostart on (as a person runs it), its stderr with debug lines.
fn recall_autostarting(sb: &Sandbox, models: &Path, question: &str) -> (String, String) {
    let out = sb
        .ambry()
        .env("AMBRY_MODELS_DIR", models)
        .env_remove("AMBRY_SERVICE_AUTOSTART")
        .env_remove("AMBRY_NO_SERVICE")
        .env(
            "AMBRY_LOG",
            "ambry::recall_client=debug,ambry::compose_client=debug",
        )
        .args(["recall", question])
        .timeout(READY_TIMEOUT)
        .output()
        .unwrap();
    assert!(out.status.success());
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Without a service, a recall that had to load the model (its question needs meaning) answers
/// in-process and then starts a service, so the next question by meaning is served warm; a
/// question its words answer starts nothing.
#[test]
fn a_recall_that_loaded_the_model_starts_a_service_for_the_next_one() {
    let (sb, models) = seeded_and_indexed_with_the_model();
    const STARTED: &str = "started a service for";

    let (out, err) = recall_autostarting(&sb, &models, "redis cache eviction");
    assert!(out.contains("cache"), "{out}");
    assert!(!err.contains(SERVED) && !err.contains(STARTED), "{err}");

    let (out, err) = recall_autostarting(&sb, &models, "young cat damaging furniture");
    assert!(out.contains("pets"), "found by meaning: {out}");
    assert!(!err.contains(SERVED), "{err}");
    assert!(err.contains(STARTED), "{err}");
    let started = Instant::now();
    let pid = loop {
        if let Some(pid) = service_pid(&sb) {
            break pid;
        }
        assert!(started.elapsed() < READY_TIMEOUT, "no service started");
        std::thread::sleep(Duration::from_millis(50));
    };

    let (again, err) = recall_autostarting(&sb, &models, "young cat damaging furniture");
    assert!(err.contains(SERVED), "the next one is served: {err}");
    assert!(!err.contains(STARTED), "{err}");
    assert_eq!(again, out, "served as answered in-process");

    let stopped = Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(stopped.success());
    let started = Instant::now();
    while service_pid(&sb).is_some() {
        assert!(
            started.elapsed() < READY_TIMEOUT,
            "the service did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

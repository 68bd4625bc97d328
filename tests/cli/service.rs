//! `ambry serve` and `ambry compose` through it, with the real binary on a temp home: the
//! served block is byte-for-byte the in-process one, and every way the service can be missing
//! or broken leaves `ambry compose` working.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::Sandbox;

const READY_TIMEOUT: Duration = Duration::from_secs(60);
const QUERY: &str = "why does the token refresh cache break after a deploy?";

fn seed(sb: &Sandbox) {
    std::fs::write(sb.home.path().join("USER.md"), "Prefer small commits.\n").unwrap();
    for (scope, name, description, body) in [
        (
            "user",
            "deploy-steps",
            "How to deploy the ledger",
            "Run make deploy; watch the canary.",
        ),
        (
            "user",
            "commit-style",
            "Commit message conventions",
            "Imperative mood, 72 columns.",
        ),
        (
            "project",
            "jwt-refresh-flow",
            "How auth refresh interacts with the token cache",
            "Refresh tokens rotate on use.",
        ),
        (
            "project",
            "release-process",
            "How this repo ships a release",
            "Tag vX.Y.Z, CI publishes the image.",
        ),
    ] {
        sb.ambry()
            .args([
                "memory",
                "save",
                name,
                "--type",
                "project",
                "--description",
                description,
                "--scope",
                scope,
                "--body",
                body,
            ])
            .assert()
            .success();
    }
}

/// `ambry serve` in the background; killed (SIGKILL) if a test ends without stopping it.
struct Server {
    child: Child,
}

impl Server {
    fn start(sb: &Sandbox) -> Server {
        Server::start_with_models(sb, None)
    }

    fn start_with_models(sb: &Sandbox, models: Option<&Path>) -> Server {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("ambry"));
        if let Some(models) = models {
            cmd.env("AMBRY_MODELS_DIR", models);
        }
        let child = cmd
            .env_remove("AMBRY_HOME")
            .env("HOME", sb.home.path())
            .arg("--home")
            .arg(sb.home.path())
            .arg("serve")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut server = Server { child };
        server.wait_ready(sb);
        server
    }

    /// Polls `ambry serve --status` until the service answers.
    fn wait_ready(&mut self, sb: &Sandbox) {
        let started = Instant::now();
        loop {
            if status(sb).is_some() {
                return;
            }
            if let Some(exit) = self.child.try_wait().unwrap() {
                let mut err = String::new();
                let _ =
                    std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut err);
                panic!("ambry serve exited with {exit}: {err}");
            }
            assert!(
                started.elapsed() < READY_TIMEOUT,
                "ambry serve did not answer within {READY_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn signal(&self, signal: &str) {
        let ok = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(ok.success());
    }

    /// Waits for the process to end (bounded) and returns its stderr.
    fn wait_exit(mut self) -> (std::process::ExitStatus, String) {
        let started = Instant::now();
        let exit = loop {
            if let Some(exit) = self.child.try_wait().unwrap() {
                break exit;
            }
            assert!(
                started.elapsed() < READY_TIMEOUT,
                "ambry serve did not stop within {READY_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut err);
        (exit, err)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn status(sb: &Sandbox) -> Option<Value> {
    let out = sb
        .ambry()
        .args(["serve", "--status", "--json"])
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| serde_json::from_slice(&out.stdout).unwrap())
}

fn composed(sb: &Sandbox) -> u64 {
    status(sb).expect("the service answers")["composed"]
        .as_u64()
        .unwrap()
}

/// stdout and stderr of `ambry compose ARGS`, through the service if one runs, or forced
/// in-process.
fn compose(sb: &Sandbox, args: &[&str], in_process: bool, stdin: &str) -> (String, String) {
    compose_with_models(sb, None, args, in_process, stdin)
}

fn compose_with_models(
    sb: &Sandbox,
    models: Option<&Path>,
    args: &[&str],
    in_process: bool,
    stdin: &str,
) -> (String, String) {
    let mut cmd = sb.ambry();
    if let Some(models) = models {
        cmd.env("AMBRY_MODELS_DIR", models);
    }
    if in_process {
        cmd.env("AMBRY_NO_SERVICE", "1");
    } else {
        cmd.env_remove("AMBRY_NO_SERVICE");
    }
    let out = cmd
        .arg("compose")
        .args(args)
        .write_stdin(stdin)
        .timeout(READY_TIMEOUT)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn hook_payload(sb: &Sandbox) -> String {
    serde_json::json!({
        "session_id": "0b5f3c1e-7a2d-4c1b-9d3e-2f6a8b9c0d1e",
        "cwd": sb.cwd.path(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": QUERY,
    })
    .to_string()
}

/// Every form of compose prints the same through the service as in-process.
fn assert_every_form_matches(sb: &Sandbox) {
    let query = ["--query", QUERY];
    let served = compose(sb, &query, false, "");
    assert!(
        served.0.contains("### jwt-refresh-flow [project]"),
        "{}",
        served.0
    );
    assert_eq!(served, compose(sb, &query, true, ""));
    let json = ["--json", "--query", QUERY];
    assert_eq!(compose(sb, &json, false, ""), compose(sb, &json, true, ""));
    let hook = ["--hook", "claude"];
    let payload = hook_payload(sb);
    forget_the_ledger(sb);
    let served = compose(sb, &hook, false, &payload);
    assert!(
        served.0.starts_with("<ambry-memory>\n## User preferences"),
        "{}",
        served.0
    );
    // The served turn opened that session's context in the ledger, which the in-process path
    // shares.
    assert_eq!(
        compose(sb, &hook, true, &payload).0,
        "",
        "the context holds it already"
    );
    // A new session composed in-process from the same (empty) ledger starts the same way; the
    // ledger is emptied first because the served turn's injection now counts in the map's
    // "Most used".
    forget_the_ledger(sb);
    let other_session = payload.replace("0b5f3c1e-7a2d-4c1b-9d3e-2f6a8b9c0d1e", "another-session");
    assert_eq!(served, compose(sb, &hook, true, &other_session));
}

/// Starts the injection ledger over, so two composes see the same usage counts.
fn forget_the_ledger(sb: &Sandbox) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(sb.home.path().join(format!("ledger.sqlite{suffix}")));
    }
}

#[test]
fn compose_is_served_by_ambry_serve_with_the_in_process_block_and_sigterm_cleans_up() {
    let sb = Sandbox::new();
    seed(&sb);
    let server = Server::start(&sb);
    let socket = sb.home.path().join("compose.sock");
    assert!(socket.exists());
    assert_eq!(composed(&sb), 0);

    assert_every_form_matches(&sb);
    assert_eq!(
        composed(&sb),
        3,
        "the three non-forced calls went through the service, the forced ones did not"
    );
    let out = sb
        .ambry()
        .env("AMBRY_LOG", "debug")
        .args(["compose", "--query", QUERY])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("served by: service"));

    // A memory saved by another process is in the next served block.
    sb.ambry()
        .args([
            "memory",
            "save",
            "token-cache",
            "--type",
            "project",
            "--description",
            "Token cache flush on deploy",
            "--body",
            "Flushed by the deploy job.",
        ])
        .assert()
        .success();
    let served = compose(&sb, &["--query", QUERY], false, "");
    assert!(served.0.contains("### token-cache [user]"), "{}", served.0);
    assert_eq!(served, compose(&sb, &["--query", QUERY], true, ""));

    // A second server on the same home says so and leaves the first alone.
    let second = sb
        .ambry()
        .arg("serve")
        .timeout(READY_TIMEOUT)
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("already serves"),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(composed(&sb) >= 5);

    server.signal("TERM");
    let (exit, stderr) = server.wait_exit();
    assert!(exit.success(), "{exit}: {stderr}");
    assert!(!socket.exists(), "SIGTERM removes the socket");
    assert!(status(&sb).is_none());
    assert!(compose(&sb, &["--query", QUERY], false, "")
        .0
        .contains("### jwt-refresh-flow"));
}

#[test]
fn a_killed_server_leaves_a_stale_socket_that_compose_and_the_next_server_handle() {
    let sb = Sandbox::new();
    seed(&sb);
    let server = Server::start(&sb);
    server.signal("KILL");
    let (exit, _) = server.wait_exit();
    assert!(!exit.success());
    let socket = sb.home.path().join("compose.sock");
    assert!(socket.exists(), "SIGKILL leaves the socket file behind");

    assert_every_form_matches(&sb);

    let _server = Server::start(&sb);
    assert_eq!(composed(&sb), 0);
    assert_every_form_matches(&sb);
    assert_eq!(composed(&sb), 3);
}

#[test]
fn a_socket_file_without_a_server_is_ignored() {
    let sb = Sandbox::new();
    seed(&sb);
    drop(UnixListener::bind(sb.home.path().join("compose.sock")).unwrap());
    assert_every_form_matches(&sb);
}

/// A fake service on the home's socket that answers every connection with `answer` (or never
/// answers, with `None`).
fn fake_service(sb: &Sandbox, answer: Option<String>) -> (PathBuf, std::thread::JoinHandle<()>) {
    let socket = sb.home.path().join("compose.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    let thread = std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut line = String::new();
            let _ = BufReader::new(&stream).read_line(&mut line);
            if line.contains("\"stop\"") {
                break;
            }
            match &answer {
                Some(a) => drop(stream.write_all(a.as_bytes())),
                None => held.push(stream),
            }
        }
    });
    (socket, thread)
}

fn stop_fake(socket: PathBuf, thread: std::thread::JoinHandle<()>) {
    let mut s = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    s.write_all(b"\"stop\"\n").unwrap();
    thread.join().unwrap();
}

#[test]
fn a_service_of_another_version_garbage_or_silence_means_in_process() {
    let sb = Sandbox::new();
    seed(&sb);
    let expected = compose(&sb, &["--query", QUERY], true, "");
    for answer in [
        Some(
            "{\"protocol\": 99, \"ambry\": \"9.9.9\", \"reply\": {\"composed\": {}}}\n".to_string(),
        ),
        Some("this is not json\n".to_string()),
        Some("{\"protocol\": 1".to_string()),
        None,
    ] {
        let (socket, thread) = fake_service(&sb, answer.clone());
        assert_eq!(
            compose(&sb, &["--query", QUERY], false, ""),
            expected,
            "answer {answer:?}"
        );
        stop_fake(socket.clone(), thread);
        std::fs::remove_file(socket).unwrap();
    }
}

/// The real model, when `AMBRY_TEST_MODELS` holds it; otherwise the test says so and returns.
fn test_models() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("AMBRY_TEST_MODELS").map(PathBuf::from) else {
        eprintln!("SKIPPED: AMBRY_TEST_MODELS is not set; run scripts/fetch-models.sh DIR and set it to test the service with the model");
        return None;
    };
    if !(dir.join("onnxruntime/libonnxruntime.so.1.24.4").is_file()
        && dir.join("all-MiniLM-L6-v2/model.onnx").is_file())
    {
        eprintln!(
            "SKIPPED: embedding assets missing under AMBRY_TEST_MODELS={}",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

#[test]
fn with_the_model_the_service_ranks_semantically_and_prints_the_in_process_block() {
    let Some(models) = test_models() else { return };
    let sb = Sandbox::new();
    seed(&sb);
    sb.ambry()
        .env("AMBRY_MODELS_DIR", &models)
        .args(["memory", "reindex"])
        .assert()
        .success();
    let _server = Server::start_with_models(&sb, Some(&models));
    // An idle service holds no model: the first semantic call loads it.
    assert_eq!(status(&sb).unwrap()["model_loaded"], Value::Null);

    let json = ["--json", "--query", "how do we ship a new version?"];
    let served = compose_with_models(&sb, Some(&models), &json, false, "");
    assert_eq!(status(&sb).unwrap()["model_loaded"], "all-MiniLM-L6-v2");
    let v: Value = serde_json::from_str(&served.0).unwrap();
    assert_eq!(v["strategy"], "semantic", "{}", served.1);
    assert_eq!(
        served,
        compose_with_models(&sb, Some(&models), &json, true, "")
    );
    let text = ["--query", "how do we ship a new version?"];
    assert_eq!(
        compose_with_models(&sb, Some(&models), &text, false, ""),
        compose_with_models(&sb, Some(&models), &text, true, "")
    );
    assert_eq!(composed(&sb), 2);

    // A client with another models directory is not answered with this one's model.
    let other = tempfile::tempdir().unwrap();
    let elsewhere = compose_with_models(&sb, Some(other.path()), &json, false, "");
    assert_eq!(
        composed(&sb),
        2,
        "the service refused; the client composed in-process"
    );
    let v: Value = serde_json::from_str(&elsewhere.0).unwrap();
    assert_eq!(v["strategy"], "bm25");
}

/// Polls until `check` holds (bounded).
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let started = Instant::now();
    while !check() {
        assert!(
            started.elapsed() < READY_TIMEOUT,
            "{what} did not happen within {READY_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn compose_without_a_service_answers_itself_and_starts_one_that_serves_the_next_turn() {
    let sb = Sandbox::new();
    seed(&sb);
    let expected = compose(&sb, &["--query", QUERY], true, "");
    let first = sb
        .ambry()
        .env_remove("AMBRY_SERVICE_AUTOSTART")
        .env("AMBRY_LOG", "debug")
        .args(["compose", "--query", QUERY])
        .output()
        .unwrap();
    assert!(first.status.success());
    assert_eq!(
        String::from_utf8(first.stdout).unwrap(),
        expected.0,
        "the first turn is answered in-process, with the same block"
    );
    assert!(String::from_utf8_lossy(&first.stderr).contains("served by: this process"));

    eventually("the self-started service answering", || {
        status(&sb).is_some()
    });
    let pid = status(&sb).unwrap()["pid"].as_u64().unwrap();
    let next = sb
        .ambry()
        .env_remove("AMBRY_SERVICE_AUTOSTART")
        .env("AMBRY_LOG", "debug")
        .args(["compose", "--query", QUERY])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(next.stdout).unwrap(), expected.0);
    assert!(
        String::from_utf8_lossy(&next.stderr).contains("served by: service"),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert_eq!(composed(&sb), 1);
    assert!(sb.home.path().join("serve.log").is_file());

    // One service per home: another compose while it runs starts nothing new.
    sb.ambry()
        .env_remove("AMBRY_SERVICE_AUTOSTART")
        .args(["compose", "--query", QUERY])
        .assert()
        .success();
    assert_eq!(status(&sb).unwrap()["pid"].as_u64().unwrap(), pid);

    // AMBRY_NO_SERVICE still forces in-process and starts nothing.
    let ok = Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(ok.success());
    eventually("the service stopping on SIGTERM", || {
        status(&sb).is_none() && !sb.home.path().join("compose.sock").exists()
    });
    let forced = sb
        .ambry()
        .env_remove("AMBRY_SERVICE_AUTOSTART")
        .env("AMBRY_NO_SERVICE", "1")
        .args(["compose", "--query", QUERY])
        .output()
        .unwrap();
    assert!(forced.status.success());
    // A start is a spawn, which returns once the service's process runs: had the compose started
    // one, it would be there now, however long it then took to answer.
    let started: Vec<u32> = services_of(sb.home.path())
        .into_iter()
        .filter(|p| u64::from(*p) != pid)
        .collect();
    assert!(
        started.is_empty(),
        "AMBRY_NO_SERVICE=1 never starts a service; started {started:?}"
    );
    assert!(status(&sb).is_none());
}

/// The `ambry serve` processes of `home` (named on their command line) that run now, by pid.
fn services_of(home: &Path) -> Vec<u32> {
    let home = home.as_os_str().as_encoded_bytes();
    std::fs::read_dir("/proc")
        .expect("/proc lists the processes")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|line| {
                let args: Vec<&[u8]> = line.split(|b| *b == 0).collect();
                args.contains(&home)
                    && args.contains(&b"serve".as_slice())
                    && !args.contains(&b"--status".as_slice())
            })
        })
        .collect()
}

#[test]
fn a_service_exits_after_its_idle_period_and_when_its_home_is_deleted() {
    let sb = Sandbox::new();
    seed(&sb);
    let mut idle = Command::new(assert_cmd::cargo::cargo_bin("ambry"))
        .env_remove("AMBRY_HOME")
        .arg("--home")
        .arg(sb.home.path())
        .args(["serve", "--idle-exit", "1"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let exit = loop {
        if let Some(exit) = idle.try_wait().unwrap() {
            break exit;
        }
        assert!(
            started.elapsed() < READY_TIMEOUT,
            "an idle service must exit"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success());
    assert!(!sb.home.path().join("compose.sock").exists());

    let doomed = tempfile::tempdir().unwrap();
    let home = doomed.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut orphan = Command::new(assert_cmd::cargo::cargo_bin("ambry"))
        .env_remove("AMBRY_HOME")
        .arg("--home")
        .arg(&home)
        .arg("serve")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    eventually("the service listening", || {
        home.join("compose.sock").exists()
    });
    drop(doomed);
    let started = Instant::now();
    while orphan.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < READY_TIMEOUT,
            "a service whose home was deleted must exit"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_self_started_service_does_not_create_a_home_deleted_before_it_started() {
    let gone = tempfile::tempdir().unwrap();
    let home = gone.path().join("home");
    let mut service = Command::new(assert_cmd::cargo::cargo_bin("ambry"))
        .env_remove("AMBRY_HOME")
        .arg("--home")
        .arg(&home)
        .args(["serve", "--idle-exit", "1800"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let exit = loop {
        if let Some(exit) = service.try_wait().unwrap() {
            break exit;
        }
        if started.elapsed() > READY_TIMEOUT {
            // Ended by its PID either way; a service that started is the failure.
            let _ = service.kill();
            let _ = service.wait();
            panic!("a service started for a home that does not exist");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut service.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!exit.success(), "it must not start");
    assert!(stderr.contains("does not exist"), "stderr: {stderr}");
    assert!(!home.exists(), "the home must not be created again");
}

//! Hostile input to the real binary: a cloned repository whose anchor is a link out of it,
//! devices and FIFOs where Ambry's own files should be, endless streams as input. Each call
//! runs under an outside timeout (a hang detector, not a speed assertion): a hang fails the test.

use std::path::Path;
use std::process::Command as Std;
use std::time::Duration;

use predicates::prelude::*;

use crate::support::Sandbox;

/// Far longer than any of these calls takes; only a hang reaches it.
pub const HANG: Duration = Duration::from_secs(10);

fn git(dir: &Path, args: &[&str]) {
    let status = Std::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
        .args(["-c", "init.defaultBranch=main", "-c", "core.symlinks=true"])
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn mkfifo(path: &Path) {
    assert!(Std::new("mkfifo").arg(path).status().unwrap().success());
}

/// A repository whose `.ambry/AMBRY.md` is a committed link to `target`, cloned: what a person
/// gets from `git clone` of someone else's repository.
fn cloned_repo_with_anchor_link(target: &Path) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let origin = tmp.path().join("origin");
    std::fs::create_dir_all(origin.join(".ambry")).unwrap();
    git(&origin, &["init", "-q"]);
    std::os::unix::fs::symlink(target, origin.join(".ambry/AMBRY.md")).unwrap();
    git(&origin, &["add", "-A"]);
    git(&origin, &["commit", "-q", "-m", "anchor"]);
    git(tmp.path(), &["clone", "-q", "origin", "clone"]);
    let cloned = tmp.path().join("clone/.ambry/AMBRY.md");
    assert!(cloned.symlink_metadata().unwrap().file_type().is_symlink());
    tmp
}

/// `ambry` on the sandbox's home, run from `cwd`.
fn ambry_at(sb: &Sandbox, cwd: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("ambry").unwrap();
    cmd.env_remove("AMBRY_HOME")
        .env("AMBRY_SERVICE_AUTOSTART", "0")
        .env("HOME", sb.home.path())
        .arg("--home")
        .arg(sb.home.path())
        .arg("--cwd")
        .arg(cwd);
    cmd
}

fn compose_in(sb: &Sandbox, cwd: &Path) -> assert_cmd::assert::Assert {
    let mut cmd = ambry_at(sb, cwd);
    cmd.env("AMBRY_NO_SERVICE", "1")
        .env(
            "HOSTILE_PROBE_TOKEN",
            "ghp_PROBEprobePROBEprobePROBEprobe0123",
        )
        .args(["compose", "--query", "anything"])
        .timeout(HANG);
    cmd.assert()
}

#[test]
fn a_cloned_anchor_linking_to_the_environment_or_outside_the_repo_never_reaches_the_block() {
    let sb = Sandbox::new();
    let environ = cloned_repo_with_anchor_link(Path::new("/proc/self/environ"));
    compose_in(&sb, &environ.path().join("clone"))
        .success()
        .stdout(predicate::str::contains("ghp_PROBE").not())
        .stdout(predicate::str::contains("HOSTILE_PROBE_TOKEN").not())
        .stderr(predicate::str::contains("left out Project context"))
        .stderr(predicate::str::contains("outside"));

    let elsewhere = tempfile::tempdir().unwrap();
    let credentials = elsewhere.path().join("credentials");
    std::fs::write(
        &credentials,
        "[default]\naws_note = OUTSIDE-THE-REPO-MARKER\n",
    )
    .unwrap();
    let outside = cloned_repo_with_anchor_link(&credentials);
    compose_in(&sb, &outside.path().join("clone"))
        .success()
        .stdout(predicate::str::contains("OUTSIDE-THE-REPO-MARKER").not())
        .stderr(predicate::str::contains("left out Project context"));
}

#[test]
fn an_anchor_holding_a_secret_is_left_out_with_a_note() {
    let sb = Sandbox::new();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".ambry")).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(
        repo.join(".ambry/AMBRY.md"),
        "# Project\n\nCI uses GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
    )
    .unwrap();
    compose_in(&sb, &repo)
        .success()
        .stdout(predicate::str::contains("ghp_abcdefghij").not())
        .stderr(predicate::str::contains("looks like a secret"));
}

#[test]
fn dev_zero_and_fifos_as_anchor_user_md_and_config_return_promptly_with_a_note() {
    // The project anchor.
    for make in [
        |p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap(),
        |p: &Path| mkfifo(p),
    ] {
        let sb = Sandbox::new();
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".ambry")).unwrap();
        git(&repo, &["init", "-q"]);
        make(&repo.join(".ambry/AMBRY.md"));
        compose_in(&sb, &repo)
            .success()
            .stderr(predicate::str::contains("left out Project context"));
    }
    // USER.md.
    for make in [
        |p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap(),
        |p: &Path| mkfifo(p),
    ] {
        let sb = Sandbox::new();
        make(&sb.home.path().join("USER.md"));
        compose_in(&sb, sb.cwd.path())
            .success()
            .stderr(predicate::str::contains("left out User preferences"));
    }
    // config.toml: the hook still answers (exit 0) and says why nothing was injected.
    for make in [
        |p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap(),
        |p: &Path| mkfifo(p),
    ] {
        let sb = Sandbox::new();
        make(&sb.home.path().join("config.toml"));
        sb.ambry()
            .env("AMBRY_NO_SERVICE", "1")
            .args(["compose", "--hook", "claude"])
            .write_stdin(r#"{"hook_event_name":"UserPromptSubmit","prompt":"x"}"#)
            .timeout(HANG)
            .assert()
            .success()
            .stderr(predicate::str::contains("config.toml"));
    }
}

fn save_args(cmd: &mut assert_cmd::Command) -> &mut assert_cmd::Command {
    cmd.args([
        "memory",
        "save",
        "probe",
        "--type",
        "user",
        "--description",
        "d",
    ])
}

#[test]
fn a_body_from_dev_zero_or_a_huge_file_is_refused_without_reading_it_whole() {
    let sb = Sandbox::new();
    let mut cmd = sb.ambry();
    save_args(&mut cmd)
        .args(["--body-file", "/dev/zero"])
        .timeout(HANG)
        .assert()
        .failure()
        .stderr(predicate::str::contains("device"));
    // stdin from /dev/zero: read up to the limit + 1 byte, then refused.
    let bin = assert_cmd::cargo::cargo_bin("ambry");
    assert_cmd::Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$0" --home "$1" memory save probe --type user --description d < /dev/zero"#)
        .arg(&bin)
        .arg(sb.home.path())
        .env("AMBRY_SERVICE_AUTOSTART", "0")
        .timeout(HANG)
        .assert()
        .failure()
        .stderr(predicate::str::contains("body limit"));
    // A sparse 2 GB file: refused from its size.
    let big = sb.cwd.path().join("big.md");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let mut cmd = sb.ambry();
    save_args(&mut cmd)
        .arg("--body-file")
        .arg(&big)
        .timeout(HANG)
        .assert()
        .failure()
        .stderr(predicate::str::contains("body limit"));
    assert!(!sb.home.path().join("memory/probe.md").exists());
    // A regular file is read.
    let body = sb.cwd.path().join("body.txt");
    std::fs::write(&body, "from a file\n").unwrap();
    let mut cmd = sb.ambry();
    save_args(&mut cmd)
        .arg("--body-file")
        .arg(&body)
        .timeout(HANG)
        .assert()
        .success();
}

/// A FIFO (or socket) named as the body file is refused from its type, before it is opened: a
/// FIFO with no writer read as an empty body and saved it over the memory.
#[test]
fn a_body_file_that_is_a_fifo_or_a_socket_is_refused_and_the_memory_kept() {
    let sb = Sandbox::new();
    let mut cmd = sb.ambry();
    save_args(&mut cmd)
        .args(["--body", "the original body"])
        .assert()
        .success();
    let memory = sb.home.path().join("memory/probe.md");
    let before = std::fs::read_to_string(&memory).unwrap();
    let fifo = sb.cwd.path().join("body.fifo");
    mkfifo(&fifo);
    let socket = sb.cwd.path().join("body.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    for (path, kind) in [(&fifo, "a named pipe (FIFO)"), (&socket, "a socket")] {
        let mut cmd = sb.ambry();
        save_args(&mut cmd)
            .arg("--body-file")
            .arg(path)
            .timeout(HANG)
            .assert()
            .failure()
            .stderr(predicate::str::contains(format!(
                "--body-file {} is {kind}, not a regular file",
                path.display()
            )));
        assert_eq!(std::fs::read_to_string(&memory).unwrap(), before);
    }
    // The review's merge reads its --body-file by the same rule.
    sb.ambry()
        .args(["memory", "save", "probe-two", "--type", "user"])
        .args(["--description", "d", "--body", "second"])
        .assert()
        .success();
    sb.ambry()
        .args([
            "memory",
            "review",
            "merge",
            "probe",
            "probe-two",
            "--body-file",
        ])
        .arg(&fifo)
        .timeout(HANG)
        .assert()
        .failure()
        .stderr(predicate::str::contains("is a named pipe (FIFO)"));
    assert_eq!(std::fs::read_to_string(&memory).unwrap(), before);
    assert!(sb.home.path().join("memory/probe-two.md").exists());
}

/// A home with one memory the hook's prompt brings in, so "composed in-process" is visible.
fn home_with_a_memory() -> Sandbox {
    let sb = Sandbox::new();
    sb.ambry()
        .args(["memory", "save", "deploy-steps", "--type", "project"])
        .args(["--description", "How the service is deployed to staging"])
        .args(["--body", "Run make deploy-staging after the migrations."])
        .assert()
        .success();
    sb
}

const PAYLOAD: &str = r#"{"hook_event_name":"UserPromptSubmit","session_id":"s1","prompt":"how do we deploy to staging"}"#;

/// `ambry compose --hook claude` against whatever listens on the home's socket.
fn hook_against_service(sb: &Sandbox) -> assert_cmd::assert::Assert {
    sb.ambry()
        .env_remove("AMBRY_NO_SERVICE")
        .args(["compose", "--hook", "claude"])
        .write_stdin(PAYLOAD)
        .timeout(HANG)
        .assert()
}

#[test]
fn a_wedged_service_that_never_accepts_does_not_hold_the_hook() {
    let sb = home_with_a_memory();
    // Bound but never accepting: connect and write succeed, no answer ever comes.
    let _listener =
        std::os::unix::net::UnixListener::bind(sb.home.path().join("compose.sock")).unwrap();
    hook_against_service(&sb)
        .success()
        .stdout(predicate::str::contains("deploy-steps"));
}

#[test]
fn a_dripping_or_endless_service_does_not_hold_the_hook() {
    use std::io::Write;
    for endless in [false, true] {
        let sb = home_with_a_memory();
        let listener =
            std::os::unix::net::UnixListener::bind(sb.home.path().join("compose.sock")).unwrap();
        std::thread::spawn(move || {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            // The service side of the probe: one byte a second, or bytes without end.
            let chunk = vec![b' '; if endless { 64 * 1024 } else { 1 }];
            for _ in 0..if endless { 1_000_000 } else { 60 } {
                if stream.write_all(&chunk).is_err() {
                    return;
                }
                if !endless {
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        });
        hook_against_service(&sb)
            .success()
            .stdout(predicate::str::contains("deploy-steps"));
    }
}

#[test]
fn a_payload_on_a_pipe_left_open_does_not_hold_the_hook() {
    let sb = home_with_a_memory();
    let bin = assert_cmd::cargo::cargo_bin("ambry");
    // The FIFO is opened read-write on fd 3 and handed to ambry as stdin: its writer never
    // closes, as with an agent that keeps the pipe open.
    assert_cmd::Command::new("sh")
        .arg("-c")
        .arg(
            r#"mkfifo "$1/payload" && exec 3<>"$1/payload" && printf '%s' "$2" >&3 && exec "$0" --home "$1" --cwd "$1" compose --hook claude <&3"#,
        )
        .arg(&bin)
        .arg(sb.home.path())
        .arg(PAYLOAD)
        .env("AMBRY_NO_SERVICE", "1")
        .env("AMBRY_SERVICE_AUTOSTART", "0")
        .timeout(HANG)
        .assert()
        .success()
        .stdout(predicate::str::contains("deploy-steps"));
}

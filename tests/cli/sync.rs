//! `ambry sync init | sync | sync status` (DESIGN §15) on real git: a bare repository on local
//! disk is the remote, two sandboxes are two machines.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::Sandbox;

fn bare_remote(dir: &Path) -> PathBuf {
    let remote = dir.join("remote.git");
    let ok = Command::new("git")
        .args(["init", "--quiet", "--bare"])
        .arg(&remote)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    remote
}

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

fn save(sb: &Sandbox, name: &str, body: &str) {
    sb.ambry()
        .args(["memory", "save", name, "--type", "project", "--description"])
        .arg(format!("About {name}"))
        .args(["--body", body])
        .assert()
        .success();
}

/// The user scope's memory files, name to bytes.
fn files(home: &Path) -> Vec<(String, String)> {
    let Ok(entries) = fs::read_dir(home.join("memory")) else {
        return Vec::new();
    };
    let mut files: Vec<(String, String)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .filter(|e| e.file_name() != "MEMORY.md")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn two_machines_sync_through_a_bare_remote_and_status_says_so() {
    let (a, b) = (Sandbox::new(), Sandbox::new());
    let remote_dir = tempfile::tempdir().unwrap();
    let remote = bare_remote(remote_dir.path());

    // Not set up yet: a clear error, and a status that says so.
    let out = a
        .ambry()
        .args(["sync", "--json"])
        .assert()
        .failure()
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"code\":\"sync_not_initialized\""));
    let status = json(
        &a.ambry()
            .args(["sync", "status", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(status["initialized"], false);

    save(&a, "deploy-steps", "Tag, build, roll out.");
    let first = json(
        &a.ambry()
            .args(["sync", "init"])
            .arg(&remote)
            .arg("--json")
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(first["sent"], serde_json::json!(["memory/deploy-steps.md"]));
    assert_eq!(first["pushed"], true);

    save(&b, "code-style", "rustfmt; clippy clean.");
    let adopted = json(
        &b.ambry()
            .args(["sync", "init"])
            .arg(&remote)
            .arg("--json")
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(
        adopted["received"],
        serde_json::json!(["memory/deploy-steps.md"])
    );
    assert_eq!(adopted["sent"], serde_json::json!(["memory/code-style.md"]));
    a.ambry().arg("sync").assert().success();
    assert_eq!(files(a.home.path()), files(b.home.path()));
    assert_eq!(files(a.home.path()).len(), 2);

    let status = json(
        &b.ambry()
            .args(["sync", "status", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(status["initialized"], true);
    assert_eq!(status["remote"], remote.display().to_string());
    assert_eq!(status["last_error"], Value::Null);
    assert_eq!(
        (status["ahead"].as_u64(), status["behind"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(status["unsent"], 0);
    let text = b
        .ambry()
        .args(["sync", "status"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&text).contains("last error    none"));
    let doctor = json(
        &b.ambry()
            .args(["doctor", "--json"])
            .assert()
            .get_output()
            .stdout,
    );
    let line = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["area"] == "sync")
        .expect("doctor has a sync line")
        .clone();
    assert_eq!(line["status"], "ok", "{line}");
}

#[test]
fn an_unreachable_remote_is_named_within_ten_seconds_and_status_keeps_it() {
    let a = Sandbox::new();
    save(&a, "deploy-steps", "Tag, build, roll out.");
    let missing = a.cwd.path().join("gone/remote.git");
    let started = Instant::now();
    let out = a
        .ambry()
        .args(["sync", "init"])
        .arg(&missing)
        .arg("--json")
        .assert()
        .failure()
        .get_output()
        .clone();
    assert!(started.elapsed() < Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"code\":\"remote_unreachable\""),
        "{stderr}"
    );
    assert!(stderr.contains("gone/remote.git"), "{stderr}");
    let status = json(
        &a.ambry()
            .args(["sync", "status", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(
        status["last_error"]["code"], "remote_unreachable",
        "{status}"
    );
    // Saves go on.
    save(&a, "deploy-steps", "Tag, build, canary.");
}

const NOTES: usize = 500;
const KILLS: u64 = 20;

fn note(i: usize, version: u64) -> String {
    format!(
        "---\nname: note-{i:03}\ntype: reference\ndescription: Note {i}\ncreated: 2026-06-01T00:00:00Z\nupdated: 2026-06-02T00:00:{:02}Z\n---\nVersion {version} of note {i}.\n",
        version % 60
    )
}

/// `NOTES` memories rewritten by `a` (as an editor would) and synced to the remote.
fn change_all(a: &Sandbox, version: u64) {
    let dir = a.home.path().join("memory");
    fs::create_dir_all(&dir).unwrap();
    for i in 0..NOTES {
        fs::write(dir.join(format!("note-{i:03}.md")), note(i, version)).unwrap();
    }
    a.ambry().arg("sync").assert().success();
}

#[test]
fn killed_syncs_leave_the_store_whole_and_the_next_sync_finishes() {
    let (a, b) = (Sandbox::new(), Sandbox::new());
    let remote_dir = tempfile::tempdir().unwrap();
    let remote = bare_remote(remote_dir.path());
    a.ambry()
        .args(["sync", "init"])
        .arg(&remote)
        .assert()
        .success();
    b.ambry()
        .args(["sync", "init"])
        .arg(&remote)
        .assert()
        .success();
    let bin = assert_cmd::cargo::cargo_bin("ambry");
    let (mut finished, mut mid_apply) = (0, 0);
    for kill in 0..KILLS {
        change_all(&a, kill);
        // This machine's own work between kills must survive them too.
        save(
            &b,
            &format!("b-note-{kill:02}"),
            &format!("Written on b before kill {kill}."),
        );
        let mut child = Command::new(&bin)
            .env_remove("AMBRY_HOME")
            .arg("--home")
            .arg(b.home.path())
            .arg("sync")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Spread kills from "before git started" to "applying" to "probably done".
        std::thread::sleep(Duration::from_millis(kill * 37 % 700));
        // SIGKILL to the child's pid (a sync already finished has exited: nothing to kill).
        let _ = child.kill();
        if child.wait().unwrap().success() {
            finished += 1;
        }
        if b.home.path().join("sync/applying.json").exists() {
            mid_apply += 1;
        }
        // Whatever the moment, every memory file is one of the versions written, whole.
        for (name, text) in files(b.home.path()) {
            if name.starts_with("b-note-") {
                continue;
            }
            let i: usize = name[5..8].parse().unwrap();
            assert!(
                (0..=kill).any(|v| text == note(i, v)),
                "kill {kill}: {name} is torn:\n{text}"
            );
        }
    }
    eprintln!("{KILLS} kills: {mid_apply} while applying, {finished} syncs finished first");
    assert!(finished < KILLS, "no kill landed during a sync");
    let out = b
        .ambry()
        .args(["sync", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let report = json(&out.stdout);
    assert_eq!(report["refused"], serde_json::json!([]));
    a.ambry().arg("sync").assert().success();
    assert_eq!(files(a.home.path()), files(b.home.path()));
    assert_eq!(files(b.home.path()).len(), NOTES + KILLS as usize);
    for kill in 0..KILLS {
        let name = format!("b-note-{kill:02}.md");
        assert!(
            files(a.home.path()).iter().any(|(n, _)| *n == name),
            "{name} was lost"
        );
    }
    let index = fs::read_to_string(b.home.path().join("memory/MEMORY.md")).unwrap();
    assert_eq!(index.matches("- [note-").count(), NOTES);
    assert_eq!(index.matches("- [b-note-").count(), KILLS as usize);
    let status = json(
        &b.ambry()
            .args(["sync", "status", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(status["last_error"], Value::Null);
    assert!(!b.home.path().join("sync/applying.json").exists());
}

#[test]
fn a_memory_changed_on_both_machines_is_in_the_review_inbox_until_dismissed() {
    let (a, b) = (Sandbox::new(), Sandbox::new());
    let remote_dir = tempfile::tempdir().unwrap();
    let remote = bare_remote(remote_dir.path());
    save(&a, "deploy-steps", "Tag, build, roll out.");
    a.ambry()
        .args(["sync", "init"])
        .arg(&remote)
        .assert()
        .success();
    b.ambry()
        .args(["sync", "init"])
        .arg(&remote)
        .assert()
        .success();
    save(&a, "deploy-steps", "Tag, build, roll out to eu first.");
    save(&b, "deploy-steps", "Tag, build, canary, roll out.");
    a.ambry().arg("sync").assert().success();
    let merged = json(
        &b.ambry()
            .args(["sync", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(merged["conflicts"].as_array().unwrap().len(), 1, "{merged}");
    a.ambry().arg("sync").assert().success();
    assert_eq!(files(a.home.path()), files(b.home.path()));
    let kept = &files(b.home.path())[0].1;
    assert!(!kept.contains("<<<<<<<") && !kept.contains(">>>>>>>"));

    let review = json(
        &b.ambry()
            .args(["memory", "review", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let finding = review
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "changed_on_two_machines")
        .unwrap_or_else(|| panic!("no two-machine finding in {review}"))
        .clone();
    let both = format!("{}{}", finding["kept"]["text"], finding["other"]["text"]);
    assert!(
        both.contains("roll out to eu first.") && both.contains("canary"),
        "{finding}"
    );
    let text = b
        .ambry()
        .args(["memory", "review"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&text).contains("changed on two machines"));

    let id = finding["id"].as_str().unwrap();
    b.ambry().args(["sync", "dismiss", id]).assert().success();
    let review = json(
        &b.ambry()
            .args(["memory", "review", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert!(!review.to_string().contains("changed_on_two_machines"));
    b.ambry().args(["sync", "dismiss", id]).assert().failure();
}

#[test]
fn without_git_sync_says_to_install_it() {
    let a = Sandbox::new();
    let empty = tempfile::tempdir().unwrap();
    let out = a
        .ambry()
        .env("PATH", empty.path())
        .args(["sync", "init", "/tmp/anywhere.git", "--json"])
        .assert()
        .failure()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("\"code\":\"git_missing\""), "{stderr}");
    assert!(stderr.contains("install git"), "{stderr}");
}

/// Whether any process runs with `needle` in its command line.
fn running(needle: &str) -> bool {
    fs::read_dir("/proc").unwrap().flatten().any(|p| {
        fs::read(p.path().join("cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains(needle))
            .unwrap_or(false)
    })
}

#[test]
fn a_remote_that_never_answers_is_given_up_within_ten_seconds_and_its_transport_killed() {
    let a = Sandbox::new();
    save(&a, "deploy-steps", "Tag, build, roll out.");
    // An SSH transport that connects and then never says a word.
    let hang = a.cwd.path().join("hanging-ssh.sh");
    fs::write(&hang, "#!/bin/sh\nsleep 120\ntrue\n").unwrap();
    let mut perms = fs::metadata(&hang).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&hang, perms).unwrap();
    let started = Instant::now();
    let out = a
        .ambry()
        .env("GIT_SSH_COMMAND", &hang)
        .args([
            "sync",
            "init",
            "ssh://git.example.invalid/me/memory.git",
            "--json",
        ])
        .assert()
        .failure()
        .get_output()
        .clone();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"code\":\"remote_unreachable\""),
        "{stderr}"
    );
    assert!(stderr.contains("git.example.invalid"), "{stderr}");
    assert!(
        !running(&hang.display().to_string()),
        "the hanging transport was left running"
    );
}

#[test]
fn a_sending_machine_killed_mid_sync_sends_everything_next_time() {
    let (a, b) = (Sandbox::new(), Sandbox::new());
    let remote_dir = tempfile::tempdir().unwrap();
    let remote = bare_remote(remote_dir.path());
    a.ambry()
        .args(["sync", "init"])
        .arg(&remote)
        .assert()
        .success();
    b.ambry()
        .args(["sync", "init"])
        .arg(&remote)
        .assert()
        .success();
    let bin = assert_cmd::cargo::cargo_bin("ambry");
    let dir = a.home.path().join("memory");
    fs::create_dir_all(&dir).unwrap();
    for kill in 0..10u64 {
        for i in 0..NOTES {
            fs::write(dir.join(format!("note-{i:03}.md")), note(i, kill)).unwrap();
        }
        let mut child = Command::new(&bin)
            .env_remove("AMBRY_HOME")
            .arg("--home")
            .arg(a.home.path())
            .arg("sync")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(kill * 53 % 400));
        let _ = child.kill();
        child.wait().unwrap();
    }
    a.ambry().arg("sync").assert().success();
    b.ambry().arg("sync").assert().success();
    assert_eq!(files(a.home.path()), files(b.home.path()));
    assert_eq!(files(b.home.path()).len(), NOTES);
    assert!(files(b.home.path())
        .iter()
        .all(|(n, t)| *t == note(n[5..8].parse().unwrap(), 9)));
}

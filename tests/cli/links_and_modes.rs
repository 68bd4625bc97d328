//! Ambry's own files under a hostile or careless setup: links where its lock files, log and
//! archive belong are refused (the link's target untouched), and what it creates is private
//! whatever the umask, while a mode the person chose for a memory is kept.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::Sandbox;

/// `ambry` under umask 022, the common default that made the home 0755 and files 0644.
fn ambry_umask_022(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    let out = Command::new("sh")
        .args(["-c", "umask 022 && exec \"$@\"", "sh"])
        .arg(assert_cmd::cargo::cargo_bin("ambry"))
        .arg("--home")
        .arg(home)
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .env_remove("AMBRY_HOME")
        .env("AMBRY_SERVICE_AUTOSTART", "0")
        .env("HOME", home)
        .output()
        .unwrap();
    out
}

fn save_args<'a>(name: &'a str, body: &'a str) -> Vec<&'a str> {
    vec![
        "memory",
        "save",
        name,
        "--scope",
        "user",
        "--type",
        "user",
        "--description",
        "d",
        "--body",
        body,
    ]
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// `ambry_umask_022`, which must succeed.
fn ambry_umask_022_ok(home: &Path, cwd: &Path, args: &[&str]) {
    let out = ambry_umask_022(home, cwd, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A file outside the home that a link where Ambry's own file belongs points at: it must keep
/// its bytes whatever Ambry is asked to do.
struct Precious {
    outside: tempfile::TempDir,
    path: PathBuf,
}

impl Precious {
    fn new() -> Precious {
        let outside = tempfile::tempdir().unwrap();
        let path = outside.path().join("precious");
        std::fs::write(&path, "keep").unwrap();
        Precious { outside, path }
    }

    /// Puts a link to the precious file (or, with `whole_folder`, to its folder) at `at`.
    fn link_at(&self, at: &Path, whole_folder: bool) {
        let target = if whole_folder {
            self.outside.path()
        } else {
            &self.path
        };
        std::os::unix::fs::symlink(target, at).unwrap();
    }

    fn assert_untouched(&self) {
        assert_eq!(std::fs::read_to_string(&self.path).unwrap(), "keep");
        assert_eq!(
            std::fs::read_dir(self.outside.path()).unwrap().count(),
            1,
            "nothing written beside it"
        );
    }
}

/// The run failed, naming the linked file and saying it is a link.
fn assert_refused_as_link(out: &Output, file: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{file}: refused");
    assert!(err.contains(file) && err.contains("symbolic link"), "{err}");
}

#[test]
fn the_home_and_every_file_ambry_creates_are_private_under_umask_022() {
    let sb = Sandbox::new();
    let home = sb.home.path().join("fresh-home");
    ambry_umask_022_ok(&home, sb.cwd.path(), &save_args("editor", "uses helix"));
    let transcripts = home.join("sessions");
    std::fs::create_dir_all(&transcripts).unwrap();
    std::fs::write(
        transcripts.join("s.jsonl"),
        "{\"ts\": \"2026-11-01T10:00:00Z\", \"role\": \"user\", \"text\": \"helix setup\"}\n",
    )
    .unwrap();
    ambry_umask_022_ok(&home, sb.cwd.path(), &["sessions", "index"]);
    assert_eq!(mode(&home), 0o700, "the home");
    assert_eq!(mode(&home.join("memory")), 0o700);
    for file in ["memory/editor.md", "memory/MEMORY.md", "index.sqlite"] {
        assert_eq!(mode(&home.join(file)), 0o600, "{file}");
    }
}

#[test]
fn a_memory_keeps_the_mode_the_person_gave_it_across_saves_and_in_its_archived_copy() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    ambry_umask_022_ok(home, sb.cwd.path(), &save_args("editor", "uses helix"));
    let file = home.join("memory/editor.md");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    ambry_umask_022_ok(
        home,
        sb.cwd.path(),
        &save_args("editor", "uses helix and vim"),
    );
    assert_eq!(mode(&file), 0o640, "kept across the save");
    let archived: Vec<_> = std::fs::read_dir(home.join("memory/.archive"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(archived.len(), 1, "{archived:?}");
    assert_eq!(mode(&archived[0]), 0o640, "the archived copy keeps it");
}

#[test]
fn links_where_the_lock_the_writer_turn_and_the_archive_belong_are_refused() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    let precious = Precious::new();
    sb.ambry()
        .args(save_args("editor", "uses helix"))
        .assert()
        .success();

    // The scope lock.
    let lock = home.join("memory/.lock");
    let _ = std::fs::remove_file(&lock);
    precious.link_at(&lock, false);
    let out = sb
        .ambry()
        .args(save_args("editor", "uses vim"))
        .output()
        .unwrap();
    assert_refused_as_link(&out, ".lock");
    precious.assert_untouched();
    std::fs::remove_file(&lock).unwrap();

    // The archive: a save over a memory archives the old copy, never outside the home.
    let archive = home.join("memory/.archive");
    let _ = std::fs::remove_dir_all(&archive);
    precious.link_at(&archive, true);
    let out = sb
        .ambry()
        .args(save_args("editor", "uses vim"))
        .output()
        .unwrap();
    assert_refused_as_link(&out, ".archive");
    precious.assert_untouched();
    std::fs::remove_file(&archive).unwrap();

    // The session index's writer turn.
    let writer = home.join("index.sqlite.writer");
    let _ = std::fs::remove_file(&writer);
    precious.link_at(&writer, false);
    let out = sb.ambry().args(["sessions", "index"]).output().unwrap();
    assert_refused_as_link(&out, "index.sqlite.writer");
    precious.assert_untouched();
}

#[test]
fn a_link_where_the_service_lock_belongs_is_refused() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    let precious = Precious::new();
    precious.link_at(&home.join("compose.lock"), false);
    let out = sb
        .ambry()
        .args(["serve", "--idle-exit", "1"])
        .timeout(crate::hostile::HANG)
        .output()
        .unwrap();
    assert_refused_as_link(&out, "compose.lock");
    precious.assert_untouched();
}

/// How memories are ranked must not keep them from being saved, nor sessions from being
/// indexed and recalled: a bad `[retrieval]` value is warned about and its defaults used.
#[test]
fn a_bad_retrieval_value_warns_and_save_index_and_recall_still_work() {
    let sb = Sandbox::new();
    std::fs::write(
        sb.home.path().join("config.toml"),
        "[retrieval]\ntop_k = 0\n",
    )
    .unwrap();
    let sessions = sb.home.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join("s.jsonl"),
        "{\"ts\": \"2026-11-01T10:00:00Z\", \"role\": \"user\", \"text\": \"the heron rollout\"}\n",
    )
    .unwrap();
    for args in [
        save_args("editor", "uses helix"),
        vec!["sessions", "index"],
        vec!["recall", "heron"],
    ] {
        let out = sb.ambry().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(
            err.contains("warning:") && err.contains("retrieval.top_k"),
            "{args:?}: {err}"
        );
        if args[0] == "recall" {
            assert!(String::from_utf8_lossy(&out.stdout).contains("heron"));
        }
    }
    // doctor still reports it as the error it is.
    let out = sb.ambry().args(["doctor"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("retrieval.top_k"));
}

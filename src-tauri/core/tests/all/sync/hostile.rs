//! A remote is input (DESIGN §15): links, traversal names, huge files, invalid UTF-8, secrets
//! and bad names in one commit are refused and reported, nothing of them is written anywhere,
//! and the good file of the same commit arrives.

use std::os::unix::fs::symlink;

use super::*;

#[test]
fn a_hostile_commit_is_refused_file_by_file_and_its_good_file_arrives() {
    let tmp = tempfile::tempdir().unwrap();
    let remote = bare_remote(tmp.path());
    let a = Machine::new(tmp.path(), "a");
    let b = Machine::new(tmp.path(), "b");
    a.save("deploy-steps", "Tag, build, roll out.", 1);
    a.init(&remote, 2);
    b.init(&remote, 3);

    // Someone with write access to the remote pushes one commit by hand.
    let work = tmp.path().join("work");
    git(
        tmp.path(),
        &[
            "clone",
            "--quiet",
            "--branch",
            "main",
            remote.to_str().unwrap(),
            "work",
        ],
    );
    let mem = work.join("memory");
    let memory = |name: &str, body: &str| {
        format!("---\nname: {name}\ntype: reference\ndescription: About {name}\n---\n{body}\n")
    };
    std::fs::write(
        mem.join("good-one.md"),
        memory("good-one", "Arrives intact."),
    )
    .unwrap();
    symlink("/etc/passwd", mem.join("link.md")).unwrap();
    std::fs::write(mem.join("Bad Name.md"), memory("Bad Name", "x")).unwrap();
    let huge = "x".repeat(3 * 1024 * 1024);
    std::fs::write(mem.join("huge.md"), memory("huge", &huge)).unwrap();
    let mut latin1 = memory("latin1", "caf").into_bytes();
    latin1.insert(latin1.len() - 1, 0xe9);
    std::fs::write(mem.join("latin1.md"), latin1).unwrap();
    std::fs::write(
        mem.join("leak.md"),
        memory("leak", "token ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R"),
    )
    .unwrap();
    std::fs::write(mem.join("misnamed.md"), memory("other-name", "x")).unwrap();
    std::fs::write(work.join("config.toml"), "[sync]\nremote = \"elsewhere\"\n").unwrap();
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "--quiet", "-m", "hostile"]);
    // A `..` directory in the tree: a path that would climb out of the home if checked out.
    let evil = git(&work, &["hash-object", "-w", "memory/good-one.md"]);
    let evil_dir = git_stdin(
        &work,
        &["mktree"],
        &format!("100644 blob {evil}\tevil.md\n"),
    );
    let root = git(&work, &["ls-tree", "HEAD"]);
    let root = git_stdin(
        &work,
        &["mktree"],
        &format!("{root}\n040000 tree {evil_dir}\t..\n"),
    );
    let commit = git(&work, &["commit-tree", &root, "-p", "HEAD", "-m", "climb"]);
    git(
        &work,
        &[
            "push",
            "--quiet",
            "origin",
            &format!("{commit}:refs/heads/main"),
        ],
    );

    let report = b.sync(10);
    let refused: Vec<&str> = report.refused.iter().map(|r| r.path.as_str()).collect();
    for path in [
        "../evil.md",
        "config.toml",
        "memory/Bad Name.md",
        "memory/huge.md",
        "memory/latin1.md",
        "memory/leak.md",
        "memory/link.md",
        "memory/misnamed.md",
    ] {
        assert!(
            refused.contains(&path),
            "{path} was not refused: {:#?}",
            report.refused
        );
    }
    let reason = |path: &str| {
        &report
            .refused
            .iter()
            .find(|r| r.path == path)
            .unwrap()
            .reason
    };
    assert!(reason("memory/link.md").contains("symbolic link"));
    assert!(reason("memory/huge.md").contains("bytes"));
    assert!(reason("memory/latin1.md").contains("UTF-8"));
    assert!(reason("memory/leak.md").contains("secret"));

    // The good file of the same commit arrived; nothing else was written, in or out of the home.
    assert_eq!(b.body("good-one").as_deref(), Some("Arrives intact."));
    let names: Vec<String> = b.files().into_keys().collect();
    assert_eq!(names, ["deploy-steps", "good-one"]);
    for stray in [
        "memory/link.md",
        "memory/huge.md",
        "memory/leak.md",
        "memory/Bad Name.md",
    ] {
        assert!(
            std::fs::symlink_metadata(b.home.join(stray)).is_err(),
            "{stray} was written"
        );
    }
    assert!(!tmp.path().join("evil.md").exists() && !b.home.join("evil.md").exists());
    assert!(!std::fs::read_to_string(b.home.join("config.toml"))
        .unwrap()
        .contains("elsewhere"));
    b.assert_index_matches();
    let status = b.ws.sync_status().unwrap();
    assert_eq!(status.state.refused.len(), report.refused.len());
    assert!(status.state.last_error.is_none());
    // The merge this machine pushed dropped them from the remote's tip.
    for path in remote_paths(&remote) {
        assert!(
            ambry_sync::sync::allowlist::Kind::of(&path).is_ok(),
            "{path}"
        );
    }
}

fn git_stdin(dir: &Path, args: &[&str], input: &str) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

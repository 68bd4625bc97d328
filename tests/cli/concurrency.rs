//! Several `ambry` processes saving at once lose nothing (DESIGN §3 "serialized").

use std::collections::BTreeSet;
use std::fs;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::Sandbox;

const WRITERS: usize = 8;
const ROUNDS: usize = 3;

#[test]
fn concurrent_savers_lose_nothing_and_every_overwrite_is_archived() {
    let sb = Sandbox::new();
    let bin = assert_cmd::cargo::cargo_bin("ambry");
    let mut children = Vec::new();
    for round in 0..ROUNDS {
        for writer in 0..WRITERS {
            for (name, body) in [
                (format!("writer-{writer}-round-{round}"), "own".to_string()),
                (
                    "shared".to_string(),
                    format!("writer {writer} round {round}"),
                ),
            ] {
                let child = Command::new(&bin)
                    .env_remove("AMBRY_HOME")
                    .arg("--home")
                    .arg(sb.home.path())
                    .arg("--cwd")
                    .arg(sb.cwd.path())
                    .args([
                        "memory",
                        "save",
                        &name,
                        "--type",
                        "project",
                        "--description",
                        &format!("saved by {writer}"),
                        "--body",
                        &body,
                    ])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                children.push(child);
            }
        }
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a save failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let dir = sb.home.path().join("memory");
    let files: BTreeSet<String> = fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter(|n| n.ends_with(".md") && n != "MEMORY.md")
        .collect();
    assert_eq!(
        files.len(),
        WRITERS * ROUNDS + 1,
        "every distinct memory plus the shared one: {files:?}"
    );

    // Every save of `shared` but the first replaced a version, and each replaced version is archived.
    let archived: Vec<String> = fs::read_dir(dir.join(".archive"))
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .collect();
    assert_eq!(
        archived.iter().filter(|n| n.starts_with("shared.")).count(),
        WRITERS * ROUNDS - 1
    );
    let mut bodies: BTreeSet<String> = archived
        .iter()
        .map(|n| fs::read_to_string(dir.join(".archive").join(n)).unwrap())
        .map(|t| t.lines().last().unwrap().to_string())
        .collect();
    bodies.insert(
        fs::read_to_string(dir.join("shared.md"))
            .unwrap()
            .lines()
            .last()
            .unwrap()
            .to_string(),
    );
    assert_eq!(
        bodies.len(),
        WRITERS * ROUNDS,
        "each writer's version survives, current or archived"
    );

    // MEMORY.md matches the directory exactly.
    let index = fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    let indexed: BTreeSet<String> = index
        .lines()
        .filter_map(|l| {
            l.strip_prefix("- [")
                .and_then(|r| r.split_once(']'))
                .map(|(n, _)| format!("{n}.md"))
        })
        .collect();
    assert_eq!(indexed, files);

    // And the store agrees: everything parses, nothing is missing.
    let out = sb
        .ambry()
        .args(["memory", "list", "--json"])
        .output()
        .unwrap();
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), files.len());
    assert!(rows.iter().all(|r| r.get("error").is_none()));
}

//! SIGKILL in the middle of a save never leaves a torn memory file (DESIGN §3 "atomic").

use std::fs;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::Sandbox;

const KILLS: u64 = 24;

#[test]
fn killed_saves_leave_every_memory_whole() {
    let sb = Sandbox::new();
    let bin = assert_cmd::cargo::cargo_bin("ambry");
    // Bodies at the size limit (256 KiB) keep each save busy long enough for kills to land mid-write.
    let line_a = "alpha alpha alpha alpha alpha alpha alpha alpha alpha alpha alpha\n";
    let line_b = "bravo bravo bravo bravo bravo bravo bravo bravo bravo bravo bravo\n";
    let body_a = sb.cwd.path().join("a.txt");
    let body_b = sb.cwd.path().join("b.txt");
    fs::write(&body_a, line_a.repeat(3_900)).unwrap();
    fs::write(&body_b, line_b.repeat(3_900)).unwrap();
    // A first complete save, so later kills hit overwrites (archive + replace) too.
    sb.ambry()
        .args([
            "memory",
            "save",
            "big",
            "--type",
            "reference",
            "--description",
            "large",
            "--body-file",
        ])
        .arg(&body_a)
        .assert()
        .success();

    let mut completed = 0;
    for i in 0..KILLS {
        let body = if i % 2 == 0 { &body_b } else { &body_a };
        let mut child = Command::new(&bin)
            .env_remove("AMBRY_HOME")
            .arg("--home")
            .arg(sb.home.path())
            .arg("--cwd")
            .arg(sb.cwd.path())
            .args([
                "memory",
                "save",
                "big",
                "--type",
                "reference",
                "--description",
                "large",
                "--body-file",
            ])
            .arg(body)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Spread kills from "before anything" to "probably done".
        std::thread::sleep(Duration::from_millis(i * 7 % 120));
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        if status.success() {
            completed += 1;
        }

        let text = fs::read_to_string(sb.home.path().join("memory/big.md"))
            .expect("the memory survives every kill");
        let body_text = text.splitn(3, "---\n").nth(2).expect("frontmatter intact");
        let whole_a = body_text == line_a.repeat(3_900);
        let whole_b = body_text == line_b.repeat(3_900);
        assert!(
            whole_a || whole_b,
            "kill {i}: body is torn ({} bytes)",
            body_text.len()
        );
    }

    let out = sb
        .ambry()
        .args(["memory", "list", "--json"])
        .output()
        .unwrap();
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        rows.len(),
        1,
        "temp files are never listed as memories: {rows:?}"
    );
    assert_eq!(rows[0]["name"], "big");
    assert!(rows[0].get("error").is_none());
    let out = sb
        .ambry()
        .args(["memory", "archive", "list", "--json"])
        .output()
        .unwrap();
    let versions: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    for v in versions {
        let text = fs::read_to_string(v["path"].as_str().unwrap()).unwrap();
        assert!(
            text.ends_with(line_a) || text.ends_with(line_b),
            "archived versions are whole too"
        );
    }
    // Some kills should land after completion and some before; the test is only meaningful
    // if at least one save was interrupted.
    assert!(
        completed < KILLS,
        "no save was interrupted; the kill schedule is too late"
    );
}

//! Stale against the code: a project memory naming files or directories that are no longer in
//! its repository's tree, with the commit that removed or renamed them when git can say so.
//!
//! Owns: finding path-like words in a memory (`src/auth/refresh.rs`, `scripts/`, `Makefile.toml`),
//! checking them against the repository root, and asking `git log` (bounded in time) which
//! commit deleted or renamed one. A path is reported only when git knows it once existed, so a
//! made-up example path in a memory is never flagged.
//! Deliberately does not: read memory files or run anything but `git log`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use serde::Serialize;

/// The longest one `git log` may take before it is stopped (the finding then has no commit).
const GIT_BOUND: Duration = Duration::from_secs(3);

/// A path a memory names that is gone from the tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MissingPath {
    pub path: String,
    /// The commit that deleted or renamed it: short hash and subject.
    pub commit: String,
    pub subject: String,
}

/// Path-like words of `text`: with a `/` (relative, no `..`, no URL) or a file name with a
/// known extension.
pub fn named_paths(text: &str) -> BTreeSet<String> {
    static PATH: OnceLock<regex::Regex> = OnceLock::new();
    let pattern = PATH.get_or_init(|| {
        regex::Regex::new(
            r"(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]*|[A-Za-z0-9_-]+\.(?:rs|ts|tsx|js|jsx|py|go|rb|java|kt|toml|json|yaml|yml|md|sh|sql|css|html|lock|cfg|ini)\b",
        )
        .expect("valid pattern")
    });
    pattern
        .find_iter(text)
        .filter(|m| {
            let before = &text[..m.start()];
            // Not part of a URL or an absolute path.
            !before.ends_with(['/', ':', '@', '~']) && !before.ends_with("//")
        })
        .map(|m| m.as_str().trim_end_matches('.').to_string())
        .filter(|p| !p.is_empty() && !p.split('/').any(|part| part == ".." || part == "."))
        .collect()
}

/// The named paths of `text` missing from the tree at `root`, each with the commit that removed
/// it (paths git never knew are left out).
pub fn missing_paths(root: &Path, text: &str) -> Vec<MissingPath> {
    named_paths(text)
        .into_iter()
        .filter(|p| !root.join(p.trim_end_matches('/')).exists())
        .filter_map(|p| {
            let (commit, subject) = removing_commit(root, p.trim_end_matches('/'))?;
            Some(MissingPath {
                path: p,
                commit,
                subject,
            })
        })
        .collect()
}

/// `git log -1` of the commit that deleted or renamed `path`, bounded by `GIT_BOUND`.
fn removing_commit(root: &Path, path: &str) -> Option<(String, String)> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "log",
            "-1",
            "--format=%h%x09%s",
            "--diff-filter=DR",
            "--",
            path,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut out = String::new();
        let _ = stdout.take(64 * 1024).read_to_string(&mut out);
        let _ = tx.send(out);
    });
    let out = match rx.recv_timeout(GIT_BOUND) {
        Ok(out) => out,
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
    };
    let _ = child.wait();
    let line = out.lines().next()?;
    let (commit, subject) = line.split_once('\t')?;
    Some((commit.to_string(), subject.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(root: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(root)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn paths_are_found_in_prose_but_not_urls_or_parents() {
        let found = named_paths(
            "Edit `src/auth/refresh.rs` and the scripts/ folder; see https://x.io/a/b, ../up/x.rs and Cargo.toml.",
        );
        let found: Vec<&str> = found.iter().map(String::as_str).collect();
        assert_eq!(found, ["Cargo.toml", "scripts/", "src/auth/refresh.rs"]);
    }

    #[test]
    fn a_renamed_file_and_a_removed_directory_are_named_with_their_commits() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        git(root, &["init", "-q"]);
        std::fs::create_dir_all(root.join("old_dir")).unwrap();
        std::fs::write(root.join("old_dir/a.txt"), "a").unwrap();
        std::fs::write(root.join("config.toml"), "x").unwrap();
        std::fs::write(root.join("kept.rs"), "k").unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "start"]);
        git(root, &["mv", "config.toml", "settings.toml"]);
        git(root, &["commit", "-qm", "Rename config to settings"]);
        git(root, &["rm", "-rq", "old_dir"]);
        git(root, &["commit", "-qm", "Drop the old dir"]);

        let missing = missing_paths(
            root,
            "Settings live in config.toml; fixtures in old_dir/; entry kept.rs; example made/up.rs",
        );
        let got: Vec<(&str, &str)> = missing
            .iter()
            .map(|m| (m.path.as_str(), m.subject.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("config.toml", "Rename config to settings"),
                ("old_dir/", "Drop the old dir")
            ]
        );
        assert!(missing.iter().all(|m| m.commit.len() >= 7));
    }
}

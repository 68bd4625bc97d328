//! Team memory (DESIGN §15): a repository's shared memories in its working tree,
//! `<repo>/.ambry/memory/<name>.md`, committed and reviewed with the code by the people who work
//! on it; and whether this person trusts them.
//!
//! Owns: where the team directory is, making it safe to write (inside the repository, never
//! through a link — a cloned repository is someone else's files), the `.gitignore` that keeps
//! what Ambry writes beside the memories (MEMORY.md, sidecars, the archive, locks) out of
//! commits, and the trust record (`AMBRY_HOME/projects/<slug>/team-trusted`).
//! It also keeps, per project, the text of each team memory as this person last saw it
//! (`AMBRY_HOME/projects/<slug>/team-seen/<name>.md`), so what arrives later through git is
//! listed in the review inbox as "changed by the team" until they have looked at it.
//! Deliberately does not: commit, push or run git; decide what is injected (the store's scopes
//! and the composer do, from `is_trusted`).

use std::path::{Path, PathBuf};

use super::StoreError;
use crate::home::AmbryHome;

/// Where a repository's team memories live, relative to its root.
pub const TEAM_DIR: &str = ".ambry/memory";

/// What Ambry writes beside team memories that is this machine's, never the team's.
const GITIGNORE: &str = "# Written by Ambry on each machine; only the memories (*.md) are shared.\nMEMORY.md\n*.vec\n.archive/\n.lock\n.tmp-*\n.ambry-*\n";

/// The team memory directory of the repository at `root`.
pub fn team_dir(root: &Path) -> PathBuf {
    root.join(TEAM_DIR)
}

/// The trust record of a project: its presence means the person trusts its team memory.
pub fn trust_file(home: &AmbryHome, slug: &str) -> PathBuf {
    home.project_dir(slug).join("team-trusted")
}

pub fn is_trusted(home: &AmbryHome, slug: &str) -> bool {
    std::fs::symlink_metadata(trust_file(home, slug)).is_ok_and(|m| m.is_file())
}

/// Records (or with `trusted == false`, removes) the person's trust in `slug`'s team memory.
pub fn set_trusted(
    home: &AmbryHome,
    slug: &str,
    root: &Path,
    trusted: bool,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), StoreError> {
    let file = trust_file(home, slug);
    if !trusted {
        return match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(StoreError::io("remove", &file, e))
            }
            _ => Ok(()),
        };
    }
    let dir = home.project_dir(slug);
    crate::storage::create_private_dir_all(&dir).map_err(|e| StoreError::io("create", &dir, e))?;
    let text = format!(
        "trusted = \"{}\"\nroot = {:?}\n",
        crate::memory::frontmatter::rfc3339(now),
        root.display().to_string()
    );
    crate::storage::write_atomic(&dir, "team-trusted", text.as_bytes())
        .map_err(|e| StoreError::io("write", &file, e))
}

/// Refuses a team directory reached through a link: `.ambry` or `.ambry/memory` pointing out of
/// the repository (a cloned repository could point it at any folder of this machine).
pub fn refuse_links(root: &Path) -> Result<(), StoreError> {
    let mut dir = root.to_path_buf();
    for part in [".ambry", "memory"] {
        dir.push(part);
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(StoreError::Unreadable {
                path: dir.display().to_string(),
                reason:
                    "it is a link; team memory is read only from a directory inside the repository"
                        .into(),
            });
        }
    }
    Ok(())
}

/// Makes `<root>/.ambry/memory` ready for a write: each of `.ambry` and `.ambry/memory` a real
/// directory inside the repository (created if missing, never a link), and the `.gitignore`
/// in place.
pub fn prepare(root: &Path) -> Result<(), StoreError> {
    if root.as_os_str().is_empty() {
        return Err(StoreError::NoProject);
    }
    let mut dir = root.to_path_buf();
    for part in [".ambry", "memory"] {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() || !meta.is_dir() => {
                return Err(StoreError::io(
                    "write",
                    &dir,
                    std::io::Error::other(
                        "not a directory of the repository (a link or a file); Ambry writes team memory only inside the repository",
                    ),
                ))
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&dir).map_err(|e| StoreError::io("create", &dir, e))?
            }
            Err(e) => return Err(StoreError::io("read", &dir, e)),
        }
    }
    let ignore = dir.join(".gitignore");
    match std::fs::symlink_metadata(&ignore) {
        Ok(_) => Ok(()),
        Err(_) => crate::storage::write_atomic(&dir, ".gitignore", GITIGNORE.as_bytes())
            .map_err(|e| StoreError::io("write", &ignore, e)),
    }
}

/// Where the text of `name` as this person last saw it is kept.
fn seen_dir(home: &AmbryHome, slug: &str) -> PathBuf {
    home.project_dir(slug).join("team-seen")
}

/// The body of team memory `name` as this person last saw it; `None` if never.
pub fn seen(home: &AmbryHome, slug: &str, name: &str) -> Option<String> {
    let path = seen_dir(home, slug).join(format!("{name}.md"));
    crate::memory::bounded_read::read_regular_unlinked(
        &path,
        crate::memory::validate::MEMORY_FILE_MAX,
    )
    .ok()
    .and_then(|bytes| String::from_utf8(bytes).ok())
}

/// Records `body` as what this person has seen of team memory `name`.
pub fn mark_seen(home: &AmbryHome, slug: &str, name: &str, body: &str) -> Result<(), StoreError> {
    let dir = seen_dir(home, slug);
    crate::storage::create_private_dir_all(&dir).map_err(|e| StoreError::io("create", &dir, e))?;
    crate::storage::write_atomic(&dir, &format!("{name}.md"), body.as_bytes())
        .map_err(|e| StoreError::io("write", &dir.join(format!("{name}.md")), e))
}

/// Each team memory's state in git, as the app shows it: `new` (not committed yet), `modified`
/// (changed since the last commit) or `committed`. Empty when git cannot say (no git, not a
/// repository): the state is then unknown, never guessed.
pub fn git_states(root: &Path) -> std::collections::HashMap<String, &'static str> {
    let mut states = std::collections::HashMap::new();
    let Ok(out) = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            TEAM_DIR,
        ])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
    else {
        return states;
    };
    if !out.status.success() {
        return states;
    }
    for entry in out.stdout.split(|b| *b == 0) {
        let Ok(line) = std::str::from_utf8(entry) else {
            continue;
        };
        if line.len() < 4 {
            continue;
        }
        let (code, path) = line.split_at(3);
        let Some(name) = path
            .strip_prefix(&format!("{TEAM_DIR}/"))
            .and_then(|f| f.strip_suffix(".md"))
        else {
            continue;
        };
        let state = match code.trim() {
            "??" | "A" | "AM" => "new",
            _ => "modified",
        };
        states.insert(name.to_string(), state);
    }
    // Every other memory file there is as last committed.
    if let Ok(entries) = std::fs::read_dir(team_dir(root)) {
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if let Some(name) = file
                .strip_suffix(".md")
                .filter(|n| *n != "MEMORY" && !n.starts_with('.'))
            {
                states.entry(name.to_string()).or_insert("committed");
            }
        }
    }
    states
}

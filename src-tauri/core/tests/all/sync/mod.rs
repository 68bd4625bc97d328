//! Personal sync on git (DESIGN §15), end to end on real git: a bare repository on local disk is
//! the remote, and two homes are two machines. Time is passed in (no sleeping): each
//! machine's saves carry the `updated` the test gives them.

use crate::support::StoreBelow;
use ambry_core::Place;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use ambry_core::{AmbryHome, Finding, LaunchEnv, SyncReport, Workspace};
use ambry_store::memory::{MemoryDraft, Scope, ScopeFilter, Store};
use chrono::{DateTime, TimeZone, Utc};

mod auto;
mod conflicts;
mod hostile;
mod randomized;
mod round_trip;
mod speed;

pub fn at(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_780_000_000 + secs, 0).unwrap()
}

/// Runs git in `dir` with a test identity; panics with what git said on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// An empty bare repository: the remote both machines sync with.
pub fn bare_remote(dir: &Path) -> PathBuf {
    let remote = dir.join("remote.git");
    std::fs::create_dir_all(&remote).unwrap();
    git(&remote, &["init", "--quiet", "--bare"]);
    remote
}

/// Every path on the remote's sync branch.
pub fn remote_paths(remote: &Path) -> Vec<String> {
    git(remote, &["ls-tree", "-r", "--name-only", "main"])
        .lines()
        .map(str::to_string)
        .collect()
}

/// One machine: a home and the workspace on it (no embedding model: sync does not need one).
pub struct Machine {
    pub home: PathBuf,
    pub ws: Arc<Workspace>,
}

impl Machine {
    pub fn new(root: &Path, name: &str) -> Machine {
        let home = root.join(name);
        std::fs::create_dir_all(&home).unwrap();
        let ws = Arc::new(Workspace::new(
            AmbryHome::new(&home),
            LaunchEnv::with_models_dir(root.join("no-models")),
        ));
        Machine { home, ws }
    }

    pub fn store(&self) -> Store {
        self.ws.store_for(None).unwrap()
    }

    pub fn save(&self, name: &str, body: &str, t: i64) {
        self.ws
            .save(
                &Place::from(&self.store()),
                Scope::User,
                draft(name, body),
                at(t),
            )
            .unwrap();
    }

    pub fn forget(&self, name: &str, t: i64) {
        self.ws
            .forget(&Place::from(&self.store()), Scope::User, name, at(t))
            .unwrap();
    }

    pub fn rename(&self, old: &str, new: &str, t: i64) {
        self.ws
            .rename_memory(&Place::from(&self.store()), Scope::User, old, new, at(t))
            .unwrap();
    }

    pub fn init(&self, remote: &Path, t: i64) -> SyncReport {
        self.ws
            .sync_init(&remote.display().to_string(), &self.home, at(t))
            .unwrap()
    }

    pub fn sync(&self, t: i64) -> SyncReport {
        self.ws.sync_now(at(t), false).unwrap()
    }

    /// The user scope's memory files, name to exact bytes.
    pub fn files(&self) -> BTreeMap<String, String> {
        self.store()
            .list(ScopeFilter::User)
            .unwrap()
            .into_iter()
            .map(|f| (f.name.clone(), std::fs::read_to_string(&f.path).unwrap()))
            .collect()
    }

    pub fn body(&self, name: &str) -> Option<String> {
        self.store()
            .get(Some(Scope::User), name)
            .ok()
            .map(|m| m.body.trim_end().to_string())
    }

    /// Every archived version's text in the user scope.
    pub fn archived_texts(&self) -> Vec<String> {
        let dir = self.home.join("memory/.archive");
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The "changed on two machines" findings of the review inbox.
    pub fn two_machine_findings(&self) -> Vec<ambry_core::SyncConflict> {
        self.ws
            .review(&Place::from(&self.store()), at(1_000_000))
            .unwrap()
            .into_iter()
            .filter_map(|f| match f {
                Finding::ChangedOnTwoMachines(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    /// MEMORY.md lists exactly the memory files.
    pub fn assert_index_matches(&self) {
        let drift = self.store().index_drift(Scope::User).unwrap();
        assert!(drift.is_empty(), "{}: {drift:?}", self.home.display());
    }

    /// No memory file holds a git conflict marker.
    pub fn assert_no_conflict_markers(&self) {
        for (name, text) in self.files() {
            for marker in ["<<<<<<<", ">>>>>>>", "\n=======\n"] {
                assert!(
                    !text.contains(marker),
                    "{name} holds a conflict marker:\n{text}"
                );
            }
        }
    }
}

pub fn draft(name: &str, body: &str) -> MemoryDraft {
    MemoryDraft {
        name: name.into(),
        kind: "project".into(),
        description: format!("About {name}"),
        body: body.into(),
        tags: Vec::new(),
    }
}

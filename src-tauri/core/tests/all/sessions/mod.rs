//! The session index end to end on real files and a real SQLite database: the real transcript
//! samples, incremental indexing through every kind of file change, recall, and the watcher.

use crate::session_fixture;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ambry_core::{AmbryHome, ErrorCode};
use ambry_sessions::sessions::{
    IndexSummary, RecallHit, RecallQuery, SessionChange, SessionError, SessionIndex,
    SessionWatcher, SessionsConfig, SourceKind, SourceRoots,
};
use tempfile::TempDir;

mod indexing;
mod recall;
mod repair;
mod watcher;

/// The time the tests' indexing runs happen at (unix seconds): the vault dates disappearances
/// by the caller's clock, never by reading one itself.
const NOW: i64 = 1_780_000_000;

/// A temp Ambry home plus temp Claude and Codex homes.
struct Env {
    _tmp: TempDir,
    home: AmbryHome,
    roots: SourceRoots,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let (home, roots) = crate::support::home_and_roots(tmp.path());
        Env {
            _tmp: tmp,
            home,
            roots,
        }
    }
    fn claude(&self) -> &Path {
        self.roots.claude.as_deref().unwrap()
    }
    fn codex(&self) -> &Path {
        self.roots.codex.as_deref().unwrap()
    }
    fn ambry(&self) -> &Path {
        &self.roots.ambry
    }
    fn open(&self) -> SessionIndex {
        SessionIndex::open(&self.home.index_db()).unwrap()
    }
    fn index(&self, cfg: &SessionsConfig) -> IndexSummary {
        self.index_at(cfg, NOW)
    }
    fn index_at(&self, cfg: &SessionsConfig, now: i64) -> IndexSummary {
        self.open()
            .index(&self.roots, cfg, None, now, &mut |_| {})
            .unwrap()
    }
    fn recall(&self, text: &str) -> Vec<RecallHit> {
        self.open().recall(&RecallQuery::new(text)).unwrap()
    }
    /// Rows the full-text index itself holds for `word`, after checking it agrees with the
    /// message table (recall joins the two, so a stale entry would not show there).
    fn fts_rows(&self, word: &str) -> i64 {
        let conn = rusqlite::Connection::open(self.home.index_db()).unwrap();
        conn.execute(
            "INSERT INTO session_fts(session_fts, rank) VALUES ('integrity-check', 1)",
            [],
        )
        .unwrap();
        conn.query_row(
            "SELECT count(*) FROM session_fts WHERE session_fts MATCH ?1",
            [word],
            |r| r.get(0),
        )
        .unwrap()
    }
    fn fixture(&self) {
        session_fixture::write_all(self.claude(), self.codex(), self.ambry());
    }
}

fn samples() -> PathBuf {
    crate::support::manifest_dir().join("tests/fixtures/formats")
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn append(path: &Path, text: &str) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

fn line(role: &str, text: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": role, "text": text})
    )
}

fn count(index: &SessionIndex, text: &str) -> usize {
    index
        .recall(&RecallQuery {
            limit: 1000,
            ..RecallQuery::new(text)
        })
        .unwrap()
        .len()
}

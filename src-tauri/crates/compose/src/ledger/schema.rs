//! Opening `ledger.sqlite`: created 0600 (it says which memories each agent session was given),
//! WAL and the caller's busy timeout (hooks of parallel sessions write at once), and the schema. A file
//! that is corrupt or not a database is set aside as `ledger.sqlite.corrupt-N` (never deleted:
//! it is data) and a new one started, so a turn is never lost to it.
//! Deliberately does not: read or write rows (the ledger does).

use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

use super::LedgerError;
use ambry_store::index_db::{is_corrupt, set_aside};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS contexts(
    session_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    agent TEXT NOT NULL,
    source TEXT NOT NULL,
    started_at TEXT NOT NULL,
    PRIMARY KEY(session_id, generation)
);
CREATE TABLE IF NOT EXISTS injections(
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    agent TEXT NOT NULL,
    scope TEXT NOT NULL,
    project TEXT NOT NULL DEFAULT '',
    name TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    form TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS injections_by_session ON injections(session_id, generation);
CREATE INDEX IF NOT EXISTS injections_by_time ON injections(at);
CREATE TABLE IF NOT EXISTS tool_checks(
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    agent TEXT NOT NULL,
    scope TEXT NOT NULL,
    project TEXT NOT NULL DEFAULT '',
    name TEXT NOT NULL,
    action TEXT NOT NULL,
    tool TEXT NOT NULL,
    input TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_checks_by_session ON tool_checks(session_id, generation);
CREATE TABLE IF NOT EXISTS starts(
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    agent TEXT NOT NULL,
    user_anchor TEXT,
    project_anchor TEXT,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS starts_by_session ON starts(session_id, generation);
";

pub(super) fn open(path: &Path, busy_wait: Duration) -> Result<Connection, LedgerError> {
    let io = |source| LedgerError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        ambry_store::storage::create_private_dir_all(dir).map_err(io)?;
    }
    // Refuse a link: the ledger is written on every turn and must stay inside the home.
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        return Err(io(std::io::Error::other(
            "not a regular file (a link or a directory); move it away",
        )));
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(io)?;
    let db = |source| super::error_of(path, busy_wait, source);
    match open_once(path, busy_wait) {
        Err(e) if is_corrupt(&e) => {
            let kept = set_aside(path).map_err(io)?;
            tracing::warn!(
                "{} is unreadable ({e}); a new ledger is started, the damaged one kept as {}",
                path.display(),
                kept.display()
            );
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(path)
                .map_err(io)?;
            open_once(path, busy_wait).map_err(db)
        }
        other => other.map_err(db),
    }
}

fn open_once(path: &Path, busy_wait: Duration) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(busy_wait)?;
    conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))?;
    conn.execute_batch("PRAGMA synchronous=NORMAL;")?;
    conn.execute_batch(SCHEMA)?;
    Ok(conn)
}

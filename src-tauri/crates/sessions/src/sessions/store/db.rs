//! The session tables: a tenant of `index.sqlite` (see `ambry_store::index_db`, which opens the file).
//!
//! Owns: the session schema and its version (key `sessions.schema` in the shared `meta`
//! table), dropping and recreating only its own tables when the version changes (except from
//! versions 2 to 5, which are migrated in place so the vault of sessions whose files are gone
//! survives), and asking for a fresh file when its tables are damaged.
//! Deliberately does not: open the file or set its pragmas (the owner does), touch the ranker's
//! tables, or decide what goes into its own.

use rusqlite::Connection;
use std::path::Path;
use std::time::Duration;

use super::writer_turn::WriterTurn;
use crate::sessions::error::{is_busy, is_corrupt, SessionError};
use ambry_store::index_db;

pub(super) const SCHEMA_KEY: &str = "sessions.schema";
/// 7: the same layout as 6, its stored text masked again by the current secret rules (a form
/// the rules learned to see — a password on a command line, a key block on one line — was kept
/// verbatim by an index written before).
pub(super) const SCHEMA_VERSION: &str = "7";

const DROP: &str = "
DROP TRIGGER IF EXISTS session_messages_ai;
DROP TRIGGER IF EXISTS session_messages_ad;
DROP TABLE IF EXISTS session_fts;
DROP TABLE IF EXISTS session_doc_fts;
DROP TABLE IF EXISTS session_vectors;
DROP TABLE IF EXISTS session_messages;
DROP TABLE IF EXISTS session_files;
";

const CREATE: &str = "
CREATE TABLE IF NOT EXISTS session_files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    -- checkpoint: the file as last seen, and the end of its last complete line
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    head_len INTEGER NOT NULL,
    head_hash BLOB NOT NULL,
    include_tools INTEGER NOT NULL,
    is_binary INTEGER NOT NULL DEFAULT 0,
    -- the session, as the parser saw it so far
    session_id TEXT NOT NULL,
    state_session_id TEXT,
    cwd TEXT,
    agent_title TEXT,
    first_prompt TEXT,
    model TEXT,
    first_ts TEXT,
    last_ts TEXT,
    messages INTEGER NOT NULL DEFAULT 0,
    malformed INTEGER NOT NULL DEFAULT 0,
    -- the vault: unix seconds when the transcript file was found deleted (rows kept)
    source_removed_at INTEGER
);
CREATE INDEX IF NOT EXISTS session_files_session ON session_files(session_id);
CREATE TABLE IF NOT EXISTS session_messages(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    role TEXT NOT NULL,
    ts TEXT,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS session_messages_file ON session_messages(file_id);
-- Kept in step by `index` with plain statements, not triggers: a trigger makes every insert a
-- statement transaction, and FTS5 writes out a segment at each one (ten times the work).
CREATE VIRTUAL TABLE IF NOT EXISTS session_fts USING fts5(
    text, content='session_messages', content_rowid='id', tokenize='porter unicode61'
);
-- One row per file (rowid = session_files.id): everything the person and the agent said in it,
-- so recall can rank a session by its whole text. Contentless (the text is in session_messages
-- already); rewritten whole when the file gains messages.
CREATE VIRTUAL TABLE IF NOT EXISTS session_doc_fts USING fts5(
    text, content='', contentless_delete=1, tokenize='porter unicode61'
);
-- Vectors of user and assistant messages, one per chunk (see `vectors`), filled by a separate
-- pass when the model is loaded; removed with their file's messages. A message with no words
-- has one row of chunk -1 and no vector, so it is not picked up again.
CREATE TABLE IF NOT EXISTS session_vectors(
    message_id INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    file_id INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY(message_id, chunk)
);
CREATE INDEX IF NOT EXISTS session_vectors_file ON session_vectors(file_id);
";

/// Opens (creating if needed) the database with current session tables, waiting at most
/// `busy_timeout` for another connection's lock (see `index_db::open`).
pub(crate) fn open(path: &Path, busy_timeout: Duration) -> Result<Connection, SessionError> {
    match open_or_repair(path, busy_timeout) {
        // Making a new file WAL, or creating the shared `meta` table, writes before any turn is
        // taken: behind another indexer's run, which holds the write lock for minutes at a time,
        // that can outlast the busy timeout (SQLite's handler polls and misses the gaps between
        // the run's batches). In the writers' turn no run is going on.
        Err(SessionError::Busy { .. }) => {
            let _turn = WriterTurn::queue(path)?;
            open_or_repair(path, busy_timeout)
        }
        other => other,
    }
}

fn open_or_repair(path: &Path, busy_timeout: Duration) -> Result<Connection, SessionError> {
    match open_once(path, busy_timeout) {
        Err(Failure::Corrupt(reason)) => {
            // The file opened but the session tables are damaged: only they are rebuilt from
            // nothing, through the owner, which starts the file over.
            tracing::warn!(
                "session index {} is unreadable ({reason}); rebuilding it",
                path.display()
            );
            let _turn = WriterTurn::queue(path)?;
            remove_database(path)?;
            open_once(path, busy_timeout).map_err(|f| f.into_error(path))
        }
        other => other.map_err(|f| f.into_error(path)),
    }
}

/// Sets the damaged database file aside (the next `open` starts empty; the vault in the old
/// file is not destroyed, see `index_db::set_aside`).
pub(crate) fn remove_database(path: &Path) -> Result<(), SessionError> {
    index_db::set_aside(path)
        .map(|kept| tracing::warn!("the damaged index is kept as {}", kept.display()))
        .map_err(|e| SessionError::Open {
            path: path.to_path_buf(),
            reason: format!("cannot move the broken index aside: {e}"),
        })
}

enum Failure {
    Corrupt(String),
    Busy,
    Other(String),
}

impl Failure {
    fn into_error(self, path: &Path) -> SessionError {
        match self {
            Failure::Busy => SessionError::Busy {
                path: path.to_path_buf(),
            },
            Failure::Corrupt(reason) | Failure::Other(reason) => SessionError::Open {
                path: path.to_path_buf(),
                reason,
            },
        }
    }
}

impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Self {
        if is_corrupt(&e) {
            Failure::Corrupt(e.to_string())
        } else if is_busy(&e) {
            Failure::Busy
        } else {
            Failure::Other(e.to_string())
        }
    }
}

fn open_once(path: &Path, busy_timeout: Duration) -> Result<Connection, Failure> {
    let conn = index_db::open(path, busy_timeout)?;
    // The current layout needs no write to open: a second indexer opening during the first's
    // run must not wait for its turn just to learn the tables exist.
    if index_db::schema_version(&conn, SCHEMA_KEY).as_deref() != Some(SCHEMA_VERSION) {
        // Decided again in the writer's turn: indexers opening a new file at once must not drop
        // the tables the first of them just created and began to fill, nor migrate twice.
        let _turn = WriterTurn::queue(path).map_err(|e| Failure::Other(e.to_string()))?;
        let version = index_db::schema_version(&conn, SCHEMA_KEY);
        if matches!(version.as_deref(), Some("2" | "3" | "4" | "5" | "6")) {
            // Vaulted sessions exist nowhere else: migrate in place rather than rebuild.
            if version.as_deref() == Some("2") {
                migrate_from_2(&conn)?;
            }
            if matches!(version.as_deref(), Some("2" | "3")) {
                migrate_from_3(&conn)?;
            }
            if !matches!(version.as_deref(), Some("5" | "6")) {
                migrate_from_4(&conn)?;
            }
            mask_again(&conn)?;
            conn.execute_batch(CREATE)?;
        } else if version.as_deref() != Some(SCHEMA_VERSION) {
            // Another version's layout (or none): only the session tables are ours to replace.
            conn.execute_batch("BEGIN IMMEDIATE")?;
            let replaced = (|| {
                conn.execute_batch(&format!("{DROP} {CREATE}"))?;
                index_db::set_schema_version(&conn, SCHEMA_KEY, SCHEMA_VERSION)?;
                conn.execute_batch("COMMIT")
            })();
            if replaced.is_err() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            replaced?;
        }
    }
    // A damaged FTS index shows up here rather than in the middle of a search.
    conn.query_row("SELECT count(*) FROM session_files", [], |_| Ok(()))?;
    Ok(conn)
}

/// Version 2 → 3: a per-file count of malformed lines; files once skipped whole as binary are
/// read again (their lines are judged one by one now); messages two concurrent indexers stored
/// twice (same file, role, time and text, an exact copy) are removed, as are their full-text rows.
fn migrate_from_2(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(&format!(
        "BEGIN IMMEDIATE;
         ALTER TABLE session_files ADD COLUMN malformed INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE session_files ADD COLUMN source_removed_at INTEGER;
         UPDATE session_files SET size = -1, is_binary = 0 WHERE is_binary = 1;
         CREATE TEMP TABLE duplicate_messages AS
             SELECT id, text FROM session_messages
             WHERE id NOT IN (SELECT min(id) FROM session_messages GROUP BY file_id, role, ts, text);
         INSERT INTO session_fts(session_fts, rowid, text) SELECT 'delete', id, text FROM duplicate_messages;
         DELETE FROM session_messages WHERE id IN (SELECT id FROM duplicate_messages);
         DROP TABLE duplicate_messages;
         UPDATE session_files SET messages = (SELECT count(*) FROM session_messages WHERE file_id = session_files.id);
         INSERT OR REPLACE INTO meta(key, value) VALUES ('{SCHEMA_KEY}', '3');
         COMMIT;"
    ))
}

/// Version 3 → 4: the whole-session text index, filled from the messages already stored (those
/// of vaulted files included, whose transcripts cannot be read again).
fn migrate_from_3(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(&format!(
        "BEGIN IMMEDIATE;
         DROP TABLE IF EXISTS session_doc_fts;
         CREATE VIRTUAL TABLE session_doc_fts USING fts5(text, content='', contentless_delete=1, tokenize='porter unicode61');
         INSERT INTO session_doc_fts(rowid, text) {};
         INSERT OR REPLACE INTO meta(key, value) VALUES ('{SCHEMA_KEY}', '4');
         COMMIT;",
        super::pending_fts::DOC_TEXT_OF_ALL_FILES
    ))
}

/// Version 4 → 5: the table of message vectors, empty (the next fill pass embeds every message).
fn migrate_from_4(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(&format!(
        "BEGIN IMMEDIATE;
         CREATE TABLE IF NOT EXISTS session_vectors(
             message_id INTEGER NOT NULL, chunk INTEGER NOT NULL, file_id INTEGER NOT NULL, vector BLOB NOT NULL,
             PRIMARY KEY(message_id, chunk));
         CREATE INDEX IF NOT EXISTS session_vectors_file ON session_vectors(file_id);
         INSERT OR REPLACE INTO meta(key, value) VALUES ('{SCHEMA_KEY}', '5');
         COMMIT;"
    ))
}

/// Version 5 or 6 → 7: secrets an older indexer (or older rules) stored verbatim are masked, as
/// new lines are. Masking masked text changes nothing, so this is safe to run on any version.
fn mask_again(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let masked = super::mask_stored::mask_stored_secrets(conn).and_then(|()| {
        index_db::set_schema_version(conn, SCHEMA_KEY, SCHEMA_VERSION)?;
        conn.execute_batch("COMMIT")
    });
    if masked.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    masked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_file_is_replaced_by_a_fresh_index() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("index.sqlite");
        std::fs::write(
            &db,
            b"this is not a database, just bytes that happen to be here".repeat(100),
        )
        .unwrap();
        let conn = open(&db, index_db::BUSY_TIMEOUT).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM session_files", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0);
    }

    #[test]
    fn an_old_schema_is_replaced_and_other_tables_survive() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("index.sqlite");
        {
            let c = Connection::open(&db).unwrap();
            c.execute_batch(
                "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
                 INSERT INTO meta VALUES ('sessions.schema', '0'), ('rank.schema', '1');
                 CREATE TABLE rank_snapshots(dir TEXT PRIMARY KEY, data BLOB NOT NULL);
                 INSERT INTO rank_snapshots VALUES ('/m', x'01');
                 CREATE TABLE session_files(path TEXT);",
            )
            .unwrap();
        }
        let conn = open(&db, index_db::BUSY_TIMEOUT).unwrap();
        let cols: i64 = conn
            .query_row(
                "SELECT count(*) FROM pragma_table_info('session_files')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(cols > 5, "the old session table was replaced");
        let kept: i64 = conn
            .query_row("SELECT count(*) FROM rank_snapshots", [], |r| r.get(0))
            .unwrap();
        assert_eq!(kept, 1, "the ranker's table is untouched");
        let v: String = conn
            .query_row(
                "SELECT value FROM meta WHERE key='sessions.schema'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
    }
}

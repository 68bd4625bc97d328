//! `index.sqlite`: the one database of derived data under the home (DESIGN §2), shared by its
//! tenants — the session index and the ranker's corpus snapshots.
//!
//! Owns: opening it (WAL, a busy timeout, the pragmas), the shared `meta` table where each
//! tenant records its schema version under its own key, and starting over from an empty file
//! when the file is corrupt or not a database at all (everything in it can be rebuilt).
//! Deliberately does not: define any tenant's tables, or decide when a tenant's schema is
//! stale; each tenant owns its tables and compares its own version.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, ErrorCode};

/// Long enough to wait out another process's file transaction, short enough to report a stuck lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Opens (creating the file and its directory if needed) with the shared pragmas and `meta`.
/// A file that is corrupt or not a database is deleted and created anew.
pub(crate) fn open(path: &Path) -> rusqlite::Result<Connection> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    }
    match open_once(path) {
        Err(e) if is_corrupt(&e) => {
            tracing::warn!("{} is unreadable ({e}); starting it over (it holds only derived data)", path.display());
            remove(path).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            open_once(path)
        }
        other => other,
    }
}

fn open_once(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Reading the journal mode touches the file header: a non-database fails here.
    conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))?;
    conn.execute_batch(
        "PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY;
         CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);",
    )?;
    Ok(conn)
}

/// The schema version a tenant recorded under `key`, if any.
pub(crate) fn schema_version(conn: &Connection, key: &str) -> Option<String> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).ok()
}

pub(crate) fn set_schema_version(conn: &Connection, key: &str, version: &str) -> rusqlite::Result<()> {
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)", [key, version]).map(drop)
}

/// Deletes the database file and its WAL companions (the next `open` starts empty).
pub(crate) fn remove(path: &Path) -> std::io::Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The file is damaged or is not a database: starting over is the fix.
pub(crate) fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(ErrorCode::DatabaseCorrupt) | Some(ErrorCode::NotADatabase))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_database_is_started_over_and_tenants_keep_their_own_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/index.sqlite");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"not a database at all, just text that is long enough").unwrap();
        let conn = open(&path).unwrap();
        assert_eq!(schema_version(&conn, "a.schema"), None);
        set_schema_version(&conn, "a.schema", "3").unwrap();
        set_schema_version(&conn, "b.schema", "1").unwrap();
        drop(conn);
        let conn = open(&path).unwrap();
        assert_eq!(schema_version(&conn, "a.schema").as_deref(), Some("3"));
        assert_eq!(schema_version(&conn, "b.schema").as_deref(), Some("1"));
    }
}

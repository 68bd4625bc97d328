//! `index.sqlite`: the one database of indexes and caches under the home (DESIGN §2), shared by its
//! tenants — the session index and the ranker's corpus snapshots.
//!
//! Owns: opening it (WAL, the caller's busy timeout, the pragmas), the shared `meta` table where each
//! tenant records its schema version under its own key, and starting over from an empty file
//! when the file is corrupt or not a database at all. Most of it can be rebuilt, but not the
//! session vault (transcripts whose source file is gone), so a damaged file is set aside as
//! `index.sqlite.corrupt-N`, never deleted: whatever is still readable in it can be recovered.
//! Deliberately does not: define any tenant's tables, or decide when a tenant's schema is
//! stale; each tenant owns its tables and compares its own version.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode};

/// The busy timeout to `open` with: long enough to wait out another indexer's batch (a few MB of
/// transcripts per commit, which on a busy 2-core machine took over 5 s), short enough to report
/// a stuck lock.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(15);

/// Creates `path` empty with mode 0600 if it is missing (an empty file is an empty database).
pub fn create_private(path: &Path) -> rusqlite::Result<()> {
    if !path.exists() {
        crate::storage::open_private(path, false)
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    }
    Ok(())
}

/// Opens (creating the file and its directory if needed) with the shared pragmas and `meta`,
/// every statement waiting at most `busy_timeout` (normally [`BUSY_TIMEOUT`]) for another
/// connection's lock. A file that is corrupt or not a database is set aside and created anew.
pub fn open(path: &Path, busy_timeout: Duration) -> rusqlite::Result<Connection> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::storage::create_private_dir_all(dir)
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    }
    // Created 0600 before SQLite opens it (SQLite would use the umask; its journal and WAL take
    // the database's mode): the index holds every transcript. One an older version made is
    // made private too.
    create_private(path)?;
    crate::storage::make_private(path);
    match open_once(path, busy_timeout) {
        Err(e) if is_corrupt(&e) => {
            let kept = set_aside(path)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            tracing::warn!(
                "{} is unreadable ({e}); starting it over, the damaged file kept as {}",
                path.display(),
                kept.display()
            );
            create_private(path)?;
            open_once(path, busy_timeout)
        }
        other => other,
    }
}

pub fn open_once(path: &Path, busy_timeout: Duration) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(busy_timeout)?;
    // Reading the journal mode touches the file header: a non-database fails here.
    conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))?;
    // No mmap, though a recall reads megabytes of vectors through a fresh connection: a file
    // truncated by another process while mapped kills the reader (SIGBUS) — the app, which hosts
    // the service — where read() gives an error the index recovers from.
    conn.execute_batch(
        "PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY;
         CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);",
    )?;
    Ok(conn)
}

/// The schema version a tenant recorded under `key`, if any.
pub fn schema_version(conn: &Connection, key: &str) -> Option<String> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .ok()
}

pub fn set_schema_version(conn: &Connection, key: &str, version: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)",
        [key, version],
    )
    .map(drop)
}

/// Moves a damaged database and its WAL companions out of the way (the next `open` starts
/// empty) as `<name>.corrupt-N`, N the first number not taken, and returns the new path of the
/// database file. The WAL goes with it: its frames may hold the last transactions.
pub fn set_aside(path: &Path) -> std::io::Result<PathBuf> {
    let with_suffix = |base: &Path, suffix: &str| {
        let mut p = base.as_os_str().to_owned();
        p.push(suffix);
        PathBuf::from(p)
    };
    let kept = (1u32..)
        .map(|n| with_suffix(path, &format!("{SET_ASIDE_MARK}{n}")))
        .find(|p| !p.exists() && !with_suffix(p, "-wal").exists())
        .expect("an unbounded range has a free number");
    for suffix in ["", "-wal", "-shm"] {
        match std::fs::rename(with_suffix(path, suffix), with_suffix(&kept, suffix)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(kept)
}

pub const SET_ASIDE_MARK: &str = ".corrupt-";

/// Damaged copies set aside next to `path` by earlier starts-over, oldest first.
pub fn set_aside_copies(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return Vec::new();
    };
    let prefix = format!("{name}{SET_ASIDE_MARK}");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut copies: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let file = e.file_name().into_string().ok()?;
            let n = file.strip_prefix(&prefix)?.parse::<u32>().ok()?;
            Some((n, e.path()))
        })
        .collect();
    copies.sort();
    copies.into_iter().map(|(_, p)| p).collect()
}

/// The file is damaged or is not a database: starting over is the fix.
/// Another connection held the lock for all of the busy timeout.
pub fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked)
    )
}

pub fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt) | Some(ErrorCode::NotADatabase)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_database_is_started_over_and_tenants_keep_their_own_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/index.sqlite");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            b"not a database at all, just text that is long enough",
        )
        .unwrap();
        let conn = open(&path, BUSY_TIMEOUT).unwrap();
        assert_eq!(schema_version(&conn, "a.schema"), None);
        set_schema_version(&conn, "a.schema", "3").unwrap();
        set_schema_version(&conn, "b.schema", "1").unwrap();
        drop(conn);
        let conn = open(&path, BUSY_TIMEOUT).unwrap();
        assert_eq!(schema_version(&conn, "a.schema").as_deref(), Some("3"));
        assert_eq!(schema_version(&conn, "b.schema").as_deref(), Some("1"));
    }

    #[test]
    fn a_damaged_file_is_set_aside_and_never_overwritten_by_a_later_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        std::fs::write(
            &path,
            b"first damaged file, long enough to be read as a header",
        )
        .unwrap();
        drop(open(&path, BUSY_TIMEOUT).unwrap());
        let first = dir.path().join("index.sqlite.corrupt-1");
        assert_eq!(
            std::fs::read(&first).unwrap(),
            b"first damaged file, long enough to be read as a header"
        );

        std::fs::write(&path, b"second damaged file, also long enough for a header").unwrap();
        drop(open(&path, BUSY_TIMEOUT).unwrap());
        assert_eq!(
            std::fs::read(&first).unwrap(),
            b"first damaged file, long enough to be read as a header"
        );
        let second = dir.path().join("index.sqlite.corrupt-2");
        assert_eq!(
            std::fs::read(&second).unwrap(),
            b"second damaged file, also long enough for a header"
        );
        assert_eq!(set_aside_copies(&path), vec![first, second]);
        // The live file is a working database again.
        assert!(schema_version(&open(&path, BUSY_TIMEOUT).unwrap(), "a.schema").is_none());
    }
}

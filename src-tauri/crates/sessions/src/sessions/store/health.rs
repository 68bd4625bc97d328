//! The session index's line in `ambry doctor`.
//!
//! Owns: reporting whether the index opens, how much it holds and when it was last written.
//! Deliberately does not: index or repair anything (it opens the database read-only); it says
//! what to run instead.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::transcript::stats_of;
use ambry_store::doctor::Check;

const AREA: &str = "session index";

pub fn session_checks(db: &Path) -> Vec<Check> {
    let mut checks = index_checks(db);
    let kept = ambry_store::index_db::set_aside_copies(db);
    if !kept.is_empty() {
        let listed: Vec<String> = kept.iter().map(|p| p.display().to_string()).collect();
        checks.push(Check::warn(
            AREA,
            format!(
                "{} damaged index file(s) were set aside when the index started over: {}. They may hold transcripts whose files are gone (the vault); delete them once nothing in them is needed",
                kept.len(),
                listed.join(", ")
            ),
        ));
    }
    checks
}

/// An index with nothing in it yet is a fresh home's state, not a fault: a note (it never
/// makes the overall status a warning), saying how it fills.
fn index_checks(db: &Path) -> Vec<Check> {
    if !db.exists() {
        return vec![Check::info(
            AREA,
            format!(
                "{} does not exist yet: nothing indexed so far (the app indexes transcripts as agents write them; `ambry sessions index` reads them now)",
                db.display()
            ),
        )];
    }
    let stats = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .and_then(|conn| {
        conn.busy_timeout(std::time::Duration::from_secs(2))?;
        stats_of(&conn)
    });
    match stats {
        Ok(s) if s.files == 0 => vec![Check::info(
            AREA,
            "empty: no transcript read yet (the app indexes them as agents write them; `ambry sessions index` or `ambry recall` reads them now)",
        )],
        Ok(s) => {
            let newest = s
                .newest
                .map(|t| format!("; newest message {t}"))
                .unwrap_or_default();
            let written = last_written(db)
                .map(|t| format!("; last indexed {t}"))
                .unwrap_or_default();
            let mut checks = vec![Check::ok(
                AREA,
                format!(
                    "db ok: {} sessions, {} messages from {} files{newest}{written}",
                    s.sessions, s.messages, s.files
                ),
            )];
            if s.files_with_malformed_lines > 0 {
                let named: Vec<String> = s
                    .malformed_examples
                    .iter()
                    .map(|(path, n)| format!("{path} ({n} line(s))"))
                    .collect();
                let more = s
                    .files_with_malformed_lines
                    .saturating_sub(named.len() as u64);
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                checks.push(Check::warn(
                    AREA,
                    format!(
                        "{} transcript file(s) have malformed lines that were skipped: {}{more}",
                        s.files_with_malformed_lines,
                        named.join(", ")
                    ),
                ));
            }
            checks.extend(secrets_check(db));
            checks
        }
        Err(e) if e.to_string().contains("no such table") => {
            vec![Check::info(
                AREA,
                "no sessions indexed yet (`ambry sessions index` reads them now)",
            )]
        }
        Err(e) => vec![Check::error(
            AREA,
            format!(
                "{} cannot be read ({e}); `ambry sessions index --rebuild` recreates it",
                db.display()
            ),
        )],
    }
}

/// The sessions whose transcripts hold secrets: by id and count, never the secret. The index
/// and every view show them masked; the transcript files still hold them.
fn secrets_check(db: &Path) -> Option<Check> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .ok()?;
    conn.busy_timeout(std::time::Duration::from_secs(2)).ok()?;
    let version = ambry_store::index_db::schema_version(&conn, super::db::SCHEMA_KEY);
    let masked_when_written = version.as_deref() == Some(super::db::SCHEMA_VERSION);
    let ids = match super::mask_stored::sessions_holding_secrets(&conn, masked_when_written) {
        Ok(ids) if ids.is_empty() => return None,
        Ok(ids) => ids,
        Err(e) => {
            return Some(Check::warn(
                AREA,
                format!("cannot look for secrets in the index: {e}"),
            ))
        }
    };
    const NAMED: usize = 10;
    let more = ids.len().saturating_sub(NAMED);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Some(Check::warn(
        AREA,
        format!(
            "{} session(s) have secrets in their transcripts: {}{more}. Recall and `sessions show` mask them, but the transcript files still hold them: rotate those credentials, and delete or edit the transcripts (`ambry sessions prune --source-removed` then drops what the index kept)",
            ids.len(),
            ids[..ids.len().min(NAMED)].join(", ")
        ),
    ))
}

/// When the database (or its write-ahead log) was last modified.
fn last_written(db: &Path) -> Option<String> {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    [db.to_path_buf(), wal.into()]
        .iter()
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
        .map(|t| {
            chrono::DateTime::<chrono::Utc>::from(t)
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ambry_store::doctor::Status;

    #[test]
    fn missing_empty_and_broken_indexes_say_what_to_do() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("index.sqlite");
        assert_eq!(session_checks(&db)[0].status, Status::Info);
        crate::sessions::SessionIndex::open(&db).unwrap();
        let c = session_checks(&db);
        assert_eq!(c[0].status, Status::Info, "{c:?}");
        assert!(c[0].detail.starts_with("empty"), "{c:?}");
        std::fs::write(&db, b"garbage garbage garbage".repeat(200)).unwrap();
        let c = session_checks(&db);
        assert_eq!(c[0].status, Status::Error, "{c:?}");
        assert!(c[0].detail.contains("--rebuild"), "{c:?}");
        assert!(db.exists(), "doctor repairs nothing");
    }
}

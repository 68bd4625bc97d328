//! The session vault (DESIGN §7): a session whose transcript file disappears (Claude Code purges
//! transcripts after `cleanupPeriodDays`) stays indexed, searchable and viewable, marked with
//! when its source was found missing, until the person prunes it.
//!
//! Owns: marking and unmarking `session_files.source_removed_at` (unix seconds), listing the
//! vaulted files, `prune --source-removed [--older-than DAYS]`, and a rebuild that keeps them
//! (`sessions index --rebuild` reads every transcript again; a vaulted one has no file to read).
//! Deliberately does not: decide when a file is gone (the indexer does), read the clock (the
//! time of a disappearance is the caller's `now`) or delete transcripts.

use std::path::{Path, PathBuf};

use rusqlite::params;

use serde::Serialize;

use super::index::{escape_like, SessionIndex};
use crate::sessions::error::is_corrupt;
use crate::sessions::{SessionError, SourceKind, Turn};

/// One transcript kept after its file disappeared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VaultedFile {
    pub path: PathBuf,
    pub session_id: String,
    /// Unix seconds when the indexer first found the file missing.
    pub source_removed_at: i64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct VaultPruneReport {
    pub dry_run: bool,
    pub removed: Vec<VaultedFile>,
}

/// Marks a file (and files under it, for a removed directory) as gone, keeping its rows.
/// Returns how many were newly marked.
pub(crate) fn mark_removed(
    conn: &rusqlite::Connection,
    path: &Path,
    now: i64,
) -> rusqlite::Result<usize> {
    let text = path.to_string_lossy();
    conn.execute(
        "UPDATE session_files SET source_removed_at = ?3 WHERE (path = ?1 OR path LIKE ?2 ESCAPE '\\') AND source_removed_at IS NULL",
        params![text, format!("{}/%", escape_like(&text)), now],
    )
}

/// Keeps the rows of a file that was cut short as a vaulted file of its own, named after it
/// (`<path>#truncated-<unix seconds>`), so its path is free for the bytes that remain.
pub(crate) fn keep_truncated(
    conn: &rusqlite::Connection,
    file_id: i64,
    path: &Path,
    now: i64,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE session_files SET path = ?2, source_removed_at = ?3 WHERE id = ?1",
        params![file_id, format!("{}#truncated-{now}", path.display()), now],
    )?;
    Ok(())
}

/// Whether the file is already marked gone (a read: no write lock taken).
pub(crate) fn is_vaulted(conn: &rusqlite::Connection, path: &Path) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) FROM session_files WHERE path = ?1 AND source_removed_at IS NOT NULL",
        params![path.to_string_lossy()],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// The file is back (restored from a backup, or a new file at the same path): no longer vaulted.
pub(crate) fn unmark(conn: &rusqlite::Connection, path: &Path) -> rusqlite::Result<usize> {
    conn.execute(
        "UPDATE session_files SET source_removed_at = NULL WHERE path = ?1 AND source_removed_at IS NOT NULL",
        params![path.to_string_lossy()],
    )
}

/// The indexed turns of a file, in order: what remains of a transcript whose file is gone.
pub(crate) fn stored_turns(
    conn: &rusqlite::Connection,
    path: &Path,
) -> rusqlite::Result<Vec<Turn>> {
    let mut stmt = conn.prepare(
        "SELECT m.role, m.ts, m.text FROM session_messages m JOIN session_files f ON f.id = m.file_id WHERE f.path = ?1 ORDER BY m.id",
    )?;
    let rows = stmt.query_map(params![path.to_string_lossy()], |r| {
        Ok(Turn {
            role: r.get(0)?,
            ts: r.get(1)?,
            text: r.get(2)?,
            label: None,
        })
    })?;
    rows.collect()
}

impl SessionIndex {
    /// Marks `path` (a file, or a removed directory's files) as gone since `now` (unix seconds);
    /// true when any was newly marked.
    pub(crate) fn vault_missing(&mut self, path: &Path, now: i64) -> Result<bool, SessionError> {
        let marked = self.in_transaction(|index| mark_removed(&index.conn, path, now))?;
        Ok(marked > 0)
    }

    /// Files kept in the index after their source disappeared, oldest disappearance first.
    pub fn vaulted(&self) -> Result<Vec<VaultedFile>, SessionError> {
        let mut stmt = self.conn.prepare(
            "SELECT path, session_id, source_removed_at FROM session_files WHERE source_removed_at IS NOT NULL ORDER BY source_removed_at, path",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(VaultedFile {
                path: PathBuf::from(r.get::<_, String>(0)?),
                session_id: r.get(1)?,
                source_removed_at: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Starts the index over for every transcript that still has its file (all sources, or
    /// only `only`): their rows go, so the next `index` reads each file again whole. Vaulted
    /// sessions are kept, since nothing could bring them back; the full-text index is rebuilt
    /// from the stored messages. A database too damaged for that starts over from nothing.
    /// Returns the index and how many vaulted files were kept.
    pub fn rebuild_keeping_vault(
        db: &Path,
        only: Option<SourceKind>,
    ) -> Result<(SessionIndex, u64), SessionError> {
        let mut index = SessionIndex::open(db)?;
        index.begin()?;
        let source = only.map(|s| s.as_str());
        let cleared = index
            .conn
            .execute(
                "DELETE FROM session_vectors WHERE file_id IN
                    (SELECT id FROM session_files WHERE source_removed_at IS NULL AND (?1 IS NULL OR source = ?1))",
                params![source],
            )
            .and_then(|_| {
                index.conn.execute(
                    "DELETE FROM session_messages WHERE file_id IN
                        (SELECT id FROM session_files WHERE source_removed_at IS NULL AND (?1 IS NULL OR source = ?1))",
                    params![source],
                )
            })
            .and_then(|_| {
                index.conn.execute("DELETE FROM session_files WHERE source_removed_at IS NULL AND (?1 IS NULL OR source = ?1)", params![source])
            })
            .and_then(|_| index.conn.execute_batch("INSERT INTO session_fts(session_fts) VALUES('rebuild');"))
            .and_then(|_| index.conn.query_row("SELECT count(*) FROM session_files WHERE source_removed_at IS NOT NULL", [], |r| r.get::<_, i64>(0)));
        match cleared {
            Ok(kept) => {
                index.commit()?;
                Ok((index, kept as u64))
            }
            Err(e) if is_corrupt(&e) => {
                index.rollback();
                tracing::warn!(
                    "session index {} is too damaged to keep its vault ({e}); starting over",
                    db.display()
                );
                Ok((SessionIndex::rebuild(db)?, 0))
            }
            Err(e) => {
                index.rollback();
                Err(SessionError::from_sql(db, e))
            }
        }
    }

    /// Removes the vaulted files of one session (a person pruning the transcript they are
    /// reading); a session whose file still exists is refused with `NotVaulted`.
    pub fn prune_one_removed(&mut self, session_id: &str) -> Result<VaultedFile, SessionError> {
        let mine: Vec<VaultedFile> = self
            .vaulted()?
            .into_iter()
            .filter(|v| v.session_id == session_id)
            .collect();
        let Some(first) = mine.first().cloned() else {
            let known = self
                .conn
                .query_row(
                    "SELECT count(*) FROM session_files WHERE session_id = ?1",
                    [session_id],
                    |r| r.get::<_, i64>(0),
                )
                .map_err(|e| SessionError::from_sql(&self.path, e))?;
            return Err(if known > 0 {
                SessionError::NotVaulted {
                    id: session_id.to_string(),
                }
            } else {
                SessionError::NotFound {
                    id: session_id.to_string(),
                }
            });
        };
        for v in &mine {
            self.remove_file(&v.path)?;
        }
        Ok(first)
    }

    /// Removes vaulted sessions whose source disappeared at least `older_than_days` ago (all of
    /// them when `None`). `now` is unix seconds.
    pub fn prune_source_removed(
        &mut self,
        older_than_days: Option<u32>,
        now: i64,
        dry_run: bool,
    ) -> Result<VaultPruneReport, SessionError> {
        let cutoff = older_than_days.map_or(i64::MAX, |d| now - i64::from(d) * 86_400);
        let doomed: Vec<VaultedFile> = self
            .vaulted()?
            .into_iter()
            .filter(|v| v.source_removed_at <= cutoff)
            .collect();
        if !dry_run {
            for v in &doomed {
                self.remove_file(&v.path)?;
            }
        }
        Ok(VaultPruneReport {
            dry_run,
            removed: doomed,
        })
    }
}

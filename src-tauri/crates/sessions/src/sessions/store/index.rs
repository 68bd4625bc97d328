//! The session index's handle on `index.sqlite` and its write transactions.
//!
//! Owns: `SessionIndex` (one connection), opening and rebuilding it, and the write transaction
//! every writer shares (`BEGIN IMMEDIATE`; the pending full-text rows are flushed just before
//! `COMMIT`).
//! Deliberately does not: run an indexing pass (see `run`), decide which files changed or from
//! which offset (see `tail`), write rows (see `rows`), parse a format (see `sources`) or rank
//! (see `recall`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

use super::db;
use super::pending_fts::PendingFts;
use super::writer_turn::WriterTurn;
use crate::sessions::SessionError;

/// The session index in one SQLite file. Open one per thread.
pub struct SessionIndex {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    /// Full-text rows of the open transaction, written just before it commits: FTS5 writes a
    /// segment whenever another statement opens a statement transaction (every checkpoint
    /// upsert), so interleaving them would cut the index into one small segment per file.
    pub(super) pending_fts: PendingFts,
    /// Held from `begin` to `commit` or `rollback` (see `writer_turn`).
    turn: Option<WriterTurn>,
}

impl SessionIndex {
    /// Opens the index at `db`, creating it, and rebuilding it when it is corrupt or from an
    /// older version. A locked database is `SessionError::Busy`.
    pub fn open(db: &Path) -> Result<SessionIndex, SessionError> {
        SessionIndex::open_waiting(db, ambry_store::index_db::BUSY_TIMEOUT)
    }

    /// `open`, every statement waiting at most `busy_timeout` for another connection's lock.
    pub(crate) fn open_waiting(
        db: &Path,
        busy_timeout: Duration,
    ) -> Result<SessionIndex, SessionError> {
        Ok(SessionIndex {
            conn: db::open(db, busy_timeout)?,
            path: db.to_path_buf(),
            pending_fts: PendingFts::default(),
            turn: None,
        })
    }

    /// Drops the whole index file and starts empty (the next `index` reads every transcript).
    pub fn rebuild(db: &Path) -> Result<SessionIndex, SessionError> {
        let _turn = WriterTurn::queue(db)?;
        db::remove_database(db)?;
        SessionIndex::open(db)
    }

    /// Starts a write transaction unless one is open, in this thread's turn at writing (see
    /// `writer_turn`; `BEGIN IMMEDIATE`: contention with the ranker's tables shows up here, as
    /// `Busy`, rather than halfway through).
    pub(super) fn begin(&mut self) -> Result<(), SessionError> {
        if self.conn.is_autocommit() {
            self.turn = Some(WriterTurn::queue(&self.path)?);
            if let Err(e) = self.conn.execute_batch("BEGIN IMMEDIATE") {
                self.turn = None;
                return Err(SessionError::from_sql(&self.path, e));
            }
        }
        Ok(())
    }

    pub(super) fn commit(&mut self) -> Result<(), SessionError> {
        if !self.conn.is_autocommit() {
            if let Err(e) = self.pending_fts.flush(&self.conn) {
                self.rollback();
                return Err(e.into());
            }
            if let Err(e) = self.conn.execute_batch("COMMIT") {
                // Not left open (holding the write lock and the turn) for a long-lived index,
                // such as the watcher's, to block every other writer.
                self.rollback();
                return Err(SessionError::from_sql(&self.path, e));
            }
        }
        self.turn = None;
        Ok(())
    }

    /// Runs `work` in its own write transaction: committed when it succeeds, rolled back (with
    /// its pending full-text rows) when it fails.
    pub(in crate::sessions) fn in_transaction<T, E: Into<SessionError>>(
        &mut self,
        work: impl FnOnce(&mut Self) -> Result<T, E>,
    ) -> Result<T, SessionError> {
        self.begin()?;
        match work(self) {
            Ok(value) => {
                self.commit()?;
                Ok(value)
            }
            Err(e) => {
                self.rollback();
                Err(e.into())
            }
        }
    }

    pub(super) fn rollback(&mut self) {
        self.pending_fts.clear();
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        self.turn = None;
    }
}

pub(crate) fn escape_like(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

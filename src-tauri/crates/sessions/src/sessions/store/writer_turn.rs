//! Whose turn it is to write the session tables, across threads and processes.
//!
//! Owns: the lock file next to the database (`index.sqlite.writer`), taken for every write
//! transaction and held by an indexing run from its start to its end, so a second indexer waits
//! for the whole run and then finds the work done; nesting (a thread that holds the turn takes it
//! again for free); the holder's pid, so a waiter can say whom it waits for.
//! Why not SQLite's busy timeout alone: its handler polls with growing sleeps, and a run commits
//! an 8 MB batch and begins the next at once, so a waiter can miss every gap and give up with
//! `Busy` although nothing is stuck (seen on a loaded machine with a 15 s timeout). The turn is
//! handed over by the kernel when it is released, however long the run took.
//! Deliberately does not: lock readers (WAL lets recall read during a run), the ranker's
//! snapshot tables (their writer waits 250 ms and otherwise ranks from the files), or bound the
//! wait of `queue` (a run may rightly take minutes; the lock dies with its process).

use std::cell::RefCell;
use std::fs::{File, TryLockError};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::sessions::SessionError;
use ambry_store::storage::{read_holder, record_holder};

/// A turn at writing the session tables of one database; released on drop.
#[must_use]
pub struct WriterTurn {
    /// `None` when this thread already held the turn: dropping a nested turn releases nothing.
    held: Option<(File, (u64, u64))>,
}

thread_local! {
    /// Lock files (device, inode) this thread holds a turn on: a turn is per file, not per
    /// spelling of its path.
    static HELD: RefCell<Vec<(u64, u64)>> = const { RefCell::new(Vec::new()) };
}

impl WriterTurn {
    /// Waits until no other thread or process holds the turn on `db`, however long that takes.
    pub fn queue(db: &Path) -> Result<WriterTurn, SessionError> {
        match WriterTurn::take(db, true)? {
            Some(turn) => Ok(turn),
            None => unreachable!("a queued take returns only once it holds the turn"),
        }
    }

    /// The turn if nobody else holds it; `None` when another indexer is at work.
    pub fn if_free(db: &Path) -> Result<Option<WriterTurn>, SessionError> {
        WriterTurn::take(db, false)
    }

    fn take(db: &Path, wait: bool) -> Result<Option<WriterTurn>, SessionError> {
        let path = lock_path(db);
        let failed = |e: std::io::Error| SessionError::Open {
            path: db.to_path_buf(),
            reason: format!("cannot take the writer lock {}: {e}", path.display()),
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            ambry_store::storage::create_private_dir_all(dir).map_err(failed)?;
        }
        let mut file = ambry_store::storage::open_private(&path, false).map_err(failed)?;
        let meta = file.metadata().map_err(failed)?;
        let id = (meta.dev(), meta.ino());
        if HELD.with(|h| h.borrow().contains(&id)) {
            return Ok(Some(WriterTurn { held: None }));
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) if wait => {
                tracing::info!(
                    "waiting for another indexer of {} ({}) to finish",
                    db.display(),
                    read_holder(&mut file).unwrap_or_else(|| "holder unknown".into())
                );
                file.lock().map_err(failed)?;
            }
            Err(TryLockError::WouldBlock) => return Ok(None),
            Err(TryLockError::Error(e)) => return Err(failed(e)),
        }
        // Best effort: the pid only serves the message a waiter logs.
        let _ = record_holder(&mut file);
        HELD.with(|h| h.borrow_mut().push(id));
        Ok(Some(WriterTurn {
            held: Some((file, id)),
        }))
    }
}

impl Drop for WriterTurn {
    fn drop(&mut self) {
        if let Some((file, id)) = self.held.take() {
            HELD.with(|h| h.borrow_mut().retain(|held| *held != id));
            drop(file);
        }
    }
}

fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".writer");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::time::{Duration, Instant};

    #[test]
    fn a_held_turn_is_refused_to_a_hurried_writer_and_handed_to_a_queued_one_when_released() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.sqlite");
        let (taken, wait_for_taken) = channel();
        let holder = {
            let db = db.clone();
            std::thread::spawn(move || {
                let turn = WriterTurn::queue(&db).unwrap();
                taken.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(300));
                let releasing = Instant::now();
                drop(turn);
                releasing
            })
        };
        wait_for_taken.recv().unwrap();
        assert!(
            WriterTurn::if_free(&db).unwrap().is_none(),
            "another thread holds the turn"
        );
        let _mine = WriterTurn::queue(&db).unwrap();
        let got_it = Instant::now();
        let releasing = holder.join().unwrap();
        assert!(
            got_it >= releasing,
            "the queued writer got the turn only after it was released"
        );
    }

    #[test]
    fn a_thread_holding_the_turn_takes_it_again_and_keeps_it_until_the_outer_turn_ends() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.sqlite");
        let outer = WriterTurn::queue(&db).unwrap();
        // The same file under another spelling is the same turn.
        let other_spelling = dir.path().join(".").join("index.sqlite");
        let inner = WriterTurn::if_free(&other_spelling)
            .unwrap()
            .expect("nested take on the holding thread");
        drop(inner);
        let elsewhere = std::thread::spawn({
            let db = db.clone();
            move || WriterTurn::if_free(&db).unwrap().is_some()
        });
        assert!(
            !elsewhere.join().unwrap(),
            "dropping the nested turn released nothing"
        );
        drop(outer);
        let elsewhere = std::thread::spawn(move || WriterTurn::if_free(&db).unwrap().is_some());
        assert!(elsewhere.join().unwrap(), "free once the outer turn ends");
    }

    /// The busy timeout the tests below open the index with, short so that outlasting it is quick
    /// (the behaviour is the same as with `index_db::BUSY_TIMEOUT`).
    const BUSY_TIMEOUT: Duration = Duration::from_millis(200);

    /// Another indexer's run as it looks from outside: holds the turn and, on its own connection
    /// (`open` it, then run `begin`), the write lock for longer than [`BUSY_TIMEOUT`].
    /// Returns once the run holds both; the handle yields the moment the run began to end.
    fn a_run_longer_than_the_busy_timeout(
        db: &Path,
        open: fn(&Path) -> rusqlite::Connection,
        begin: &'static str,
    ) -> std::thread::JoinHandle<Instant> {
        let (holding, wait_for_holding) = channel();
        let db = db.to_path_buf();
        let run = std::thread::spawn(move || {
            let turn = WriterTurn::queue(&db).unwrap();
            let conn = open(&db);
            conn.execute_batch(begin).unwrap();
            holding.send(()).unwrap();
            std::thread::sleep(BUSY_TIMEOUT + Duration::from_millis(300));
            let ending = Instant::now();
            conn.execute_batch("COMMIT").unwrap();
            drop(turn);
            ending
        });
        wait_for_holding.recv().unwrap();
        run
    }

    /// A run that holds the write lock longer than SQLite's busy timeout (a large first index
    /// on a loaded machine) delays a second indexer; it must not fail it.
    #[test]
    fn an_indexer_started_during_a_run_longer_than_the_busy_timeout_waits_for_its_end() {
        use crate::sessions::{SessionIndex, SessionsConfig, SourceRoots};
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.sqlite");
        let roots = SourceRoots {
            claude: None,
            codex: None,
            ambry: dir.path().join("sessions"),
        };
        std::fs::create_dir_all(&roots.ambry).unwrap();
        let line =
            serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": "user", "text": "tango"});
        std::fs::write(roots.ambry.join("a.jsonl"), format!("{line}\n")).unwrap();
        drop(SessionIndex::open_waiting(&db, BUSY_TIMEOUT).unwrap());

        let run = a_run_longer_than_the_busy_timeout(
            &db,
            |db| ambry_store::index_db::open(db, BUSY_TIMEOUT).unwrap(),
            "BEGIN IMMEDIATE",
        );
        let mut index = SessionIndex::open_waiting(&db, BUSY_TIMEOUT).unwrap();
        let summary = index
            .index(&roots, &SessionsConfig::default(), None, 0, &mut |_| {})
            .expect("waited, not refused");
        let done = Instant::now();
        assert_eq!(summary.messages_indexed, 1);
        assert!(
            done >= run.join().unwrap(),
            "the second run wrote only after the first ended"
        );
    }

    /// The first open of a file writes (the shared `meta` table) before it could take a turn;
    /// behind a run that holds the write lock past the busy timeout it waits its turn instead of
    /// failing.
    #[test]
    fn a_first_open_behind_a_run_longer_than_the_busy_timeout_waits_for_its_end() {
        use crate::sessions::SessionIndex;
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.sqlite");
        // A file another tenant made WAL and wrote first, with no `meta` table yet.
        let open_bare = |db: &Path| {
            let conn = rusqlite::Connection::open(db).unwrap();
            conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))
                .unwrap();
            conn
        };
        let run = a_run_longer_than_the_busy_timeout(
            &db,
            open_bare,
            "CREATE TABLE other_tenant(x); BEGIN IMMEDIATE; INSERT INTO other_tenant VALUES (1);",
        );
        let opened = SessionIndex::open_waiting(&db, BUSY_TIMEOUT).map(drop);
        let done = Instant::now();
        opened.expect("waited, not refused");
        assert!(
            done >= run.join().unwrap(),
            "opened only after the run ended"
        );
    }
}

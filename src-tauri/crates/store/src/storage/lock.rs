//! Serializing writers of one scope directory, within a process and across processes.
//!
//! Owns: the scope lock held around read → archive → write → index regeneration, so two savers
//! never lose each other's work and MEMORY.md always matches the directory; the bound on how long
//! a writer waits for it, and the holder's pid written into the lock file so a timeout can say
//! who holds it.
//! Deliberately does not: lock readers; readers rely on atomic renames instead.

use std::collections::HashSet;
use std::fs::{File, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The lock file inside each scope directory.
pub const LOCK_FILE: &str = ".lock";

/// How long a writer waits for another writer before giving up with a message naming it.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Pause between attempts on a lock another process holds.
const RETRY_EVERY: Duration = Duration::from_millis(20);

/// Held for the duration of one write transaction; released on drop.
pub struct ScopeLock {
    dir: PathBuf,
    file: Option<File>,
}

/// Why the lock was not taken.
#[derive(Debug)]
pub enum LockFailure {
    /// Someone held it for the whole wait; `holder` is what its lock file says (a pid), if anything.
    TimedOut {
        holder: Option<String>,
    },
    Io(io::Error),
}

/// Directories some thread of this process holds, and a condvar to wait for their release.
fn held_in_process() -> &'static (Mutex<HashSet<PathBuf>>, Condvar) {
    static HELD: OnceLock<(Mutex<HashSet<PathBuf>>, Condvar)> = OnceLock::new();
    HELD.get_or_init(Default::default)
}

impl ScopeLock {
    /// Waits up to `LOCK_WAIT` until this process and every other process have released `dir`.
    pub fn acquire(dir: &Path) -> Result<ScopeLock, LockFailure> {
        ScopeLock::acquire_within(dir, LOCK_WAIT)
    }

    pub fn acquire_within(dir: &Path, wait: Duration) -> Result<ScopeLock, LockFailure> {
        let deadline = Instant::now() + wait;
        let (held, released) = held_in_process();
        let mut set = held.lock().unwrap_or_else(|p| p.into_inner());
        while set.contains(dir) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(LockFailure::TimedOut {
                    holder: Some(format!(
                        "another thread of this process (pid {})",
                        std::process::id()
                    )),
                });
            }
            set = released
                .wait_timeout(set, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        set.insert(dir.to_path_buf());
        drop(set);
        // From here on, Drop releases the in-process claim even if the file lock fails.
        let mut lock = ScopeLock {
            dir: dir.to_path_buf(),
            file: None,
        };
        // Never through a link: the lock file is written (the holder's pid).
        let mut file = super::open_private(&dir.join(LOCK_FILE), false).map_err(LockFailure::Io)?;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(RETRY_EVERY)
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(LockFailure::TimedOut {
                        holder: read_holder(&mut file),
                    })
                }
                Err(TryLockError::Error(e)) => return Err(LockFailure::Io(e)),
            }
        }
        // Best effort: the pid only serves the message a waiting writer shows.
        let _ = record_holder(&mut file);
        lock.file = Some(file);
        Ok(lock)
    }
}

/// Writes this process's pid into a lock file it holds, for the message a waiter shows.
pub fn record_holder(file: &mut File) -> io::Result<()> {
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    writeln!(file, "pid {}", std::process::id())
}

/// What the holder of a lock file wrote into it (`pid N`), if anything.
pub fn read_holder(file: &mut File) -> Option<String> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(64).read_to_string(&mut text).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

impl Drop for ScopeLock {
    fn drop(&mut self) {
        // Release the cross-process lock first, then wake waiting threads.
        drop(self.file.take());
        let (held, released) = held_in_process();
        held.lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.dir);
        released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn threads_are_serialized() {
        let dir = tempfile::tempdir().unwrap();
        let inside = Arc::new(AtomicUsize::new(0));
        let max_seen = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (dir, inside, max_seen) =
                    (dir.path().to_path_buf(), inside.clone(), max_seen.clone());
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        let _lock = ScopeLock::acquire(&dir).unwrap();
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        max_seen.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(max_seen.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_held_file_lock_times_out_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        // Another open file description stands in for another process.
        let other = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.path().join(LOCK_FILE))
            .unwrap();
        other.lock().unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "pid 4242\n").unwrap();
        match ScopeLock::acquire_within(dir.path(), Duration::from_millis(100)) {
            Err(LockFailure::TimedOut { holder }) => {
                assert_eq!(holder.as_deref(), Some("pid 4242"))
            }
            Err(LockFailure::Io(e)) => panic!("io error: {e}"),
            Ok(_) => panic!("the lock was taken while held"),
        }
        drop(other);
        let lock = ScopeLock::acquire_within(dir.path(), Duration::from_millis(100)).unwrap();
        let text = std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap();
        assert_eq!(text, format!("pid {}\n", std::process::id()));
        drop(lock);
    }
}

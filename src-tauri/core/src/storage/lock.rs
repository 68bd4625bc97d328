//! Serializing writers of one scope directory, within a process and across processes.
//!
//! Owns: the scope lock held around read → archive → write → index regeneration, so two savers
//! never lose each other's work and MEMORY.md always matches the directory.
//! Deliberately does not: lock readers; readers rely on atomic renames instead.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, OnceLock};

/// The lock file inside each scope directory.
pub const LOCK_FILE: &str = ".lock";

/// Held for the duration of one write transaction; released on drop.
pub struct ScopeLock {
    dir: PathBuf,
    file: Option<File>,
}

/// Directories some thread of this process holds, and a condvar to wait for their release.
fn held_in_process() -> &'static (Mutex<HashSet<PathBuf>>, Condvar) {
    static HELD: OnceLock<(Mutex<HashSet<PathBuf>>, Condvar)> = OnceLock::new();
    HELD.get_or_init(Default::default)
}

impl ScopeLock {
    /// Blocks until this process and every other process have released `dir`.
    pub fn acquire(dir: &Path) -> io::Result<ScopeLock> {
        let (held, released) = held_in_process();
        let mut set = held.lock().unwrap_or_else(|p| p.into_inner());
        while set.contains(dir) {
            set = released.wait(set).unwrap_or_else(|p| p.into_inner());
        }
        set.insert(dir.to_path_buf());
        drop(set);
        // From here on, Drop releases the in-process claim even if the file lock fails.
        let mut lock = ScopeLock { dir: dir.to_path_buf(), file: None };
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(LOCK_FILE))?;
        file.lock()?;
        lock.file = Some(file);
        Ok(lock)
    }
}

impl Drop for ScopeLock {
    fn drop(&mut self) {
        // Release the cross-process lock first, then wake waiting threads.
        drop(self.file.take());
        let (held, released) = held_in_process();
        held.lock().unwrap_or_else(|p| p.into_inner()).remove(&self.dir);
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
                let (dir, inside, max_seen) = (dir.path().to_path_buf(), inside.clone(), max_seen.clone());
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
}

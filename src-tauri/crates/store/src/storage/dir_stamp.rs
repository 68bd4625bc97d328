//! Whether a directory's list of files changed, in one stat: every write Ambry makes is a temp
//! file renamed into place (see `atomic`), which changes the directory's modification time, so a
//! cache that trusts a watcher for hand edits can still see every Ambry write at once instead of
//! waiting for the watcher's event.
//!
//! Owns: the stamp (inode and modification time to the nanosecond) and the "racy" rule: a
//! directory changed within the last `RACY` may change again within the same clock tick (file
//! system times advance in ticks of a few milliseconds) without its stamp moving, so such a stamp
//! never vouches for the directory.
//! Deliberately does not: list or read the directory, or watch it.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Longer than any file system's timestamp tick (ext4 and tmpfs use the kernel's coarse clock,
/// a few milliseconds).
const RACY: Duration = Duration::from_millis(50);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirStamp {
    ino: u64,
    mtime_ns: i128,
}

impl DirStamp {
    /// The directory's stamp now; `None` when it cannot be read (missing: nothing to vouch for).
    pub fn of(dir: &Path) -> Option<DirStamp> {
        let meta = std::fs::metadata(dir).ok()?;
        Some(DirStamp {
            ino: meta.ino(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        })
    }

    /// Whether a listing taken after this stamp can be trusted until the stamp moves: false
    /// while the directory changed so recently that another change could keep the same time.
    pub fn settled(&self) -> bool {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        now - self.mtime_ns >= RACY.as_nanos() as i128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rename_into_the_directory_moves_its_stamp_and_a_fresh_change_is_not_settled() {
        let dir = tempfile::tempdir().unwrap();
        let before = DirStamp::of(dir.path()).unwrap();
        std::fs::write(dir.path().join(".tmp"), "x").unwrap();
        std::fs::rename(dir.path().join(".tmp"), dir.path().join("a.md")).unwrap();
        let after = DirStamp::of(dir.path()).unwrap();
        assert!(!after.settled(), "changed just now");
        // Either the tick moved the stamp, or it did not and the stamp is racy: never both
        // unchanged and settled.
        assert!(before != after || !before.settled());
        assert!(DirStamp::of(&dir.path().join("missing")).is_none());
    }
}

//! Crash-safe file replacement: a reader sees the old file or the new one, never a torn one.
//!
//! Owns: unique temp file in the same directory, fsync, rename, fsync of the directory; and the
//! refusal to write through a symlink.
//! Deliberately does not: lock (callers hold the scope lock) or archive.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use rand::Rng;

/// Temp files start with this prefix so listings can skip them after a crash.
pub const TEMP_PREFIX: &str = ".tmp-";

/// Replaces `dir/file_name` with `bytes` atomically. The file keeps its mode (a memory the
/// person made 0600 stays 0600); a new one is 0600, whatever the umask.
pub fn write_atomic(dir: &Path, file_name: &str, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with_mode(dir, file_name, bytes, None)
}

/// [`write_atomic`] giving a new file `mode` (an archived copy takes its memory's); `None`: the
/// existing file's mode, else 0600.
pub fn write_atomic_with_mode(
    dir: &Path,
    file_name: &str,
    bytes: &[u8],
    mode: Option<u32>,
) -> io::Result<()> {
    let target = dir.join(file_name);
    refuse_symlink(&target)?;
    let mode = mode
        .or_else(|| fs::metadata(&target).ok().map(|m| m.permissions().mode()))
        .unwrap_or(super::PRIVATE_FILE_MODE)
        & 0o7777;
    let suffix: u64 = rand::rng().random();
    let temp = dir.join(format!("{TEMP_PREFIX}{file_name}.{suffix:016x}"));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(super::PRIVATE_FILE_MODE)
            .open(&temp)?;
        // Set outright: the umask may have taken bits away from the mode being kept.
        file.set_permissions(fs::Permissions::from_mode(mode))?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, &target)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Makes a rename or unlink in `dir` durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Errors with `InvalidInput` if `path` exists and is a symlink.
pub fn refuse_symlink(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is a symbolic link; Ambry does not write through links",
                path.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// Removes temp files a crash left behind (older than a minute, so a live writer keeps its own).
pub fn sweep_stale_temps(dir: &Path, now: std::time::SystemTime) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .map(|m| {
                now.duration_since(m)
                    .map(|d| d.as_secs() > 60)
                    .unwrap_or(false)
            })
            .unwrap_or(false);
        if old {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        write_atomic(dir.path(), "a.md", b"one").unwrap();
        write_atomic(dir.path(), "a.md", b"two").unwrap();
        assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.md")]);
    }

    #[test]
    fn refuses_to_write_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, "keep").unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join("a.md")).unwrap();
        let err = write_atomic(dir.path(), "a.md", b"evil").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
    }

    #[test]
    fn sweeps_only_old_temps() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".tmp-a.md.1"), "x").unwrap();
        fs::write(dir.path().join("a.md"), "x").unwrap();
        sweep_stale_temps(dir.path(), std::time::SystemTime::now());
        assert!(
            dir.path().join(".tmp-a.md.1").exists(),
            "fresh temp belongs to a live writer"
        );
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(120);
        sweep_stale_temps(dir.path(), later);
        assert!(!dir.path().join(".tmp-a.md.1").exists());
        assert!(dir.path().join("a.md").exists());
    }
}

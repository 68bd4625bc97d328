//! Files and directories Ambry creates for itself: private to the person, never through a link.
//!
//! Owns: the modes (directories 0700, files 0600, whatever the umask), opening a file Ambry
//! keeps open or appends to (lock files, the service log) without following a symbolic link in
//! its place, and creating directories private.
//! Deliberately does not: replace files (see `atomic`) or decide which files are Ambry's.
//!
//! A link where a lock file or log belongs is refused, not replaced: Ambry did not put it there,
//! so whoever did either meant it (and removing it would break their setup silently) or is
//! attacking (and an error naming the path is what the person needs to see). The refusal costs
//! one command (`rm` the link) and loses nothing.

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Mode of every file Ambry creates: memories, archives, the index, the ledger, logs, locks.
pub const PRIVATE_FILE_MODE: u32 = 0o600;
/// Mode of every directory Ambry creates, the home first.
pub const PRIVATE_DIR_MODE: u32 = 0o700;

/// Creates `dir` and any missing parents with mode 0700. Existing ones are left as they are.
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR_MODE)
        .create(dir)?;
    // The umask may only have taken bits away; 0700 is the mode whatever it is.
    std::fs::set_permissions(dir, Permissions::from_mode(PRIVATE_DIR_MODE))
}

/// Opens `path` for reading and writing (or appending), creating it with mode 0600. A symbolic
/// link in its place is refused (`InvalidInput`, naming the path), as is anything that is not a
/// regular file.
pub fn open_private(path: &Path, append: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .create(true)
        .mode(PRIVATE_FILE_MODE)
        // O_NONBLOCK: a FIFO put in its place must not hold the open; cleared below.
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK);
    if append {
        options.append(true);
    } else {
        options.read(true).write(true).truncate(false);
    }
    let file = options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            link_refused(path)
        } else {
            e
        }
    })?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is not a regular file; Ambry keeps its own files there (move it away)",
                path.display()
            ),
        ));
    }
    clear_nonblock(&file)?;
    Ok(file)
}

fn link_refused(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is a symbolic link; Ambry does not write through links (remove the link and it is created anew)",
            path.display()
        ),
    )
}

fn clear_nonblock(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function's caller owns, with integer arguments only.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sets `path`'s mode to 0600 unless it is already private (an index or ledger an older version
/// created under a permissive umask). Best effort: a file the person does not own stays as it is.
pub fn make_private(path: &Path) {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.is_file() && meta.permissions().mode() & 0o077 != 0 {
            let _ = std::fs::set_permissions(path, Permissions::from_mode(PRIVATE_FILE_MODE));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_in_place_of_a_private_file_is_refused_and_its_target_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("precious");
        std::fs::write(&target, "keep").unwrap();
        let link = tmp.path().join(".lock");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for append in [false, true] {
            let err = open_private(&link, append).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
            assert!(err.to_string().contains("symbolic link"), "{err}");
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        let fresh = tmp.path().join("fresh.lock");
        open_private(&fresh, false).unwrap();
        let mode = std::fs::metadata(&fresh).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_fifo_in_place_of_a_private_file_is_refused_without_blocking() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("serve.log");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = open_private(&fifo, false).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }
}

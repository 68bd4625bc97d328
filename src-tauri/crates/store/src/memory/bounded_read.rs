//! Reading files someone else may have put in a memory directory, without trusting them.
//!
//! Owns: the rule that only regular files are opened (a FIFO named `x.md` would block forever,
//! a symlink to `/dev/zero` would never end), that no read takes more than a bound (the limit
//! plus one byte, so an oversized file is refused rather than cut), and that a file which must
//! stay inside a directory (a repository's anchor, the home's `USER.md` and `config.toml`) is
//! not read through a link that leaves it, and that a file in a memory directory is never read
//! through a link at all (it is reported as the link it is). The limits themselves live with
//! their callers
//! (`validate::MEMORY_FILE_MAX`, `anchors::ANCHOR_MAX`, `config::CONFIG_MAX`).
//! Deliberately does not: parse, or decide what a caller does with a refusal.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a path was not read.
#[derive(Debug)]
pub enum ReadRefusal {
    Missing,
    /// A directory, FIFO, socket or device: never opened for reading.
    NotAFile(&'static str),
    TooLarge {
        size: u64,
        limit: u64,
    },
    /// The path is a symbolic link where only a file of Ambry's own may be (a memory): reported,
    /// never followed.
    Link {
        target: PathBuf,
    },
    /// The path resolves (through a link) to somewhere outside the directory it belongs in.
    OutsideRoot {
        target: PathBuf,
        root: PathBuf,
    },
    Io(io::Error),
}

impl std::error::Error for ReadRefusal {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadRefusal::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl crate::error::ErrorCode for ReadRefusal {
    fn code(&self) -> crate::error::Code {
        use crate::error::Code;
        match self {
            ReadRefusal::Missing => Code::NotFound,
            ReadRefusal::NotAFile(_) => Code::NotARegularFile,
            ReadRefusal::TooLarge { .. } => Code::TooLarge,
            ReadRefusal::Link { .. } => Code::SymlinkRefused,
            ReadRefusal::OutsideRoot { .. } => Code::InvalidPath,
            ReadRefusal::Io(_) => Code::Io,
        }
    }
}

impl std::fmt::Display for ReadRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadRefusal::Missing => f.write_str("does not exist"),
            ReadRefusal::NotAFile(what) => write!(f, "is {what}, not a regular file; Ambry reads only regular files (rename or remove it)"),
            ReadRefusal::TooLarge { size, limit } => {
                write!(f, "is {size} bytes or more, over the {limit}-byte limit; keep bulky content elsewhere and store a pointer to it")
            }
            ReadRefusal::Link { target } => write!(
                f,
                "is a link to {}; Ambry does not follow links in a memory folder (put the file itself there, or remove the link)",
                target.display()
            ),
            ReadRefusal::OutsideRoot { target, root } => write!(
                f,
                "is a link to {} outside {}; Ambry does not follow it (make it a regular file there)",
                target.display(),
                root.display()
            ),
            ReadRefusal::Io(e) => write!(f, "cannot read: {e}"),
        }
    }
}

/// What kind of non-regular file `meta` describes, for messages.
pub fn non_regular_kind(file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_fifo() {
        Some("a named pipe (FIFO)")
    } else if file_type.is_socket() {
        Some("a socket")
    } else if file_type.is_char_device() || file_type.is_block_device() {
        Some("a device")
    } else {
        Some("not a regular file")
    }
}

/// The bytes of the regular file at `path` (following a symlink), at most `limit` of them.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer before the type check
    // below can refuse it. It has no effect on reads of a regular file.
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ReadRefusal::Missing),
        Err(e) => return Err(ReadRefusal::Io(e)),
    };
    read_opened(file, limit)
}

/// Like [`read_regular`], but a symbolic link at `path` is not followed: it is refused as
/// [`ReadRefusal::Link`], naming where it points. For a memory directory's files, whose
/// identity is their own path: a link there would have the store list, inject, archive and
/// merge whatever it points to, anywhere on the machine.
pub fn read_regular_unlinked(path: &Path, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ReadRefusal::Missing),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(link_refusal(path, e)),
        Err(e) => return Err(ReadRefusal::Io(e)),
    };
    read_opened(file, limit)
}

/// The refusal of the link at `path` (`ELOOP` from `O_NOFOLLOW`), naming its target.
fn link_refusal(path: &Path, e: io::Error) -> ReadRefusal {
    match std::fs::read_link(path) {
        Ok(target) => ReadRefusal::Link { target },
        Err(_) => ReadRefusal::Io(e),
    }
}

/// The refusal for a memory directory's entry that is a symbolic link, without opening it.
pub fn link_at(path: &Path) -> ReadRefusal {
    ReadRefusal::Link {
        target: std::fs::read_link(path).unwrap_or_else(|_| PathBuf::from("?")),
    }
}

/// Like [`read_regular`], but `path` must resolve (links followed) to a file inside `root`:
/// a link committed to a repository may point anywhere on the reader's machine
/// (`/proc/self/environ`, `~/.aws/credentials`), and what it points to must never be read.
pub fn read_regular_within(path: &Path, root: &Path, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    let resolved = match std::fs::canonicalize(path) {
        Ok(p) => p,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ReadRefusal::Missing),
        Err(e) => return Err(ReadRefusal::Io(e)),
    };
    let root = std::fs::canonicalize(root).map_err(ReadRefusal::Io)?;
    if !resolved.starts_with(&root) {
        return Err(ReadRefusal::OutsideRoot {
            target: resolved,
            root,
        });
    }
    // The resolved path has no links left; O_NOFOLLOW refuses one swapped in since.
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(&resolved)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ReadRefusal::Missing),
        Err(e) => return Err(ReadRefusal::Io(e)),
    };
    read_opened(file, limit)
}

/// A file a person named on the command line (`--body-file`): a regular file (a link to one
/// is followed), never a FIFO, socket, device or directory, and at most `limit` bytes of it.
/// The type is judged from the path's metadata before anything is opened: opening a FIFO
/// would wait for a writer (or, without one, read as an empty body and save over a memory),
/// and a writer blocked on the other end would be let go. A pipe's text goes on stdin instead.
pub fn read_named_input(path: &Path, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    match std::fs::metadata(path) {
        Ok(meta) => {
            if let Some(what) = non_regular_kind(meta.file_type()) {
                return Err(ReadRefusal::NotAFile(what));
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ReadRefusal::Missing),
        Err(e) => return Err(ReadRefusal::Io(e)),
    }
    // Judged again on the opened descriptor (O_NONBLOCK, so a FIFO swapped in since does not
    // hold the open), so nothing swapped in between is read.
    read_regular(path, limit)
}

/// At most `limit` bytes from a stream (stdin, a pipe); a longer one is refused after reading
/// `limit + 1` bytes, so an endless source (`< /dev/zero`) costs no more than that.
pub fn read_stream(stream: impl Read, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    read_at_most(stream, limit, 0)
}

/// The checks after opening: a regular file (judged on the opened descriptor, so nothing can
/// be swapped in between), within the limit.
fn read_opened(file: File, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    let meta = file.metadata().map_err(ReadRefusal::Io)?;
    if let Some(what) = non_regular_kind(meta.file_type()) {
        return Err(ReadRefusal::NotAFile(what));
    }
    if meta.len() > limit {
        return Err(ReadRefusal::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    read_at_most(file, limit, meta.len())
}

/// Reads up to `limit` bytes; a file that grew past it since `stat` is refused, not truncated.
fn read_at_most(file: impl Read, limit: u64, expected: u64) -> Result<Vec<u8>, ReadRefusal> {
    let mut bytes = Vec::with_capacity(expected.min(limit) as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadRefusal::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadRefusal::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_a_fifo_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x.md");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            read_regular(&fifo, 1024),
            Err(ReadRefusal::NotAFile("a named pipe (FIFO)"))
        ));
    }

    #[test]
    fn refuses_devices_directories_and_oversized_files() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("zero.md");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(matches!(
            read_regular(&link, 1024),
            Err(ReadRefusal::NotAFile("a device"))
        ));
        std::fs::create_dir(dir.path().join("d.md")).unwrap();
        assert!(matches!(
            read_regular(&dir.path().join("d.md"), 1024),
            Err(ReadRefusal::NotAFile("a directory"))
        ));
        std::fs::write(dir.path().join("big.md"), vec![b'a'; 2048]).unwrap();
        assert!(matches!(
            read_regular(&dir.path().join("big.md"), 1024),
            Err(ReadRefusal::TooLarge {
                size: 2048,
                limit: 1024
            })
        ));
        std::fs::write(dir.path().join("ok.md"), b"hello").unwrap();
        assert_eq!(
            read_regular(&dir.path().join("ok.md"), 1024).unwrap(),
            b"hello"
        );
        assert!(matches!(
            read_regular(&dir.path().join("none.md"), 1024),
            Err(ReadRefusal::Missing)
        ));
    }

    #[test]
    fn unlinked_reports_a_link_with_its_target_and_reads_a_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real.md"), b"inside").unwrap();
        let link = dir.path().join("x.md");
        std::os::unix::fs::symlink(dir.path().join("real.md"), &link).unwrap();
        match read_regular_unlinked(&link, 1024) {
            Err(ReadRefusal::Link { target }) => assert_eq!(target, dir.path().join("real.md")),
            other => panic!("{other:?}"),
        }
        let dangling = dir.path().join("gone.md");
        std::os::unix::fs::symlink("/nowhere", &dangling).unwrap();
        assert!(matches!(
            read_regular_unlinked(&dangling, 1024),
            Err(ReadRefusal::Link { .. })
        ));
        assert_eq!(
            read_regular_unlinked(&dir.path().join("real.md"), 1024).unwrap(),
            b"inside"
        );
        assert!(matches!(
            read_regular_unlinked(&dir.path().join("none.md"), 1024),
            Err(ReadRefusal::Missing)
        ));
    }

    #[test]
    fn within_refuses_links_out_of_the_root_and_follows_links_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".ambry")).unwrap();
        std::fs::write(outside.path().join("credentials"), b"SECRET-OUTSIDE").unwrap();
        let anchor = repo.join(".ambry/AMBRY.md");
        std::os::unix::fs::symlink(outside.path().join("credentials"), &anchor).unwrap();
        assert!(matches!(
            read_regular_within(&anchor, &repo, 1024),
            Err(ReadRefusal::OutsideRoot { .. })
        ));
        std::fs::remove_file(&anchor).unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", &anchor).unwrap();
        assert!(matches!(
            read_regular_within(&anchor, &repo, 1024),
            Err(ReadRefusal::OutsideRoot { .. })
        ));
        // A directory link out of the repository is caught the same way.
        std::fs::remove_dir_all(repo.join(".ambry")).unwrap();
        std::fs::write(outside.path().join("AMBRY.md"), b"SECRET-OUTSIDE").unwrap();
        std::os::unix::fs::symlink(outside.path(), repo.join(".ambry")).unwrap();
        assert!(matches!(
            read_regular_within(&anchor, &repo, 1024),
            Err(ReadRefusal::OutsideRoot { .. })
        ));
        // Inside the repository a link is fine.
        std::fs::remove_file(repo.join(".ambry")).unwrap();
        std::fs::create_dir_all(repo.join(".ambry")).unwrap();
        std::fs::write(repo.join("CONTEXT.md"), b"team notes").unwrap();
        std::os::unix::fs::symlink("../CONTEXT.md", &anchor).unwrap();
        assert_eq!(
            read_regular_within(&anchor, &repo, 1024).unwrap(),
            b"team notes"
        );
    }

    #[test]
    fn within_refuses_devices_and_fifos_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("config.toml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            read_regular_within(&fifo, dir.path(), 1024),
            Err(ReadRefusal::NotAFile("a named pipe (FIFO)"))
        ));
        // /dev/zero is outside any home; the refusal comes before a single byte is read.
        let zero = dir.path().join("USER.md");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(
            read_regular_within(&zero, dir.path(), 1024),
            Err(ReadRefusal::OutsideRoot { .. })
        ));
    }

    #[test]
    fn streams_and_named_inputs_are_read_up_to_the_limit_plus_one() {
        let endless = std::io::repeat(0);
        assert!(matches!(
            read_stream(endless, 1024),
            Err(ReadRefusal::TooLarge {
                size: 1025,
                limit: 1024
            })
        ));
        assert!(matches!(
            read_named_input(Path::new("/dev/zero"), 1024),
            Err(ReadRefusal::NotAFile("a device"))
        ));
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        // Sparse: 2 GB long without writing 2 GB; refused from its size alone.
        std::fs::File::create(&big)
            .unwrap()
            .set_len(2 << 30)
            .unwrap();
        assert!(matches!(
            read_named_input(&big, 1024),
            Err(ReadRefusal::TooLarge { size, .. }) if size == 2 << 30
        ));
        std::fs::write(dir.path().join("ok"), b"body").unwrap();
        assert_eq!(
            read_named_input(&dir.path().join("ok"), 1024).unwrap(),
            b"body"
        );
    }

    #[test]
    fn a_named_input_that_is_a_fifo_or_a_socket_is_refused_before_it_is_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("body");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            read_named_input(&fifo, 1024),
            Err(ReadRefusal::NotAFile("a named pipe (FIFO)"))
        ));
        // A link to the FIFO is judged by what it points to.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert!(matches!(
            read_named_input(&link, 1024),
            Err(ReadRefusal::NotAFile("a named pipe (FIFO)"))
        ));
        let socket = dir.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert!(matches!(
            read_named_input(&socket, 1024),
            Err(ReadRefusal::NotAFile("a socket"))
        ));
        assert!(matches!(
            read_named_input(dir.path(), 1024),
            Err(ReadRefusal::NotAFile("a directory"))
        ));
    }
}

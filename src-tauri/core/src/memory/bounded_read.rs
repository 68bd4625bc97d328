//! Reading files someone else may have put in a memory directory, without trusting them.
//!
//! Owns: the rule that only regular files are opened (a FIFO named `x.md` would block forever,
//! a symlink to `/dev/zero` would never end) and that no read takes more than a bound (a memory
//! file is at most `MEMORY_FILE_MAX` bytes; `limits` documents why).
//! Deliberately does not: parse, or decide what a caller does with a refusal.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

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
    Io(io::Error),
}

impl std::fmt::Display for ReadRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadRefusal::Missing => f.write_str("does not exist"),
            ReadRefusal::NotAFile(what) => write!(f, "is {what}, not a regular file; Ambry reads only regular files (rename or remove it)"),
            ReadRefusal::TooLarge { size, limit } => {
                write!(f, "is {size} bytes, over the {limit}-byte limit for a memory file; keep bulky content elsewhere and store a pointer to it")
            }
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
fn read_at_most(file: File, limit: u64, expected: u64) -> Result<Vec<u8>, ReadRefusal> {
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
}

//! A transcript file's checkpoint: the file as it was last read, and where reading stopped.
//!
//! Owns: what a checkpoint records (size, mtime, inode, include-tools setting, byte offset after
//! the last complete line, a hash of the file's head), reading a file's checkpoint back from
//! `session_files`, and comparing a file on disk with it.
//! Deliberately does not: decide what a difference means (see `tail`) or write the row (see
//! `rows`).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::UNIX_EPOCH;

use rusqlite::OptionalExtension;
use sha2::{Digest, Sha256};

use super::index::SessionIndex;
use crate::sessions::sources::line::SessionState;
use crate::sessions::SessionError;

/// Bytes of a file's start remembered as a hash, to notice a file replaced by one that is longer.
const HEAD_BYTES: u64 = 4096;

/// Where reading a file stopped, and the file as it was then.
pub(super) struct Position {
    pub size: u64,
    pub mtime_ns: i64,
    pub inode: u64,
    /// The end of the last complete line read.
    pub offset: u64,
    pub head_len: u64,
    pub head_hash: Vec<u8>,
    pub include_tools: bool,
}

/// A file's row as the last read left it.
pub(super) struct Checkpoint {
    pub id: i64,
    pub at: Position,
    pub messages: u64,
    pub malformed: u64,
    pub state: SessionState,
}

/// What of a file's metadata a checkpoint compares.
#[derive(PartialEq, Eq)]
pub(super) struct Stat {
    pub size: u64,
    pub mtime_ns: i64,
    pub inode: u64,
}

impl Position {
    /// Whether a file that is `now` has nothing new to read for a run with `include_tools`:
    /// the same size, mtime and inode as when it was read, with the same setting (as
    /// [`SettledFiles::unchanged`] judges it for a whole catch-up).
    pub(super) fn unchanged(&self, now: &Stat, include_tools: bool) -> bool {
        let then = Stat {
            size: self.size,
            mtime_ns: self.mtime_ns,
            inode: self.inode,
        };
        self.include_tools == include_tools && *now == then
    }
}

impl SessionIndex {
    /// The checkpoint of the file at `path`, if it was ever indexed.
    pub(super) fn checkpoint(&self, path: &Path) -> Result<Option<Checkpoint>, SessionError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, size, mtime_ns, inode, offset, head_len, head_hash, include_tools, messages,
                        state_session_id, cwd, agent_title, first_prompt, model, first_ts, last_ts, malformed
                 FROM session_files WHERE path = ?1",
            )
            .map_err(|e| SessionError::from_sql(&self.path, e))?;
        stmt.query_row([path.to_string_lossy()], |r| {
            Ok(Checkpoint {
                id: r.get(0)?,
                at: Position {
                    size: r.get::<_, i64>(1)? as u64,
                    mtime_ns: r.get(2)?,
                    inode: r.get::<_, i64>(3)? as u64,
                    offset: r.get::<_, i64>(4)? as u64,
                    head_len: r.get::<_, i64>(5)? as u64,
                    head_hash: r.get(6)?,
                    include_tools: r.get(7)?,
                },
                messages: r.get::<_, i64>(8)? as u64,
                malformed: r.get::<_, i64>(16)? as u64,
                state: SessionState {
                    session_id: r.get(9)?,
                    cwd: r.get(10)?,
                    agent_title: r.get(11)?,
                    first_prompt: r.get(12)?,
                    model: r.get(13)?,
                    first_ts: r.get(14)?,
                    last_ts: r.get(15)?,
                    keep_context: false,
                },
            })
        })
        .optional()
        .map_err(|e| SessionError::from_sql(&self.path, e))
    }
}

/// Every indexed file that is not vaulted, as it was when last read: what a catch-up compares
/// each file on disk with before asking about it one by one.
pub(super) struct SettledFiles(HashMap<String, (Stat, bool)>);

impl SettledFiles {
    /// Whether the file at `path` is a regular file exactly as its checkpoint recorded it (same
    /// size, mtime and inode, read with the same include-tools setting): nothing to read.
    pub(super) fn unchanged(&self, path: &Path, include_tools: bool) -> bool {
        let Some((at, tools)) = self.0.get(path.to_string_lossy().as_ref()) else {
            return false;
        };
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => *tools == include_tools && stat_of(&m) == *at,
            _ => false,
        }
    }
}

impl SessionIndex {
    /// The indexed files not vaulted, with their checkpoints' metadata, in one query: a
    /// catch-up over hundreds of unchanged transcripts (every `recall` runs one) then asks
    /// SQLite once instead of twice per file, each time taking and releasing its file lock.
    pub(super) fn settled_files(&self) -> Result<SettledFiles, SessionError> {
        let sql = |e| SessionError::from_sql(&self.path, e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT path, size, mtime_ns, inode, include_tools FROM session_files
                 WHERE source_removed_at IS NULL",
            )
            .map_err(sql)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    (
                        Stat {
                            size: r.get::<_, i64>(1)? as u64,
                            mtime_ns: r.get(2)?,
                            inode: r.get::<_, i64>(3)? as u64,
                        },
                        r.get::<_, bool>(4)?,
                    ),
                ))
            })
            .map_err(sql)?;
        Ok(SettledFiles(rows.collect::<Result<_, _>>().map_err(sql)?))
    }
}

pub(super) fn stat_of(m: &std::fs::Metadata) -> Stat {
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0);
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(m);
    #[cfg(not(unix))]
    let inode = 0;
    Stat {
        size: m.len(),
        mtime_ns,
        inode,
    }
}

/// Hash of the file's first `min(end, HEAD_BYTES)` bytes, with that length.
pub(super) fn head_hash(file: &mut File, end: u64) -> std::io::Result<(u64, Vec<u8>)> {
    let len = end.min(HEAD_BYTES);
    let mut head = vec![0u8; len as usize];
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut head)?;
    Ok((len, Sha256::digest(&head).to_vec()))
}

/// Whether the file still starts with the bytes the checkpoint hashed.
pub(super) fn head_matches(file: &mut File, cp: &Checkpoint) -> std::io::Result<bool> {
    if cp.at.head_len == 0 {
        return Ok(true);
    }
    match head_hash(file, cp.at.head_len) {
        Ok((_, hash)) => Ok(hash == cp.at.head_hash),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

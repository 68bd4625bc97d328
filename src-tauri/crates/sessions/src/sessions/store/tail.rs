//! Keeping one transcript file's rows in step with the file, reading only what is new.
//!
//! Owns: the decisions a file's checkpoint (see `checkpoint`) drives: unchanged → skip; grown →
//! read the new bytes; shrunk, replaced or re-configured → read the whole file again; cut short
//! in place → vault what was indexed and read what remains; gone → vault it (as of the caller's
//! `now`). A malformed line is counted against its file and skipped; an unreadable file is
//! reported and the others indexed. Two indexers never store a line twice: the checkpoint is
//! read again under the write lock before a file's new bytes are read. A batch of files
//! commits every few MB.
//! Deliberately does not: find the files or notice a source switched off (see `run`), write
//! rows (see `rows`), read or parse lines (see `sources`), or read the clock.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::checkpoint::{head_hash, head_matches, stat_of, Checkpoint, Position};
use super::index::SessionIndex;
use super::rows::FileRead;
use super::vault;
use crate::sessions::sources::complete_lines::read_complete_lines;
use crate::sessions::sources::line::SessionState;
use crate::sessions::{FileProblem, IndexSummary, SessionError, SourceKind};

/// Transcript bytes read between commits during a full run.
const BATCH_BYTES: u64 = 8 * 1024 * 1024;

/// What indexing one file changed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FileChange {
    Unchanged,
    Indexed { session_id: String, messages: u64 },
    Removed,
}

impl SessionIndex {
    /// Indexes `files` in a few large transactions; `on_file` hears about each file once its
    /// transaction has committed (so whatever it reports is searchable). A file found missing
    /// is vaulted as of `now`.
    pub(crate) fn index_files(
        &mut self,
        files: &[(SourceKind, PathBuf)],
        include_tools: bool,
        now: i64,
        summary: &mut IndexSummary,
        on_file: &mut dyn FnMut(SourceKind, &Path, &FileChange),
    ) -> Result<(), SessionError> {
        let mut uncommitted = 0u64;
        let mut batch: Vec<(SourceKind, &Path, FileChange)> = Vec::new();
        let settled = self.settled_files()?;
        for (source, path) in files {
            if settled.unchanged(path, include_tools) {
                batch.push((*source, path, FileChange::Unchanged));
                continue;
            }
            let before = summary.bytes_read;
            match self.index_file_in_batch(*source, path, include_tools, now, summary) {
                Ok(change) => batch.push((*source, path, change)),
                Err(e) => {
                    self.rollback();
                    return Err(e);
                }
            }
            uncommitted += summary.bytes_read - before;
            // FTS5 writes a segment per commit: few large commits index many times faster than
            // one per file, and committing every few MB keeps other writers' waits short.
            if uncommitted >= BATCH_BYTES {
                self.commit()?;
                uncommitted = 0;
                batch.drain(..).for_each(|(s, p, c)| on_file(s, p, &c));
            }
        }
        self.commit()?;
        batch.drain(..).for_each(|(s, p, c)| on_file(s, p, &c));
        Ok(())
    }

    /// Indexes one transcript file incrementally, in its own transaction.
    pub(crate) fn index_file(
        &mut self,
        source: SourceKind,
        path: &Path,
        include_tools: bool,
        now: i64,
        summary: &mut IndexSummary,
    ) -> Result<FileChange, SessionError> {
        self.in_transaction(|index| {
            index.index_file_in_batch(source, path, include_tools, now, summary)
        })
    }

    /// Indexes one file inside the open write transaction (starting one if needed); the
    /// caller commits.
    fn index_file_in_batch(
        &mut self,
        source: SourceKind,
        path: &Path,
        include_tools: bool,
        now: i64,
        summary: &mut IndexSummary,
    ) -> Result<FileChange, SessionError> {
        let malformed_before = summary.malformed_lines;
        match self.read_into_batch(source, path, include_tools, now, summary) {
            // Only this file's reads fail this way, before anything of it is written: its rows
            // stay as they were, the other files go on.
            Err(SessionError::Io { path, source }) => {
                summary.problems.push(FileProblem {
                    path,
                    malformed_lines: 0,
                    error: Some(source.to_string()),
                });
                Ok(FileChange::Unchanged)
            }
            Ok(change) => {
                let malformed = summary.malformed_lines - malformed_before;
                if malformed > 0 {
                    summary.problems.push(FileProblem {
                        path: path.to_path_buf(),
                        malformed_lines: malformed,
                        error: None,
                    });
                }
                Ok(change)
            }
            Err(e) => Err(e),
        }
    }

    fn read_into_batch(
        &mut self,
        source: SourceKind,
        path: &Path,
        include_tools: bool,
        now: i64,
        summary: &mut IndexSummary,
    ) -> Result<FileChange, SessionError> {
        let stat = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => stat_of(&m),
            Ok(_) => return Ok(FileChange::Unchanged),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.begin()?;
                let marked = vault::mark_removed(&self.conn, path, now)?;
                return Ok(if marked > 0 {
                    FileChange::Removed
                } else {
                    FileChange::Unchanged
                });
            }
            Err(source) => {
                return Err(SessionError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        let unchanged = |cp: &Option<Checkpoint>| {
            cp.as_ref()
                .is_some_and(|cp| cp.at.unchanged(&stat, include_tools))
        };
        // A file the vault marked as gone is back: unmark it, whatever its bytes.
        let vaulted = vault::is_vaulted(&self.conn, path)?;
        if !vaulted && unchanged(&self.checkpoint(path)?) {
            return Ok(FileChange::Unchanged);
        }
        // Under the write lock, look again: another indexer may have stored these bytes since.
        self.begin()?;
        if vaulted {
            vault::unmark(&self.conn, path)?;
        }
        let previous = self.checkpoint(path)?;
        if unchanged(&previous) {
            return Ok(FileChange::Unchanged);
        }
        let io = |source| SessionError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileChange::Unchanged),
            Err(e) => return Err(io(e)),
        };
        let resume = match &previous {
            Some(cp)
                if cp.at.include_tools == include_tools
                    && cp.at.inode == stat.inode
                    && stat.size >= cp.at.offset
                    && head_matches(&mut file, cp).map_err(io)? =>
            {
                Some(cp)
            }
            _ => None,
        };
        if previous.is_some() && resume.is_none() {
            summary.files_reindexed_whole += 1;
        }
        // Cut short in place (same file, fewer bytes than were read from it): what was indexed
        // from it is kept in the vault, as a deleted transcript's is, and the bytes left are
        // read as a new file. A truncation is often a tool rewriting or an accident, and the
        // index may hold the only copy of what was cut.
        let truncated = previous.as_ref().is_some_and(|cp| {
            resume.is_none()
                && cp.at.inode == stat.inode
                && stat.size < cp.at.offset
                && cp.messages > 0
        });
        // The rows a whole read replaces: the file's own, unless the vault kept them.
        let replaces = previous
            .as_ref()
            .filter(|_| resume.is_none())
            .map(|cp| cp.id);
        let replaces = match replaces {
            Some(id) if truncated => {
                vault::keep_truncated(&self.conn, id, path, now)
                    .map_err(|e| SessionError::from_sql(&self.path, e))?;
                None
            }
            other => other,
        };
        let (offset, mut state, prior_messages, prior_malformed) = match resume {
            Some(cp) => (cp.at.offset, cp.state.clone(), cp.messages, cp.malformed),
            None => (0, SessionState::default(), 0, 0),
        };
        file.seek(SeekFrom::Start(offset)).map_err(io)?;
        let malformed_before = summary.malformed_lines;
        let read = read_complete_lines(&mut file, source, &mut state, include_tools, summary)
            .map_err(io)?;
        let malformed = prior_malformed + (summary.malformed_lines - malformed_before);
        let end = offset + read.consumed;
        let (head_len, head_hash) = head_hash(&mut file, end).map_err(io)?;
        let position = Position {
            size: stat.size,
            mtime_ns: stat.mtime_ns,
            inode: stat.inode,
            offset: end,
            head_len,
            head_hash,
            include_tools,
        };

        self.begin()?;
        let indexed = read.messages.len() as u64;
        let session_id = self.store_read(FileRead {
            source,
            path,
            position: &position,
            state: &state,
            replaces,
            totals: (prior_messages + indexed, malformed),
            messages: read.messages,
        })?;
        summary.files_indexed += 1;
        summary.messages_indexed += indexed;
        Ok(FileChange::Indexed {
            session_id,
            messages: indexed,
        })
    }
}

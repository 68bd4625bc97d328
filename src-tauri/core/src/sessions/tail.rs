//! Keeping the index in step with the transcript files, reading only what is new.
//!
//! Owns: the per-file checkpoint (size, mtime, inode, include-tools setting, byte offset after
//! the last complete line, a hash of the file's head) and the decisions it drives: unchanged →
//! skip; grown → read the new bytes; shrunk, replaced or re-configured → read the whole file
//! again; gone → vault it (as of the caller's `now`), or drop its rows when its source is
//! switched off. A torn last line is left for the next run (a whole record without its newline is
//! read); a malformed line (bad JSON, NUL) is counted against its file and skipped, wherever it is; an unreadable file is
//! reported and the others indexed. Two indexers never store a line twice: the checkpoint is
//! read again under the write lock before a file's new bytes are read. Runs commit every few MB.
//! Deliberately does not: write rows (see `rows`), parse a line (see `parse`), or read the clock.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Instant, UNIX_EPOCH};

use rusqlite::OptionalExtension;
use sha2::{Digest, Sha256};

use super::index::{FileChange, SessionIndex};
use super::line::{LineOutcome, Message, SessionState};
use super::parse::parse_line;
use super::rows::FileRead;
use super::types::FileProblem;
use super::{
    discover, vault, IndexProgress, IndexSummary, SessionError, SessionsConfig, SourceKind,
    SourceRoots,
};

/// Bytes of a file's start remembered as a hash, to notice a file replaced by one that is longer.
const HEAD_BYTES: u64 = 4096;
/// Transcript bytes read between commits during a full run.
const BATCH_BYTES: u64 = 8 * 1024 * 1024;

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

struct Checkpoint {
    id: i64,
    at: Position,
    messages: u64,
    malformed: u64,
    state: SessionState,
}

struct Stat {
    size: u64,
    mtime_ns: i64,
    inode: u64,
}

impl SessionIndex {
    pub(super) fn index_once(
        &mut self,
        roots: &SourceRoots,
        cfg: &SessionsConfig,
        only: Option<SourceKind>,
        now: i64,
        on_file: &mut dyn FnMut(SourceKind, &Path, &FileChange, IndexProgress),
    ) -> Result<IndexSummary, SessionError> {
        let started = Instant::now();
        let mut summary = IndexSummary::default();
        let wanted: Vec<SourceKind> = SourceKind::ALL
            .into_iter()
            .filter(|s| cfg.sources.contains(s) && only.is_none_or(|o| o == *s))
            .collect();
        let mut files = Vec::new();
        for source in &wanted {
            if let Some(root) = roots.root(*source) {
                if let Some(problem) = discover::root_problem(*source, root) {
                    summary.problems.push(problem);
                }
                files.extend(
                    discover::transcripts(*source, root, &mut summary.problems)
                        .into_iter()
                        .map(|p| (*source, p)),
                );
            }
        }
        summary.files = files.len() as u64;
        let present: HashSet<&Path> = files.iter().map(|(_, p)| p.as_path()).collect();
        let known = self.known_files()?;
        // Files under a folder that could not be read were not seen, not found gone.
        let unread: Vec<PathBuf> = summary.problems.iter().map(|p| p.path.clone()).collect();
        for (path, source) in &known {
            let disabled = !cfg.sources.contains(source);
            let checked_and_gone = wanted.contains(source)
                && !present.contains(path.as_path())
                && !unread.iter().any(|d| path.starts_with(d));
            if disabled {
                self.remove_file(path)?;
                summary.files_removed += 1;
            } else if checked_and_gone && !vault::is_vaulted(&self.conn, path)? {
                // Vaulted, not dropped: the transcript stays searchable (see `vault`).
                self.begin()?;
                vault::mark_removed(&self.conn, path, now)?;
                self.commit()?;
                summary.files_removed += 1;
            }
        }
        let total = files.len() as u64;
        let mut done = 0u64;
        self.index_files(
            &files,
            cfg.include_tools,
            now,
            &mut summary,
            &mut |source, path, change| {
                done += 1;
                on_file(
                    source,
                    path,
                    change,
                    IndexProgress {
                        source,
                        path: path.to_path_buf(),
                        done,
                        total,
                    },
                );
            },
        )?;
        summary.sessions = self
            .conn
            .query_row("SELECT count(*) FROM session_files", [], |r| r.get(0))?;
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    fn known_files(&self) -> Result<Vec<(PathBuf, SourceKind)>, SessionError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, source FROM session_files")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (path, source) = row?;
            if let Some(source) = SourceKind::parse(&source) {
                out.push((PathBuf::from(path), source));
            }
        }
        Ok(out)
    }

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
        for (source, path) in files {
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
            cp.as_ref().is_some_and(|cp| {
                cp.at.size == stat.size
                    && cp.at.mtime_ns == stat.mtime_ns
                    && cp.at.inode == stat.inode
                    && cp.at.include_tools == include_tools
            })
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

    fn checkpoint(&self, path: &Path) -> Result<Option<Checkpoint>, SessionError> {
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

pub(crate) struct ReadLines {
    /// Bytes of complete lines read (the torn tail, if any, is not counted).
    pub consumed: u64,
    pub messages: Vec<Message>,
}

/// Reads complete lines from the current position, parsing each; stops before a torn line.
pub(crate) fn read_complete_lines(
    file: &mut File,
    source: SourceKind,
    state: &mut SessionState,
    include_tools: bool,
    summary: &mut IndexSummary,
) -> std::io::Result<ReadLines> {
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut buf = Vec::new();
    let mut out = ReadLines {
        consumed: 0,
        messages: Vec::new(),
    };
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        if buf.last() != Some(&b'\n') {
            // The last line without its newline: a writer that ended the file there is done
            // with it when it is a whole record, so it is read; a partial one waits for the rest
            // (tried on a copy of the state, which a partial line must not change).
            let mut trial = state.clone();
            match parse_line(source, &mut trial, &buf, include_tools) {
                None | Some(LineOutcome::Malformed) => break,
                Some(outcome) => {
                    *state = trial;
                    out.consumed += n as u64;
                    summary.bytes_read += n as u64;
                    summary.lines += 1;
                    match outcome {
                        LineOutcome::Messages(m) => out.messages.extend(m),
                        LineOutcome::Skipped(kind) => {
                            *summary.lines_skipped.entry(kind).or_default() += 1
                        }
                        LineOutcome::Malformed => {}
                    }
                    break;
                }
            }
        }
        out.consumed += n as u64;
        summary.bytes_read += n as u64;
        summary.lines += 1;
        match parse_line(source, state, &buf, include_tools) {
            None => {}
            Some(LineOutcome::Messages(m)) => out.messages.extend(m),
            Some(LineOutcome::Skipped(kind)) => {
                *summary.lines_skipped.entry(kind).or_default() += 1
            }
            Some(LineOutcome::Malformed) => summary.malformed_lines += 1,
        }
    }
    Ok(out)
}

fn stat_of(m: &std::fs::Metadata) -> Stat {
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
fn head_hash(file: &mut File, end: u64) -> std::io::Result<(u64, Vec<u8>)> {
    let len = end.min(HEAD_BYTES);
    let mut head = vec![0u8; len as usize];
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut head)?;
    Ok((len, Sha256::digest(&head).to_vec()))
}

fn head_matches(file: &mut File, cp: &Checkpoint) -> std::io::Result<bool> {
    if cp.at.head_len == 0 {
        return Ok(true);
    }
    match head_hash(file, cp.at.head_len) {
        Ok((_, hash)) => Ok(hash == cp.at.head_hash),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

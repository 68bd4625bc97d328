//! Keeping the index in step with the transcript files, reading only what is new.
//!
//! Owns: `SessionIndex` (one connection to `index.sqlite`), the per-file checkpoint (size, mtime,
//! inode, include-tools setting, byte offset after the last complete line, a hash of the file's
//! head) and the decisions it drives: unchanged → skip; grown → read the new bytes; shrunk,
//! replaced or re-configured → read the whole file again; gone → drop its rows. A torn last line
//! is left for the next run; a malformed line (bad JSON, invalid UTF-8, NUL) is counted against
//! its file and skipped, wherever it is; an unreadable file is reported and the others indexed.
//! Two indexers never store a line twice: the checkpoint is read again under the write lock
//! before a file's new bytes are read.
//! Deliberately does not: parse a format (the per-source parsers do) or rank (see `recall`).

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Instant, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::error::{is_corrupt, SessionError};
use super::line::{LineOutcome, Message, SessionState};
use super::types::FileProblem;
use super::{db, discover, IndexProgress, IndexSummary, SessionsConfig, SourceKind, SourceRoots};

/// Bytes of a file's start remembered as a hash, to notice a file replaced by one that is longer.
const HEAD_BYTES: u64 = 4096;
/// Transcript bytes read between commits during a full run.
const BATCH_BYTES: u64 = 8 * 1024 * 1024;

/// The session index in one SQLite file. Open one per thread.
pub struct SessionIndex {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    /// Full-text rows of the open transaction, written just before it commits: FTS5 writes a
    /// segment whenever another statement opens a statement transaction (every checkpoint
    /// upsert), so interleaving them would cut the index into one small segment per file.
    pending_fts: Vec<(i64, String)>,
}

/// What indexing one file changed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FileChange {
    Unchanged,
    Indexed { session_id: String, messages: u64 },
    Removed,
}

struct Checkpoint {
    id: i64,
    size: u64,
    mtime_ns: i64,
    inode: u64,
    offset: u64,
    head_len: u64,
    head_hash: Vec<u8>,
    include_tools: bool,
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
    /// Opens the index at `db`, creating it, and rebuilding it when it is corrupt or from an
    /// older version. A locked database is `SessionError::Busy`.
    pub fn open(db: &Path) -> Result<SessionIndex, SessionError> {
        Ok(SessionIndex { conn: db::open(db)?, path: db.to_path_buf(), pending_fts: Vec::new() })
    }

    /// Drops the whole index file and starts empty (the next `index` reads every transcript).
    pub fn rebuild(db: &Path) -> Result<SessionIndex, SessionError> {
        db::remove_database(db)?;
        SessionIndex::open(db)
    }

    /// Brings the index up to date with every enabled source (or only `only`), reading only
    /// new bytes. `progress` is called once per file.
    pub fn index(
        &mut self,
        roots: &SourceRoots,
        cfg: &SessionsConfig,
        only: Option<SourceKind>,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<IndexSummary, SessionError> {
        match self.index_once(roots, cfg, only, progress) {
            Err(SessionError::Sql(e)) if is_corrupt(&e) => {
                tracing::warn!("session index {} is corrupt ({e}); rebuilding it", self.path.display());
                *self = SessionIndex::rebuild(&self.path)?;
                self.index_once(roots, cfg, only, progress)
            }
            other => other,
        }
    }

    fn index_once(
        &mut self,
        roots: &SourceRoots,
        cfg: &SessionsConfig,
        only: Option<SourceKind>,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<IndexSummary, SessionError> {
        let started = Instant::now();
        let mut summary = IndexSummary::default();
        let wanted: Vec<SourceKind> =
            SourceKind::ALL.into_iter().filter(|s| cfg.sources.contains(s) && only.is_none_or(|o| o == *s)).collect();
        let mut files = Vec::new();
        for source in &wanted {
            if let Some(root) = roots.root(*source) {
                if let Some(problem) = discover::root_problem(*source, root) {
                    summary.problems.push(problem);
                }
                files.extend(discover::transcripts(*source, root).into_iter().map(|p| (*source, p)));
            }
        }
        summary.files = files.len() as u64;
        let present: HashSet<&Path> = files.iter().map(|(_, p)| p.as_path()).collect();
        let known = self.known_files()?;
        for (path, source) in &known {
            let disabled = !cfg.sources.contains(source);
            let checked_and_gone = wanted.contains(source) && !present.contains(path.as_path());
            if disabled {
                self.remove_file(path)?;
                summary.files_removed += 1;
            } else if checked_and_gone && !super::vault::is_vaulted(&self.conn, path)? {
                // Vaulted, not dropped: the transcript stays searchable (see `vault`).
                self.begin()?;
                super::vault::mark_removed(&self.conn, path, super::vault::unix_now())?;
                self.commit()?;
                summary.files_removed += 1;
            }
        }
        let total = files.len() as u64;
        let mut done = 0u64;
        self.index_files(&files, cfg.include_tools, &mut summary, &mut |source, path, _| {
            done += 1;
            progress(IndexProgress { source, path: path.to_path_buf(), done, total });
        })?;
        summary.sessions = self.conn.query_row("SELECT count(*) FROM session_files", [], |r| r.get(0))?;
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    fn known_files(&self) -> Result<Vec<(PathBuf, SourceKind)>, SessionError> {
        let mut stmt = self.conn.prepare("SELECT path, source FROM session_files")?;
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
    /// transaction has committed (so whatever it reports is searchable).
    pub(crate) fn index_files(
        &mut self,
        files: &[(SourceKind, PathBuf)],
        include_tools: bool,
        summary: &mut IndexSummary,
        on_file: &mut dyn FnMut(SourceKind, &Path, &FileChange),
    ) -> Result<(), SessionError> {
        let mut uncommitted = 0u64;
        let mut batch: Vec<(SourceKind, &Path, FileChange)> = Vec::new();
        for (source, path) in files {
            let before = summary.bytes_read;
            match self.index_file_in_batch(*source, path, include_tools, summary) {
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

    /// Starts a write transaction unless one is open (`BEGIN IMMEDIATE`: lock contention shows
    /// up here, as `Busy`, rather than halfway through).
    pub(super) fn begin(&mut self) -> Result<(), SessionError> {
        if self.conn.is_autocommit() {
            self.conn.execute_batch("BEGIN IMMEDIATE").map_err(|e| SessionError::from_sql(&self.path, e))?;
        }
        Ok(())
    }

    pub(super) fn commit(&mut self) -> Result<(), SessionError> {
        if !self.conn.is_autocommit() {
            if let Err(e) = write_fts(&self.conn, &mut self.pending_fts) {
                self.rollback();
                return Err(e.into());
            }
            self.conn.execute_batch("COMMIT").map_err(|e| SessionError::from_sql(&self.path, e))?;
        }
        Ok(())
    }

    pub(super) fn rollback(&mut self) {
        self.pending_fts.clear();
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }

    /// Drops a file's rows (and those of every file under it, when it was a directory).
    pub(crate) fn remove_file(&mut self, path: &Path) -> Result<bool, SessionError> {
        let path_text = path.to_string_lossy().to_string();
        let like = format!("{}/%", escape_like(&path_text));
        self.begin()?;
        let result = self.remove_rows(&path_text, &like);
        match result {
            Ok(n) => {
                self.commit()?;
                Ok(n > 0)
            }
            Err(e) => {
                self.rollback();
                Err(e.into())
            }
        }
    }

    fn remove_rows(&mut self, path_text: &str, like: &str) -> Result<usize, rusqlite::Error> {
        let tx = &self.conn;
        write_fts(tx, &mut self.pending_fts)?;
        let files = "SELECT id FROM session_files WHERE path = ?1 OR path LIKE ?2 ESCAPE '\\'";
        tx.execute(
            &format!("INSERT INTO session_fts(session_fts, rowid, text) SELECT 'delete', id, text FROM session_messages WHERE file_id IN ({files})"),
            params![path_text, like],
        )?;
        tx.execute(&format!("DELETE FROM session_messages WHERE file_id IN ({files})"), params![path_text, like])?;
        tx.execute("DELETE FROM session_files WHERE path = ?1 OR path LIKE ?2 ESCAPE '\\'", params![path_text, like])
    }

    /// Indexes one transcript file incrementally, in its own transaction.
    pub(crate) fn index_file(
        &mut self,
        source: SourceKind,
        path: &Path,
        include_tools: bool,
        summary: &mut IndexSummary,
    ) -> Result<FileChange, SessionError> {
        match self.index_file_in_batch(source, path, include_tools, summary) {
            Ok(change) => {
                self.commit()?;
                Ok(change)
            }
            Err(e) => {
                self.rollback();
                Err(e)
            }
        }
    }

    /// Indexes one file inside the open write transaction (starting one if needed); the
    /// caller commits.
    fn index_file_in_batch(
        &mut self,
        source: SourceKind,
        path: &Path,
        include_tools: bool,
        summary: &mut IndexSummary,
    ) -> Result<FileChange, SessionError> {
        let malformed_before = summary.malformed_lines;
        match self.read_into_batch(source, path, include_tools, summary) {
            // Only this file's reads fail this way, before anything of it is written: its rows
            // stay as they were, the other files go on.
            Err(SessionError::Io { path, source }) => {
                summary.problems.push(FileProblem { path, malformed_lines: 0, error: Some(source.to_string()) });
                Ok(FileChange::Unchanged)
            }
            Ok(change) => {
                let malformed = summary.malformed_lines - malformed_before;
                if malformed > 0 {
                    summary.problems.push(FileProblem { path: path.to_path_buf(), malformed_lines: malformed, error: None });
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
        summary: &mut IndexSummary,
    ) -> Result<FileChange, SessionError> {
        let stat = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => stat_of(&m),
            Ok(_) => return Ok(FileChange::Unchanged),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.begin()?;
                let marked = super::vault::mark_removed(&self.conn, path, super::vault::unix_now())?;
                return Ok(if marked > 0 { FileChange::Removed } else { FileChange::Unchanged });
            }
            Err(source) => return Err(SessionError::Io { path: path.to_path_buf(), source }),
        };
        let unchanged = |cp: &Option<Checkpoint>| {
            cp.as_ref().is_some_and(|cp| {
                cp.size == stat.size && cp.mtime_ns == stat.mtime_ns && cp.inode == stat.inode && cp.include_tools == include_tools
            })
        };
        // A file the vault marked as gone is back: unmark it, whatever its bytes.
        let vaulted = super::vault::is_vaulted(&self.conn, path)?;
        if !vaulted && unchanged(&self.checkpoint(path)?) {
            return Ok(FileChange::Unchanged);
        }
        // Under the write lock, look again: another indexer may have stored these bytes since.
        self.begin()?;
        if vaulted {
            super::vault::unmark(&self.conn, path)?;
        }
        let previous = self.checkpoint(path)?;
        if unchanged(&previous) {
            return Ok(FileChange::Unchanged);
        }
        let io = |source| SessionError::Io { path: path.to_path_buf(), source };
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileChange::Unchanged),
            Err(e) => return Err(io(e)),
        };
        let resume = match &previous {
            Some(cp) if cp.include_tools == include_tools && cp.inode == stat.inode && stat.size >= cp.offset && head_matches(&mut file, cp).map_err(io)? => Some(cp),
            _ => None,
        };
        if previous.is_some() && resume.is_none() {
            summary.files_reindexed_whole += 1;
        }
        let (offset, mut state, prior_messages, prior_malformed) = match resume {
            Some(cp) => (cp.offset, cp.state.clone(), cp.messages, cp.malformed),
            None => (0, SessionState::default(), 0, 0),
        };
        file.seek(SeekFrom::Start(offset)).map_err(io)?;
        let malformed_before = summary.malformed_lines;
        let read = read_complete_lines(&mut file, source, &mut state, include_tools, summary).map_err(io)?;
        let malformed = prior_malformed + (summary.malformed_lines - malformed_before);
        let head = head_hash(&mut file, offset + read.consumed).map_err(io)?;
        let key = session_key(source, path, &state);

        self.begin()?;
        let tx = &self.conn;
        if let (Some(cp), None) = (&previous, resume) {
            delete_messages(tx, &mut self.pending_fts, cp.id)?;
        }
        let total_messages = prior_messages + read.messages.len() as u64;
        let counts = (total_messages, malformed);
        let file_id = save_checkpoint(tx, source, path, &stat, offset + read.consumed, head.0, &head.1, include_tools, &key, &state, counts)?;
        let indexed = read.messages.len() as u64;
        {
            let mut insert = tx.prepare_cached("INSERT INTO session_messages(file_id, role, ts, text) VALUES (?1, ?2, ?3, ?4)")?;
            for m in read.messages {
                insert.execute(params![file_id, m.role.as_str(), m.ts, m.text])?;
                self.pending_fts.push((tx.last_insert_rowid(), m.text));
            }
        }
        summary.files_indexed += 1;
        summary.messages_indexed += indexed;
        Ok(FileChange::Indexed { session_id: key, messages: indexed })
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
        stmt
            .query_row(
                [path.to_string_lossy()],
                |r| {
                    Ok(Checkpoint {
                        id: r.get(0)?,
                        size: r.get::<_, i64>(1)? as u64,
                        mtime_ns: r.get(2)?,
                        inode: r.get::<_, i64>(3)? as u64,
                        offset: r.get::<_, i64>(4)? as u64,
                        head_len: r.get::<_, i64>(5)? as u64,
                        head_hash: r.get(6)?,
                        include_tools: r.get(7)?,
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
                        },
                    })
                },
            )
            .optional()
            .map_err(|e| SessionError::from_sql(&self.path, e))
    }
}

/// Drops a file's messages and their entries in the full-text index (which needs the text to
/// remove them).
fn delete_messages(tx: &Connection, pending: &mut Vec<(i64, String)>, file_id: i64) -> Result<(), rusqlite::Error> {
    write_fts(tx, pending)?;
    tx.execute(
        "INSERT INTO session_fts(session_fts, rowid, text) SELECT 'delete', id, text FROM session_messages WHERE file_id = ?1",
        [file_id],
    )?;
    tx.execute("DELETE FROM session_messages WHERE file_id = ?1", [file_id])?;
    Ok(())
}

/// Writes the transaction's pending full-text rows, in rowid order.
fn write_fts(tx: &Connection, pending: &mut Vec<(i64, String)>) -> Result<(), rusqlite::Error> {
    if pending.is_empty() {
        return Ok(());
    }
    let mut insert = tx.prepare_cached("INSERT INTO session_fts(rowid, text) VALUES (?1, ?2)")?;
    for (id, text) in pending.drain(..) {
        insert.execute(params![id, text])?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn save_checkpoint(
    tx: &Connection,
    source: SourceKind,
    path: &Path,
    stat: &Stat,
    offset: u64,
    head_len: u64,
    head_hash: &[u8],
    include_tools: bool,
    key: &str,
    state: &SessionState,
    (messages, malformed): (u64, u64),
) -> Result<i64, rusqlite::Error> {
    tx.prepare_cached(
        "INSERT INTO session_files(path, source, size, mtime_ns, inode, offset, head_len, head_hash, include_tools, is_binary,
                                   session_id, state_session_id, cwd, agent_title, first_prompt, model, first_ts, last_ts, messages, malformed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
         ON CONFLICT(path) DO UPDATE SET source = excluded.source, size = excluded.size, mtime_ns = excluded.mtime_ns,
             inode = excluded.inode, offset = excluded.offset, head_len = excluded.head_len, head_hash = excluded.head_hash,
             include_tools = excluded.include_tools, is_binary = excluded.is_binary, session_id = excluded.session_id,
             state_session_id = excluded.state_session_id, cwd = excluded.cwd, agent_title = excluded.agent_title,
             first_prompt = excluded.first_prompt, model = excluded.model, first_ts = excluded.first_ts,
             last_ts = excluded.last_ts, messages = excluded.messages, malformed = excluded.malformed
         RETURNING id",
    )?
    .query_row(
        params![
            path.to_string_lossy(),
            source.as_str(),
            stat.size as i64,
            stat.mtime_ns,
            stat.inode as i64,
            offset as i64,
            head_len as i64,
            head_hash,
            include_tools,
            key,
            state.session_id,
            state.cwd,
            state.agent_title,
            state.first_prompt,
            state.model,
            state.first_ts,
            state.last_ts,
            messages as i64,
            malformed as i64,
        ],
        |r| r.get(0),
    )
}

/// The id a session is known by: the transcript's own id, else the file name. A Claude
/// subagent file shares its parent's id, so it is `<parent>/<agent file stem>`.
fn session_key(source: SourceKind, path: &Path, state: &SessionState) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let in_subagents = path.parent().and_then(|p| p.file_name()).is_some_and(|n| n == "subagents");
    if source == SourceKind::Claude && in_subagents {
        let parent = state.session_id.clone().unwrap_or_else(|| {
            path.parent().and_then(Path::parent).and_then(Path::file_name).map(|n| n.to_string_lossy().to_string()).unwrap_or_default()
        });
        return format!("{parent}/{stem}");
    }
    state.session_id.clone().unwrap_or(stem)
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
    let mut out = ReadLines { consumed: 0, messages: Vec::new() };
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 || buf.last() != Some(&b'\n') {
            break;
        }
        out.consumed += n as u64;
        summary.bytes_read += n as u64;
        summary.lines += 1;
        match parse_line(source, state, &buf, include_tools) {
            None => {}
            Some(LineOutcome::Messages(m)) => out.messages.extend(m),
            Some(LineOutcome::Skipped(kind)) => *summary.lines_skipped.entry(kind).or_default() += 1,
            Some(LineOutcome::Malformed) => summary.malformed_lines += 1,
        }
    }
    Ok(out)
}

/// What a transcript's lines come to, read on their own (no index, no file): for diagnostics and
/// fuzzing the line parsers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineCounts {
    pub messages: u64,
    pub skipped: u64,
    pub malformed: u64,
}

/// Parses every newline-separated line of `bytes` as `source` would, in order, like an index run.
pub fn parse_transcript_lines(source: SourceKind, bytes: &[u8], include_tools: bool) -> LineCounts {
    let mut state = SessionState::default();
    let mut counts = LineCounts::default();
    for raw in bytes.split(|&b| b == b'\n') {
        match parse_line(source, &mut state, raw, include_tools) {
            None => {}
            Some(LineOutcome::Messages(m)) => counts.messages += m.len() as u64,
            Some(LineOutcome::Skipped(_)) => counts.skipped += 1,
            Some(LineOutcome::Malformed) => counts.malformed += 1,
        }
    }
    counts
}

/// One raw line through its source's parser; `None` for a blank line.
pub(crate) fn parse_line(source: SourceKind, state: &mut SessionState, raw: &[u8], include_tools: bool) -> Option<LineOutcome> {
    let trimmed = raw.trim_ascii();
    if trimmed.is_empty() {
        return None;
    }
    // Cheap borrowed reads first: Claude's covers most of its lines whole, Codex's skips the
    // kinds that are never indexed. What they decline goes through the JSON tree.
    let quick = match source {
        SourceKind::Claude => super::claude::parse_fast(state, trimmed, include_tools),
        SourceKind::Codex => super::codex::skip_by_envelope(state, trimmed),
        SourceKind::Engram => None,
    };
    if quick.is_some() {
        return quick;
    }
    let value: Value = match serde_json::from_slice(trimmed) {
        Ok(v @ Value::Object(_)) => v,
        _ => return Some(LineOutcome::Malformed),
    };
    Some(match source {
        SourceKind::Claude => super::claude::parse(state, &value, include_tools),
        SourceKind::Codex => super::codex::parse(state, &value, include_tools),
        SourceKind::Engram => super::native::parse(state, &value, include_tools),
    })
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
    Stat { size: m.len(), mtime_ns, inode }
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
    if cp.head_len == 0 {
        return Ok(true);
    }
    match head_hash(file, cp.head_len) {
        Ok((_, hash)) => Ok(hash == cp.head_hash),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

pub(crate) fn escape_like(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

//! Writing the session tables' rows: a file's session row (its metadata and checkpoint), its
//! messages, their full-text entries, and the file's whole-session text entry.
//!
//! Owns: storing what one read of a file came to (replacing the file's old messages when it was
//! read whole again), the id a session is known by, and removing a file's rows (or those of
//! every file under a removed directory).
//! Deliberately does not: decide what changed or read files (see `tail`), open transactions
//! (see `index`), write full-text rows (they wait in `pending_fts` for the commit) or search
//! (see `recall`).

use std::path::Path;

use rusqlite::{params, Connection};

use super::checkpoint::Position;
use super::index::{escape_like, SessionIndex};
use super::pending_fts::PendingFts;
use crate::sessions::sources::line::{Message, SessionState};
use crate::sessions::{SessionError, SourceKind};

/// What one read of a transcript file came to.
pub(super) struct FileRead<'a> {
    pub source: SourceKind,
    pub path: &'a Path,
    pub position: &'a Position,
    pub state: &'a SessionState,
    /// The file's session row before this read, when its messages are to be dropped (the file
    /// was read whole again).
    pub replaces: Option<i64>,
    /// Messages of the whole file after this read, and its malformed lines.
    pub totals: (u64, u64),
    /// Only the messages this read found.
    pub messages: Vec<Message>,
}

impl SessionIndex {
    /// Stores one read inside the open transaction; returns the session's id.
    pub(super) fn store_read(&mut self, read: FileRead<'_>) -> Result<String, rusqlite::Error> {
        let tx = &self.conn;
        if let Some(previous) = read.replaces {
            delete_messages(tx, &mut self.pending_fts, previous)?;
        }
        let key = session_key(read.source, read.path, read.state);
        let file_id = save_session(
            tx,
            read.source,
            read.path,
            read.position,
            &key,
            read.state,
            read.totals,
        )?;
        if read.replaces.is_some() || !read.messages.is_empty() {
            self.pending_fts.rewrite_session(file_id);
        }
        let mut insert = tx.prepare_cached(
            "INSERT INTO session_messages(file_id, role, ts, text) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for m in read.messages {
            insert.execute(params![file_id, m.role.as_str(), m.ts, m.text])?;
            self.pending_fts.add_message(tx.last_insert_rowid(), m.text);
        }
        Ok(key)
    }

    /// Drops a file's rows (and those of every file under it, when it was a directory).
    pub(crate) fn remove_file(&mut self, path: &Path) -> Result<bool, SessionError> {
        let path_text = path.to_string_lossy().to_string();
        let like = format!("{}/%", escape_like(&path_text));
        let removed = self.in_transaction(|index| index.remove_rows(&path_text, &like))?;
        Ok(removed > 0)
    }

    fn remove_rows(&mut self, path_text: &str, like: &str) -> Result<usize, rusqlite::Error> {
        let tx = &self.conn;
        self.pending_fts.flush(tx)?;
        let files = "SELECT id FROM session_files WHERE path = ?1 OR path LIKE ?2 ESCAPE '\\'";
        tx.execute(
            &format!("INSERT INTO session_fts(session_fts, rowid, text) SELECT 'delete', id, text FROM session_messages WHERE file_id IN ({files})"),
            params![path_text, like],
        )?;
        tx.execute(
            &format!("DELETE FROM session_vectors WHERE file_id IN ({files})"),
            params![path_text, like],
        )?;
        tx.execute(
            &format!("DELETE FROM session_messages WHERE file_id IN ({files})"),
            params![path_text, like],
        )?;
        tx.execute(
            &format!("DELETE FROM session_doc_fts WHERE rowid IN ({files})"),
            params![path_text, like],
        )?;
        tx.execute(
            "DELETE FROM session_files WHERE path = ?1 OR path LIKE ?2 ESCAPE '\\'",
            params![path_text, like],
        )
    }
}

/// Drops a file's messages and their entries in the full-text index (which needs the text to
/// remove them).
fn delete_messages(
    tx: &Connection,
    pending: &mut PendingFts,
    file_id: i64,
) -> Result<(), rusqlite::Error> {
    pending.flush(tx)?;
    tx.execute(
        "INSERT INTO session_fts(session_fts, rowid, text) SELECT 'delete', id, text FROM session_messages WHERE file_id = ?1",
        [file_id],
    )?;
    tx.execute("DELETE FROM session_vectors WHERE file_id = ?1", [file_id])?;
    tx.execute("DELETE FROM session_messages WHERE file_id = ?1", [file_id])?;
    Ok(())
}

/// The file's session row: its checkpoint and the session as the parser saw it so far.
fn save_session(
    tx: &Connection,
    source: SourceKind,
    path: &Path,
    at: &Position,
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
            at.size as i64,
            at.mtime_ns,
            at.inode as i64,
            at.offset as i64,
            at.head_len as i64,
            at.head_hash,
            at.include_tools,
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
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let in_subagents = path
        .parent()
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == "subagents");
    if source == SourceKind::Claude && in_subagents {
        let parent = state.session_id.clone().unwrap_or_else(|| {
            path.parent()
                .and_then(Path::parent)
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default()
        });
        return format!("{parent}/{stem}");
    }
    state.session_id.clone().unwrap_or(stem)
}

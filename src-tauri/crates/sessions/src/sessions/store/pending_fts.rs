//! The full-text rows of the open write transaction, held back until it commits.
//!
//! Owns: what a session's whole text is (what the person and the agent said, tool turns left
//! out, in order), and the rows waiting for the commit: FTS5 writes a segment at each statement
//! transaction, so they go in as one batch: the new messages' rows, and the whole-session rows
//! of the files that changed (rewritten from their stored messages).
//! Deliberately does not: open or commit the transaction (see `index`) or decide which messages
//! are new (see `rows`).

use std::collections::BTreeSet;

use rusqlite::{params, Connection};

/// The whole-session text of every file (rowid, text), for filling the index anew.
pub(super) const DOC_TEXT_OF_ALL_FILES: &str = "SELECT file_id, group_concat(text, char(10)) FROM
     (SELECT file_id, text FROM session_messages WHERE role != 'tool' ORDER BY file_id, id) GROUP BY file_id";

/// Full-text rows of the open transaction.
#[derive(Debug, Default)]
pub(crate) struct PendingFts {
    /// New messages' rows, in rowid order.
    messages: Vec<(i64, String)>,
    /// Files whose whole-session row is to be rewritten.
    sessions: BTreeSet<i64>,
}

impl PendingFts {
    /// Writes the pending rows (called before anything reads or deletes full-text rows in the
    /// same transaction, and before it commits).
    pub(super) fn flush(&mut self, tx: &Connection) -> Result<(), rusqlite::Error> {
        if !self.messages.is_empty() {
            let mut insert =
                tx.prepare_cached("INSERT INTO session_fts(rowid, text) VALUES (?1, ?2)")?;
            for (id, text) in self.messages.drain(..) {
                insert.execute(params![id, text])?;
            }
        }
        if !self.sessions.is_empty() {
            let mut delete = tx.prepare_cached("DELETE FROM session_doc_fts WHERE rowid = ?1")?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO session_doc_fts(rowid, text)
                 SELECT ?1, text FROM (SELECT group_concat(text, char(10)) AS text FROM
                     (SELECT text FROM session_messages WHERE file_id = ?1 AND role != 'tool' ORDER BY id))
                 WHERE text IS NOT NULL",
            )?;
            for file_id in std::mem::take(&mut self.sessions) {
                delete.execute([file_id])?;
                insert.execute([file_id])?;
            }
        }
        Ok(())
    }

    /// A new message's row (`id` is its rowid in `session_messages`).
    pub(super) fn add_message(&mut self, id: i64, text: String) {
        self.messages.push((id, text));
    }

    /// The file's whole-session row is to be written again from its stored messages.
    pub(super) fn rewrite_session(&mut self, file_id: i64) {
        self.sessions.insert(file_id);
    }

    pub(super) fn clear(&mut self) {
        self.messages.clear();
        self.sessions.clear();
    }
}

//! Schema 5 or 6 → 7: secrets stored verbatim by an older indexer, or by older rules, are masked in place.
//!
//! Owns: rewriting the stored messages and titles that hold a secret (with their full-text
//! rows and whole-session rows), dropping those messages' vectors so the next fill embeds the
//! masked text, and counting the sessions whose transcripts held secrets (for `doctor`).
//! Deliberately does not: decide what a secret is (`memory::secrets`) or mask new lines (the
//! parsers' `LineBuilder` does, as each line becomes a message).

use std::collections::BTreeSet;

use rusqlite::{params, Connection};

use ambry_store::memory::secrets::{find_secret, mask_secrets, MASK_OPEN};

/// Masks every stored secret; the caller holds the writer's turn and sets the version in the
/// same transaction. Vaulted sessions are masked too: their transcript cannot be read again.
pub(super) fn mask_stored_secrets(conn: &Connection) -> rusqlite::Result<()> {
    let mut changed: Vec<(i64, i64, String, String)> = Vec::new();
    {
        let mut stmt = conn.prepare("SELECT id, file_id, text FROM session_messages")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let text: String = r.get(2)?;
            if let std::borrow::Cow::Owned(masked) = mask_secrets(&text) {
                changed.push((r.get(0)?, r.get(1)?, text, masked));
            }
        }
    }
    let mut files = BTreeSet::new();
    for (id, file_id, old, masked) in &changed {
        conn.execute(
            "INSERT INTO session_fts(session_fts, rowid, text) VALUES ('delete', ?1, ?2)",
            params![id, old],
        )?;
        conn.execute(
            "UPDATE session_messages SET text = ?2 WHERE id = ?1",
            params![id, masked],
        )?;
        conn.execute(
            "INSERT INTO session_fts(rowid, text) VALUES (?1, ?2)",
            params![id, masked],
        )?;
        conn.execute("DELETE FROM session_vectors WHERE message_id = ?1", [id])?;
        files.insert(*file_id);
    }
    for file_id in files {
        conn.execute("DELETE FROM session_doc_fts WHERE rowid = ?1", [file_id])?;
        conn.execute(
            "INSERT INTO session_doc_fts(rowid, text)
             SELECT ?1, text FROM (SELECT group_concat(text, char(10)) AS text FROM
                 (SELECT text FROM session_messages WHERE file_id = ?1 AND role != 'tool' ORDER BY id))
             WHERE text IS NOT NULL",
            [file_id],
        )?;
    }
    let mut titles: Vec<(i64, Option<String>, Option<String>)> = Vec::new();
    {
        let mut stmt = conn.prepare("SELECT id, agent_title, first_prompt FROM session_files")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let mask = |t: Option<String>| t.map(|t| mask_secrets(&t).into_owned());
            let (agent, prompt): (Option<String>, Option<String>) = (r.get(1)?, r.get(2)?);
            let (masked_agent, masked_prompt) = (mask(agent.clone()), mask(prompt.clone()));
            if masked_agent != agent || masked_prompt != prompt {
                titles.push((r.get(0)?, masked_agent, masked_prompt));
            }
        }
    }
    for (id, agent, prompt) in titles {
        conn.execute(
            "UPDATE session_files SET agent_title = ?2, first_prompt = ?3 WHERE id = ?1",
            params![id, agent, prompt],
        )?;
    }
    Ok(())
}

/// The sessions whose transcripts hold secrets, by session id: those masked in the index, and,
/// in an index an older version wrote (read-only here, so not yet masked), those holding one
/// verbatim (`masked_when_written` false: the caller read the index's schema version).
pub(crate) fn sessions_holding_secrets(
    conn: &Connection,
    masked_when_written: bool,
) -> rusqlite::Result<Vec<String>> {
    // The marker holds no LIKE wildcard.
    let pattern = format!("%{MASK_OPEN}%");
    let mut ids: BTreeSet<String> = {
        let mut stmt = conn.prepare(
            "SELECT f.session_id FROM session_files f
             WHERE f.id IN (SELECT file_id FROM session_messages WHERE text LIKE ?1)
                OR f.first_prompt LIKE ?1 OR f.agent_title LIKE ?1",
        )?;
        let rows = stmt.query_map([pattern], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    if !masked_when_written {
        let mut stmt = conn.prepare(
            "SELECT f.session_id, m.text FROM session_messages m JOIN session_files f ON f.id = m.file_id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let text: String = r.get(1)?;
            if find_secret(&text).is_some() {
                ids.insert(r.get(0)?);
            }
        }
    }
    Ok(ids.into_iter().collect())
}

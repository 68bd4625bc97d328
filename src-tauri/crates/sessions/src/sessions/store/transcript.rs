//! Browsing the index: the list of sessions and one session's readable transcript.
//!
//! Owns: `SessionIndex::sessions` (newest first), `SessionIndex::transcript` (re-read from the
//! file, so it shows exactly what is on disk now, tool turns included) and index statistics.
//! Deliberately does not: search (see `recall`).

use std::fs::File;
use std::path::Path;

use rusqlite::{params, OptionalExtension, Row};
use serde::Serialize;

use super::index::SessionIndex;
use crate::sessions::sources::boilerplate;
use crate::sessions::sources::complete_lines::read_complete_lines;
use crate::sessions::sources::line::{Role, SessionState};
use crate::sessions::{IndexSummary, SessionError, SessionMeta, SourceKind, Transcript, Turn};

const META_COLUMNS: &str = "session_id, source, path, cwd, coalesce(agent_title, first_prompt), model, first_ts, last_ts, messages, \
     strftime('%Y-%m-%dT%H:%M:%SZ', source_removed_at, 'unixepoch')";

/// Size of the index, for `doctor` and the app's status line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexStats {
    pub sessions: u64,
    pub files: u64,
    /// Files with lines skipped as malformed, and the first few of them.
    pub files_with_malformed_lines: u64,
    pub malformed_examples: Vec<(String, u64)>,
    pub messages: u64,
    /// The newest message timestamp across all sessions.
    pub newest: Option<String>,
}

pub(crate) fn meta_from_row(r: &Row<'_>, offset: usize) -> rusqlite::Result<SessionMeta> {
    let source: String = r.get(offset + 1)?;
    Ok(SessionMeta {
        session_id: r.get(offset)?,
        source: SourceKind::parse(&source).unwrap_or(SourceKind::Ambry),
        path: r.get(offset + 2)?,
        cwd: r.get(offset + 3)?,
        title: r.get(offset + 4)?,
        model: r.get(offset + 5)?,
        first_ts: r.get(offset + 6)?,
        last_ts: r.get(offset + 7)?,
        messages: r.get::<_, i64>(offset + 8)? as u64,
        source_removed_at: r.get(offset + 9)?,
    })
}

impl SessionIndex {
    /// Indexed sessions, most recently active first.
    pub fn sessions(
        &self,
        source: Option<SourceKind>,
        limit: usize,
    ) -> Result<Vec<SessionMeta>, SessionError> {
        let sql = format!(
            "SELECT {META_COLUMNS} FROM session_files
             WHERE is_binary = 0 AND messages > 0 AND (?1 IS NULL OR source = ?1)
             ORDER BY coalesce(last_ts, '') DESC, path LIMIT ?2"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params![source.map(|s| s.as_str()), limit as i64], |r| {
            meta_from_row(r, 0)
        })?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| SessionError::from_sql(&self.path, e))
    }

    /// One session's turns, read again from its file.
    pub fn transcript(&self, session_id: &str) -> Result<Transcript, SessionError> {
        let sql = format!("SELECT {META_COLUMNS} FROM session_files WHERE session_id = ?1 AND is_binary = 0 ORDER BY path LIMIT 1");
        let meta = self
            .conn
            .query_row(&sql, [session_id], |r| meta_from_row(r, 0))
            .optional()
            .map_err(|e| SessionError::from_sql(&self.path, e))?
            .ok_or_else(|| SessionError::NotFound {
                id: session_id.to_string(),
            })?;
        let path = Path::new(&meta.path);
        let mut file = match File::open(path) {
            Ok(f) => f,
            // Deleted since indexing: the vault's stored turns are the transcript now.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let turns = super::vault::stored_turns(&self.conn, path)
                    .map_err(|e| SessionError::from_sql(&self.path, e))?;
                return Ok(Transcript { meta, turns });
            }
            Err(source) => {
                return Err(SessionError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        // The transcript shows what agents injected as such (the index leaves it out).
        let mut state = SessionState {
            keep_context: true,
            ..SessionState::default()
        };
        let mut ignored = IndexSummary::default();
        let read = read_complete_lines(&mut file, meta.source, &mut state, true, &mut ignored)
            .map_err(|source| SessionError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        let turns = read
            .messages
            .into_iter()
            .map(|m| Turn {
                label: (m.role == Role::Context).then(|| {
                    boilerplate::context_label(&m.text)
                        .unwrap_or("Agent context")
                        .to_string()
                }),
                ts: m.ts,
                role: m.role.as_str().to_string(),
                text: m.text,
            })
            .collect();
        Ok(Transcript { meta, turns })
    }

    pub fn stats(&self) -> Result<IndexStats, SessionError> {
        stats_of(&self.conn).map_err(|e| SessionError::from_sql(&self.path, e))
    }
}

pub(crate) fn stats_of(conn: &rusqlite::Connection) -> rusqlite::Result<IndexStats> {
    conn.query_row(
        "SELECT count(*) FILTER (WHERE is_binary = 0 AND messages > 0), count(*), count(*) FILTER (WHERE malformed > 0),
                coalesce(sum(messages), 0), max(last_ts)
         FROM session_files",
        [],
        |r| {
            Ok(IndexStats {
                sessions: r.get::<_, i64>(0)? as u64,
                files: r.get::<_, i64>(1)? as u64,
                files_with_malformed_lines: r.get::<_, i64>(2)? as u64,
                malformed_examples: Vec::new(),
                messages: r.get::<_, i64>(3)? as u64,
                newest: r.get(4)?,
            })
        },
    )
    .and_then(|mut stats| {
        let mut stmt = conn.prepare("SELECT path, malformed FROM session_files WHERE malformed > 0 ORDER BY malformed DESC, path LIMIT 5")?;
        stats.malformed_examples = stmt.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))?.collect::<Result<_, _>>()?;
        Ok(stats)
    })
}

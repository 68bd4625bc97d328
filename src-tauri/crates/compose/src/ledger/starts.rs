//! The start blocks a context was given (DESIGN §5): which text of each trust anchor the context
//! holds, so a resumed session — whose client keeps the earlier block in the conversation — is
//! given an anchor again only when its text changed, and the memory map not again.
//!
//! Owns: the `starts` rows (one per start block given; the latest per context is what it
//! holds) and reading that back.
//! Deliberately does not: decide what a start block holds (compose does).

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::{Ledger, LedgerError};

/// What of a start block a context holds: the hash of each anchor's text as given, `None` for an
/// anchor it was not given (none written, or left out).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StartBlock {
    pub user_anchor: Option<String>,
    pub project_anchor: Option<String>,
}

impl Ledger {
    /// Records that `session`'s context `generation` now holds `block`.
    pub fn record_start(
        &mut self,
        session: &str,
        agent: &str,
        generation: u32,
        block: &StartBlock,
        at: DateTime<Utc>,
    ) -> Result<(), LedgerError> {
        let when = at.to_rfc3339();
        self.recovering(|conn| {
            conn.execute(
                "INSERT INTO starts(session_id, generation, agent, user_anchor, project_anchor, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    session,
                    generation,
                    agent,
                    block.user_anchor,
                    block.project_anchor,
                    when
                ],
            )
            .map(|_| ())
        })
    }

    /// The start block `session`'s context `generation` holds, if it was given one (a context
    /// recorded before start blocks were, or one that opened on a turn that failed, has none).
    pub fn start_block(
        &mut self,
        session: &str,
        generation: u32,
    ) -> Result<Option<StartBlock>, LedgerError> {
        self.recovering(|conn| {
            conn.query_row(
                "SELECT user_anchor, project_anchor FROM starts
                 WHERE session_id = ?1 AND generation = ?2 ORDER BY id DESC LIMIT 1",
                params![session, generation],
                |r| {
                    Ok(StartBlock {
                        user_anchor: r.get(0)?,
                        project_anchor: r.get(1)?,
                    })
                },
            )
            .optional()
        })
    }
}

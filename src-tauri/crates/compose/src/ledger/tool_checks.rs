//! The tool calls Ambry checked against a memory's rule (DESIGN §16): which memory denied or
//! reminded which call of which session's context, so a reminder is given once per context,
//! and `sessions show`, the review inbox and `doctor` can say what the rules did.
//!
//! Owns: the `tool_checks` rows (writing one per caught call, reading them back).
//! Deliberately does not: decide what a rule catches (see `enforce`).

use chrono::{DateTime, Utc};
use rusqlite::params;
use serde::Serialize;

use super::{Ledger, LedgerError, MemoryVersion};
use ambry_store::memory::Scope;

/// The most of a call's input a row keeps: enough to recognise the call.
const INPUT_KEPT: usize = 2_000;

/// One call a rule caught.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCheckRecord {
    pub session_id: String,
    pub agent: String,
    pub generation: u32,
    pub scope: Scope,
    /// The project slug of a project memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    pub name: String,
    /// `deny` or `remind`.
    pub action: String,
    pub tool: String,
    pub input: String,
    pub at: DateTime<Utc>,
}

impl Ledger {
    /// Records that `memory`'s rule caught a call of `session`'s context `generation`.
    #[allow(clippy::too_many_arguments)]
    pub fn record_tool_check(
        &mut self,
        session: &str,
        agent: &str,
        generation: u32,
        memory: &MemoryVersion,
        action: &str,
        tool: &str,
        input: &str,
        at: DateTime<Utc>,
    ) -> Result<(), LedgerError> {
        let cut = input.floor_char_boundary(input.len().min(INPUT_KEPT));
        let when = at.to_rfc3339();
        self.recovering(|conn| {
            conn.execute(
                "INSERT INTO tool_checks(session_id, generation, agent, scope, project, name,
                                         action, tool, input, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    session,
                    generation,
                    agent,
                    memory.scope.as_str(),
                    memory.project.as_deref().unwrap_or(""),
                    memory.name,
                    action,
                    tool,
                    &input[..cut],
                    when
                ],
            )
            .map(drop)
        })
    }

    /// Whether `memory`'s rule already reminded `session`'s context `generation`.
    pub fn reminded(
        &mut self,
        session: &str,
        generation: u32,
        memory: &MemoryVersion,
    ) -> Result<bool, LedgerError> {
        self.recovering(|conn| {
            conn.query_row(
                "SELECT EXISTS(SELECT 1 FROM tool_checks
                  WHERE session_id = ?1 AND generation = ?2 AND scope = ?3 AND project = ?4
                    AND name = ?5 AND action = 'remind')",
                params![
                    session,
                    generation,
                    memory.scope.as_str(),
                    memory.project.as_deref().unwrap_or(""),
                    memory.name
                ],
                |r| r.get(0),
            )
        })
    }

    /// The calls rules caught, oldest first: one session's, or every session's.
    pub fn tool_checks(
        &mut self,
        session: Option<&str>,
    ) -> Result<Vec<ToolCheckRecord>, LedgerError> {
        self.recovering(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT session_id, agent, generation, scope, project, name, action, tool, input, at
                 FROM tool_checks WHERE (?1 IS NULL OR session_id = ?1) ORDER BY id",
            )?;
            let rows = stmt.query_map(params![session], |r| {
                let scope: String = r.get(3)?;
                let project: String = r.get(4)?;
                let at: String = r.get(9)?;
                Ok(ToolCheckRecord {
                    session_id: r.get(0)?,
                    agent: r.get(1)?,
                    generation: r.get(2)?,
                    scope: scope.parse().unwrap_or(Scope::User),
                    project: (!project.is_empty()).then_some(project),
                    name: r.get(5)?,
                    action: r.get(6)?,
                    tool: r.get(7)?,
                    input: r.get(8)?,
                    at: DateTime::parse_from_rfc3339(&at)
                        .map(|t| t.with_timezone(&Utc))
                        .unwrap_or_default(),
                })
            })?;
            rows.collect()
        })
    }
}

//! The injection ledger (DESIGN §5): per agent session, which version of which memory entered
//! its context, and when. It is data, not cache: its own SQLite file `AMBRY_HOME/ledger.sqlite`
//! (0600), untouched by `sessions index --rebuild` or a damaged `index.sqlite`, and it feeds
//! usage counts (§14), so nothing is ever deleted from it.
//!
//! A session's context has a generation: SessionStart (startup, resume) keeps it, a compaction
//! or clear (`SessionStart` source compact|clear, `PreCompact`) opens the next one. What an
//! earlier generation was given stays as history, marked out of context, so usage still counts it
//! and the next turns may give it again.
//!
//! Owns: the file, its schema, recording injections (the one place they are written) and the
//! start blocks given (`starts`), what a session's live context holds, and the read API
//! (`injections`, `use_counts`); how long a caller waits for another process's write (a
//! parameter: an agent's turn waits a fraction of a second, a person's command the usual
//! seconds), and starting over when the file turns out to be damaged in the middle (set aside,
//! never deleted, as a damaged header is when opened).
//! Deliberately does not: decide what to inject (compose does) or read the clock (callers pass
//! `at`).

mod health;
mod schema;
mod starts;
mod tool_checks;

pub use health::ledger_checks;
pub use starts::StartBlock;
pub use tool_checks::ToolCheckRecord;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use ambry_store::error::ErrorCode;
use ambry_store::home::AmbryHome;
use ambry_store::memory::Scope;

pub const LEDGER_FILE: &str = "ledger.sqlite";

/// Which memory a count is of: (scope, project slug or "" for the user scope, name).
pub type MemoryKey = (Scope, String, String);

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("the injection ledger {} cannot be used: {source}", path.display())]
    Db {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("the injection ledger {} cannot be opened: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Another process held the ledger's write lock for all of `waited`.
    #[error(
        "the injection ledger {} is busy (another process held it for {} ms)",
        path.display(),
        waited.as_millis()
    )]
    Busy { path: PathBuf, waited: Duration },
}

impl ErrorCode for LedgerError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            LedgerError::Db { .. } => ambry_store::error::Code::Ledger,
            LedgerError::Busy { .. } => ambry_store::error::Code::Busy,
            LedgerError::Io { .. } => ambry_store::error::Code::Io,
        }
    }
}

/// One version of one memory as an agent sees it from a project: identity plus content hash.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct MemoryVersion {
    pub scope: Scope,
    /// The project slug for a project memory; `None` for the user scope.
    pub project: Option<String>,
    pub name: String,
    pub content_hash: String,
}

/// How a memory entered a context: its whole body, or one line naming it (it was relevant but
/// did not fit the turn's budget).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    Body,
    Line,
}

impl Form {
    fn as_str(self) -> &'static str {
        match self {
            Form::Body => "body",
            Form::Line => "line",
        }
    }
    fn parse(s: &str) -> Form {
        if s == "line" {
            Form::Line
        } else {
            Form::Body
        }
    }
}

/// What a session's live context holds (its current generation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Held {
    pub generation: u32,
    pub items: HashSet<(MemoryVersion, Form)>,
}

impl Held {
    pub fn has_body(&self, version: &MemoryVersion) -> bool {
        self.items.contains(&(version.clone(), Form::Body))
    }
    pub fn has_line(&self, version: &MemoryVersion) -> bool {
        self.items.contains(&(version.clone(), Form::Line))
    }
}

/// One recorded injection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Injection {
    pub session_id: String,
    pub agent: String,
    pub generation: u32,
    #[serde(flatten)]
    pub memory: MemoryVersion,
    pub form: Form,
    pub at: DateTime<Utc>,
    /// Still in the session's live context (not compacted or cleared away since).
    pub in_context: bool,
}

/// A session the ledger has composed for: its latest context.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerSession {
    pub session_id: String,
    pub agent: String,
    /// The live context's generation.
    pub generation: u32,
    /// When that context started.
    pub started_at: DateTime<Utc>,
}

pub struct Ledger {
    conn: Connection,
    path: PathBuf,
    busy_wait: Duration,
}

/// How long a person's command waits for another process's write to the ledger.
pub const COMMAND_WAIT: Duration = ambry_store::index_db::BUSY_TIMEOUT;
/// How long an agent's turn waits for it: a hook has 2 s in all, and a turn whose ledger is
/// held longer is composed untracked rather than late.
pub const TURN_WAIT: Duration = Duration::from_millis(300);

/// Where the ledger of `home` lives.
pub fn ledger_path(home: &AmbryHome) -> PathBuf {
    home.root().join(LEDGER_FILE)
}

impl Ledger {
    /// Opens (creating, 0600) the ledger of `home`, waiting [`COMMAND_WAIT`] for other writers.
    pub fn open(home: &AmbryHome) -> Result<Ledger, LedgerError> {
        Ledger::open_at(&ledger_path(home), COMMAND_WAIT)
    }

    /// Opens the ledger at `path`; every call waits at most `busy_wait` for another process's
    /// write, then fails with [`LedgerError::Busy`].
    pub fn open_at(path: &Path, busy_wait: Duration) -> Result<Ledger, LedgerError> {
        let conn = schema::open(path, busy_wait)?;
        Ok(Ledger {
            conn,
            path: path.to_path_buf(),
            busy_wait,
        })
    }

    fn db(&self, source: rusqlite::Error) -> LedgerError {
        error_of(&self.path, self.busy_wait, source)
    }

    /// Runs `op`; when the file turns out to be damaged in the middle (a page the header did
    /// not show, "database disk image is malformed"), sets it aside, starts a new ledger and
    /// runs `op` once more on it. Every turn would otherwise fail on it and give the context
    /// everything again.
    fn recovering<T>(
        &mut self,
        op: impl Fn(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, LedgerError> {
        match op(&mut self.conn) {
            Err(e) if ambry_store::index_db::is_corrupt(&e) => {
                self.start_over(&e)?;
                op(&mut self.conn).map_err(|e| self.db(e))
            }
            other => other.map_err(|e| self.db(e)),
        }
    }

    fn start_over(&mut self, why: &rusqlite::Error) -> Result<(), LedgerError> {
        let io = |source| LedgerError::Io {
            path: self.path.clone(),
            source,
        };
        // The connection lets go of the file before it is moved.
        let placeholder = Connection::open_in_memory().map_err(|e| self.db(e))?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        let kept = ambry_store::index_db::set_aside(&self.path).map_err(io)?;
        tracing::warn!(
            "{} is damaged ({why}); a new ledger is started, the damaged one kept as {}",
            self.path.display(),
            kept.display()
        );
        self.conn = schema::open(&self.path, self.busy_wait)?;
        Ok(())
    }

    /// The session's current generation, if the ledger has seen it.
    pub fn generation(&mut self, session: &str) -> Result<Option<u32>, LedgerError> {
        self.recovering(|conn| generation_of(conn, session))
    }

    /// A context begins for `session`. `fresh`: its prior context is gone (a compaction, a clear,
    /// or a first start), so a new generation opens; otherwise (startup of a known id, resume)
    /// the current one continues. Returns the generation now live.
    pub fn start_context(
        &mut self,
        session: &str,
        agent: &str,
        source: &str,
        fresh: bool,
        at: DateTime<Utc>,
    ) -> Result<u32, LedgerError> {
        let started_at = at.to_rfc3339();
        self.recovering(|conn| {
            let generation = match generation_of(conn, session)? {
                Some(g) if !fresh => return Ok(g),
                Some(g) => g + 1,
                None => 1,
            };
            conn.execute(
                "INSERT INTO contexts(session_id, generation, agent, source, started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![session, generation, agent, source, started_at],
            )?;
            Ok(generation)
        })
    }

    /// What the session's live context holds; an unknown session holds nothing (generation 0).
    pub fn held(&mut self, session: &str) -> Result<Held, LedgerError> {
        self.recovering(|conn| held_of(conn, session))
    }

    /// Records what entered the session's context in `generation` (one transaction).
    pub fn record(
        &mut self,
        session: &str,
        agent: &str,
        generation: u32,
        items: &[(MemoryVersion, Form)],
        at: DateTime<Utc>,
    ) -> Result<(), LedgerError> {
        if items.is_empty() {
            return Ok(());
        }
        let when = at.to_rfc3339();
        self.recovering(|conn| {
            let tx = conn.transaction()?;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO injections(session_id, generation, agent, scope, project, name,
                                            content_hash, form, at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )?;
                for (m, form) in items {
                    insert.execute(params![
                        session,
                        generation,
                        agent,
                        m.scope.as_str(),
                        m.project.as_deref().unwrap_or(""),
                        m.name,
                        m.content_hash,
                        form.as_str(),
                        when
                    ])?;
                }
            }
            tx.commit()
        })
    }

    /// Recorded injections, oldest first: one session's, or every session's when `session` is
    /// `None`, optionally only those at or after `since`.
    pub fn injections(
        &self,
        session: Option<&str>,
        since: Option<DateTime<Utc>>,
    ) -> Result<Vec<Injection>, LedgerError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT i.session_id, i.agent, i.generation, i.scope, i.project, i.name,
                        i.content_hash, i.form, i.at,
                        i.generation = (SELECT MAX(c.generation) FROM contexts c
                                        WHERE c.session_id = i.session_id)
                 FROM injections i
                 WHERE (?1 IS NULL OR i.session_id = ?1) AND (?2 IS NULL OR i.at >= ?2)
                 ORDER BY i.at, i.id",
            )
            .map_err(|e| self.db(e))?;
        let since = since.map(|t| t.to_rfc3339());
        let rows = stmt
            .query_map(params![session, since], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, u32>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, String>(7)?,
                    r.get::<_, String>(8)?,
                    r.get::<_, Option<bool>>(9)?,
                ))
            })
            .map_err(|e| self.db(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (session_id, agent, generation, scope, project, name, hash, form, at, live) =
                row.map_err(|e| self.db(e))?;
            let (Ok(scope), Ok(at)) = (scope.parse::<Scope>(), at.parse::<DateTime<Utc>>()) else {
                continue;
            };
            out.push(Injection {
                session_id,
                agent,
                generation,
                memory: MemoryVersion {
                    scope,
                    project: (!project.is_empty()).then_some(project),
                    name,
                    content_hash: hash,
                },
                form: Form::parse(&form),
                at,
                in_context: live.unwrap_or(false),
            });
        }
        Ok(out)
    }

    /// The sessions composed for, the most recently started context first, at most `limit`:
    /// whether or not their transcripts are indexed (a session can be known to the ledger
    /// alone).
    pub fn sessions(&self, limit: usize) -> Result<Vec<LedgerSession>, LedgerError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT c.session_id, c.agent, c.generation, c.started_at FROM contexts c
                 WHERE c.generation = (SELECT MAX(d.generation) FROM contexts d
                                       WHERE d.session_id = c.session_id)
                 ORDER BY c.started_at DESC, c.session_id LIMIT ?1",
            )
            .map_err(|e| self.db(e))?;
        let rows = stmt
            .query_map(params![limit as i64], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, u32>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(|e| self.db(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (session_id, agent, generation, started_at) = row.map_err(|e| self.db(e))?;
            let Ok(started_at) = started_at.parse::<DateTime<Utc>>() else {
                continue;
            };
            out.push(LedgerSession {
                session_id,
                agent,
                generation,
                started_at,
            });
        }
        Ok(out)
    }

    /// Per memory, when its body last entered any context and how often since `since`:
    /// (scope, project slug or "", name) → (last, count since). Usage (§14) reads this, so an
    /// injection is counted from the one place it is recorded.
    pub fn body_injections(
        &self,
        since: DateTime<Utc>,
    ) -> Result<HashMap<MemoryKey, (DateTime<Utc>, u64)>, LedgerError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT scope, project, name, MAX(at), SUM(at >= ?1) FROM injections
                 WHERE form = 'body' GROUP BY scope, project, name",
            )
            .map_err(|e| self.db(e))?;
        let rows = stmt
            .query_map([since.to_rfc3339()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, u64>(4)?,
                ))
            })
            .map_err(|e| self.db(e))?;
        let mut out = HashMap::new();
        for row in rows {
            let (scope, project, name, last, n) = row.map_err(|e| self.db(e))?;
            if let (Ok(scope), Ok(last)) = (scope.parse::<Scope>(), last.parse::<DateTime<Utc>>()) {
                out.insert((scope, project, name), (last, n));
            }
        }
        Ok(out)
    }

    /// How often each memory's body entered any context: (scope, project slug or "", name) →
    /// count. The memory map's "most used" reads this.
    pub fn use_counts(&self) -> Result<HashMap<(Scope, String, String), u64>, LedgerError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT scope, project, name, COUNT(*) FROM injections WHERE form = 'body'
                 GROUP BY scope, project, name",
            )
            .map_err(|e| self.db(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, u64>(3)?,
                ))
            })
            .map_err(|e| self.db(e))?;
        let mut out = HashMap::new();
        for row in rows {
            let (scope, project, name, n) = row.map_err(|e| self.db(e))?;
            if let Ok(scope) = scope.parse::<Scope>() {
                out.insert((scope, project, name), n);
            }
        }
        Ok(out)
    }
}

fn error_of(path: &Path, waited: Duration, source: rusqlite::Error) -> LedgerError {
    if ambry_store::index_db::is_busy(&source) {
        LedgerError::Busy {
            path: path.to_path_buf(),
            waited,
        }
    } else {
        LedgerError::Db {
            path: path.to_path_buf(),
            source,
        }
    }
}

fn generation_of(conn: &Connection, session: &str) -> rusqlite::Result<Option<u32>> {
    conn.query_row(
        "SELECT MAX(generation) FROM contexts WHERE session_id = ?1",
        [session],
        |r| r.get::<_, Option<u32>>(0),
    )
    .optional()
    .map(Option::flatten)
}

fn held_of(conn: &Connection, session: &str) -> rusqlite::Result<Held> {
    let Some(generation) = generation_of(conn, session)? else {
        return Ok(Held::default());
    };
    let mut stmt = conn.prepare_cached(
        "SELECT scope, project, name, content_hash, form FROM injections
         WHERE session_id = ?1 AND generation = ?2",
    )?;
    let rows = stmt.query_map(params![session, generation], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?,
        ))
    })?;
    let mut items = HashSet::new();
    for row in rows {
        let (scope, project, name, content_hash, form) = row?;
        let Ok(scope) = scope.parse::<Scope>() else {
            continue;
        };
        items.insert((
            MemoryVersion {
                scope,
                project: (!project.is_empty()).then_some(project),
                name,
                content_hash,
            },
            Form::parse(&form),
        ));
    }
    Ok(Held { generation, items })
}

#[cfg(test)]
mod tests;

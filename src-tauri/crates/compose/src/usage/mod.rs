//! Usage of memories (DESIGN §14): every use with its time and agent session — injected into a
//! context, fetched by an agent, opened or edited by a person. Data, not cache: it lives in its
//! own `usage.sqlite` in AMBRY_HOME (0600), which no index rebuild touches.
//!
//! Injections have one source of truth, the injection ledger (`ledger.sqlite`): this log holds
//! the other uses, and `summarize` reads both, so a count can never disagree with the ledger.
//!
//! Owns: that file (open, schema, permissions), recording a use, moving uses to a new name on a
//! rename, and per-memory summaries (last use, uses in 30 days, last use by an agent).
//! Deliberately does not: read the clock (callers pass the time of each use), decide when a use
//! happens (front ends call `record`), or record injections (the ledger does).

use std::collections::HashMap;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use ambry_store::error::ErrorCode;
use ambry_store::memory::Scope;

pub const USAGE_FILE: &str = "usage.sqlite";

#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error("usage log {path}: {source}")]
    Sql {
        path: String,
        source: rusqlite::Error,
    },
    #[error("cannot create the usage log {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl ErrorCode for UsageError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            UsageError::Sql { .. } => ambry_store::error::Code::UsageLog,
            UsageError::Io { .. } => ambry_store::error::Code::Io,
        }
    }
}

/// How a memory was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UseKind {
    /// An agent fetched it (`memory_get`, a search hit it opened).
    Fetched,
    /// A person opened it (app, CLI).
    Opened,
    /// A person edited it.
    Edited,
}

impl UseKind {
    fn as_str(self) -> &'static str {
        match self {
            UseKind::Fetched => "fetched",
            UseKind::Opened => "opened",
            UseKind::Edited => "edited",
        }
    }
}

/// One use of one memory. `project` is the slug for project-scope memories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use<'a> {
    pub scope: Scope,
    pub project: Option<&'a str>,
    pub name: &'a str,
    pub kind: UseKind,
    pub at: DateTime<Utc>,
    /// The agent session it happened in, when an agent used it.
    pub session: Option<&'a str>,
}

/// A memory's usage as lists show it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UsageSummary {
    pub last_used: Option<DateTime<Utc>>,
    pub uses_30d: u64,
    /// The last injection or fetch: what an agent used (the unused finding reads this).
    #[serde(skip)]
    pub last_agent_use: Option<DateTime<Utc>>,
}

/// Which memory a summary is of: (scope, project slug or "" for the user scope, name).
pub type MemoryKey = (Scope, String, String);

/// How far back "uses in the last 30 days" looks.
pub const RECENT_DAYS: i64 = 30;

/// Usage of every memory as of `now`: body injections from the ledger plus the log's uses.
pub fn summarize(
    injections: &HashMap<MemoryKey, (DateTime<Utc>, u64)>,
    log: &HashMap<MemoryKey, LoggedUses>,
) -> HashMap<MemoryKey, UsageSummary> {
    let mut out: HashMap<MemoryKey, UsageSummary> = HashMap::new();
    for (key, (last, recent)) in injections {
        let s = out.entry(key.clone()).or_default();
        s.last_used = s.last_used.max(Some(*last));
        s.last_agent_use = s.last_agent_use.max(Some(*last));
        s.uses_30d += recent;
    }
    for (key, uses) in log {
        let s = out.entry(key.clone()).or_default();
        s.last_used = s.last_used.max(uses.last);
        s.last_agent_use = s.last_agent_use.max(uses.last_fetch);
        s.uses_30d += uses.recent;
    }
    out
}

/// What the log holds for one memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoggedUses {
    pub last: Option<DateTime<Utc>>,
    pub last_fetch: Option<DateTime<Utc>>,
    pub recent: u64,
}

pub struct UsageLog {
    conn: Connection,
    path: String,
}

impl UsageLog {
    /// Opens (creating with mode 0600) the usage log in `home_dir`.
    pub fn open(home_dir: &Path) -> Result<UsageLog, UsageError> {
        let file = home_dir.join(USAGE_FILE);
        let path = file.display().to_string();
        let fail = |source| UsageError::Sql {
            path: path.clone(),
            source,
        };
        if !file.exists() {
            ambry_store::storage::create_private_dir_all(home_dir)
                .and_then(|_| {
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .mode(0o600)
                        .open(&file)
                })
                .map_err(|source| UsageError::Io {
                    path: path.clone(),
                    source,
                })?;
        }
        let conn = Connection::open(&file).map_err(fail)?;
        conn.busy_timeout(std::time::Duration::from_secs(2))
            .map_err(fail)?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS uses (
                scope TEXT NOT NULL, project TEXT NOT NULL DEFAULT '', name TEXT NOT NULL,
                kind TEXT NOT NULL, at INTEGER NOT NULL, session TEXT);
             CREATE INDEX IF NOT EXISTS uses_by_memory ON uses(scope, project, name, at);",
        )
        .map_err(fail)?;
        Ok(UsageLog { conn, path })
    }

    /// Records one use.
    pub fn record(&self, u: &Use<'_>) -> Result<(), UsageError> {
        self.conn
            .execute(
                "INSERT INTO uses(scope, project, name, kind, at, session) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    u.scope.as_str(),
                    u.project.unwrap_or(""),
                    u.name,
                    u.kind.as_str(),
                    u.at.timestamp(),
                    u.session
                ],
            )
            .map(|_| ())
            .map_err(|source| UsageError::Sql {
                path: self.path.clone(),
                source,
            })
    }

    /// Moves every use of `old` to `new` (a rename keeps its history, usage included).
    pub fn rename(
        &self,
        scope: Scope,
        project: Option<&str>,
        old: &str,
        new: &str,
    ) -> Result<(), UsageError> {
        self.conn
            .execute(
                "UPDATE uses SET name = ?4 WHERE scope = ?1 AND project = ?2 AND name = ?3",
                params![scope.as_str(), project.unwrap_or(""), old, new],
            )
            .map(|_| ())
            .map_err(|source| UsageError::Sql {
                path: self.path.clone(),
                source,
            })
    }

    /// Per memory: the last use, the last fetch by an agent, and uses in the 30 days before
    /// `now`.
    pub fn uses(&self, now: DateTime<Utc>) -> Result<HashMap<MemoryKey, LoggedUses>, UsageError> {
        let since = (now - chrono::Duration::days(RECENT_DAYS)).timestamp();
        let fail = |source| UsageError::Sql {
            path: self.path.clone(),
            source,
        };
        let mut stmt = self
            .conn
            .prepare(
                "SELECT scope, project, name, MAX(at), MAX(CASE WHEN kind = 'fetched' THEN at END),
                        SUM(at >= ?1)
                 FROM uses GROUP BY scope, project, name",
            )
            .map_err(fail)?;
        let rows = stmt
            .query_map([since], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                    r.get::<_, i64>(5)?,
                ))
            })
            .map_err(fail)?;
        let mut out = HashMap::new();
        for row in rows {
            let (scope, project, name, last, fetch, recent) = row.map_err(fail)?;
            let Ok(scope) = scope.parse::<Scope>() else {
                continue;
            };
            out.insert(
                (scope, project, name),
                LoggedUses {
                    last: DateTime::from_timestamp(last, 0),
                    last_fetch: fetch.and_then(|t| DateTime::from_timestamp(t, 0)),
                    recent: recent.max(0) as u64,
                },
            );
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn uses_are_counted_per_memory_over_30_days_and_the_file_is_private() {
        let home = tempfile::tempdir().unwrap();
        let at = |s: &str| -> DateTime<Utc> { s.parse().unwrap() };
        {
            let log = UsageLog::open(home.path()).unwrap();
            for (when, kind) in [
                ("2026-01-01T00:00:00Z", UseKind::Opened),
                ("2026-03-01T00:00:00Z", UseKind::Edited),
                ("2026-03-05T00:00:00Z", UseKind::Fetched),
            ] {
                log.record(&Use {
                    scope: Scope::Project,
                    project: Some("repo-1"),
                    name: "deploy",
                    kind,
                    at: at(when),
                    session: Some("s1"),
                })
                .unwrap();
            }
        }
        // Reopened: the data survives the process (it is not a cache).
        let log = UsageLog::open(home.path()).unwrap();
        let all = log.uses(at("2026-03-10T00:00:00Z")).unwrap();
        let key = (Scope::Project, "repo-1".to_string(), "deploy".to_string());
        let s = &all[&key];
        assert_eq!(s.recent, 2);
        assert_eq!(s.last, Some(at("2026-03-05T00:00:00Z")));
        assert_eq!(s.last_fetch, Some(at("2026-03-05T00:00:00Z")));
        // Injections come from the ledger and add to the log's uses.
        let injected = HashMap::from([(key.clone(), (at("2026-03-09T00:00:00Z"), 3))]);
        let summary = &summarize(&injected, &all)[&key];
        assert_eq!(summary.uses_30d, 5);
        assert_eq!(summary.last_used, Some(at("2026-03-09T00:00:00Z")));
        // A rename takes the uses along.
        log.rename(Scope::Project, Some("repo-1"), "deploy", "ship")
            .unwrap();
        let moved = log.uses(at("2026-03-10T00:00:00Z")).unwrap();
        assert!(!moved.contains_key(&key));
        assert_eq!(
            moved[&(Scope::Project, "repo-1".into(), "ship".into())].recent,
            2
        );
        let mode = std::fs::metadata(home.path().join(USAGE_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

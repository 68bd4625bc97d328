//! Usage of memories (DESIGN §14): every use with its time and agent session — injected into a
//! context, fetched by an agent, opened or edited by a person. Data, not cache: it lives in its
//! own `usage.sqlite` in AMBRY_HOME (0600), which no index rebuild touches.
//!
//! Owns: that file (open, schema, permissions), recording a use, and per-memory summaries (last
//! use, uses since a time).
//! Deliberately does not: read the clock (callers pass the time of each use) or decide when a
//! use happens (front ends and the injection ledger call `record`).

use std::collections::HashMap;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;
use crate::memory::Scope;

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
    fn code(&self) -> &'static str {
        match self {
            UsageError::Sql { .. } => "usage_log",
            UsageError::Io { .. } => "io",
        }
    }
}

/// How a memory was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UseKind {
    /// Its body entered an agent's context (from the injection ledger).
    Injected,
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
            UseKind::Injected => "injected",
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
            crate::storage::create_private_dir_all(home_dir)
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

    /// Last use and uses in the 30 days before `now`, per `(scope, project slug or "", name)`.
    pub fn summaries(
        &self,
        now: DateTime<Utc>,
    ) -> Result<HashMap<(Scope, String, String), UsageSummary>, UsageError> {
        let since = (now - chrono::Duration::days(30)).timestamp();
        let fail = |source| UsageError::Sql {
            path: self.path.clone(),
            source,
        };
        let mut stmt = self
            .conn
            .prepare(
                "SELECT scope, project, name, MAX(at), SUM(at >= ?1) FROM uses GROUP BY scope, project, name",
            )
            .map_err(fail)?;
        let rows = stmt
            .query_map([since], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                ))
            })
            .map_err(fail)?;
        let mut out = HashMap::new();
        for row in rows {
            let (scope, project, name, last, recent) = row.map_err(fail)?;
            let Ok(scope) = scope.parse::<Scope>() else {
                continue;
            };
            out.insert(
                (scope, project, name),
                UsageSummary {
                    last_used: DateTime::from_timestamp(last, 0),
                    uses_30d: recent.max(0) as u64,
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
                ("2026-03-01T00:00:00Z", UseKind::Injected),
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
        let all = log.summaries(at("2026-03-10T00:00:00Z")).unwrap();
        let s = &all[&(Scope::Project, "repo-1".to_string(), "deploy".to_string())];
        assert_eq!(s.uses_30d, 2);
        assert_eq!(s.last_used, Some(at("2026-03-05T00:00:00Z")));
        let mode = std::fs::metadata(home.path().join(USAGE_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

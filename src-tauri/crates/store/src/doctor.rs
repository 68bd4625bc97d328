//! Health checks shown by `ambry doctor` and the app's Settings view.
//!
//! Owns: the `Check` vocabulary and the checks of paths, configuration, memory scopes and
//! projects. Other areas (embeddings, session index) contribute their own check functions.
//! Deliberately does not: repair anything; each check says what to run instead.

use serde::Serialize;

use crate::config::{Config, ConfigError};
use crate::home::AmbryHome;
use crate::memory::{Scope, Store};
use crate::project;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Not set up, and that is the person's choice (an agent not connected): neither working
    /// nor a problem, so it never makes the overall status worse.
    Off,
    /// Worth knowing, nothing to do (an agent's own policy, an index with nothing in it yet):
    /// like `Off`, it never makes the overall status worse.
    Info,
    Warn,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    pub area: &'static str,
    pub status: Status,
    pub detail: String,
}

impl Check {
    pub fn ok(area: &'static str, detail: impl Into<String>) -> Self {
        Check {
            area,
            status: Status::Ok,
            detail: detail.into(),
        }
    }
    pub fn off(area: &'static str, detail: impl Into<String>) -> Self {
        Check {
            area,
            status: Status::Off,
            detail: detail.into(),
        }
    }
    pub fn info(area: &'static str, detail: impl Into<String>) -> Self {
        Check {
            area,
            status: Status::Info,
            detail: detail.into(),
        }
    }
    pub fn warn(area: &'static str, detail: impl Into<String>) -> Self {
        Check {
            area,
            status: Status::Warn,
            detail: detail.into(),
        }
    }
    pub fn error(area: &'static str, detail: impl Into<String>) -> Self {
        Check {
            area,
            status: Status::Error,
            detail: detail.into(),
        }
    }
}

/// The worst status among checks: only a warning or an error makes it worse than OK (a note
/// and a part not set up are the person's situation, not a fault).
pub fn overall(checks: &[Check]) -> Status {
    if checks.iter().any(|c| c.status == Status::Error) {
        Status::Error
    } else if checks.iter().any(|c| c.status == Status::Warn) {
        Status::Warn
    } else {
        Status::Ok
    }
}

/// Home directory and configuration file (`config` is the configuration as loaded; its error's
/// message is the config check's detail).
pub fn home_checks(home: &AmbryHome, config: &Result<Config, ConfigError>) -> Vec<Check> {
    let mut checks = Vec::new();
    let root = home.root();
    if root.is_dir() {
        let probe = root.join(".doctor-probe");
        match std::fs::write(&probe, b"") {
            Ok(()) => {
                let _ = std::fs::remove_file(&probe);
                checks.push(Check::ok("home", format!("{} (writable)", root.display())));
            }
            Err(e) => checks.push(Check::error(
                "home",
                format!("{} is not writable: {e}", root.display()),
            )),
        }
    } else if let Some(reason) = home.unusable_reason() {
        checks.push(Check::error("home", reason));
    } else {
        checks.push(Check::warn(
            "home",
            format!(
                "{} does not exist yet; the first save creates it",
                root.display()
            ),
        ));
    }
    match config {
        Ok(_) if home.config_file().exists() => checks.push(Check::ok(
            "config",
            format!("{} is valid", home.config_file().display()),
        )),
        Ok(_) => checks.push(Check::ok(
            "config",
            "no config.toml; every setting has its default",
        )),
        Err(e) => checks.push(Check::error("config", e.to_string())),
    }
    checks
}

/// Each scope's memories: counts, files that do not parse, and MEMORY.md drift.
pub fn store_checks(store: &Store) -> Vec<Check> {
    scope_checks(store, &[Scope::User, Scope::Team, Scope::Project])
}

/// The user scope's checks alone (a front end without a working directory has no project).
pub fn user_store_checks(store: &Store) -> Vec<Check> {
    scope_checks(store, &[Scope::User])
}

fn scope_checks(store: &Store, scopes: &[Scope]) -> Vec<Check> {
    let mut checks = Vec::new();
    for &scope in scopes {
        let area = match scope {
            Scope::User => "user memory",
            Scope::Team => "team memory",
            Scope::Project => "project memory",
        };
        let dir = match store.dir(scope) {
            // A repository without team memory: nothing to say.
            Ok(dir) if scope == Scope::Team && !dir.is_dir() => continue,
            Ok(dir) => dir,
            Err(crate::memory::StoreError::NoProject) if scope == Scope::Team => continue,
            Err(crate::memory::StoreError::NoProject) => {
                checks.push(Check::warn(
                    area,
                    "no project resolved from the working directory",
                ));
                continue;
            }
            Err(e) => {
                checks.push(Check::warn(area, e.to_string()));
                continue;
            }
        };
        let files = match store.list(scope_filter(scope)) {
            Ok(files) => files,
            Err(e) => {
                checks.push(Check::error(area, e.to_string()));
                continue;
            }
        };
        let broken: Vec<String> = files
            .iter()
            .filter_map(|f| f.parsed.as_ref().err().map(|e| format!("{}: {e}", f.name)))
            .collect();
        let project_note = match (scope, store.project()) {
            (Scope::Project, Some(p)) => format!(" [{}]", p.slug),
            (Scope::Team, _) if store.team_trusted() => " (trusted: given to agents)".to_string(),
            (Scope::Team, _) => {
                " (not trusted: agents are not given them; `ambry trust` in the repository)"
                    .to_string()
            }
            _ => String::new(),
        };
        checks.push(Check::ok(
            area,
            format!(
                "{} memories in {}{project_note}",
                files.len() - broken.len(),
                dir.display()
            ),
        ));
        if !broken.is_empty() {
            checks.push(Check::warn(
                area,
                format!(
                    "{} file(s) do not parse — fix or forget them: {}",
                    broken.len(),
                    broken.join("; ")
                ),
            ));
        }
        match crate::memory::leaked_secrets(store, scope) {
            Ok(leaks) if leaks.is_empty() => {}
            Ok(leaks) => {
                let listed: Vec<String> = leaks
                    .iter()
                    .map(|l| {
                        format!(
                            "{} ({}: `{}`) — {}",
                            l.path.display(),
                            l.kind,
                            l.excerpt,
                            l.remedy()
                        )
                    })
                    .collect();
                checks.push(Check::error(
                    area,
                    format!(
                        "{} file(s) hold what looks like a secret: {}",
                        leaks.len(),
                        listed.join("; ")
                    ),
                ));
            }
            Err(e) => checks.push(Check::error(area, e.to_string())),
        }
        match store.index_drift(scope) {
            // The team's MEMORY.md is each machine's own (never committed): a clone has none yet.
            _ if scope == Scope::Team => {}
            Ok(drift) if drift.is_empty() => {}
            Ok(drift) => checks.push(Check::warn(
                area,
                format!(
                    "MEMORY.md is out of date ({}); any save regenerates it",
                    drift.join("; ")
                ),
            )),
            Err(e) => checks.push(Check::error(area, e.to_string())),
        }
    }
    checks
}

/// Projects Ambry knows about.
pub fn project_checks(home: &AmbryHome) -> Vec<Check> {
    match project::known_projects(home) {
        Ok(known) if known.is_empty() => vec![Check::ok("projects", "none yet")],
        Ok(known) => {
            let names: Vec<String> = known
                .iter()
                .map(|p| format!("{} ({})", p.display_name(), p.slug))
                .collect();
            vec![Check::ok(
                "projects",
                format!("{}: {}", known.len(), names.join(", ")),
            )]
        }
        Err(e) => vec![Check::error("projects", e.to_string())],
    }
}

fn scope_filter(scope: Scope) -> crate::memory::ScopeFilter {
    scope.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryDraft;

    #[test]
    fn reports_broken_files_and_index_drift() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path());
        let store = Store::new(home.clone(), None);
        let now = "2026-01-01T00:00:00Z".parse().unwrap();
        let draft = MemoryDraft {
            name: "a".into(),
            kind: "user".into(),
            description: "d".into(),
            body: "b".into(),
            tags: vec![],
        };
        store.save(Scope::User, draft, now).unwrap();
        assert_eq!(
            overall(&store_checks(&store)),
            Status::Warn,
            "no project is a warning only"
        );
        std::fs::write(home.user_memory_dir().join("broken.md"), "nope").unwrap();
        std::fs::write(home.user_memory_dir().join("MEMORY.md"), "# Memory index\n").unwrap();
        let checks = store_checks(&store);
        let details: Vec<&str> = checks.iter().map(|c| c.detail.as_str()).collect();
        assert!(
            details
                .iter()
                .any(|d| d.contains("broken") && d.contains("do not parse")),
            "{details:?}"
        );
        assert!(
            details
                .iter()
                .any(|d| d.contains("a is missing from MEMORY.md")),
            "{details:?}"
        );
        store.reindex_scope(Scope::User).unwrap();
        assert!(!store_checks(&store)
            .iter()
            .any(|c| c.detail.contains("out of date")));
    }

    #[test]
    fn a_note_or_a_part_not_set_up_leaves_the_overall_status_ok() {
        let checks = vec![
            Check::ok("home", "writable"),
            Check::info("claude code", "deletes transcripts after 30 days"),
            Check::off("sync", "not set up"),
        ];
        assert_eq!(overall(&checks), Status::Ok);
        let mut worse = checks.clone();
        worse.push(Check::warn("embeddings", "model missing"));
        assert_eq!(overall(&worse), Status::Warn);
    }

    #[test]
    fn bad_config_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path());
        let bad = ConfigError::Invalid {
            path: "config.toml".into(),
            line: 2,
            key: "retrieval.strategy".into(),
            message: "unknown variant `fuzzy`".into(),
        };
        assert_eq!(crate::error::ErrorCode::code(&bad), "config_invalid");
        let checks = home_checks(&home, &Err(bad));
        assert_eq!(overall(&checks), Status::Error);
        let config = checks.iter().find(|c| c.area == "config").unwrap();
        assert_eq!(config.status, Status::Error);
        assert_eq!(
            config.detail,
            "config.toml, line 2: unknown variant `fuzzy`"
        );
    }
}

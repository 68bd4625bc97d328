//! Live changes under `AMBRY_HOME` for the app (DESIGN §10 "Live").
//!
//! Owns: a notify watcher on the home directory (user memories, every project's memories, the
//! projects directory, USER.md and config.toml), debouncing bursts of file events, and turning
//! them into domain changes: a memory saved or removed, its `.vec` sidecar written or removed,
//! the set of projects changed, the user anchor changed, the configuration file changed. Archive entries, temp files and MEMORY.md are
//! ignored.
//! Deliberately does not: read or parse memories (listeners re-read through the store), or know
//! event names (the shell maps `MemoryChange` to its own events).

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use serde::Serialize;

use super::index::INDEX_FILE;
use super::Scope;
use crate::error::ErrorCode;
use crate::home::AmbryHome;

/// One thing that changed on disk, after debouncing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MemoryChange {
    /// The memory file exists now (created or modified).
    Saved {
        scope: Scope,
        project: Option<String>,
        name: String,
    },
    /// The memory file is gone (forgotten, renamed away, deleted by hand).
    Removed {
        scope: Scope,
        project: Option<String>,
        name: String,
    },
    /// A project appeared or disappeared, or its record changed.
    ProjectsChanged,
    /// A memory's embedding sidecar (`<name>.vec`) was written or removed: nothing a person
    /// sees, but caches of vectors must let go of it.
    SidecarChanged {
        scope: Scope,
        project: Option<String>,
        name: String,
    },
    /// USER.md was written or removed.
    UserAnchorChanged,
    /// `config.toml` was written or removed (by hand, by the CLI, by another window): a
    /// settings screen shows it again.
    ConfigChanged,
    /// A whole memory directory appeared or vanished: re-read everything.
    Rescan,
}

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("cannot watch {path} for changes: {message}; changes made outside the app will show after a restart")]
    Watch { path: String, message: String },
}

impl ErrorCode for WatchError {
    fn code(&self) -> crate::error::Code {
        crate::error::Code::WatchFailed
    }
}

/// Keeps watching until dropped.
pub struct MemoryWatcher {
    _watcher: RecommendedWatcher,
}

impl MemoryWatcher {
    /// Watches `home` (which must exist) and calls `on_change` from a background thread, once per
    /// distinct change in each burst of events that ends with `debounce` of quiet.
    pub fn start(
        home: &AmbryHome,
        debounce: Duration,
        on_change: Box<dyn Fn(MemoryChange) + Send>,
    ) -> Result<MemoryWatcher, WatchError> {
        let root = home.root().to_path_buf();
        let watch_error = |e: notify::Error| WatchError::Watch {
            path: root.display().to_string(),
            message: e.to_string(),
        };
        let (tx, rx) = mpsc::channel::<PathBuf>();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if let Ok(event) = event {
                    // Reads (the store listing a directory opens every file) are not changes;
                    // forwarding them would turn every listing into a storm of "saved" events.
                    if matches!(event.kind, notify::EventKind::Access(_)) {
                        return;
                    }
                    for path in event.paths {
                        let _ = tx.send(path);
                    }
                }
            })
            .map_err(watch_error)?;
        watcher
            .watch(&root, RecursiveMode::Recursive)
            .map_err(watch_error)?;
        let root_for_thread = root.clone();
        std::thread::Builder::new()
            .name("ambry-memory-watch".into())
            .spawn(move || debounce_loop(&root_for_thread, &rx, debounce, &*on_change))
            .map_err(|e| WatchError::Watch {
                path: root.display().to_string(),
                message: e.to_string(),
            })?;
        Ok(MemoryWatcher { _watcher: watcher })
    }
}

/// Runs until the watcher (the only sender) is dropped.
fn debounce_loop(
    root: &Path,
    rx: &mpsc::Receiver<PathBuf>,
    debounce: Duration,
    on_change: &dyn Fn(MemoryChange),
) {
    while let Ok(first) = rx.recv() {
        let mut touched = BTreeSet::new();
        touched.extend(classify(root, &first));
        loop {
            match rx.recv_timeout(debounce) {
                Ok(path) => touched.extend(classify(root, &path)),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
        for target in touched {
            on_change(target.into_change(root));
        }
    }
}

/// What a path stands for, before checking whether it still exists.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Touched {
    Memory {
        scope: Scope,
        project: Option<String>,
        name: String,
    },
    Sidecar {
        scope: Scope,
        project: Option<String>,
        name: String,
    },
    Projects,
    UserAnchor,
    Config,
    Rescan,
}

impl Touched {
    fn into_change(self, root: &Path) -> MemoryChange {
        match self {
            Touched::Memory {
                scope,
                project,
                name,
            } => {
                let dir = match &project {
                    Some(slug) => root.join("projects").join(slug).join("memory"),
                    None => root.join("memory"),
                };
                if dir.join(format!("{name}.md")).is_file() {
                    MemoryChange::Saved {
                        scope,
                        project,
                        name,
                    }
                } else {
                    MemoryChange::Removed {
                        scope,
                        project,
                        name,
                    }
                }
            }
            Touched::Sidecar {
                scope,
                project,
                name,
            } => MemoryChange::SidecarChanged {
                scope,
                project,
                name,
            },
            Touched::Projects => MemoryChange::ProjectsChanged,
            Touched::UserAnchor => MemoryChange::UserAnchorChanged,
            Touched::Config => MemoryChange::ConfigChanged,
            Touched::Rescan => MemoryChange::Rescan,
        }
    }
}

fn classify(root: &Path, path: &Path) -> Option<Touched> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Vec<&str> = relative
        .components()
        .map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect::<Option<_>>()?;
    match parts.as_slice() {
        ["USER.md"] => Some(Touched::UserAnchor),
        ["config.toml"] => Some(Touched::Config),
        ["memory"] => Some(Touched::Rescan),
        ["memory", file] => match sidecar_name(file) {
            Some(name) => Some(Touched::Sidecar {
                scope: Scope::User,
                project: None,
                name,
            }),
            None => memory_name(file).map(|name| Touched::Memory {
                scope: Scope::User,
                project: None,
                name,
            }),
        },
        ["projects"] | ["projects", _] | ["projects", _, "project.toml"] => Some(Touched::Projects),
        ["projects", _, "memory"] => Some(Touched::Rescan),
        ["projects", slug, "memory", file] => {
            let (scope, project) = (Scope::Project, Some((*slug).to_string()));
            match sidecar_name(file) {
                Some(name) => Some(Touched::Sidecar {
                    scope,
                    project,
                    name,
                }),
                None => memory_name(file).map(|name| Touched::Memory {
                    scope,
                    project,
                    name,
                }),
            }
        }
        _ => None,
    }
}

/// The memory whose sidecar a file name is: `<name>.vec`, not hidden (temp files).
fn sidecar_name(file: &str) -> Option<String> {
    let name = file.strip_suffix(".vec")?;
    (!file.starts_with('.') && !name.is_empty()).then(|| name.to_string())
}

/// The memory a file name stands for: `<name>.md`, not hidden (temp files), not the index.
fn memory_name(file: &str) -> Option<String> {
    let name = file.strip_suffix(".md")?;
    (!file.starts_with('.') && file != INDEX_FILE && !name.is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{MemoryDraft, Store};
    use crate::project::Project;
    use chrono::TimeZone;
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    fn draft(name: &str) -> MemoryDraft {
        MemoryDraft {
            name: name.into(),
            kind: "project".into(),
            description: "d".into(),
            body: "b\n".into(),
            tags: vec![],
        }
    }

    /// Polls until `wanted` has been seen, with a generous timeout for busy machines.
    fn wait_for(seen: &Arc<Mutex<Vec<MemoryChange>>>, wanted: &MemoryChange) -> bool {
        wait_for_any(seen, std::slice::from_ref(wanted))
    }

    /// Polls until any of `wanted` has been seen.
    fn wait_for_any(seen: &Arc<Mutex<Vec<MemoryChange>>>, wanted: &[MemoryChange]) -> bool {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if seen.lock().unwrap().iter().any(|c| wanted.contains(c)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        false
    }

    /// Waits until every event that came before this call has been reported, and returns what was
    /// reported since `seen` was last cleared, less the two sidecars written to know that
    /// (`settled-by-<tag>-1`, then `-2`, each waited for). One thread reports each burst of
    /// events whole, in the order they came: the first sentinel's burst holds or follows every
    /// event still pending, and the second is written once that burst has ended, so when it is
    /// seen all of that burst has been reported. No sleep: a change reported late still counts.
    fn settled(
        home: &AmbryHome,
        seen: &Arc<Mutex<Vec<MemoryChange>>>,
        tag: &str,
    ) -> Vec<MemoryChange> {
        let sentinel = |n: u32| MemoryChange::SidecarChanged {
            scope: Scope::User,
            project: None,
            name: format!("settled-by-{tag}-{n}"),
        };
        for n in [1, 2] {
            let path = home
                .user_memory_dir()
                .join(format!("settled-by-{tag}-{n}.vec"));
            std::fs::write(path, b"x").unwrap();
            assert!(
                wait_for(seen, &sentinel(n)),
                "saw {:?}",
                seen.lock().unwrap()
            );
        }
        seen.lock()
            .unwrap()
            .iter()
            .filter(|c| ![sentinel(1), sentinel(2)].contains(c))
            .cloned()
            .collect()
    }

    #[test]
    fn saves_removals_and_new_projects_are_reported_and_noise_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(dir.path());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let _watcher = MemoryWatcher::start(
            &home,
            Duration::from_millis(50),
            Box::new(move |c| sink.lock().unwrap().push(c)),
        )
        .unwrap();
        let now = chrono::Utc.timestamp_opt(1_700_000_000, 0).unwrap();

        let user = Store::new(home.clone(), None);
        user.save(Scope::User, draft("jwt-refresh"), now).unwrap();
        let saved = MemoryChange::Saved {
            scope: Scope::User,
            project: None,
            name: "jwt-refresh".into(),
        };
        assert!(wait_for(&seen, &saved), "saw {:?}", seen.lock().unwrap());

        seen.lock().unwrap().clear();
        let project = Project {
            slug: "ledger-1a2b3c4d".into(),
            root: dir.path().join("repo"),
            remote: None,
        };
        let in_project = Store::new(home.clone(), Some(project));
        in_project
            .save(Scope::Project, draft("deploy-steps"), now)
            .unwrap();
        let project_saved = MemoryChange::Saved {
            scope: Scope::Project,
            project: Some("ledger-1a2b3c4d".into()),
            name: "deploy-steps".into(),
        };
        // The project's directories are new: a file written into them before the recursive watch
        // reaches them is reported only through a directory's own event, the memory directory's
        // rescan or, when even that came first, the projects change (both seen on loaded
        // machines). Each makes listeners re-read everything (`Workspace::memory_changed`).
        assert!(
            wait_for_any(
                &seen,
                &[
                    project_saved,
                    MemoryChange::Rescan,
                    MemoryChange::ProjectsChanged
                ]
            ),
            "saw {:?}",
            seen.lock().unwrap()
        );
        assert!(
            wait_for(&seen, &MemoryChange::ProjectsChanged),
            "saw {:?}",
            seen.lock().unwrap()
        );

        // An edit made by hand (another editor) is a save too.
        seen.lock().unwrap().clear();
        let path = home.user_memory_dir().join("jwt-refresh.md");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("b\n", "edited by hand\n")).unwrap();
        assert!(wait_for(&seen, &saved), "saw {:?}", seen.lock().unwrap());

        user.forget(Scope::User, "jwt-refresh", now).unwrap();
        let removed = MemoryChange::Removed {
            scope: Scope::User,
            project: None,
            name: "jwt-refresh".into(),
        };
        assert!(wait_for(&seen, &removed), "saw {:?}", seen.lock().unwrap());

        std::fs::write(home.user_anchor(), "# me\n").unwrap();
        assert!(
            wait_for(&seen, &MemoryChange::UserAnchorChanged),
            "saw {:?}",
            seen.lock().unwrap()
        );
        std::fs::write(home.config_file(), "[retrieval]\ntop_k = 3\n").unwrap();
        assert!(
            wait_for(&seen, &MemoryChange::ConfigChanged),
            "saw {:?}",
            seen.lock().unwrap()
        );

        // Reading memories (as every listing does) reports nothing. (The writes above are all
        // reported first, so that none of them is taken for a read's.)
        settled(&home, &seen, "writes");
        seen.lock().unwrap().clear();
        user.list(crate::memory::ScopeFilter::All).unwrap();
        in_project.list(crate::memory::ScopeFilter::All).unwrap();
        let after_reads = settled(&home, &seen, "reads");
        assert!(
            after_reads.is_empty(),
            "a read was reported: {after_reads:?}"
        );

        // A sidecar is reported as one; nothing reported names the index, a temp file or an
        // archived version.
        std::fs::write(home.user_memory_dir().join("other.vec"), b"x").unwrap();
        let sidecar = MemoryChange::SidecarChanged {
            scope: Scope::User,
            project: None,
            name: "other".into(),
        };
        assert!(wait_for(&seen, &sidecar), "saw {:?}", seen.lock().unwrap());
        std::fs::write(home.user_memory_dir().join(".tmp-other.md.0001"), b"x").unwrap();
        std::fs::write(home.root().join("index.sqlite"), b"x").unwrap();
        std::fs::write(home.user_anchor(), "# me again\n").unwrap();
        let after_noise = settled(&home, &seen, "noise");
        assert!(
            after_noise.contains(&MemoryChange::UserAnchorChanged),
            "saw {after_noise:?}"
        );
        for change in &after_noise {
            if let MemoryChange::Saved { name, .. } | MemoryChange::Removed { name, .. } = change {
                assert!(
                    ["jwt-refresh", "deploy-steps"].contains(&name.as_str()),
                    "unexpected {change:?}"
                );
            }
        }
    }

    #[test]
    fn classification_ignores_archive_temp_files_and_index_and_names_sidecars() {
        let root = Path::new("/e");
        let c = |p: &str| classify(root, &root.join(p));
        assert_eq!(
            c("memory/a.md"),
            Some(Touched::Memory {
                scope: Scope::User,
                project: None,
                name: "a".into()
            })
        );
        assert_eq!(c("memory/.archive/a.1.ab.md"), None);
        assert_eq!(c("memory/.tmp-a.md.00ff"), None);
        assert_eq!(
            c("memory/a.vec"),
            Some(Touched::Sidecar {
                scope: Scope::User,
                project: None,
                name: "a".into()
            })
        );
        assert_eq!(
            c("projects/p-1/memory/b.vec"),
            Some(Touched::Sidecar {
                scope: Scope::Project,
                project: Some("p-1".into()),
                name: "b".into()
            })
        );
        assert_eq!(c("memory/.tmp-a.vec.00ff"), None);
        assert_eq!(c("memory/MEMORY.md"), None);
        assert_eq!(c("projects/p-1/memory/.archive/a.1.ab.md"), None);
        assert_eq!(c("projects/p-1"), Some(Touched::Projects));
        assert_eq!(c("sessions/x.jsonl"), None);
        assert_eq!(c("index.sqlite"), None);
    }
}

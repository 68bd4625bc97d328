//! Prior versions of memories under `<scope>/.archive/` (DESIGN §2–3).
//!
//! Owns: naming archived versions `<name>.<unix-nanos>.<rand>.md`, reading those names back,
//! and the prune policy (keep the newest N per memory, drop versions past an age).
//! Deliberately does not: lock or delete; the store applies what this module decides.

use std::path::PathBuf;

use chrono::{DateTime, TimeZone, Utc};
use rand::Rng;
use serde::Serialize;

use super::Scope;

pub const ARCHIVE_DIR: &str = ".archive";

/// `<dir>/.archive`, created 0700 if missing. A symbolic link there is refused: archives hold
/// every prior version of the memories, and they never leave the home.
pub(super) fn writable_archive_dir(dir: &std::path::Path) -> Result<PathBuf, super::StoreError> {
    let archive_dir = dir.join(ARCHIVE_DIR);
    crate::storage::refuse_symlink(&archive_dir)
        .map_err(|e| super::StoreError::io("archive", &archive_dir, e))?;
    crate::storage::create_private_dir_all(&archive_dir)
        .map_err(|e| super::StoreError::io("create", &archive_dir, e))?;
    Ok(archive_dir)
}

/// One archived version of a memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArchivedVersion {
    pub scope: Scope,
    pub name: String,
    /// `<unix-nanos>.<rand>`: unique, sorts by time.
    pub version: String,
    pub archived_at: DateTime<Utc>,
    pub path: PathBuf,
    pub size: u64,
}

/// Prune settings: from `[archive]` in config, or overridden by flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrunePolicy {
    pub keep_versions: usize,
    /// 0 disables the age limit.
    pub max_age_days: u64,
}

/// A fresh version id for something archived at `now`.
pub fn new_version_id(now: DateTime<Utc>) -> String {
    let nanos = now.timestamp_nanos_opt().unwrap_or(i64::MAX).max(0);
    let tag: u32 = rand::rng().random();
    format!("{nanos:019}.{tag:08x}")
}

pub fn version_file_name(name: &str, version: &str) -> String {
    format!("{name}.{version}.md")
}

/// Reads `<name>.<nanos>.<rand>.md` back into `(name, version, archived_at)`.
pub fn parse_version_file_name(file_name: &str) -> Option<(String, String, DateTime<Utc>)> {
    let stem = file_name.strip_suffix(".md")?;
    let mut parts = stem.rsplitn(3, '.');
    let tag = parts.next()?;
    let nanos = parts.next()?;
    let name = parts.next()?;
    if name.is_empty() || tag.is_empty() || !tag.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let at: i64 = nanos.parse().ok()?;
    Some((
        name.to_string(),
        format!("{nanos}.{tag}"),
        Utc.timestamp_nanos(at),
    ))
}

/// The newest archived copy of `name` in `archive_dir`, if any.
pub fn newest_version_path(archive_dir: &std::path::Path, name: &str) -> Option<PathBuf> {
    let entries = std::fs::read_dir(archive_dir).ok()?;
    entries
        .flatten()
        .filter_map(|e| {
            let file_name = e.file_name().to_string_lossy().into_owned();
            let (memory, version, _) = parse_version_file_name(&file_name)?;
            (memory == name).then(|| (version, e.path()))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, path)| path)
}

/// Which versions a prune removes. `versions` may hold several memories; `has_current(name)`
/// says whether the memory still exists, because the newest copy of a forgotten memory is
/// its only way back and the age rule never takes it.
pub fn select_for_prune<'a>(
    versions: &'a [ArchivedVersion],
    policy: &PrunePolicy,
    now: DateTime<Utc>,
    has_current: impl Fn(Scope, &str) -> bool,
) -> Vec<&'a ArchivedVersion> {
    let mut by_memory: std::collections::BTreeMap<(Scope, &str), Vec<&ArchivedVersion>> =
        Default::default();
    for v in versions {
        by_memory
            .entry((v.scope, v.name.as_str()))
            .or_default()
            .push(v);
    }
    let keep = policy.keep_versions.max(1);
    let mut doomed = Vec::new();
    for ((scope, name), mut list) in by_memory {
        list.sort_by(|a, b| b.version.cmp(&a.version));
        for (i, v) in list.iter().enumerate() {
            let too_many = i >= keep;
            let too_old = policy.max_age_days > 0
                && (now - v.archived_at).num_days() >= policy.max_age_days as i64
                && (i != 0 || has_current(scope, name));
            if too_many || too_old {
                doomed.push(*v);
            }
        }
    }
    doomed
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn version(name: &str, at: DateTime<Utc>) -> ArchivedVersion {
        let id = new_version_id(at);
        ArchivedVersion {
            scope: Scope::User,
            name: name.into(),
            path: version_file_name(name, &id).into(),
            version: id,
            archived_at: at,
            size: 1,
        }
    }

    #[test]
    fn version_names_round_trip_and_sort_by_time() {
        let t: DateTime<Utc> = "2026-05-08T12:34:56.123456789Z".parse().unwrap();
        let id = new_version_id(t);
        let file = version_file_name("jwt-refresh-flow", &id);
        let (name, parsed_id, at) = parse_version_file_name(&file).unwrap();
        assert_eq!(name, "jwt-refresh-flow");
        assert_eq!(parsed_id, id);
        assert_eq!(at, t);
        let later = new_version_id(t + Duration::nanoseconds(1));
        assert!(later > id);
        assert!(parse_version_file_name("notes.md").is_none());
        assert!(parse_version_file_name("a.123.zz.md").is_none());
    }

    #[test]
    fn keeps_the_newest_n_per_memory() {
        let now: DateTime<Utc> = "2026-06-01T00:00:00Z".parse().unwrap();
        let mut vs: Vec<_> = (0..5)
            .map(|i| version("a", now - Duration::hours(i)))
            .collect();
        vs.push(version("b", now));
        let policy = PrunePolicy {
            keep_versions: 2,
            max_age_days: 0,
        };
        let doomed = select_for_prune(&vs, &policy, now, |_, _| true);
        assert_eq!(doomed.len(), 3);
        assert!(doomed
            .iter()
            .all(|v| v.name == "a" && v.archived_at <= now - Duration::hours(2)));
    }

    #[test]
    fn age_limit_spares_the_last_copy_of_a_forgotten_memory() {
        let now: DateTime<Utc> = "2026-06-01T00:00:00Z".parse().unwrap();
        let vs = vec![
            version("gone", now - Duration::days(400)),
            version("gone", now - Duration::days(500)),
            version("live", now - Duration::days(400)),
        ];
        let policy = PrunePolicy {
            keep_versions: 20,
            max_age_days: 365,
        };
        let doomed = select_for_prune(&vs, &policy, now, |_, name| name == "live");
        let names: Vec<(&str, i64)> = doomed
            .iter()
            .map(|v| (v.name.as_str(), (now - v.archived_at).num_days()))
            .collect();
        assert_eq!(names.len(), 2);
        assert!(names.contains(&("gone", 500)));
        assert!(names.contains(&("live", 400)));
    }
}

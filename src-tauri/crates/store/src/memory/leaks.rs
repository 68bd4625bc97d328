//! Finding secrets already on disk: memories and archived versions that the current secret
//! filter would refuse (saved before a rule existed, written by hand, or kept by the archive
//! after the memory itself was fixed).
//!
//! Owns: the scan of one scope's memory files and `.archive/`, with what matched (masked) and
//! what to run about it.
//! Deliberately does not: remove anything; `Store::purge_version` does that when asked.

use std::path::PathBuf;

use serde::Serialize;

use super::archive::{parse_version_file_name, ARCHIVE_DIR};
use super::bounded_read::read_regular_unlinked;
use super::secrets::find_secret;
use super::validate::MEMORY_FILE_MAX;
use super::{Scope, Store, StoreError};

/// One file holding something that looks like a secret.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeakedSecret {
    pub scope: Scope,
    pub name: String,
    /// The archived version id, or `None` for the current memory file.
    pub version: Option<String>,
    pub path: PathBuf,
    pub kind: &'static str,
    pub excerpt: String,
}

impl LeakedSecret {
    /// What the person runs to get rid of it.
    pub fn remedy(&self) -> String {
        match &self.version {
            Some(v) => format!("ambry memory archive purge {} {v} --scope {}", self.name, self.scope),
            None => format!("edit `{}` to remove it (or `ambry memory forget {} --scope {}`), then purge its archived copies", self.name, self.name, self.scope),
        }
    }
}

/// Every memory file and archived version of `scope` the secret filter would refuse now.
pub fn leaked_secrets(store: &Store, scope: Scope) -> Result<Vec<LeakedSecret>, StoreError> {
    let dir = store.dir(scope)?;
    let mut found = Vec::new();
    let mut scan = |path: PathBuf, name: String, version: Option<String>| {
        let Ok(bytes) = read_regular_unlinked(&path, MEMORY_FILE_MAX) else {
            return;
        };
        if let Some(hit) = find_secret(&String::from_utf8_lossy(&bytes)) {
            found.push(LeakedSecret {
                scope,
                name,
                version,
                path,
                kind: hit.kind,
                excerpt: hit.excerpt,
            });
        }
    };
    for file in store.list(scope.into())? {
        scan(file.path.clone(), file.name.clone(), None);
    }
    if let Ok(entries) = std::fs::read_dir(dir.join(ARCHIVE_DIR)) {
        let mut archived: Vec<(String, String, PathBuf)> = entries
            .flatten()
            .filter_map(|e| {
                let (name, version, _) = parse_version_file_name(&e.file_name().to_string_lossy())?;
                Some((name, version, e.path()))
            })
            .collect();
        archived.sort();
        for (name, version, path) in archived {
            scan(path, name, Some(version));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::AmbryHome;
    use crate::memory::MemoryDraft;

    #[test]
    fn finds_secrets_in_files_and_archive_and_purge_removes_an_archived_one() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(AmbryHome::new(tmp.path()), None);
        let now = "2026-06-01T10:00:00Z".parse().unwrap();
        let draft = |body: &str| MemoryDraft {
            name: "db".into(),
            kind: "project".into(),
            description: "database".into(),
            body: body.into(),
            tags: vec![],
        };
        store
            .save(Scope::User, draft("connect as app"), now)
            .unwrap();
        store
            .save(Scope::User, draft("the password lives in the vault"), now)
            .unwrap();
        // The first version, as an older filter let it through, sits in the archive.
        let version = store.versions(Scope::User, Some("db")).unwrap().remove(0);
        std::fs::write(
            &version.path,
            "---\nname: db\ntype: project\ndescription: database\n---\nDB_PASSWORD=Xk9mP2vL7qRt\n",
        )
        .unwrap();
        let hand_written = store.dir(Scope::User).unwrap().join("notes.md");
        std::fs::write(&hand_written, "---\nname: notes\ntype: user\ndescription: n\n---\ntoken ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R\n").unwrap();

        let found = leaked_secrets(&store, Scope::User).unwrap();
        let summary: Vec<(&str, Option<&str>)> = found
            .iter()
            .map(|f| (f.name.as_str(), f.version.as_deref()))
            .collect();
        assert_eq!(
            summary,
            vec![("notes", None), ("db", Some(version.version.as_str()))]
        );
        assert!(found[1]
            .remedy()
            .contains(&format!("archive purge db {}", version.version)));
        assert!(
            !found[1].excerpt.contains("7qRt"),
            "masked: {}",
            found[1].excerpt
        );

        store
            .purge_version(Scope::User, "db", &version.version)
            .unwrap();
        assert!(!version.path.exists());
        let left: Vec<_> = leaked_secrets(&store, Scope::User)
            .unwrap()
            .into_iter()
            .map(|f| f.name)
            .collect();
        assert_eq!(left, vec!["notes"]);
        assert!(matches!(
            store.purge_version(Scope::User, "db", &version.version),
            Err(StoreError::VersionNotFound { .. })
        ));
    }
}

//! Line diffs between an archived version and the current file (the app's Archive view).
//!
//! Owns: the diff shape the UI renders (hunks of equal/insert/delete lines with line numbers,
//! three lines of context) and comparing a version with what is on disk now.
//! Deliberately does not: decide what to restore; `Store::restore` does that.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

use super::{Scope, Store, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    Equal,
    Insert,
    Delete,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    pub kind: LineKind,
    /// 1-based line number in the old text (absent for inserted lines).
    pub old_line: Option<usize>,
    /// 1-based line number in the new text (absent for deleted lines).
    pub new_line: Option<usize>,
    /// The line without its trailing newline.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineDiff {
    /// Runs of changes with up to three lines of context each; empty when the texts are equal.
    pub hunks: Vec<Vec<DiffLine>>,
    pub inserted: usize,
    pub deleted: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionDiff {
    pub scope: Scope,
    pub name: String,
    pub version: String,
    /// False when the memory has been forgotten; the diff is then against an empty file.
    pub current_exists: bool,
    pub diff: LineDiff,
}

/// The line diff turning `old` into `new`.
pub fn line_diff(old: &str, new: &str) -> LineDiff {
    let diff = TextDiff::from_lines(old, new);
    let mut inserted = 0;
    let mut deleted = 0;
    let hunks = diff
        .grouped_ops(3)
        .iter()
        .map(|group| {
            group
                .iter()
                .flat_map(|op| diff.iter_changes(op))
                .map(|change| {
                    let kind = match change.tag() {
                        ChangeTag::Equal => LineKind::Equal,
                        ChangeTag::Insert => {
                            inserted += 1;
                            LineKind::Insert
                        }
                        ChangeTag::Delete => {
                            deleted += 1;
                            LineKind::Delete
                        }
                    };
                    DiffLine {
                        kind,
                        old_line: change.old_index().map(|i| i + 1),
                        new_line: change.new_index().map(|i| i + 1),
                        text: change.value().trim_end_matches(['\n', '\r']).to_string(),
                    }
                })
                .collect()
        })
        .collect();
    LineDiff {
        hunks,
        inserted,
        deleted,
    }
}

/// How an archived version differs from the memory's current file (old = the version).
pub fn version_against_current(
    store: &Store,
    scope: Scope,
    name: &str,
    version: &str,
) -> Result<VersionDiff, StoreError> {
    let old = store.version_text(scope, name, version)?;
    let current_path = store.dir(scope)?.join(format!("{name}.md"));
    let (current, current_exists) = match std::fs::read_to_string(&current_path) {
        Ok(text) => (text, true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (String::new(), false),
        Err(e) => return Err(StoreError::io("read", &current_path, e)),
    };
    Ok(VersionDiff {
        scope,
        name: name.to_string(),
        version: version.to_string(),
        current_exists,
        diff: line_diff(&old, &current),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::AmbryHome;
    use crate::memory::MemoryDraft;
    use chrono::TimeZone;

    #[test]
    fn equal_texts_have_no_hunks() {
        let d = line_diff("a\nb\n", "a\nb\n");
        assert!(d.hunks.is_empty());
        assert_eq!((d.inserted, d.deleted), (0, 0));
    }

    #[test]
    fn a_changed_line_is_a_delete_and_an_insert_with_line_numbers() {
        let d = line_diff("one\ntwo\nthree\n", "one\n2\nthree\n");
        assert_eq!((d.inserted, d.deleted), (1, 1));
        let lines = &d.hunks[0];
        let deleted = lines.iter().find(|l| l.kind == LineKind::Delete).unwrap();
        assert_eq!(
            (deleted.text.as_str(), deleted.old_line, deleted.new_line),
            ("two", Some(2), None)
        );
        let inserted = lines.iter().find(|l| l.kind == LineKind::Insert).unwrap();
        assert_eq!(
            (inserted.text.as_str(), inserted.old_line, inserted.new_line),
            ("2", None, Some(2))
        );
    }

    #[test]
    fn distant_changes_form_separate_hunks_with_limited_context() {
        let old: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 2\n", "line two\n")
            .replace("line 28\n", "line twenty-eight\n");
        let d = line_diff(&old, &new);
        assert_eq!(d.hunks.len(), 2);
        assert!(d.hunks.iter().all(|h| h.len() <= 3 + 2 + 3));
        assert!(!d.hunks.iter().flatten().any(|l| l.text == "line 15"));
    }

    #[test]
    fn version_is_compared_with_the_current_file_and_with_nothing_after_forget() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(AmbryHome::new(dir.path()), None);
        let t = |s: i64| chrono::Utc.timestamp_opt(1_700_000_000 + s, 0).unwrap();
        let draft = |body: &str| MemoryDraft {
            name: "deploy-steps".into(),
            kind: "project".into(),
            description: "How we ship".into(),
            body: body.into(),
            tags: vec![],
        };
        store
            .save(Scope::User, draft("run make release\n"), t(0))
            .unwrap();
        store
            .save(Scope::User, draft("run make ship\n"), t(10))
            .unwrap();
        let version = store.versions(Scope::User, Some("deploy-steps")).unwrap()[0]
            .version
            .clone();
        let d = version_against_current(&store, Scope::User, "deploy-steps", &version).unwrap();
        assert!(d.current_exists);
        let changed: Vec<(LineKind, &str)> = d
            .diff
            .hunks
            .iter()
            .flatten()
            .filter(|l| l.kind != LineKind::Equal)
            .map(|l| (l.kind, l.text.as_str()))
            .collect();
        assert!(
            changed.contains(&(LineKind::Delete, "run make release")),
            "{changed:?}"
        );
        assert!(
            changed.contains(&(LineKind::Insert, "run make ship")),
            "{changed:?}"
        );

        store.forget(Scope::User, "deploy-steps", t(20)).unwrap();
        let d = version_against_current(&store, Scope::User, "deploy-steps", &version).unwrap();
        assert!(!d.current_exists);
        assert_eq!(d.diff.inserted, 0);
        assert!(d.diff.deleted > 0);
    }

    #[test]
    fn unknown_version_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(AmbryHome::new(dir.path()), None);
        let err = version_against_current(&store, Scope::User, "nope", "1.ab").unwrap_err();
        assert_eq!(crate::error::ErrorCode::code(&err), "version_not_found");
    }
}

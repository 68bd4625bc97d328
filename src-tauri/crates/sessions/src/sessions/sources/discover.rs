//! Finding the transcript files of each source.
//!
//! Owns: which files under a root count as transcripts (Claude: `<project>/<session>.jsonl` and
//! `<project>/<session>/subagents/agent-*.jsonl`; Codex: `YYYY/MM/DD/rollout-*.jsonl`; Ambry:
//! `*.jsonl` directly in the root), with a depth limit and without following directory symlinks.
//! Deliberately does not: open the files.

use std::path::{Path, PathBuf};

use crate::sessions::{FileProblem, SourceKind};

/// Why a source root cannot hold transcripts: it, or a directory above it, is a file (say
/// `CLAUDE_CONFIG_DIR` set to a file). A root that simply does not exist yet is no problem.
pub(crate) fn root_problem(source: SourceKind, root: &Path) -> Option<FileProblem> {
    let blocker = root
        .ancestors()
        .find(|p| std::fs::symlink_metadata(p).is_ok())?;
    let meta = std::fs::metadata(blocker).ok()?;
    if meta.is_dir() {
        return None;
    }
    let error = format!(
        "the {source} transcripts should be under {}, but {} is not a directory",
        root.display(),
        blocker.display()
    );
    Some(FileProblem {
        path: blocker.to_path_buf(),
        malformed_lines: 0,
        error: Some(error),
    })
}

/// Whether `path` (under `root`) is a transcript of `source`.
pub(crate) fn is_transcript(source: SourceKind, root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if !name.ends_with(".jsonl") || name.starts_with('.') {
        return false;
    }
    let depth = rel.components().count();
    match source {
        SourceKind::Claude => {
            depth == 2
                || ((3..=4).contains(&depth) && name.starts_with("agent-") && in_subagents(path))
        }
        SourceKind::Codex => depth <= 5 && name.starts_with("rollout-"),
        SourceKind::Ambry => depth == 1,
    }
}

fn in_subagents(path: &Path) -> bool {
    path.parent()
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == "subagents")
}

/// Every transcript of `source` under `root`, sorted; a missing root has none. A directory
/// that cannot be read (a project folder without read permission) is a problem to report, not
/// an empty one: its transcripts are not gone.
pub(crate) fn transcripts(
    source: SourceKind,
    root: &Path,
    problems: &mut Vec<FileProblem>,
) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk(source, root, root, 0, &mut found, problems);
    found.sort();
    found
}

fn walk(
    source: SourceKind,
    root: &Path,
    dir: &Path,
    depth: usize,
    found: &mut Vec<PathBuf>,
    problems: &mut Vec<FileProblem>,
) {
    if depth > 5 {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            problems.push(FileProblem {
                path: dir.to_path_buf(),
                malformed_lines: 0,
                error: Some(format!(
                    "the folder cannot be read ({e}); its transcripts were not indexed and what the index holds from them is kept"
                )),
            });
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(source, root, &path, depth + 1, found, problems);
        } else if (kind.is_file() || kind.is_symlink()) && is_transcript(source, root, &path) {
            found.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_each_sources_layout() {
        let r = Path::new("/r");
        assert!(is_transcript(
            SourceKind::Claude,
            r,
            Path::new("/r/-home-u-app/5f1c.jsonl")
        ));
        assert!(is_transcript(
            SourceKind::Claude,
            r,
            Path::new("/r/-home-u-app/5f1c/subagents/agent-a1.jsonl")
        ));
        assert!(!is_transcript(
            SourceKind::Claude,
            r,
            Path::new("/r/top.jsonl")
        ));
        assert!(!is_transcript(
            SourceKind::Claude,
            r,
            Path::new("/r/-home-u-app/5f1c/tool-results/x.jsonl")
        ));
        assert!(is_transcript(
            SourceKind::Codex,
            r,
            Path::new("/r/2026/05/12/rollout-2026-05-12T10-00-00-a1.jsonl")
        ));
        assert!(!is_transcript(
            SourceKind::Codex,
            r,
            Path::new("/r/2026/05/12/history.jsonl")
        ));
        assert!(is_transcript(
            SourceKind::Ambry,
            r,
            Path::new("/r/s1.jsonl")
        ));
        assert!(!is_transcript(
            SourceKind::Ambry,
            r,
            Path::new("/r/sub/s1.jsonl")
        ));
        assert!(!is_transcript(
            SourceKind::Ambry,
            r,
            Path::new("/r/s1.json")
        ));
    }

    #[test]
    fn a_root_under_a_file_is_a_problem_and_a_missing_one_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("claude-config");
        std::fs::write(&file, "not a directory").unwrap();
        let problem = root_problem(SourceKind::Claude, &file.join("projects")).unwrap();
        assert_eq!(problem.path, file);
        assert!(problem.error.unwrap().contains("is not a directory"));
        assert!(root_problem(SourceKind::Claude, &tmp.path().join("missing/projects")).is_none());
        assert!(root_problem(SourceKind::Claude, tmp.path()).is_none());
    }

    #[test]
    fn walks_a_tree_and_tolerates_a_missing_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("p/s1/subagents")).unwrap();
        std::fs::write(root.join("p/s1.jsonl"), "").unwrap();
        std::fs::write(root.join("p/s1/subagents/agent-x.jsonl"), "").unwrap();
        std::fs::write(root.join("p/notes.txt"), "").unwrap();
        let mut found = transcripts(SourceKind::Claude, root, &mut Vec::new());
        found.sort_by_key(|p| p.components().count());
        assert_eq!(
            found,
            vec![
                root.join("p/s1.jsonl"),
                root.join("p/s1/subagents/agent-x.jsonl")
            ]
        );
        assert!(transcripts(SourceKind::Codex, &root.join("missing"), &mut Vec::new()).is_empty());
    }
}

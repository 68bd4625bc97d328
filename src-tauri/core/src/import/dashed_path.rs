//! Claude Code names a project's directory after its path with every character that is not
//! ASCII alphanumeric replaced by `-` (`/home/u/my_app` → `-home-u-my-app`). The mapping loses
//! information, so the name is decoded against the directories that exist.
//!
//! Owns: that search (greedy, longest directory name first, backtracking).
//! Deliberately does not: decide what a found directory means (project resolution is the
//! caller's).

use std::fs;
use std::path::{Path, PathBuf};

/// Claude Code's encoding of one path component.
fn encode(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The existing directory under `root` (usually `/`) whose path encodes to `dashed`, if any.
pub fn decode_dashed_path(dashed: &str, root: &Path) -> Option<PathBuf> {
    // The leading '-' is the root's '/'.
    let rest = dashed.strip_prefix('-')?;
    if rest.is_empty() {
        return None;
    }
    search(root, rest, 0)
}

fn search(dir: &Path, rest: &str, depth: usize) -> Option<PathBuf> {
    if depth > 64 {
        return None;
    }
    let mut candidates: Vec<(String, PathBuf)> = fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| {
            let encoded = encode(&e.file_name().to_string_lossy());
            let matches = rest == encoded
                || (rest.starts_with(&encoded)
                    && rest.as_bytes().get(encoded.len()) == Some(&b'-'));
            (!encoded.is_empty() && matches).then(|| (encoded, e.path()))
        })
        .collect();
    // Longest first: `my-app` (one directory) before `my` then `app`.
    candidates.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.1.cmp(&b.1)));
    for (encoded, path) in candidates {
        if encoded.len() == rest.len() {
            return Some(path);
        }
        if let Some(found) = search(&path, &rest[encoded.len() + 1..], depth + 1) {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_against_what_exists_and_backtracks() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::create_dir_all(root.join("home/u/my_app")).unwrap();
        fs::create_dir_all(root.join("home/u/my/other")).unwrap();
        fs::create_dir_all(root.join("home/u/site.io/web")).unwrap();
        assert_eq!(
            decode_dashed_path("-home-u-my-app", root),
            Some(root.join("home/u/my_app"))
        );
        assert_eq!(
            decode_dashed_path("-home-u-my-other", root),
            Some(root.join("home/u/my/other")),
            "backtracks from my_app"
        );
        assert_eq!(
            decode_dashed_path("-home-u-site-io-web", root),
            Some(root.join("home/u/site.io/web"))
        );
        assert_eq!(decode_dashed_path("-home-u-gone", root), None);
        assert_eq!(decode_dashed_path("home-u", root), None);
    }
}

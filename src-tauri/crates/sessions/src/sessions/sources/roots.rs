//! Where each source keeps its transcripts.
//!
//! Owns: turning the Ambry home and the values the caller read from the environment
//! (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, the user's home) into one root directory per source.
//! Deliberately does not: read the environment or check that the roots exist.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::sessions::SourceKind;
use ambry_store::home::AmbryHome;

/// One root per source; `None` when it cannot be known (no user home and no override).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceRoots {
    /// `<CLAUDE_CONFIG_DIR or ~/.claude>/projects`
    pub claude: Option<PathBuf>,
    /// `<CODEX_HOME or ~/.codex>/sessions`
    pub codex: Option<PathBuf>,
    /// `AMBRY_HOME/sessions`
    pub ambry: PathBuf,
}

impl SourceRoots {
    pub fn resolve(
        home: &AmbryHome,
        user_home: Option<PathBuf>,
        claude_config_dir: Option<PathBuf>,
        codex_home: Option<PathBuf>,
    ) -> SourceRoots {
        let non_empty = |p: Option<PathBuf>| p.filter(|p| !p.as_os_str().is_empty());
        let user_home = non_empty(user_home);
        let claude =
            non_empty(claude_config_dir).or_else(|| user_home.as_ref().map(|h| h.join(".claude")));
        let codex = non_empty(codex_home).or_else(|| user_home.as_ref().map(|h| h.join(".codex")));
        SourceRoots {
            claude: claude.map(|d| d.join("projects")),
            codex: codex.map(|d| d.join("sessions")),
            ambry: home.sessions_dir(),
        }
    }

    pub fn root(&self, source: SourceKind) -> Option<&Path> {
        match source {
            SourceKind::Claude => self.claude.as_deref(),
            SourceKind::Codex => self.codex.as_deref(),
            SourceKind::Ambry => Some(&self.ambry),
        }
    }

    /// The source whose root holds `path`.
    pub fn source_of(&self, path: &Path) -> Option<SourceKind> {
        SourceKind::ALL
            .into_iter()
            .find(|s| self.root(*s).is_some_and(|r| path.starts_with(r)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_win_and_defaults_follow_the_user_home() {
        let home = AmbryHome::new("/e");
        let r = SourceRoots::resolve(&home, Some("/u".into()), None, None);
        assert_eq!(r.claude.as_deref(), Some(Path::new("/u/.claude/projects")));
        assert_eq!(r.codex.as_deref(), Some(Path::new("/u/.codex/sessions")));
        assert_eq!(r.ambry, Path::new("/e/sessions"));
        let r = SourceRoots::resolve(&home, Some("/u".into()), Some("/c".into()), Some("".into()));
        assert_eq!(r.claude.as_deref(), Some(Path::new("/c/projects")));
        assert_eq!(
            r.codex.as_deref(),
            Some(Path::new("/u/.codex/sessions")),
            "an empty value is no override"
        );
        let r = SourceRoots::resolve(&home, None, None, Some("/x".into()));
        assert_eq!(r.claude, None);
        assert_eq!(
            r.source_of(Path::new("/x/sessions/2026/01/02/rollout-a.jsonl")),
            Some(SourceKind::Codex)
        );
        assert_eq!(
            r.source_of(Path::new("/e/sessions/a.jsonl")),
            Some(SourceKind::Ambry)
        );
        assert_eq!(r.source_of(Path::new("/elsewhere/a.jsonl")), None);
    }
}

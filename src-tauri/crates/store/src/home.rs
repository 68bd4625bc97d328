//! Where things live under `AMBRY_HOME` (DESIGN §2).
//!
//! Owns: resolution of the home directory from an explicit flag, the environment value and the
//! user's home (passed in, never read here), and every path derived from it.
//! Deliberately does not: create directories or write (writers do that when they need to); it
//! reads the disk only to say whether the home is usable.

use std::path::{Path, PathBuf};

/// The root of one Ambry installation and the paths inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmbryHome {
    root: PathBuf,
}

impl AmbryHome {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// `--home` wins, then `AMBRY_HOME`, then `~/.ambry`. `None` only when nothing is known.
    pub fn resolve(
        explicit: Option<PathBuf>,
        env_value: Option<PathBuf>,
        user_home: Option<PathBuf>,
    ) -> Option<Self> {
        explicit
            .filter(|p| !p.as_os_str().is_empty())
            .or_else(|| env_value.filter(|p| !p.as_os_str().is_empty()))
            .or_else(|| user_home.map(|h| h.join(".ambry")))
            .map(Self::new)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Why this home cannot be used: something other than a directory is at its path. A home
    /// that does not exist yet is fine (the first write creates it).
    pub fn unusable_reason(&self) -> Option<String> {
        let meta = std::fs::metadata(&self.root).ok()?;
        (!meta.is_dir()).then(|| format!("the Ambry home {} is a file, not a directory; pass --home DIR (or set AMBRY_HOME) to a directory", self.root.display()))
    }
    pub fn config_file(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    /// The person's own preferences; agents never write it.
    pub fn user_anchor(&self) -> PathBuf {
        self.root.join("USER.md")
    }
    /// User-scope memory directory.
    pub fn user_memory_dir(&self) -> PathBuf {
        self.root.join("memory")
    }
    pub fn projects_dir(&self) -> PathBuf {
        self.root.join("projects")
    }
    pub fn project_dir(&self, slug: &str) -> PathBuf {
        self.projects_dir().join(slug)
    }
    /// Project-scope memory directory for a slug.
    pub fn project_memory_dir(&self, slug: &str) -> PathBuf {
        self.project_dir(slug).join("memory")
    }
    /// Ambry-native transcripts.
    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join("sessions")
    }
    pub fn models_dir(&self) -> PathBuf {
        self.root.join("models")
    }
    /// The session index and caches. Not all derived: it may hold the only copy of transcripts
    /// the agents have since deleted.
    pub fn index_db(&self) -> PathBuf {
        self.root.join("index.sqlite")
    }
    /// The Unix socket a running compose service answers on.
    pub fn compose_socket(&self) -> PathBuf {
        self.root.join("compose.sock")
    }
    /// The log of a compose service a hook started in the background (`ambry serve`).
    pub fn serve_log(&self) -> PathBuf {
        self.root.join("serve.log")
    }
    /// Held (advisory lock) by the one compose service serving this home.
    pub fn compose_service_lock(&self) -> PathBuf {
        self.root.join("compose.lock")
    }
    /// Personal sync's own directory: its git repository, state and pending conflicts.
    pub fn sync_dir(&self) -> PathBuf {
        self.root.join("sync")
    }
    /// Held (advisory lock) by the one agent's hook of this home that may load the embedding
    /// model in its own process while no service answers (the others rank with words).
    pub fn hook_model_lock(&self) -> PathBuf {
        self.root.join("model.lock")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_flag_wins_over_env_and_home() {
        let h = AmbryHome::resolve(
            Some("/flag".into()),
            Some("/env".into()),
            Some("/home/u".into()),
        )
        .unwrap();
        assert_eq!(h.root(), Path::new("/flag"));
    }

    #[test]
    fn env_wins_over_home_and_empty_values_are_ignored() {
        let h = AmbryHome::resolve(Some("".into()), Some("/env".into()), Some("/home/u".into()))
            .unwrap();
        assert_eq!(h.root(), Path::new("/env"));
        let h = AmbryHome::resolve(None, Some("".into()), Some("/home/u".into())).unwrap();
        assert_eq!(h.root(), Path::new("/home/u/.ambry"));
        assert!(AmbryHome::resolve(None, None, None).is_none());
    }

    #[test]
    fn layout_matches_design() {
        let h = AmbryHome::new("/e");
        assert_eq!(
            h.project_memory_dir("acme-ledger-1a2b3c4d"),
            Path::new("/e/projects/acme-ledger-1a2b3c4d/memory")
        );
        assert_eq!(h.index_db(), Path::new("/e/index.sqlite"));
        assert_eq!(h.user_memory_dir(), Path::new("/e/memory"));
    }
}

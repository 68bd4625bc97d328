//! One indexing run over every enabled source (or one of them).
//!
//! Owns: finding the transcripts under the source roots, dropping the rows of a source
//! switched off, vaulting a known file found gone (as of the caller's `now`, unix seconds),
//! indexing the rest in batches with progress per file, and starting the index over and trying
//! once more when the file turns out corrupt.
//! Deliberately does not: decide what changed in one file (see `tail`), write rows (see `rows`)
//! or read the clock.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::index::SessionIndex;
use super::tail::FileChange;
use super::vault;
use super::writer_turn::WriterTurn;
use crate::sessions::error::is_corrupt;
use crate::sessions::sources::discover;
use crate::sessions::{
    IndexProgress, IndexSummary, SessionError, SessionsConfig, SourceKind, SourceRoots,
};

impl SessionIndex {
    /// Brings the index up to date with every enabled source (or only `only`), reading only
    /// new bytes. A transcript found missing is vaulted as of `now` (unix seconds). `progress`
    /// is called once per file.
    pub fn index(
        &mut self,
        roots: &SourceRoots,
        cfg: &SessionsConfig,
        only: Option<SourceKind>,
        now: i64,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<IndexSummary, SessionError> {
        self.index_reporting(roots, cfg, only, now, &mut |_, _, _, p| progress(p))
    }

    /// `index`, telling `on_file` what changed in each file once it is committed: the watcher's
    /// catch-up reports every file it indexes (one that appears during the run is either in it,
    /// and reported, or comes later as an event; never indexed unreported).
    pub(crate) fn index_reporting(
        &mut self,
        roots: &SourceRoots,
        cfg: &SessionsConfig,
        only: Option<SourceKind>,
        now: i64,
        on_file: &mut dyn FnMut(SourceKind, &Path, &FileChange, IndexProgress),
    ) -> Result<IndexSummary, SessionError> {
        // One turn for the whole run: another indexer waits for its end, then finds little to do.
        let _turn = WriterTurn::queue(&self.path)?;
        match self.index_once(roots, cfg, only, now, on_file) {
            Err(SessionError::Sql(e)) if is_corrupt(&e) => {
                tracing::warn!(
                    "session index {} is corrupt ({e}); rebuilding it",
                    self.path.display()
                );
                *self = SessionIndex::rebuild(&self.path)?;
                self.index_once(roots, cfg, only, now, on_file)
            }
            other => other,
        }
    }

    fn index_once(
        &mut self,
        roots: &SourceRoots,
        cfg: &SessionsConfig,
        only: Option<SourceKind>,
        now: i64,
        on_file: &mut dyn FnMut(SourceKind, &Path, &FileChange, IndexProgress),
    ) -> Result<IndexSummary, SessionError> {
        let started = Instant::now();
        let mut summary = IndexSummary::default();
        let wanted: Vec<SourceKind> = SourceKind::ALL
            .into_iter()
            .filter(|s| cfg.sources.contains(s) && only.is_none_or(|o| o == *s))
            .collect();
        let mut files = Vec::new();
        for source in &wanted {
            if let Some(root) = roots.root(*source) {
                if let Some(problem) = discover::root_problem(*source, root) {
                    summary.problems.push(problem);
                }
                files.extend(
                    discover::transcripts(*source, root, &mut summary.problems)
                        .into_iter()
                        .map(|p| (*source, p)),
                );
            }
        }
        summary.files = files.len() as u64;
        let present: HashSet<&Path> = files.iter().map(|(_, p)| p.as_path()).collect();
        let known = self.known_files()?;
        // Files under a folder that could not be read were not seen, not found gone.
        let unread: Vec<PathBuf> = summary.problems.iter().map(|p| p.path.clone()).collect();
        for (path, source) in &known {
            let disabled = !cfg.sources.contains(source);
            let checked_and_gone = wanted.contains(source)
                && !present.contains(path.as_path())
                && !unread.iter().any(|d| path.starts_with(d));
            if disabled {
                self.remove_file(path)?;
                summary.files_removed += 1;
            } else if checked_and_gone && !vault::is_vaulted(&self.conn, path)? {
                // Vaulted, not dropped: the transcript stays searchable (see `vault`).
                self.begin()?;
                vault::mark_removed(&self.conn, path, now)?;
                self.commit()?;
                summary.files_removed += 1;
            }
        }
        let total = files.len() as u64;
        let mut done = 0u64;
        self.index_files(
            &files,
            cfg.include_tools,
            now,
            &mut summary,
            &mut |source, path, change| {
                done += 1;
                on_file(
                    source,
                    path,
                    change,
                    IndexProgress {
                        source,
                        path: path.to_path_buf(),
                        done,
                        total,
                    },
                );
            },
        )?;
        summary.sessions = self
            .conn
            .query_row("SELECT count(*) FROM session_files", [], |r| r.get(0))?;
        summary.seconds = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    fn known_files(&self) -> Result<Vec<(PathBuf, SourceKind)>, SessionError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, source FROM session_files")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (path, source) = row?;
            if let Some(source) = SourceKind::parse(&source) {
                out.push((PathBuf::from(path), source));
            }
        }
        Ok(out)
    }
}

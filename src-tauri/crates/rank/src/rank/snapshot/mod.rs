//! Keeping the corpus current without re-reading or re-stemming what did not change.
//!
//! Owns: the per-scope snapshot (file name, size, mtime → `DocTerms`), refreshing it from the
//! directory (stat every file, re-read only changed ones), the in-process cache of snapshots and
//! of the built corpus, and choosing how a corpus is built: straight from the postings a fresh
//! process loaded (see `assemble`) while every scope is unchanged, or from terms per document once
//! one changed (a loaded snapshot's postings are then inverted back). A long-lived process that
//! watches the memory directories (the app, the compose service) can skip the stat of every file
//! per search: it marks the cache as trusting its watcher and reports every change with
//! `invalidate`; one stat of each directory still catches every write through Ambry at once.
//! Deliberately does not: score, watch the disk itself, or know how the persistent copy in
//! `index.sqlite` is stored (see `persisted`). A broken or missing cache only costs time, never a
//! result.
//!
//! What a fresh process is guaranteed to see: every file added, removed or renamed, and every
//! file whose size or modification time (to the nanosecond) differs from the snapshot's. A hand
//! edit that keeps the size and puts back the old modification time is not seen until the file
//! changes again; every write through Ambry is a new file renamed into place, so it never is one.

mod assemble;
mod persisted;
mod scope;

#[cfg(test)]
mod corrupt_counts;
#[cfg(test)]
mod fresh_process;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use super::corpus::{Corpus, DocTerms};
use super::RankError;
use ambry_store::memory::{read_memory_file, Scope, ScopeFilter, Store};
use ambry_store::storage::DirStamp;
use assemble::assemble;
use persisted::PersistentCache;
use scope::{shared_word, Entry, ScopeSnapshot};

/// Caches snapshots and the last corpus built from them.
#[derive(Default)]
pub struct CorpusCache {
    snapshots: HashMap<PathBuf, ScopeSnapshot>,
    built: Option<(Vec<PathBuf>, Shadowing, Arc<Corpus>)>,
    /// `index.sqlite`, opened on the first refresh that needs it: a process that never ranks
    /// (an `ambry compose` the service answers) never opens the database.
    persistent: LazyPersistent,
    /// Set when a refresh changed anything since the corpus was built.
    stale: bool,
    /// Whether a watcher reports every change (see `trust_watcher`).
    trusting: bool,
    /// Directories refreshed since the watcher last reported a change in them, with their
    /// stamp at that refresh: a write through Ambry (a rename) moves the stamp, so it is seen on
    /// the next call without waiting for the watcher; a hand edit in place is the watcher's.
    verified: HashMap<PathBuf, DirStamp>,
    /// Every word some document's own term list holds, once: a memory read from disk (or a
    /// loaded snapshot turned back into terms per document) takes its words from here, so ten
    /// thousand memories share one copy of each word instead of one allocation per term per
    /// memory. A snapshot as loaded needs none of it: its postings already hold each word of
    /// the scope once. Words no document uses any more are dropped whenever a corpus is built.
    words: HashSet<Arc<str>>,
    /// The newest-first order of a corpus this cache built (see `newest_first`).
    newest: Option<(std::sync::Weak<Corpus>, Arc<Vec<u32>>)>,
}

/// The persistent copy, opened when first used.
#[derive(Default)]
enum LazyPersistent {
    /// An in-memory cache.
    #[default]
    None,
    /// Not opened yet.
    At(PathBuf),
    /// Opened (or `None`: it could not be, and the cache works without it).
    Opened(Option<PersistentCache>),
}

impl LazyPersistent {
    fn get(&mut self) -> Option<&PersistentCache> {
        if let LazyPersistent::At(path) = self {
            *self = LazyPersistent::Opened(PersistentCache::open(path));
        }
        match self {
            LazyPersistent::Opened(cache) => cache.as_ref(),
            _ => None,
        }
    }

    /// Whether the database was opened (tests).
    #[cfg(test)]
    fn is_open(&self) -> bool {
        matches!(self, LazyPersistent::Opened(Some(_)))
    }
}

/// How the memory map orders a corpus newest first, given each file's modification time.
pub type NewestOrder = fn(&Corpus, &dyn Fn(&Path) -> Option<i64>) -> Vec<u32>;

/// Whether a project memory hides the user memory of the same name (an agent's view of one
/// project) or every memory stands on its own (browsing all of them at once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shadowing {
    ProjectOverUser,
    None,
}

impl CorpusCache {
    /// A cache that lives as long as this value (the app keeps one).
    pub fn in_memory() -> Self {
        CorpusCache::default()
    }

    /// Also loads from and saves to `index.sqlite` at `db_path` (if its directory exists).
    pub fn persistent(db_path: &Path) -> Self {
        CorpusCache {
            persistent: LazyPersistent::At(db_path.to_path_buf()),
            ..Default::default()
        }
    }

    /// The corpus of the scopes `filter` covers in `store`, refreshed against the disk.
    pub fn corpus(&mut self, store: &Store, filter: ScopeFilter) -> Result<Arc<Corpus>, RankError> {
        let mut dirs = Vec::new();
        for scope in store.scopes(filter) {
            dirs.push((scope, store.dir(scope).map_err(RankError::Store)?));
        }
        self.corpus_of(&dirs, Shadowing::ProjectOverUser)
    }

    /// The corpus of these memory directories, each refreshed against the disk (or, when the
    /// cache trusts a watcher, only those changed since their last refresh).
    pub fn corpus_of(
        &mut self,
        dirs: &[(Scope, PathBuf)],
        shadowing: Shadowing,
    ) -> Result<Arc<Corpus>, RankError> {
        for (scope, dir) in dirs {
            let stamp = self.trusting.then(|| DirStamp::of(dir)).flatten();
            let vouched = stamp.is_some() && self.verified.get(dir) == stamp.as_ref();
            if !vouched {
                // Stamped before the listing: a change during the refresh moves it again.
                self.refresh(*scope, dir)?;
                match stamp.filter(DirStamp::settled) {
                    Some(stamp) => self.verified.insert(dir.clone(), stamp),
                    None => self.verified.remove(dir),
                };
            }
        }
        let dirs: Vec<PathBuf> = dirs.iter().map(|(_, d)| d.clone()).collect();
        if let Some((built_dirs, built_shadowing, corpus)) = &self.built {
            if !self.stale && *built_dirs == dirs && *built_shadowing == shadowing {
                return Ok(corpus.clone());
            }
        }
        let all_as_loaded = dirs
            .iter()
            .filter_map(|d| self.snapshots.get(d))
            .all(ScopeSnapshot::terms_in_postings);
        if !all_as_loaded {
            // A changed scope next to an unchanged one: build from terms per document throughout.
            for dir in &dirs {
                if let Some(s) = self.snapshots.get_mut(dir).filter(|s| s.postings.is_some()) {
                    *s = s.with_terms_per_document(&mut self.words);
                }
            }
        }
        let snapshots: Vec<&ScopeSnapshot> =
            dirs.iter().filter_map(|d| self.snapshots.get(d)).collect();
        let shadow = shadowing == Shadowing::ProjectOverUser;
        let corpus = Arc::new(if all_as_loaded {
            assemble(&snapshots, shadow)
        } else {
            // The snapshots' own documents, shared: building copies none of them.
            let docs = snapshots
                .iter()
                .flat_map(|s| s.entries.iter().filter_map(|e| e.doc.clone()));
            if shadow {
                Corpus::build(docs)
            } else {
                Corpus::build_unshadowed(docs)
            }
        });
        self.built = Some((dirs, shadowing, corpus.clone()));
        self.stale = false;
        self.words.retain(|w| Arc::strong_count(w) > 1);
        Ok(corpus)
    }

    /// From now on a directory refreshed once is taken as current until `invalidate` names it:
    /// the caller promises a watcher reports every change under the directories it ranks.
    pub fn trust_watcher(&mut self) {
        self.trusting = true;
    }

    /// Something changed in `dir` (a memory saved, removed or renamed there): the next corpus
    /// refreshes it from the disk.
    pub fn invalidate(&mut self, dir: &Path) {
        self.verified.remove(dir);
    }

    /// The modification time (ns since the epoch) of a memory file as the last refresh saw it:
    /// the memory map orders by it without a stat per memory.
    pub fn modified_ns(&self, path: &Path) -> Option<i64> {
        let snapshot = self.snapshots.get(path.parent()?)?;
        let name = path.file_name()?.to_str()?;
        let at = snapshot
            .entries
            .binary_search_by(|e| e.file_name.as_str().cmp(name))
            .ok()?;
        Some(snapshot.entries[at].mtime_ns)
    }

    /// `order(corpus, modified_ns)` for `corpus` (the memory map's newest-first order), kept
    /// while the cache hands out this very corpus: at 10k memories the order costs more than a
    /// served turn's ranking.
    pub fn newest_first(&mut self, corpus: &Arc<Corpus>, order: NewestOrder) -> Arc<Vec<u32>> {
        if let Some((of, kept)) = &self.newest {
            // Held weakly: a corpus replaced since is freed, not kept for its order.
            if of.upgrade().is_some_and(|of| Arc::ptr_eq(&of, corpus)) {
                return kept.clone();
            }
        }
        let kept = Arc::new(order(corpus, &|p| self.modified_ns(p)));
        self.newest = Some((Arc::downgrade(corpus), kept.clone()));
        kept
    }

    /// The watcher lost track (a directory appeared or vanished, events overflowed): refresh
    /// every directory on next use.
    pub fn invalidate_all(&mut self) {
        self.verified.clear();
    }

    fn refresh(&mut self, scope: Scope, dir: &Path) -> Result<(), RankError> {
        if !self.snapshots.contains_key(dir) {
            let loaded = self
                .persistent
                .get()
                .and_then(|p| p.load(dir))
                .unwrap_or_default();
            self.snapshots.insert(dir.to_path_buf(), loaded);
            self.stale = true;
        }
        let previous = self.snapshots.get(dir).expect("inserted above");
        let listing = match fs::read_dir(dir) {
            Ok(listing) => listing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if !previous.entries.is_empty() {
                    self.snapshots
                        .insert(dir.to_path_buf(), ScopeSnapshot::default());
                    self.stale = true;
                }
                return Ok(());
            }
            Err(e) => {
                return Err(RankError::Io {
                    path: dir.display().to_string(),
                    source: e,
                })
            }
        };
        let candidates: Vec<fs::DirEntry> = listing
            .flatten()
            .filter(|item| {
                let name = item.file_name();
                let name = name.to_string_lossy();
                name.ends_with(".md") && name != "MEMORY.md" && !name.starts_with('.')
            })
            .collect();
        let mut seen = stamps(&candidates, stat_threads(candidates.len()));
        seen.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let unchanged = seen.len() == previous.entries.len()
            && seen
                .iter()
                .zip(&previous.entries)
                .all(|((name, size, mtime_ns), e)| {
                    *name == e.file_name && *size == e.size && *mtime_ns == e.mtime_ns
                });
        if unchanged {
            return Ok(());
        }
        let previous = previous.with_terms_per_document(&mut self.words);
        let mut by_name: HashMap<&str, &Entry> = previous
            .entries
            .iter()
            .map(|e| (e.file_name.as_str(), e))
            .collect();
        let mut entries = Vec::with_capacity(seen.len());
        for (file_name, size, mtime_ns) in seen {
            match by_name.remove(file_name.as_str()) {
                Some(old) if old.size == size && old.mtime_ns == mtime_ns => {
                    entries.push(old.clone())
                }
                _ => {
                    let path = dir.join(&file_name);
                    let doc = read_memory_file(scope, &path).ok().flatten().map(|m| {
                        let mut doc = DocTerms::from_memory(&m);
                        for (term, _) in &mut doc.terms {
                            *term = shared_word(&mut self.words, term);
                        }
                        Arc::new(doc)
                    });
                    entries.push(Entry {
                        file_name,
                        size,
                        mtime_ns,
                        doc,
                    });
                }
            }
        }
        let snapshot = ScopeSnapshot {
            entries,
            postings: None,
        };
        if let Some(p) = self.persistent.get() {
            p.save(dir, &snapshot);
        }
        self.snapshots.insert(dir.to_path_buf(), snapshot);
        self.stale = true;
        Ok(())
    }
}

/// Below this many files per thread, one thread stats them sooner than several would start.
const FILES_PER_STAT_THREAD: usize = 2048;

/// How many threads to stat `files` files with: the stat of every file is most of what a fresh
/// process spends on an unchanged store, so a large directory is split over the machine's cores.
fn stat_threads(files: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.min(files / FILES_PER_STAT_THREAD).max(1)
}

/// (file name, size, mtime in ns) of each regular file among `candidates`, in no particular
/// order, stat'ed on `threads` threads.
fn stamps(candidates: &[fs::DirEntry], threads: usize) -> Vec<(String, u64, i64)> {
    fn stamp(item: &fs::DirEntry) -> Option<(String, u64, i64)> {
        let meta = item.metadata().ok().filter(|m| m.is_file())?;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64);
        Some((
            item.file_name().to_string_lossy().into_owned(),
            meta.len(),
            mtime_ns,
        ))
    }
    let stamp_all = |part: &[fs::DirEntry]| part.iter().filter_map(stamp).collect::<Vec<_>>();
    if threads <= 1 || candidates.len() < 2 {
        return stamp_all(candidates);
    }
    let chunk = candidates.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let others: Vec<_> = candidates[chunk..]
            .chunks(chunk)
            .map(|part| (part, scope.spawn(move || stamp_all(part))))
            .collect();
        let mut seen = stamp_all(&candidates[..chunk]);
        for (part, thread) in others {
            // A thread that failed is no reason to miss files: stat its share here.
            seen.extend(thread.join().unwrap_or_else(|_| stamp_all(part)));
        }
        seen
    })
}

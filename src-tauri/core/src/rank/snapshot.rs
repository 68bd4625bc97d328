//! Keeping the corpus current without re-reading or re-stemming what did not change.
//!
//! Owns: the per-scope snapshot (file name, size, mtime → `DocTerms`), refreshing it from the
//! directory (stat every file, re-read only changed ones), the in-process cache of snapshots and
//! of the built corpus, and the persistent copy in `index.sqlite` (table `rank_snapshots`) so a
//! fresh process — `engram compose` runs once per agent turn — starts warm. The persistent copy
//! holds each scope's postings (term → documents and weighted frequencies), not each document's
//! terms: a fresh process whose scopes are unchanged assembles the corpus straight from them,
//! without building a term list per document; only a change makes it invert them back. A
//! long-lived process that watches the memory directories (the app) can skip the stat of every
//! file per search: it marks the cache as trusting its watcher and reports every change with
//! `invalidate`.
//! Deliberately does not: score, or watch the disk itself. A broken or missing cache only costs
//! time, never a result.
//!
//! What a fresh process is guaranteed to see: every file added, removed or renamed, and every
//! file whose size or modification time (to the nanosecond) differs from the snapshot's. A hand
//! edit that keeps the size and puts back the old modification time is not seen until the file
//! changes again; every write through Engram is a new file renamed into place, so it never is one.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use super::corpus::{shadowed, sort_for_ties, Corpus, DocTerms};
use super::RankError;
use crate::memory::{read_memory_file, Scope, ScopeFilter, Store};

const SCHEMA_KEY: &str = "rank.schema";
/// 2: postings per scope instead of terms per document.
const SCHEMA_VERSION: &str = "2";

#[derive(Debug, Clone, PartialEq)]
struct Entry {
    file_name: String,
    size: u64,
    mtime_ns: i64,
    /// `None` for a file that does not parse: remembered so it is not re-read every call.
    /// Shared, because every refresh carries each unchanged entry over: a long-lived cache
    /// (the compose service) would otherwise copy every term of every memory on every call.
    doc: Option<Arc<DocTerms>>,
}

/// Each term of a scope with the entries that have it: (entry index, weighted frequency).
type ScopePostings = Vec<(Arc<str>, Vec<(u32, f32)>)>;

#[derive(Debug, Clone, Default, PartialEq)]
struct ScopeSnapshot {
    /// Sorted by file name.
    entries: Vec<Entry>,
    /// Set while the snapshot is as loaded from `index.sqlite`: the entries' terms are here and
    /// every `doc.terms` is empty. A change to the scope turns it back into terms per document
    /// (`with_terms_per_document`) before re-reading what changed.
    postings: Option<Arc<ScopePostings>>,
}

impl ScopeSnapshot {
    /// Whether the terms are in `postings` (as loaded), which an empty scope trivially is.
    fn terms_in_postings(&self) -> bool {
        self.postings.is_some() || self.entries.is_empty()
    }

    /// This snapshot with every entry's terms in its own `DocTerms` (inverting the postings of
    /// a loaded snapshot, each word taken from `words`), ready to have entries replaced.
    fn with_terms_per_document(&self, words: &mut HashSet<Arc<str>>) -> ScopeSnapshot {
        let Some(postings) = &self.postings else { return self.clone() };
        let mut terms: Vec<Vec<(Arc<str>, f32)>> = vec![Vec::new(); self.entries.len()];
        // Terms are stored in order, so each document's list comes out sorted, as `from_memory`
        // makes it.
        for (term, list) in postings.iter() {
            let term = shared_word(words, term);
            for &(entry, tf) in list {
                terms[entry as usize].push((term.clone(), tf));
            }
        }
        let entries = self
            .entries
            .iter()
            .zip(terms)
            .map(|(e, terms)| Entry {
                doc: e.doc.as_ref().map(|d| Arc::new(DocTerms { terms, ..d.without_terms() })),
                ..e.clone()
            })
            .collect();
        ScopeSnapshot { entries, postings: None }
    }
}

/// Caches snapshots and the last corpus built from them.
#[derive(Default)]
pub struct CorpusCache {
    snapshots: HashMap<PathBuf, ScopeSnapshot>,
    built: Option<(Vec<PathBuf>, Shadowing, Arc<Corpus>)>,
    persistent: Option<PersistentCache>,
    /// Set when a refresh changed anything since the corpus was built.
    stale: bool,
    /// Whether a watcher reports every change (see `trust_watcher`).
    trusting: bool,
    /// Directories refreshed since the watcher last reported a change in them.
    verified: HashSet<PathBuf>,
    /// Every word some document's own term list holds, once: a memory read from disk (or a
    /// loaded snapshot turned back into terms per document) takes its words from here, so ten
    /// thousand memories share one copy of each word instead of one allocation per term per
    /// memory. A snapshot as loaded needs none of it: its postings already hold each word of
    /// the scope once. Words no document uses any more are dropped whenever a corpus is built.
    words: HashSet<Arc<str>>,
}

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
        CorpusCache { persistent: PersistentCache::open(db_path), ..Default::default() }
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
    pub fn corpus_of(&mut self, dirs: &[(Scope, PathBuf)], shadowing: Shadowing) -> Result<Arc<Corpus>, RankError> {
        for (scope, dir) in dirs {
            if !(self.trusting && self.verified.contains(dir)) {
                self.refresh(*scope, dir)?;
                if self.trusting {
                    self.verified.insert(dir.clone());
                }
            }
        }
        let dirs: Vec<PathBuf> = dirs.iter().map(|(_, d)| d.clone()).collect();
        if let Some((built_dirs, built_shadowing, corpus)) = &self.built {
            if !self.stale && *built_dirs == dirs && *built_shadowing == shadowing {
                return Ok(corpus.clone());
            }
        }
        let all_as_loaded = dirs.iter().filter_map(|d| self.snapshots.get(d)).all(ScopeSnapshot::terms_in_postings);
        if !all_as_loaded {
            // A changed scope next to an unchanged one: build from terms per document throughout.
            for dir in &dirs {
                if let Some(s) = self.snapshots.get_mut(dir).filter(|s| s.postings.is_some()) {
                    *s = s.with_terms_per_document(&mut self.words);
                }
            }
        }
        let snapshots: Vec<&ScopeSnapshot> = dirs.iter().filter_map(|d| self.snapshots.get(d)).collect();
        let shadow = shadowing == Shadowing::ProjectOverUser;
        let corpus = Arc::new(if all_as_loaded {
            assemble(&snapshots, shadow)
        } else {
            // The snapshots' own documents, shared: building copies none of them.
            let docs = snapshots.iter().flat_map(|s| s.entries.iter().filter_map(|e| e.doc.clone()));
            if shadow { Corpus::build(docs) } else { Corpus::build_unshadowed(docs) }
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

    /// The watcher lost track (a directory appeared or vanished, events overflowed): refresh
    /// every directory on next use.
    pub fn invalidate_all(&mut self) {
        self.verified.clear();
    }

    fn refresh(&mut self, scope: Scope, dir: &Path) -> Result<(), RankError> {
        if !self.snapshots.contains_key(dir) {
            let loaded = self.persistent.as_ref().and_then(|p| p.load(dir)).unwrap_or_default();
            self.snapshots.insert(dir.to_path_buf(), loaded);
            self.stale = true;
        }
        let previous = self.snapshots.get(dir).expect("inserted above");
        let listing = match fs::read_dir(dir) {
            Ok(listing) => listing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if !previous.entries.is_empty() {
                    self.snapshots.insert(dir.to_path_buf(), ScopeSnapshot::default());
                    self.stale = true;
                }
                return Ok(());
            }
            Err(e) => return Err(RankError::Io { path: dir.display().to_string(), source: e }),
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
            && seen.iter().zip(&previous.entries).all(|((name, size, mtime_ns), e)| {
                *name == e.file_name && *size == e.size && *mtime_ns == e.mtime_ns
            });
        if unchanged {
            return Ok(());
        }
        let previous = previous.with_terms_per_document(&mut self.words);
        let mut by_name: HashMap<&str, &Entry> = previous.entries.iter().map(|e| (e.file_name.as_str(), e)).collect();
        let mut entries = Vec::with_capacity(seen.len());
        for (file_name, size, mtime_ns) in seen {
            match by_name.remove(file_name.as_str()) {
                Some(old) if old.size == size && old.mtime_ns == mtime_ns => entries.push(old.clone()),
                _ => {
                    let path = dir.join(&file_name);
                    let doc = read_memory_file(scope, &path).ok().flatten().map(|m| {
                        let mut doc = DocTerms::from_memory(&m);
                        for (term, _) in &mut doc.terms {
                            *term = shared_word(&mut self.words, term);
                        }
                        Arc::new(doc)
                    });
                    entries.push(Entry { file_name, size, mtime_ns, doc });
                }
            }
        }
        let snapshot = ScopeSnapshot { entries, postings: None };
        if let Some(p) = &self.persistent {
            p.save(dir, &snapshot);
        }
        self.snapshots.insert(dir.to_path_buf(), snapshot);
        self.stale = true;
        Ok(())
    }
}

/// The copy of `word` in `words`, added if it is not there yet.
fn shared_word(words: &mut HashSet<Arc<str>>, word: &Arc<str>) -> Arc<str> {
    match words.get(word.as_ref()) {
        Some(shared) => shared.clone(),
        None => {
            words.insert(word.clone());
            word.clone()
        }
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
        let mtime_ns = meta.modified().ok().and_then(|m| m.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as i64);
        Some((item.file_name().to_string_lossy().into_owned(), meta.len(), mtime_ns))
    }
    let stamp_all = |part: &[fs::DirEntry]| part.iter().filter_map(stamp).collect::<Vec<_>>();
    if threads <= 1 || candidates.len() < 2 {
        return stamp_all(candidates);
    }
    let chunk = candidates.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let others: Vec<_> = candidates[chunk..].chunks(chunk).map(|part| (part, scope.spawn(move || stamp_all(part)))).collect();
        let mut seen = stamp_all(&candidates[..chunk]);
        for (part, thread) in others {
            // A thread that failed is no reason to miss files: stat its share here.
            seen.extend(thread.join().unwrap_or_else(|_| stamp_all(part)));
        }
        seen
    })
}

/// One document of a loaded snapshot, located by its snapshot and entry, for shadowing and
/// ordering without copying it.
struct Located<'a> {
    snapshot: usize,
    entry: u32,
    doc: &'a Arc<DocTerms>,
}

impl std::borrow::Borrow<DocTerms> for Located<'_> {
    fn borrow(&self) -> &DocTerms {
        self.doc
    }
}

/// The corpus of snapshots as loaded (postings, no terms per document): the documents shadowed
/// and ordered as `Corpus::build` would, each scope's postings renumbered to that order.
fn assemble(snapshots: &[&ScopeSnapshot], shadow: bool) -> Corpus {
    let mut located: Vec<Located<'_>> = Vec::new();
    for (s, snapshot) in snapshots.iter().enumerate() {
        for (i, e) in snapshot.entries.iter().enumerate() {
            if let Some(doc) = &e.doc {
                located.push(Located { snapshot: s, entry: i as u32, doc });
            }
        }
    }
    if shadow {
        located = shadowed(located);
    }
    sort_for_ties(&mut located);
    let mut position: Vec<Vec<u32>> = snapshots.iter().map(|s| vec![u32::MAX; s.entries.len()]).collect();
    for (i, l) in located.iter().enumerate() {
        position[l.snapshot][l.entry as usize] = i as u32;
    }
    // The loaded documents themselves (they carry no terms), shared with the snapshots.
    let docs = located.iter().map(|l| l.doc.clone()).collect();
    let postings = snapshots.iter().zip(&position).flat_map(|(snapshot, position)| {
        snapshot.postings.iter().flat_map(|p| p.iter()).map(move |(term, list)| {
            let list = list
                .iter()
                .filter_map(|&(entry, tf)| Some((*position.get(entry as usize).filter(|p| **p != u32::MAX)?, tf)))
                .collect();
            (term.clone(), list)
        })
    });
    Corpus::from_postings(docs, postings)
}

/// Snapshots in `index.sqlite`; every failure degrades to "no cache".
struct PersistentCache {
    conn: rusqlite::Connection,
}

/// How long a snapshot read or save waits for another writer of `index.sqlite`.
const SNAPSHOT_BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(250);

impl PersistentCache {
    fn open(db_path: &Path) -> Option<PersistentCache> {
        if !db_path.parent().is_some_and(Path::is_dir) {
            return None;
        }
        let conn = crate::index_db::open(db_path).ok()?;
        // A cache: a compose never waits out the session indexer's batch to read or save it
        // (it ranks from the files instead, and the next call saves).
        conn.busy_timeout(SNAPSHOT_BUSY_TIMEOUT).ok()?;
        conn.execute_batch("CREATE TABLE IF NOT EXISTS rank_snapshots(dir TEXT PRIMARY KEY, data BLOB NOT NULL);").ok()?;
        if crate::index_db::schema_version(&conn, SCHEMA_KEY).as_deref() != Some(SCHEMA_VERSION) {
            conn.execute("DELETE FROM rank_snapshots", []).ok()?;
            crate::index_db::set_schema_version(&conn, SCHEMA_KEY, SCHEMA_VERSION).ok()?;
        }
        Some(PersistentCache { conn })
    }

    fn load(&self, dir: &Path) -> Option<ScopeSnapshot> {
        let data: Vec<u8> = self
            .conn
            .query_row("SELECT data FROM rank_snapshots WHERE dir = ?1", [dir.to_string_lossy()], |r| r.get(0))
            .ok()?;
        decode(&data, dir)
    }

    fn save(&self, dir: &Path, snapshot: &ScopeSnapshot) {
        let data = encode(snapshot);
        let _ = self.conn.execute(
            "INSERT OR REPLACE INTO rank_snapshots(dir, data) VALUES (?1, ?2)",
            rusqlite::params![dir.to_string_lossy(), data],
        );
    }
}

// A compact binary form: the entries (file stamp and what a hit shows), then the scope's terms in
// order, each with its postings over the entries.
const MAGIC: &[u8; 4] = b"ERS2";

/// Encodes a snapshot whose entries carry their terms (every snapshot that was just refreshed).
fn encode(snapshot: &ScopeSnapshot) -> Vec<u8> {
    // Only a refreshed snapshot is saved, and it has its terms per document already: no words
    // are inverted here, so none need sharing.
    let snapshot = snapshot.with_terms_per_document(&mut HashSet::new());
    let mut postings: HashMap<&str, Vec<(u32, f32)>> = HashMap::new();
    for (i, doc) in snapshot.entries.iter().enumerate().filter_map(|(i, e)| Some((i, e.doc.as_ref()?))) {
        for (t, w) in &doc.terms {
            postings.entry(t.as_ref()).or_default().push((i as u32, *w));
        }
    }
    let mut terms: Vec<(&str, Vec<(u32, f32)>)> = postings.into_iter().collect();
    terms.sort_unstable_by(|a, b| a.0.cmp(b.0));

    let mut out = Vec::with_capacity(64 * 1024);
    out.extend_from_slice(MAGIC);
    put_u32(&mut out, snapshot.entries.len() as u32);
    for e in &snapshot.entries {
        put_str(&mut out, &e.file_name);
        out.extend_from_slice(&e.size.to_le_bytes());
        out.extend_from_slice(&e.mtime_ns.to_le_bytes());
        match &e.doc {
            None => out.push(0),
            Some(d) => {
                out.push(if d.scope == Scope::User { 1 } else { 2 });
                put_str(&mut out, &d.name);
                put_str(&mut out, &d.kind);
                put_str(&mut out, &d.description);
                out.extend_from_slice(&d.body_bytes.to_le_bytes());
                out.extend_from_slice(&d.length.to_le_bytes());
            }
        }
    }
    put_u32(&mut out, terms.len() as u32);
    for (term, list) in &terms {
        put_str(&mut out, term);
        put_u32(&mut out, list.len() as u32);
        for (entry, w) in list {
            put_u32(&mut out, *entry);
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    out
}

/// The snapshot in `data`, or `None` when anything in it does not add up (a rebuild follows).
fn decode(data: &[u8], dir: &Path) -> Option<ScopeSnapshot> {
    let mut r = Reader { data, pos: 0 };
    if r.take(4)? != MAGIC {
        return None;
    }
    // Every count is checked against the bytes left (each item takes at least that many), so a
    // corrupt count is a rebuild, never a huge allocation.
    let n_entries = r.count(21)?;
    let mut entries = Vec::with_capacity(n_entries);
    for _ in 0..n_entries {
        let file_name = r.str()?;
        let size = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let mtime_ns = i64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let doc = match r.take(1)?[0] {
            0 => None,
            tag @ (1 | 2) => {
                let scope = if tag == 1 { Scope::User } else { Scope::Project };
                let name = r.str()?;
                let kind = r.str()?;
                let description = r.str()?;
                let body_bytes = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
                let length = f32::from_le_bytes(r.take(4)?.try_into().ok()?);
                let path = dir.join(&file_name);
                Some(Arc::new(DocTerms { scope, name, kind, description, path, body_bytes, length, terms: Vec::new() }))
            }
            _ => return None,
        };
        entries.push(Entry { file_name, size, mtime_ns, doc });
    }
    // The refresh compares entries with the sorted listing in order.
    if !entries.is_sorted_by(|a, b| a.file_name < b.file_name) {
        return None;
    }
    let n_terms = r.count(8)?;
    let mut postings: ScopePostings = Vec::with_capacity(n_terms);
    for _ in 0..n_terms {
        let term: Arc<str> = Arc::from(r.str()?);
        if postings.last().is_some_and(|(previous, _)| **previous >= *term) {
            return None;
        }
        let n = r.count(8)?;
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let entry = r.u32()?;
            let w = f32::from_le_bytes(r.take(4)?.try_into().ok()?);
            entries.get(entry as usize)?.doc.as_ref()?;
            list.push((entry, w));
        }
        postings.push((term, list));
    }
    (r.pos == data.len()).then_some(ScopeSnapshot { entries, postings: Some(Arc::new(postings)) })
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.data.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(slice)
    }
    /// A count of items of at least `min_item_bytes` each, if that many could still follow.
    fn count(&mut self, min_item_bytes: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= (self.data.len() - self.pos) / min_item_bytes).then_some(n)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn str(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

#[cfg(test)]
mod corrupt_counts {
    use super::*;

    #[test]
    fn a_huge_count_is_refused_without_allocating() {
        let mut data = MAGIC.to_vec();
        data.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&data, Path::new("/m")).is_none());
        let mut data = MAGIC.to_vec();
        data.extend_from_slice(&0u32.to_le_bytes());
        data.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&data, Path::new("/m")).is_none());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryDraft;
    use crate::EngramHome;

    fn save(store: &Store, name: &str, body: &str) {
        let draft = MemoryDraft { name: name.into(), kind: "project".into(), description: format!("about {name}"), body: body.into(), tags: vec![] };
        store.save(Scope::User, draft, "2026-01-01T00:00:00Z".parse().unwrap()).unwrap();
    }

    #[test]
    fn a_search_while_another_writer_holds_the_index_ranks_from_the_files() {
        let tmp = tempfile::tempdir().unwrap();
        let home = EngramHome::new(tmp.path());
        let store = Store::new(home.clone(), None);
        save(&store, "alpha", "one");
        CorpusCache::persistent(&home.index_db()).corpus(&store, ScopeFilter::All).unwrap();
        save(&store, "beta", "two");
        // The session indexer in the middle of a batch, as another process would be.
        let writer = rusqlite::Connection::open(home.index_db()).unwrap();
        writer.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let corpus = CorpusCache::persistent(&home.index_db()).corpus(&store, ScopeFilter::All).unwrap();
        assert_eq!(corpus.len(), 2, "the cache is skipped, never the memories");
        assert!(!corpus.postings("two").is_empty());
        writer.execute_batch("ROLLBACK").unwrap();
    }

    #[test]
    fn refresh_sees_adds_edits_and_deletes() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(EngramHome::new(tmp.path()), None);
        save(&store, "alpha", "one");
        let mut cache = CorpusCache::in_memory();
        assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 1);
        save(&store, "beta", "two");
        assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 2);
        // Same size, different content and mtime: re-read.
        std::thread::sleep(std::time::Duration::from_millis(10));
        save(&store, "alpha", "uno");
        let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
        assert!(!corpus.postings("uno").is_empty());
        assert!(corpus.postings("one").is_empty());
        store.forget(Scope::User, "beta", "2026-01-01T00:00:00Z".parse().unwrap()).unwrap();
        assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 1);
    }

    #[test]
    fn memories_share_one_copy_of_each_word_whether_read_fresh_or_turned_back_from_postings_and_unused_words_go() {
        let tmp = tempfile::tempdir().unwrap();
        let home = EngramHome::new(tmp.path());
        let store = Store::new(home.clone(), None);
        save(&store, "alpha", "database migrations");
        save(&store, "beta", "database backups");
        let dir = store.dir(Scope::User).unwrap();
        let word = |snapshot: &ScopeSnapshot, name: &str, term: &str| -> Arc<str> {
            let doc = snapshot.entries.iter().filter_map(|e| e.doc.as_ref()).find(|d| d.name == name).unwrap();
            doc.terms.iter().find(|(t, _)| t.as_ref() == term).unwrap().0.clone()
        };
        // The corpus holds the snapshot's documents themselves, not copies.
        let shares_documents = |corpus: &Corpus, snapshot: &ScopeSnapshot| {
            snapshot.entries.iter().all(|e| corpus.docs.iter().any(|d| Arc::ptr_eq(d, e.doc.as_ref().unwrap())))
        };
        {
            // A first process reads the files.
            let mut cache = CorpusCache::persistent(&home.index_db());
            let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
            let snapshot = &cache.snapshots[&dir];
            assert!(Arc::ptr_eq(&word(snapshot, "alpha", "databas"), &word(snapshot, "beta", "databas")));
            assert!(cache.words.contains("migrat"));
            assert!(shares_documents(&corpus, snapshot));
        }
        // The next one assembles the stored postings, which hold each word of the scope once.
        let mut cache = CorpusCache::persistent(&home.index_db());
        let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
        assert!(cache.snapshots[&dir].postings.is_some());
        assert!(cache.words.is_empty(), "nothing to share while the terms are in the postings");
        assert!(shares_documents(&corpus, &cache.snapshots[&dir]));
        drop(corpus);
        // A change turns the loaded scope back into terms per document: the words of the
        // memory read again and of the one inverted from the postings are the same copies.
        std::thread::sleep(std::time::Duration::from_millis(10));
        save(&store, "alpha", "database restores");
        let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
        let snapshot = &cache.snapshots[&dir];
        assert!(snapshot.postings.is_none());
        assert!(!cache.words.contains("migrat"), "a word no memory has any more is dropped");
        assert!(Arc::ptr_eq(&word(snapshot, "alpha", "restor"), cache.words.get("restor").unwrap()));
        assert!(Arc::ptr_eq(&word(snapshot, "alpha", "databas"), &word(snapshot, "beta", "databas")));
        assert!(shares_documents(&corpus, snapshot));
    }

    #[test]
    fn an_unchanged_scope_reuses_the_built_corpus() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(EngramHome::new(tmp.path()), None);
        save(&store, "alpha", "one");
        let mut cache = CorpusCache::in_memory();
        let a = cache.corpus(&store, ScopeFilter::All).unwrap();
        let b = cache.corpus(&store, ScopeFilter::All).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
    }

    #[test]
    fn the_persistent_cache_round_trips_and_survives_garbage() {
        let tmp = tempfile::tempdir().unwrap();
        let home = EngramHome::new(tmp.path());
        let store = Store::new(home.clone(), None);
        save(&store, "alpha", "database migrations with sqlx");
        save(&store, "beta", "deploy checklist");
        let first = CorpusCache::persistent(&home.index_db()).corpus(&store, ScopeFilter::All).unwrap();
        let snapshot = PersistentCache::open(&home.index_db()).unwrap().load(&home.user_memory_dir()).unwrap();
        assert_eq!(snapshot.entries.len(), 2);
        let second = CorpusCache::persistent(&home.index_db()).corpus(&store, ScopeFilter::All).unwrap();
        assert_eq!(first.documents_without_terms(), second.documents_without_terms());
        // Corrupt blob: ignored, rebuilt from disk.
        let conn = rusqlite::Connection::open(home.index_db()).unwrap();
        conn.execute("UPDATE rank_snapshots SET data = x'00010203'", []).unwrap();
        let third = CorpusCache::persistent(&home.index_db()).corpus(&store, ScopeFilter::All).unwrap();
        assert_eq!(third.documents_without_terms(), first.documents_without_terms());
        // A database file that is not SQLite at all: no cache, same answer.
        fs::write(home.index_db(), b"not a database").unwrap();
        let fourth = CorpusCache::persistent(&home.index_db()).corpus(&store, ScopeFilter::All).unwrap();
        assert_eq!(fourth.documents_without_terms(), first.documents_without_terms());
    }

    #[test]
    fn a_cache_trusting_its_watcher_rereads_only_what_it_was_told_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(EngramHome::new(tmp.path()), None);
        save(&store, "alpha", "one");
        let mut cache = CorpusCache::in_memory();
        cache.trust_watcher();
        assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 1);
        // Written behind the cache's back and not reported: a trusting cache does not look.
        save(&store, "beta", "two");
        assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 1);
        // Reported: seen on the next call.
        cache.invalidate(&store.dir(Scope::User).unwrap());
        assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 2);
        save(&store, "gamma", "three");
        cache.invalidate_all();
        assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 3);
        // An untrusting cache always looks.
        let mut plain = CorpusCache::in_memory();
        assert_eq!(plain.corpus(&store, ScopeFilter::All).unwrap().len(), 3);
        save(&store, "delta", "four");
        assert_eq!(plain.corpus(&store, ScopeFilter::All).unwrap().len(), 4);
    }

    #[test]
    fn without_shadowing_every_project_and_the_user_keep_their_memory_of_a_shared_name() {
        let tmp = tempfile::tempdir().unwrap();
        let home = EngramHome::new(tmp.path());
        let user = Store::new(home.clone(), None);
        save(&user, "build-cmd", "cargo build");
        let draft = |body: &str| MemoryDraft { name: "build-cmd".into(), kind: "project".into(), description: "build".into(), body: body.into(), tags: vec![] };
        let mut dirs = vec![(Scope::User, home.user_memory_dir())];
        for slug in ["ledger-1a2b", "shop-3c4d"] {
            let project = crate::project::Project { slug: slug.into(), root: tmp.path().join(slug), remote: None };
            Store::new(home.clone(), Some(project)).save(Scope::Project, draft("make all"), "2026-01-01T00:00:00Z".parse().unwrap()).unwrap();
            dirs.push((Scope::Project, home.project_memory_dir(slug)));
        }
        let mut cache = CorpusCache::in_memory();
        let everything = cache.corpus_of(&dirs, Shadowing::None).unwrap();
        assert_eq!(everything.len(), 3);
        let paths: Vec<_> = everything.docs.iter().map(|d| d.path.clone()).collect();
        assert!(paths.iter().any(|p| p.starts_with(home.project_memory_dir("shop-3c4d"))), "{paths:?}");
        // The same directories as one agent's view: the user's copy is shadowed.
        let shadowed = cache.corpus_of(&dirs, Shadowing::ProjectOverUser).unwrap();
        assert!(shadowed.docs.iter().all(|d| d.scope == Scope::Project), "{:?}", shadowed.docs);
    }
}

#[cfg(test)]
mod fresh_process {
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::memory::MemoryDraft;
    use crate::project::Project;
    use crate::EngramHome;

    fn draft(name: &str, body: &str) -> MemoryDraft {
        MemoryDraft { name: name.into(), kind: "project".into(), description: format!("about {name}"), body: body.into(), tags: vec![] }
    }

    fn now() -> chrono::DateTime<chrono::Utc> {
        "2026-01-01T00:00:00Z".parse().unwrap()
    }

    /// A user scope and one project, with a name in both (shadowing) and words in both.
    fn home_with_two_scopes(tmp: &Path) -> (EngramHome, Store) {
        let home = EngramHome::new(tmp.join("home"));
        let project = Project { slug: "ledger-1a2b".into(), root: tmp.join("ledger"), remote: None };
        let store = Store::new(home.clone(), Some(project));
        store.save(Scope::User, draft("build-cmd", "cargo build --release"), now()).unwrap();
        store.save(Scope::User, draft("deploy-notes", "canary deploy then full rollout; refresh the token cache"), now()).unwrap();
        store.save(Scope::User, draft("style", "tabs, never spaces"), now()).unwrap();
        store.save(Scope::Project, draft("build-cmd", "make all, then cargo test"), now()).unwrap();
        store.save(Scope::Project, draft("token-cache", "the refresh token cache breaks after a deploy"), now()).unwrap();
        (home, store)
    }

    /// What a first run ever would build: every file read and stemmed.
    fn from_nothing(store: &Store, shadowing: Shadowing) -> Arc<Corpus> {
        CorpusCache::in_memory().corpus_of(&dirs(store), shadowing).unwrap()
    }

    fn dirs(store: &Store) -> Vec<(Scope, PathBuf)> {
        store.scopes(ScopeFilter::All).into_iter().map(|s| (s, store.dir(s).unwrap())).collect()
    }

    /// A new process's view: a cache that starts from index.sqlite.
    fn fresh(home: &EngramHome, store: &Store, shadowing: Shadowing) -> Arc<Corpus> {
        CorpusCache::persistent(&home.index_db()).corpus_of(&dirs(store), shadowing).unwrap()
    }

    fn assert_same(a: &Corpus, b: &Corpus) {
        assert_eq!(a.documents_without_terms(), b.documents_without_terms());
        assert_eq!(a.postings_by_term(), b.postings_by_term());
        assert_eq!(a.average_length.to_bits(), b.average_length.to_bits());
    }

    fn names(c: &Corpus) -> Vec<String> {
        c.docs.iter().map(|d| format!("{}:{}", d.scope, d.name)).collect()
    }

    #[test]
    fn a_corpus_assembled_from_stored_postings_is_the_one_built_from_the_files() {
        let tmp = tempfile::tempdir().unwrap();
        let (home, store) = home_with_two_scopes(tmp.path());
        for shadowing in [Shadowing::ProjectOverUser, Shadowing::None] {
            fresh(&home, &store, shadowing);
            let loaded = PersistentCache::open(&home.index_db()).unwrap().load(&store.dir(Scope::User).unwrap()).unwrap();
            assert!(loaded.postings.is_some() && loaded.entries.iter().all(|e| e.doc.as_ref().unwrap().terms.is_empty()));
            let assembled = fresh(&home, &store, shadowing);
            assert_same(&assembled, &from_nothing(&store, shadowing));
        }
        assert_eq!(fresh(&home, &store, Shadowing::ProjectOverUser).len(), 4, "the user build-cmd is shadowed");
        assert_eq!(fresh(&home, &store, Shadowing::None).len(), 5);
    }

    #[test]
    fn an_assembled_corpus_lists_each_terms_postings_in_document_order() {
        let tmp = tempfile::tempdir().unwrap();
        let (home, store) = home_with_two_scopes(tmp.path());
        // "cache-keys.md" sorts before "cache.md" but the corpus puts "cache" first, so the user
        // scope's stored postings of "redis" run against the corpus order; the project's follow.
        store.save(Scope::User, draft("cache", "redis eviction"), now()).unwrap();
        store.save(Scope::User, draft("cache-keys", "redis key naming"), now()).unwrap();
        store.save(Scope::Project, draft("queue", "redis streams"), now()).unwrap();
        let user_dir = store.dir(Scope::User).unwrap();
        for shadowing in [Shadowing::ProjectOverUser, Shadowing::None] {
            fresh(&home, &store, shadowing);
            let loaded = PersistentCache::open(&home.index_db()).unwrap().load(&user_dir).unwrap();
            let stored = &loaded.postings.as_ref().unwrap().iter().find(|(t, _)| t.as_ref() == "redi").unwrap().1;
            let stored_names: Vec<&str> = stored.iter().map(|(e, _)| loaded.entries[*e as usize].file_name.as_str()).collect();
            assert_eq!(stored_names, ["cache-keys.md", "cache.md"]);

            let assembled = fresh(&home, &store, shadowing);
            let postings = assembled.postings_by_term();
            for (term, list) in &postings {
                assert!(list.windows(2).all(|w| w[0].0 < w[1].0), "{term}: {list:?}");
                for doc in 0..assembled.len() as u32 {
                    assert_eq!(Corpus::posted(list, doc), list.iter().any(|(d, _)| *d == doc), "{term} in {doc}");
                }
            }
            let with_redis: Vec<String> = postings["redi"].iter().map(|(d, _)| assembled.docs[*d as usize].name.clone()).collect();
            assert_eq!(with_redis, ["cache", "cache-keys", "queue"]);
            assert_same(&assembled, &from_nothing(&store, shadowing));
        }
    }

    #[test]
    fn the_next_fresh_process_sees_every_change_another_process_made() {
        let tmp = tempfile::tempdir().unwrap();
        let (home, store) = home_with_two_scopes(tmp.path());
        fresh(&home, &store, Shadowing::ProjectOverUser);
        let check = |what: &str| {
            let seen = fresh(&home, &store, Shadowing::ProjectOverUser);
            assert_same(&seen, &from_nothing(&store, Shadowing::ProjectOverUser));
            // And once more from what that process stored.
            assert_same(&fresh(&home, &store, Shadowing::ProjectOverUser), &seen);
            eprintln!("{what}: {:?}", names(&seen));
            seen
        };

        store.save(Scope::User, draft("kafka-retries", "consumer retries with backoff"), now()).unwrap();
        assert!(!check("added").postings("kafka").is_empty());

        // Edited in place (not through a rename): the directory itself does not change.
        let path = store.dir(Scope::User).unwrap().join("style.md");
        let text = fs::read_to_string(&path).unwrap().replace("tabs, never spaces", "spaces, four of them, never tabs");
        fs::write(&path, text).unwrap();
        let seen = check("edited in place");
        assert!(!seen.postings("four").is_empty());

        // Edited again, its old modification time put back: the size still tells.
        let old_mtime = fs::metadata(&path).unwrap().modified().unwrap();
        let text = fs::read_to_string(&path).unwrap().replace("four of them", "two");
        fs::write(&path, text).unwrap();
        fs::File::options().write(true).open(&path).unwrap().set_modified(old_mtime).unwrap();
        let seen = check("edited, mtime restored");
        assert!(seen.postings("four").is_empty() && !seen.postings("two").is_empty());

        store.rename(Scope::User, "deploy-notes", draft("release-notes", "canary deploy then full rollout"), now()).unwrap();
        let seen = check("renamed");
        assert!(seen.docs.iter().any(|d| d.name == "release-notes") && !seen.docs.iter().any(|d| d.name == "deploy-notes"));

        store.forget(Scope::Project, "build-cmd", now()).unwrap();
        let seen = check("deleted in the project");
        assert!(seen.docs.iter().any(|d| d.scope == Scope::User && d.name == "build-cmd"), "no longer shadowed");

        // Same size, a newer modification time (a rewrite of the same length).
        std::thread::sleep(Duration::from_millis(5));
        let path = store.dir(Scope::User).unwrap().join("kafka-retries.md");
        let text = fs::read_to_string(&path).unwrap().replace("backoff", "jitters");
        fs::write(&path, text).unwrap();
        fs::File::options().write(true).open(&path).unwrap().set_modified(SystemTime::now() + Duration::from_secs(1)).unwrap();
        assert!(!check("same size, new mtime").postings("jitter").is_empty());
    }

    #[test]
    fn stamps_taken_on_several_threads_are_those_taken_on_one() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..25 {
            fs::write(tmp.path().join(format!("m{i:02}.md")), "x".repeat(i)).unwrap();
        }
        fs::create_dir(tmp.path().join("not-a-file.md")).unwrap();
        let candidates: Vec<fs::DirEntry> = fs::read_dir(tmp.path()).unwrap().flatten().collect();
        let sorted = |mut v: Vec<(String, u64, i64)>| {
            v.sort();
            v
        };
        let one = sorted(stamps(&candidates, 1));
        assert_eq!(one.len(), 25, "the directory is not a file");
        assert!(one.iter().enumerate().all(|(i, (name, size, _))| *name == format!("m{i:02}.md") && *size == i as u64));
        for threads in [2, 3, 7, 40] {
            assert_eq!(sorted(stamps(&candidates, threads)), one, "{threads} threads");
        }
    }

    #[test]
    fn a_long_lived_cache_that_started_from_stored_postings_follows_later_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let (home, store) = home_with_two_scopes(tmp.path());
        fresh(&home, &store, Shadowing::ProjectOverUser);
        let mut cache = CorpusCache::persistent(&home.index_db());
        let first = cache.corpus_of(&dirs(&store), Shadowing::ProjectOverUser).unwrap();
        assert_same(&first, &from_nothing(&store, Shadowing::ProjectOverUser));
        // Only the project changes: the unchanged user scope's stored postings are turned back
        // into terms per document for the rebuild.
        store.save(Scope::Project, draft("style", "rustfmt defaults"), now()).unwrap();
        let second = cache.corpus_of(&dirs(&store), Shadowing::ProjectOverUser).unwrap();
        assert_same(&second, &from_nothing(&store, Shadowing::ProjectOverUser));
        let everything = cache.corpus_of(&dirs(&store), Shadowing::None).unwrap();
        assert_same(&everything, &from_nothing(&store, Shadowing::None));
        store.forget(Scope::User, "style", now()).unwrap();
        assert_same(&cache.corpus_of(&dirs(&store), Shadowing::None).unwrap(), &from_nothing(&store, Shadowing::None));
    }

    #[test]
    fn a_snapshot_of_another_version_or_that_does_not_add_up_is_rebuilt_not_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let (home, store) = home_with_two_scopes(tmp.path());
        let expected = fresh(&home, &store, Shadowing::ProjectOverUser);
        let user_dir = store.dir(Scope::User).unwrap();
        let good = {
            let conn = rusqlite::Connection::open(home.index_db()).unwrap();
            conn.query_row("SELECT data FROM rank_snapshots WHERE dir = ?1", [user_dir.to_string_lossy()], |r| r.get::<_, Vec<u8>>(0)).unwrap()
        };
        assert!(decode(&good, &user_dir).is_some());
        let mut truncated = good.clone();
        truncated.pop();
        let mut trailing = good.clone();
        trailing.push(0);
        // The last posting names an entry past the end.
        let mut bad_entry = good.clone();
        let at = bad_entry.len() - 8;
        bad_entry[at..at + 4].copy_from_slice(&99u32.to_le_bytes());
        let mut old_magic = good.clone();
        old_magic[..4].copy_from_slice(b"ERS1");
        for (what, data) in [("truncated", &truncated), ("trailing bytes", &trailing), ("unknown entry", &bad_entry), ("old format", &old_magic)] {
            assert!(decode(data, &user_dir).is_none(), "{what}");
            let conn = rusqlite::Connection::open(home.index_db()).unwrap();
            conn.execute("UPDATE rank_snapshots SET data = ?1 WHERE dir = ?2", rusqlite::params![data, user_dir.to_string_lossy()]).unwrap();
            drop(conn);
            assert_same(&fresh(&home, &store, Shadowing::ProjectOverUser), &expected);
            // Rebuilt and stored again.
            assert!(PersistentCache::open(&home.index_db()).unwrap().load(&user_dir).is_some(), "{what}");
        }
        // A database whose rank tables an older version wrote: dropped on open, rebuilt.
        let conn = rusqlite::Connection::open(home.index_db()).unwrap();
        conn.execute("UPDATE meta SET value = '1' WHERE key = ?1", [SCHEMA_KEY]).unwrap();
        conn.execute("UPDATE rank_snapshots SET data = x'45525331'", []).unwrap();
        drop(conn);
        assert_same(&fresh(&home, &store, Shadowing::ProjectOverUser), &expected);
        let conn = rusqlite::Connection::open(home.index_db()).unwrap();
        let version: String = conn.query_row("SELECT value FROM meta WHERE key = ?1", [SCHEMA_KEY], |r| r.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }
}

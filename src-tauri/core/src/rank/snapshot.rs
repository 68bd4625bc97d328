//! Keeping the corpus current without re-reading or re-stemming what did not change.
//!
//! Owns: the per-scope snapshot (file name, size, mtime → `DocTerms`), refreshing it from the
//! directory (stat every file, re-read only changed ones), the in-process cache of snapshots and
//! of the built corpus, and the persistent copy in `index.sqlite` (table `rank_snapshots`) so a
//! fresh process — `engram compose` runs once per agent turn — starts warm. A long-lived
//! process that watches the memory directories (the app) can skip the stat of every file per
//! search: it marks the cache as trusting its watcher and reports every change with
//! `invalidate`.
//! Deliberately does not: score, or watch the disk itself. A broken or missing cache only costs
//! time, never a result.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use super::corpus::{Corpus, DocTerms};
use super::RankError;
use crate::memory::{read_memory_file, Scope, ScopeFilter, Store};

const SCHEMA_KEY: &str = "rank.schema";
const SCHEMA_VERSION: &str = "1";

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

#[derive(Debug, Clone, Default, PartialEq)]
struct ScopeSnapshot {
    entries: Vec<Entry>,
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
    /// Every index term some snapshot holds, once: a memory read from disk (or a snapshot
    /// loaded from `index.sqlite`) takes its words from here, so ten thousand memories share one
    /// copy of each word instead of one allocation per term per memory. Words no memory uses
    /// any more are dropped whenever a corpus is built.
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
        let docs = dirs
            .iter()
            .filter_map(|d| self.snapshots.get(d))
            .flat_map(|s| s.entries.iter().filter_map(|e| e.doc.clone()));
        let corpus = Arc::new(match shadowing {
            Shadowing::ProjectOverUser => Corpus::build(docs),
            Shadowing::None => Corpus::build_unshadowed(docs),
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
            let mut loaded = self.persistent.as_ref().and_then(|p| p.load(dir)).unwrap_or_default();
            for doc in loaded.entries.iter_mut().filter_map(|e| e.doc.as_mut().and_then(Arc::get_mut)) {
                intern(&mut self.words, doc);
            }
            self.snapshots.insert(dir.to_path_buf(), loaded);
            self.stale = true;
        }
        let previous = self.snapshots.get(dir).expect("inserted above");
        let mut by_name: HashMap<&str, &Entry> = previous.entries.iter().map(|e| (e.file_name.as_str(), e)).collect();
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
        let mut entries = Vec::new();
        let mut changed = false;
        for item in listing.flatten() {
            let file_name = item.file_name().to_string_lossy().into_owned();
            if !file_name.ends_with(".md") || file_name == "MEMORY.md" || file_name.starts_with('.') {
                continue;
            }
            let Ok(meta) = item.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i64);
            match by_name.remove(file_name.as_str()) {
                Some(old) if old.size == meta.len() && old.mtime_ns == mtime_ns => entries.push(old.clone()),
                _ => {
                    changed = true;
                    let path = dir.join(&file_name);
                    let doc = read_memory_file(scope, &path).ok().flatten().map(|m| {
                        let mut doc = DocTerms::from_memory(&m);
                        intern(&mut self.words, &mut doc);
                        Arc::new(doc)
                    });
                    entries.push(Entry { file_name, size: meta.len(), mtime_ns, doc });
                }
            }
        }
        changed |= !by_name.is_empty();
        if changed {
            entries.sort_by(|a, b| a.file_name.cmp(&b.file_name));
            let snapshot = ScopeSnapshot { entries };
            if let Some(p) = &self.persistent {
                p.save(dir, &snapshot);
            }
            self.snapshots.insert(dir.to_path_buf(), snapshot);
            self.stale = true;
        }
        Ok(())
    }
}

/// Points `doc`'s terms at the shared copy of each word, adding the words not seen yet.
fn intern(words: &mut HashSet<Arc<str>>, doc: &mut DocTerms) {
    for (term, _) in &mut doc.terms {
        match words.get(term.as_ref()) {
            Some(shared) => *term = shared.clone(),
            None => {
                words.insert(term.clone());
            }
        }
    }
}

/// Snapshots in `index.sqlite`; every failure degrades to "no cache".
struct PersistentCache {
    conn: rusqlite::Connection,
}

impl PersistentCache {
    fn open(db_path: &Path) -> Option<PersistentCache> {
        if !db_path.parent().is_some_and(Path::is_dir) {
            return None;
        }
        let conn = crate::index_db::open(db_path).ok()?;
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

// A compact binary form: a term dictionary, then entries whose terms are dictionary ids.
const MAGIC: &[u8; 4] = b"ERS1";

fn encode(snapshot: &ScopeSnapshot) -> Vec<u8> {
    let mut dict: HashMap<&str, u32> = HashMap::new();
    let mut words: Vec<&str> = Vec::new();
    for doc in snapshot.entries.iter().filter_map(|e| e.doc.as_ref()) {
        for (t, _) in &doc.terms {
            dict.entry(t.as_ref()).or_insert_with(|| {
                words.push(t.as_ref());
                (words.len() - 1) as u32
            });
        }
    }
    let mut out = Vec::with_capacity(64 * 1024);
    out.extend_from_slice(MAGIC);
    put_u32(&mut out, words.len() as u32);
    for w in &words {
        put_str(&mut out, w);
    }
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
                put_u32(&mut out, d.terms.len() as u32);
                for (t, w) in &d.terms {
                    put_u32(&mut out, dict[t.as_ref()]);
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
        }
    }
    out
}

fn decode(data: &[u8], dir: &Path) -> Option<ScopeSnapshot> {
    let mut r = Reader { data, pos: 0 };
    if r.take(4)? != MAGIC {
        return None;
    }
    // Every count is checked against the bytes left (each item takes at least that many), so a
    // corrupt count is a rebuild, never a huge allocation.
    let n_words = r.count(4)?;
    let mut words: Vec<Arc<str>> = Vec::with_capacity(n_words);
    for _ in 0..n_words {
        words.push(Arc::from(r.str()?));
    }
    let n_entries = r.count(21)?;
    let mut entries = Vec::with_capacity(n_entries);
    for _ in 0..n_entries {
        let file_name = r.str()?;
        let size = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let mtime_ns = i64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let doc = match r.take(1)?[0] {
            0 => None,
            tag => {
                let scope = if tag == 1 { Scope::User } else { Scope::Project };
                let name = r.str()?;
                let kind = r.str()?;
                let description = r.str()?;
                let body_bytes = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
                let length = f32::from_le_bytes(r.take(4)?.try_into().ok()?);
                let n = r.count(8)?;
                let mut terms = Vec::with_capacity(n);
                for _ in 0..n {
                    let id = r.u32()? as usize;
                    let w = f32::from_le_bytes(r.take(4)?.try_into().ok()?);
                    terms.push((words.get(id)?.clone(), w));
                }
                let path = dir.join(&file_name);
                Some(Arc::new(DocTerms { scope, name, kind, description, path, body_bytes, length, terms }))
            }
        };
        entries.push(Entry { file_name, size, mtime_ns, doc });
    }
    Some(ScopeSnapshot { entries })
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
    fn memories_share_one_copy_of_each_word_whether_read_fresh_or_loaded_and_unused_words_go() {
        let tmp = tempfile::tempdir().unwrap();
        let home = EngramHome::new(tmp.path());
        let store = Store::new(home.clone(), None);
        save(&store, "alpha", "database migrations");
        save(&store, "beta", "database backups");
        let word = |corpus: &Corpus, name: &str, term: &str| -> Arc<str> {
            let doc = corpus.docs.iter().find(|d| d.name == name).unwrap();
            doc.terms.iter().find(|(t, _)| t.as_ref() == term).unwrap().0.clone()
        };
        for mut cache in [CorpusCache::persistent(&home.index_db()), CorpusCache::persistent(&home.index_db())] {
            // The first reads the files, the second the snapshot the first saved.
            let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
            assert!(Arc::ptr_eq(&word(&corpus, "alpha", "databas"), &word(&corpus, "beta", "databas")));
            assert!(cache.words.contains("migrat"));
            // The corpus holds the snapshot's documents themselves, not copies.
            let snapshot = &cache.snapshots[&store.dir(Scope::User).unwrap()];
            assert!(snapshot.entries.iter().all(|e| corpus.docs.iter().any(|d| Arc::ptr_eq(d, e.doc.as_ref().unwrap()))));
        }
        let mut cache = CorpusCache::in_memory();
        cache.corpus(&store, ScopeFilter::All).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(10));
        save(&store, "alpha", "database restores");
        let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
        assert!(!cache.words.contains("migrat"), "a word no memory has any more is dropped");
        assert!(Arc::ptr_eq(&word(&corpus, "alpha", "restor"), cache.words.get("restor").unwrap()));
        assert!(Arc::ptr_eq(&word(&corpus, "alpha", "databas"), &word(&corpus, "beta", "databas")));
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
        assert_eq!(first.docs, second.docs);
        // Corrupt blob: ignored, rebuilt from disk.
        let conn = rusqlite::Connection::open(home.index_db()).unwrap();
        conn.execute("UPDATE rank_snapshots SET data = x'00010203'", []).unwrap();
        let third = CorpusCache::persistent(&home.index_db()).corpus(&store, ScopeFilter::All).unwrap();
        assert_eq!(third.docs, first.docs);
        // A database file that is not SQLite at all: no cache, same answer.
        fs::write(home.index_db(), b"not a database").unwrap();
        let fourth = CorpusCache::persistent(&home.index_db()).corpus(&store, ScopeFilter::All).unwrap();
        assert_eq!(fourth.docs, first.docs);
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

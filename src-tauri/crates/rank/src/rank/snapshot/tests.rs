//! The snapshot cache within one process: refreshes, the watcher's promise, the shared copies of
//! documents and words, the persistent copy surviving garbage and another writer, and shadowing.

use super::*;
use ambry_store::home::AmbryHome;
use ambry_store::memory::MemoryDraft;

fn save(store: &Store, name: &str, body: &str) {
    let draft = MemoryDraft {
        name: name.into(),
        kind: "project".into(),
        description: format!("about {name}"),
        body: body.into(),
        tags: vec![],
    };
    store
        .save(Scope::User, draft, "2026-01-01T00:00:00Z".parse().unwrap())
        .unwrap();
}

#[test]
fn a_search_while_another_writer_holds_the_index_ranks_from_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path());
    let store = Store::new(home.clone(), None);
    save(&store, "alpha", "one");
    CorpusCache::persistent(&home.index_db())
        .corpus(&store, ScopeFilter::All)
        .unwrap();
    save(&store, "beta", "two");
    // The session indexer in the middle of a batch, as another process would be.
    let writer = rusqlite::Connection::open(home.index_db()).unwrap();
    writer.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let corpus = CorpusCache::persistent(&home.index_db())
        .corpus(&store, ScopeFilter::All)
        .unwrap();
    assert_eq!(corpus.len(), 2, "the cache is skipped, never the memories");
    assert!(!corpus.postings("two").is_empty());
    writer.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn refresh_sees_adds_edits_and_deletes() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(AmbryHome::new(tmp.path()), None);
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
    store
        .forget(Scope::User, "beta", "2026-01-01T00:00:00Z".parse().unwrap())
        .unwrap();
    assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 1);
}

#[test]
fn memories_share_one_copy_of_each_word_whether_read_fresh_or_turned_back_from_postings_and_unused_words_go(
) {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path());
    let store = Store::new(home.clone(), None);
    save(&store, "alpha", "database migrations");
    save(&store, "beta", "database backups");
    let dir = store.dir(Scope::User).unwrap();
    let word = |snapshot: &ScopeSnapshot, name: &str, term: &str| -> Arc<str> {
        let doc = snapshot
            .entries
            .iter()
            .filter_map(|e| e.doc.as_ref())
            .find(|d| d.name == name)
            .unwrap();
        doc.terms
            .iter()
            .find(|(t, _)| t.as_ref() == term)
            .unwrap()
            .0
            .clone()
    };
    // The corpus holds the snapshot's documents themselves, not copies.
    let shares_documents = |corpus: &Corpus, snapshot: &ScopeSnapshot| {
        snapshot.entries.iter().all(|e| {
            corpus
                .docs
                .iter()
                .any(|d| Arc::ptr_eq(d, e.doc.as_ref().unwrap()))
        })
    };
    {
        // A first process reads the files.
        let mut cache = CorpusCache::persistent(&home.index_db());
        let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
        let snapshot = &cache.snapshots[&dir];
        assert!(Arc::ptr_eq(
            &word(snapshot, "alpha", "databas"),
            &word(snapshot, "beta", "databas")
        ));
        assert!(cache.words.contains("migrat"));
        assert!(shares_documents(&corpus, snapshot));
    }
    // The next one assembles the stored postings, which hold each word of the scope once.
    let mut cache = CorpusCache::persistent(&home.index_db());
    let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
    assert!(cache.snapshots[&dir].postings.is_some());
    assert!(
        cache.words.is_empty(),
        "nothing to share while the terms are in the postings"
    );
    assert!(shares_documents(&corpus, &cache.snapshots[&dir]));
    drop(corpus);
    // A change turns the loaded scope back into terms per document: the words of the
    // memory read again and of the one inverted from the postings are the same copies.
    std::thread::sleep(std::time::Duration::from_millis(10));
    save(&store, "alpha", "database restores");
    let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
    let snapshot = &cache.snapshots[&dir];
    assert!(snapshot.postings.is_none());
    assert!(
        !cache.words.contains("migrat"),
        "a word no memory has any more is dropped"
    );
    assert!(Arc::ptr_eq(
        &word(snapshot, "alpha", "restor"),
        cache.words.get("restor").unwrap()
    ));
    assert!(Arc::ptr_eq(
        &word(snapshot, "alpha", "databas"),
        &word(snapshot, "beta", "databas")
    ));
    assert!(shares_documents(&corpus, snapshot));
}

#[test]
fn an_unchanged_scope_reuses_the_built_corpus() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(AmbryHome::new(tmp.path()), None);
    save(&store, "alpha", "one");
    let mut cache = CorpusCache::in_memory();
    let a = cache.corpus(&store, ScopeFilter::All).unwrap();
    let b = cache.corpus(&store, ScopeFilter::All).unwrap();
    assert!(Arc::ptr_eq(&a, &b));
}

#[test]
fn the_persistent_cache_round_trips_and_survives_garbage() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path());
    let store = Store::new(home.clone(), None);
    save(&store, "alpha", "database migrations with sqlx");
    save(&store, "beta", "deploy checklist");
    let first = CorpusCache::persistent(&home.index_db())
        .corpus(&store, ScopeFilter::All)
        .unwrap();
    let snapshot = PersistentCache::open(&home.index_db())
        .unwrap()
        .load(&home.user_memory_dir())
        .unwrap();
    assert_eq!(snapshot.entries.len(), 2);
    let second = CorpusCache::persistent(&home.index_db())
        .corpus(&store, ScopeFilter::All)
        .unwrap();
    assert_eq!(
        first.documents_without_terms(),
        second.documents_without_terms()
    );
    // Corrupt blob: ignored, rebuilt from disk.
    let conn = rusqlite::Connection::open(home.index_db()).unwrap();
    conn.execute("UPDATE rank_snapshots SET data = x'00010203'", [])
        .unwrap();
    let third = CorpusCache::persistent(&home.index_db())
        .corpus(&store, ScopeFilter::All)
        .unwrap();
    assert_eq!(
        third.documents_without_terms(),
        first.documents_without_terms()
    );
    // A database file that is not SQLite at all: no cache, same answer.
    fs::write(home.index_db(), b"not a database").unwrap();
    let fourth = CorpusCache::persistent(&home.index_db())
        .corpus(&store, ScopeFilter::All)
        .unwrap();
    assert_eq!(
        fourth.documents_without_terms(),
        first.documents_without_terms()
    );
}

#[test]
fn the_index_is_opened_only_when_a_corpus_is_first_asked_for() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path());
    let store = Store::new(home.clone(), None);
    save(&store, "alpha", "one");
    // An `ambry compose` the service answers builds a workspace (and this cache) but never
    // ranks: it must not pay for opening `index.sqlite`, nor create it.
    let mut cache = CorpusCache::persistent(&home.index_db());
    assert!(!cache.persistent.is_open());
    assert!(!home.index_db().exists());
    cache.corpus(&store, ScopeFilter::All).unwrap();
    assert!(cache.persistent.is_open());
    assert!(PersistentCache::open(&home.index_db())
        .unwrap()
        .load(&home.user_memory_dir())
        .is_some());
}

/// Puts a directory's modification time a second back, as if its last change were long past
/// (a stamp from the last few milliseconds never vouches for a directory).
fn settle(dir: &std::path::Path) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    std::fs::File::open(dir)
        .unwrap()
        .set_modified(past)
        .unwrap();
}

#[test]
fn a_cache_trusting_its_watcher_sees_every_write_through_ambry_and_a_hand_edit_when_told() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(AmbryHome::new(tmp.path()), None);
    let dir = store.dir(Scope::User).unwrap();
    save(&store, "alpha", "one");
    let mut cache = CorpusCache::in_memory();
    cache.trust_watcher();
    assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 1);
    // A write through Ambry (a file renamed into place) is seen at once, reported or not.
    save(&store, "beta", "two");
    assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 2);
    // Once the directory is settled, a hand edit in place (the directory's stamp does not
    // move) is not looked for until the watcher reports it.
    settle(&dir);
    assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 2);
    let alpha = dir.join("alpha.md");
    let edited = std::fs::read_to_string(&alpha)
        .unwrap()
        .replace("one", "uno, edited by hand");
    std::fs::write(&alpha, edited).unwrap();
    let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
    assert!(corpus.postings("uno").is_empty(), "not reported yet");
    cache.invalidate(&dir);
    let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
    assert!(!corpus.postings("uno").is_empty());
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
fn a_directory_changed_within_the_clock_tick_is_checked_again_even_when_trusting() {
    // Two writes inside one file-system clock tick can leave the directory's stamp unchanged:
    // a stamp that fresh never vouches for the directory, so the second write is still seen.
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(AmbryHome::new(tmp.path()), None);
    let dir = store.dir(Scope::User).unwrap();
    save(&store, "alpha", "one");
    // A stamp from "now" however slow this machine is: ahead of the clock.
    let fresh = std::time::SystemTime::now() + std::time::Duration::from_secs(10);
    std::fs::File::open(&dir)
        .unwrap()
        .set_modified(fresh)
        .unwrap();
    let mut cache = CorpusCache::in_memory();
    cache.trust_watcher();
    assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 1);
    save(&store, "beta", "two");
    // The second write leaves the stamp where the first left it, as one clock tick would.
    std::fs::File::open(&dir)
        .unwrap()
        .set_modified(fresh)
        .unwrap();
    assert_eq!(cache.corpus(&store, ScopeFilter::All).unwrap().len(), 2);
}

#[test]
fn the_cache_gives_each_memory_file_its_modification_time_as_last_seen() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(AmbryHome::new(tmp.path()), None);
    save(&store, "alpha", "one");
    let mut cache = CorpusCache::in_memory();
    cache.corpus(&store, ScopeFilter::All).unwrap();
    let path = store.dir(Scope::User).unwrap().join("alpha.md");
    let meta = std::fs::metadata(&path).unwrap();
    use std::os::unix::fs::MetadataExt;
    assert_eq!(
        cache.modified_ns(&path),
        Some(meta.mtime() * 1_000_000_000 + meta.mtime_nsec())
    );
    assert_eq!(cache.modified_ns(&path.with_file_name("missing.md")), None);
}

#[test]
fn without_shadowing_every_project_and_the_user_keep_their_memory_of_a_shared_name() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path());
    let user = Store::new(home.clone(), None);
    save(&user, "build-cmd", "cargo build");
    let draft = |body: &str| MemoryDraft {
        name: "build-cmd".into(),
        kind: "project".into(),
        description: "build".into(),
        body: body.into(),
        tags: vec![],
    };
    let mut dirs = vec![(Scope::User, home.user_memory_dir())];
    for slug in ["ledger-1a2b", "shop-3c4d"] {
        let project = ambry_store::project::Project {
            slug: slug.into(),
            root: tmp.path().join(slug),
            remote: None,
        };
        Store::new(home.clone(), Some(project))
            .save(
                Scope::Project,
                draft("make all"),
                "2026-01-01T00:00:00Z".parse().unwrap(),
            )
            .unwrap();
        dirs.push((Scope::Project, home.project_memory_dir(slug)));
    }
    let mut cache = CorpusCache::in_memory();
    let everything = cache.corpus_of(&dirs, Shadowing::None).unwrap();
    assert_eq!(everything.len(), 3);
    let paths: Vec<_> = everything.docs.iter().map(|d| d.path.clone()).collect();
    assert!(
        paths
            .iter()
            .any(|p| p.starts_with(home.project_memory_dir("shop-3c4d"))),
        "{paths:?}"
    );
    // The same directories as one agent's view: the user's copy is shadowed.
    let shadowed = cache.corpus_of(&dirs, Shadowing::ProjectOverUser).unwrap();
    assert!(
        shadowed.docs.iter().all(|d| d.scope == Scope::Project),
        "{:?}",
        shadowed.docs
    );
}

#[test]
fn a_fresh_process_gets_each_memory_s_retirement_keys_from_the_persistent_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path());
    let store = Store::new(home.clone(), None);
    save(&store, "alpha", "one");
    save(&store, "beta", "two");
    save(&store, "gamma", "three");
    let dir = store.dir(Scope::User).unwrap();
    for (name, keys) in [
        ("alpha", "superseded_by: beta\nexpires: 2026-12-31\n"),
        ("gamma", "expires: 2027-01-02\n"),
    ] {
        let path = dir.join(format!("{name}.md"));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("---\n", &format!("---\n{keys}"), 1)).unwrap();
    }
    let retiring = |corpus: &Corpus| -> Vec<(String, ambry_store::memory::Retiring)> {
        corpus
            .docs
            .iter()
            .map(|d| (d.name.clone(), d.retiring.clone()))
            .collect()
    };
    let read = retiring(
        &CorpusCache::persistent(&home.index_db())
            .corpus(&store, ScopeFilter::All)
            .unwrap(),
    );
    let day = |s: &str| Some(s.parse().unwrap());
    assert!(read.contains(&(
        "alpha".into(),
        ambry_store::memory::Retiring {
            superseded_by: Some("beta".into()),
            expires: day("2026-12-31"),
        }
    )));
    assert!(read.contains(&(
        "gamma".into(),
        ambry_store::memory::Retiring {
            superseded_by: None,
            expires: day("2027-01-02"),
        }
    )));
    assert!(read.contains(&("beta".into(), Default::default())));
    // A fresh process: every scope unchanged, the corpus assembled from the loaded snapshot.
    let loaded = CorpusCache::persistent(&home.index_db())
        .corpus(&store, ScopeFilter::All)
        .unwrap();
    assert_eq!(retiring(&loaded), read);
}

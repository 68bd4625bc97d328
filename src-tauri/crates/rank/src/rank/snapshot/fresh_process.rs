//! What a new process sees when it starts from the snapshots another one stored: the same corpus
//! as one built from the files, every change since, and a stored snapshot that does not add up
//! rebuilt rather than trusted.

use std::time::{Duration, SystemTime};

use super::persisted::{decode, SCHEMA_KEY, SCHEMA_VERSION};
use super::*;
use ambry_store::home::AmbryHome;
use ambry_store::memory::MemoryDraft;
use ambry_store::project::Project;

fn draft(name: &str, body: &str) -> MemoryDraft {
    MemoryDraft {
        name: name.into(),
        kind: "project".into(),
        description: format!("about {name}"),
        body: body.into(),
        tags: vec![],
    }
}

fn now() -> chrono::DateTime<chrono::Utc> {
    "2026-01-01T00:00:00Z".parse().unwrap()
}

/// A user scope and one project, with a name in both (shadowing) and words in both.
fn home_with_two_scopes(tmp: &Path) -> (AmbryHome, Store) {
    let home = AmbryHome::new(tmp.join("home"));
    let project = Project {
        slug: "ledger-1a2b".into(),
        root: tmp.join("ledger"),
        remote: None,
    };
    let store = Store::new(home.clone(), Some(project));
    store
        .save(
            Scope::User,
            draft("build-cmd", "cargo build --release"),
            now(),
        )
        .unwrap();
    store
        .save(
            Scope::User,
            draft(
                "deploy-notes",
                "canary deploy then full rollout; refresh the token cache",
            ),
            now(),
        )
        .unwrap();
    store
        .save(Scope::User, draft("style", "tabs, never spaces"), now())
        .unwrap();
    store
        .save(
            Scope::Project,
            draft("build-cmd", "make all, then cargo test"),
            now(),
        )
        .unwrap();
    store
        .save(
            Scope::Project,
            draft(
                "token-cache",
                "the refresh token cache breaks after a deploy",
            ),
            now(),
        )
        .unwrap();
    (home, store)
}

/// What a first run ever would build: every file read and stemmed.
fn from_nothing(store: &Store, shadowing: Shadowing) -> Arc<Corpus> {
    CorpusCache::in_memory()
        .corpus_of(&dirs(store), shadowing)
        .unwrap()
}

fn dirs(store: &Store) -> Vec<(Scope, PathBuf)> {
    store
        .scopes(ScopeFilter::All)
        .into_iter()
        .map(|s| (s, store.dir(s).unwrap()))
        .collect()
}

/// A new process's view: a cache that starts from index.sqlite.
fn fresh(home: &AmbryHome, store: &Store, shadowing: Shadowing) -> Arc<Corpus> {
    CorpusCache::persistent(&home.index_db())
        .corpus_of(&dirs(store), shadowing)
        .unwrap()
}

fn assert_same(a: &Corpus, b: &Corpus) {
    assert_eq!(a.documents_without_terms(), b.documents_without_terms());
    assert_eq!(a.postings_by_term(), b.postings_by_term());
    assert_eq!(a.average_length.to_bits(), b.average_length.to_bits());
}

fn names(c: &Corpus) -> Vec<String> {
    c.docs
        .iter()
        .map(|d| format!("{}:{}", d.scope, d.name))
        .collect()
}

#[test]
fn a_corpus_assembled_from_stored_postings_is_the_one_built_from_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, store) = home_with_two_scopes(tmp.path());
    for shadowing in [Shadowing::ProjectOverUser, Shadowing::None] {
        fresh(&home, &store, shadowing);
        let loaded = PersistentCache::open(&home.index_db())
            .unwrap()
            .load(&store.dir(Scope::User).unwrap())
            .unwrap();
        assert!(
            loaded.postings.is_some()
                && loaded
                    .entries
                    .iter()
                    .all(|e| e.doc.as_ref().unwrap().terms.is_empty())
        );
        let assembled = fresh(&home, &store, shadowing);
        assert_same(&assembled, &from_nothing(&store, shadowing));
    }
    assert_eq!(
        fresh(&home, &store, Shadowing::ProjectOverUser).len(),
        4,
        "the user build-cmd is shadowed"
    );
    assert_eq!(fresh(&home, &store, Shadowing::None).len(), 5);
}

#[test]
fn an_assembled_corpus_lists_each_terms_postings_in_document_order() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, store) = home_with_two_scopes(tmp.path());
    // "cache-keys.md" sorts before "cache.md" but the corpus puts "cache" first, so the user
    // scope's stored postings of "redis" run against the corpus order; the project's follow.
    store
        .save(Scope::User, draft("cache", "redis eviction"), now())
        .unwrap();
    store
        .save(Scope::User, draft("cache-keys", "redis key naming"), now())
        .unwrap();
    store
        .save(Scope::Project, draft("queue", "redis streams"), now())
        .unwrap();
    let user_dir = store.dir(Scope::User).unwrap();
    for shadowing in [Shadowing::ProjectOverUser, Shadowing::None] {
        fresh(&home, &store, shadowing);
        let loaded = PersistentCache::open(&home.index_db())
            .unwrap()
            .load(&user_dir)
            .unwrap();
        let stored = &loaded
            .postings
            .as_ref()
            .unwrap()
            .iter()
            .find(|(t, _)| t.as_ref() == "redi")
            .unwrap()
            .1;
        let stored_names: Vec<&str> = stored
            .iter()
            .map(|(e, _)| loaded.entries[*e as usize].file_name.as_str())
            .collect();
        assert_eq!(stored_names, ["cache-keys.md", "cache.md"]);

        let assembled = fresh(&home, &store, shadowing);
        let postings = assembled.postings_by_term();
        for (term, list) in &postings {
            assert!(list.windows(2).all(|w| w[0].0 < w[1].0), "{term}: {list:?}");
            for doc in 0..assembled.len() as u32 {
                assert_eq!(
                    Corpus::posted(list, doc),
                    list.iter().any(|(d, _)| *d == doc),
                    "{term} in {doc}"
                );
            }
        }
        let with_redis: Vec<String> = postings["redi"]
            .iter()
            .map(|(d, _)| assembled.docs[*d as usize].name.clone())
            .collect();
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

    store
        .save(
            Scope::User,
            draft("kafka-retries", "consumer retries with backoff"),
            now(),
        )
        .unwrap();
    assert!(!check("added").postings("kafka").is_empty());

    // Edited in place (not through a rename): the directory itself does not change.
    let path = store.dir(Scope::User).unwrap().join("style.md");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("tabs, never spaces", "spaces, four of them, never tabs");
    fs::write(&path, text).unwrap();
    let seen = check("edited in place");
    assert!(!seen.postings("four").is_empty());

    // Edited again, its old modification time put back: the size still tells.
    let old_mtime = fs::metadata(&path).unwrap().modified().unwrap();
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("four of them", "two");
    fs::write(&path, text).unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(old_mtime)
        .unwrap();
    let seen = check("edited, mtime restored");
    assert!(seen.postings("four").is_empty() && !seen.postings("two").is_empty());

    store
        .rename_keeping_history(Scope::User, "deploy-notes", "release-notes", now())
        .unwrap();
    let seen = check("renamed");
    assert!(
        seen.docs.iter().any(|d| d.name == "release-notes")
            && !seen.docs.iter().any(|d| d.name == "deploy-notes")
    );

    store.forget(Scope::Project, "build-cmd", now()).unwrap();
    let seen = check("deleted in the project");
    assert!(
        seen.docs
            .iter()
            .any(|d| d.scope == Scope::User && d.name == "build-cmd"),
        "no longer shadowed"
    );

    // Same size, a newer modification time (a rewrite of the same length).
    std::thread::sleep(Duration::from_millis(5));
    let path = store.dir(Scope::User).unwrap().join("kafka-retries.md");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("backoff", "jitters");
    fs::write(&path, text).unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(SystemTime::now() + Duration::from_secs(1))
        .unwrap();
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
    assert!(one
        .iter()
        .enumerate()
        .all(|(i, (name, size, _))| *name == format!("m{i:02}.md") && *size == i as u64));
    for threads in [2, 3, 7, 40] {
        assert_eq!(
            sorted(stamps(&candidates, threads)),
            one,
            "{threads} threads"
        );
    }
}

#[test]
fn a_long_lived_cache_that_started_from_stored_postings_follows_later_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, store) = home_with_two_scopes(tmp.path());
    fresh(&home, &store, Shadowing::ProjectOverUser);
    let mut cache = CorpusCache::persistent(&home.index_db());
    let first = cache
        .corpus_of(&dirs(&store), Shadowing::ProjectOverUser)
        .unwrap();
    assert_same(&first, &from_nothing(&store, Shadowing::ProjectOverUser));
    // Only the project changes: the unchanged user scope's stored postings are turned back
    // into terms per document for the rebuild.
    store
        .save(Scope::Project, draft("style", "rustfmt defaults"), now())
        .unwrap();
    let second = cache
        .corpus_of(&dirs(&store), Shadowing::ProjectOverUser)
        .unwrap();
    assert_same(&second, &from_nothing(&store, Shadowing::ProjectOverUser));
    let everything = cache.corpus_of(&dirs(&store), Shadowing::None).unwrap();
    assert_same(&everything, &from_nothing(&store, Shadowing::None));
    store.forget(Scope::User, "style", now()).unwrap();
    assert_same(
        &cache.corpus_of(&dirs(&store), Shadowing::None).unwrap(),
        &from_nothing(&store, Shadowing::None),
    );
}

#[test]
fn a_snapshot_of_another_version_or_that_does_not_add_up_is_rebuilt_not_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, store) = home_with_two_scopes(tmp.path());
    let expected = fresh(&home, &store, Shadowing::ProjectOverUser);
    let user_dir = store.dir(Scope::User).unwrap();
    let good = {
        let conn = rusqlite::Connection::open(home.index_db()).unwrap();
        conn.query_row(
            "SELECT data FROM rank_snapshots WHERE dir = ?1",
            [user_dir.to_string_lossy()],
            |r| r.get::<_, Vec<u8>>(0),
        )
        .unwrap()
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
    for (what, data) in [
        ("truncated", &truncated),
        ("trailing bytes", &trailing),
        ("unknown entry", &bad_entry),
        ("old format", &old_magic),
    ] {
        assert!(decode(data, &user_dir).is_none(), "{what}");
        let conn = rusqlite::Connection::open(home.index_db()).unwrap();
        conn.execute(
            "UPDATE rank_snapshots SET data = ?1 WHERE dir = ?2",
            rusqlite::params![data, user_dir.to_string_lossy()],
        )
        .unwrap();
        drop(conn);
        assert_same(&fresh(&home, &store, Shadowing::ProjectOverUser), &expected);
        // Rebuilt and stored again.
        assert!(
            PersistentCache::open(&home.index_db())
                .unwrap()
                .load(&user_dir)
                .is_some(),
            "{what}"
        );
    }
    // A database whose rank tables an older version wrote: dropped on open, rebuilt.
    let conn = rusqlite::Connection::open(home.index_db()).unwrap();
    conn.execute("UPDATE meta SET value = '1' WHERE key = ?1", [SCHEMA_KEY])
        .unwrap();
    conn.execute("UPDATE rank_snapshots SET data = x'45525331'", [])
        .unwrap();
    drop(conn);
    assert_same(&fresh(&home, &store, Shadowing::ProjectOverUser), &expected);
    let conn = rusqlite::Connection::open(home.index_db()).unwrap();
    let version: String = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [SCHEMA_KEY], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

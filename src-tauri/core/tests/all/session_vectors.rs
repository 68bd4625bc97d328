//! Vectors in the session index without the real model: a small deterministic embedder stands
//! in for it (each axis one family of words), so these tests say exactly which text was
//! embedded. Covered: the incremental fill (new messages only, rewrites and model changes), the
//! schema 4 → 5 migration keeping vaulted sessions, recall by meaning and recall without vectors,
//! and the workspace's recall when no model can be had.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

use ambry_core::{AmbryHome, Workspace};
use ambry_rank::embed::{EmbedError, TextEmbedder};
use ambry_sessions::sessions::{
    QueryVector, RecallQuery, SessionIndex, SessionsConfig, SourceRoots, DEFAULT_WEIGHTS,
};

const NOW: i64 = 1_780_000_000;

/// Words that mean the same thing share an axis; the last axis is a small constant so no text
/// is the zero vector.
const FAMILIES: [&[&str]; 4] = [
    &["cat", "kitten", "feline"],
    &["deploy", "release", "ship"],
    &["database", "sqlite", "postgres"],
    &["lunch", "sandwich", "soup"],
];

struct WordFamilies {
    model: &'static str,
    embedded: Vec<String>,
}

impl WordFamilies {
    fn new(model: &'static str) -> Self {
        WordFamilies {
            model,
            embedded: Vec::new(),
        }
    }
}

impl TextEmbedder for WordFamilies {
    fn model_id(&self) -> &str {
        self.model
    }
    fn dimension(&self) -> usize {
        FAMILIES.len() + 1
    }
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embedded.extend(texts.iter().cloned());
        Ok(texts.iter().map(|t| vector_of(t)).collect())
    }
}

fn vector_of(text: &str) -> Vec<f32> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .collect();
    let mut v: Vec<f32> = FAMILIES
        .iter()
        .map(|f| words.iter().filter(|w| f.contains(&w.as_str())).count() as f32)
        .collect();
    v.push(0.1);
    v
}

struct Env {
    _tmp: tempfile::TempDir,
    home: AmbryHome,
    roots: SourceRoots,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("ambry"));
        let roots = SourceRoots::resolve(&home, None, None, None);
        fs::create_dir_all(&roots.ambry).unwrap();
        Env {
            _tmp: tmp,
            home,
            roots,
        }
    }
    fn open(&self) -> SessionIndex {
        SessionIndex::open(&self.home.index_db()).unwrap()
    }
    fn index(&self) {
        self.open()
            .index(
                &self.roots,
                &SessionsConfig::default(),
                None,
                NOW,
                &mut |_| {},
            )
            .unwrap();
    }
    fn session(&self, name: &str) -> std::path::PathBuf {
        self.roots.ambry.join(format!("{name}.jsonl"))
    }
    fn vectors(&self) -> i64 {
        let conn = rusqlite::Connection::open(self.home.index_db()).unwrap();
        conn.query_row("SELECT count(*) FROM session_vectors", [], |r| r.get(0))
            .unwrap()
    }
}

fn line(role: &str, text: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": role, "text": text})
    )
}

fn append(path: &Path, text: &str) {
    OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

#[test]
fn only_messages_without_a_vector_are_embedded_and_rewrites_and_model_changes_start_over() {
    let env = Env::new();
    let path = env.session("s1");
    append(
        &path,
        &(line("user", "my kitten knocked the plant over")
            + &line("assistant", "cats do that")
            + &line("tool", "ls output")),
    );
    env.index();
    let mut embedder = WordFamilies::new("families-1");
    let mut index = env.open();
    let first = index
        .fill_vectors(&mut embedder, None, &mut |_| {})
        .unwrap();
    assert_eq!(
        (first.messages, first.chunks, first.remaining),
        (2, 2, 0),
        "tool output is not embedded"
    );
    assert_eq!(
        embedder.embedded,
        vec!["my kitten knocked the plant over", "cats do that"]
            .into_iter()
            .rev()
            .collect::<Vec<_>>(),
        "newest first"
    );

    embedder.embedded.clear();
    let again = index
        .fill_vectors(&mut embedder, None, &mut |_| {})
        .unwrap();
    assert_eq!(again.messages, 0);
    assert!(
        embedder.embedded.is_empty(),
        "nothing unchanged is embedded twice"
    );

    append(&path, &line("assistant", "shall we deploy on friday"));
    env.index();
    let mut index = env.open();
    assert_eq!(index.unembedded_count().unwrap(), 1);
    let added = index
        .fill_vectors(&mut embedder, None, &mut |_| {})
        .unwrap();
    assert_eq!(added.messages, 1);
    assert_eq!(
        embedder.embedded,
        vec!["shall we deploy on friday"],
        "only the new message"
    );
    assert_eq!(env.vectors(), 3);

    // A bounded pass (as recall runs) leaves the rest for later and says how many.
    fs::write(
        env.session("s2"),
        line("user", "soup for lunch")
            + &line("assistant", "a sandwich then")
            + &line("user", "fine"),
    )
    .unwrap();
    env.index();
    let mut index = env.open();
    let bounded = index
        .fill_vectors(&mut embedder, Some(2), &mut |_| {})
        .unwrap();
    assert_eq!((bounded.messages, bounded.remaining), (2, 1));

    // Rewritten shorter in place: the old messages stay in the vault with their vectors; the
    // file's new message gets one.
    fs::write(&path, line("user", "postgres or sqlite")).unwrap();
    env.index();
    let mut index = env.open();
    let rewritten = index
        .fill_vectors(&mut embedder, None, &mut |_| {})
        .unwrap();
    assert_eq!(
        rewritten.messages, 2,
        "the rewritten file's message and s2's last"
    );
    assert_eq!(
        env.vectors(),
        7,
        "s1's three kept from before the cut, its one message now, s2 three"
    );

    // Another model's vectors are no use: every message is embedded again.
    let mut other = WordFamilies::new("families-2");
    let redone = index.fill_vectors(&mut other, None, &mut |_| {}).unwrap();
    assert_eq!(redone.messages, 7);
    assert_eq!(index.vector_model().unwrap().as_deref(), Some("families-2"));
}

#[test]
fn recall_finds_a_session_by_meaning_only_with_vectors_and_otherwise_stays_lexical() {
    let env = Env::new();
    fs::write(
        env.session("pets"),
        line("user", "the kitten scratched the sofa again")
            + &line("assistant", "try a scratching post"),
    )
    .unwrap();
    fs::write(
        env.session("ops"),
        line("user", "we ship the new build tonight") + &line("assistant", "tag it first"),
    )
    .unwrap();
    env.index();
    let mut index = env.open();
    let q = RecallQuery::new("feline");
    assert!(
        index.recall(&q).unwrap().is_empty(),
        "no session says feline"
    );
    let before: Vec<String> = index
        .recall(&RecallQuery::new("build tonight"))
        .unwrap()
        .into_iter()
        .map(|h| h.session_id)
        .collect();

    let mut embedder = WordFamilies::new("families-1");
    index
        .fill_vectors(&mut embedder, None, &mut |_| {})
        .unwrap();
    // Stored vectors change nothing for a caller without the model.
    assert!(index.recall(&q).unwrap().is_empty());
    let after: Vec<String> = index
        .recall(&RecallQuery::new("build tonight"))
        .unwrap()
        .into_iter()
        .map(|h| h.session_id)
        .collect();
    assert_eq!(before, after);

    let vector = vector_of("feline");
    let semantic = QueryVector {
        vector: &vector,
        model: "families-1",
    };
    let hits = index
        .recall_with(&q, DEFAULT_WEIGHTS, Some(semantic))
        .unwrap();
    assert_eq!(
        hits.first().map(|h| h.session_id.as_str()),
        Some("pets"),
        "{hits:?}"
    );
    assert!(
        hits.iter().all(|h| h.session_id != "ops"),
        "an unrelated session stays out: {hits:?}"
    );
    let turn = &hits[0].turns[0];
    assert_eq!(
        (turn.role.as_str(), turn.snippet.as_str()),
        ("user", "the kitten scratched the sofa again"),
        "the nearest turn is shown"
    );
    assert!(hits[0].widened);

    // Vectors of another model than the question's are not compared.
    let other = QueryVector {
        vector: &vector,
        model: "families-2",
    };
    assert!(index
        .recall_with(&q, DEFAULT_WEIGHTS, Some(other))
        .unwrap()
        .is_empty());
    // A written query asks for words.
    let phrase = RecallQuery::new("\"feline\"");
    assert!(index
        .recall_with(&phrase, DEFAULT_WEIGHTS, Some(semantic))
        .unwrap()
        .is_empty());

    // Words first, then meaning from what the words found: the same answer as ranking with
    // meaning from the start, whatever the words found.
    for text in [
        "feline",
        "build tonight",
        "kitten build",
        "tag sofa",
        "\"feline\"",
        "",
    ] {
        let q = RecallQuery::new(text);
        let vector = vector_of(text);
        let semantic = QueryVector {
            vector: &vector,
            model: "families-1",
        };
        let words = index.words_first(&q).unwrap();
        assert_eq!(words.hits, index.recall(&q).unwrap(), "{text}: words alone");
        assert_eq!(
            index.recall_adding_meaning(words, semantic).unwrap(),
            index
                .recall_with(&q, DEFAULT_WEIGHTS, Some(semantic))
                .unwrap(),
            "{text}: with meaning"
        );
    }
}

#[test]
fn an_index_of_schema_4_gains_the_vector_table_and_keeps_its_vaulted_sessions() {
    let env = Env::new();
    fs::write(env.session("gone"), line("user", "capybara mango")).unwrap();
    fs::write(env.session("kept"), line("user", "quokka papaya")).unwrap();
    env.index();
    fs::remove_file(env.session("gone")).unwrap();
    env.index();
    {
        let conn = rusqlite::Connection::open(env.home.index_db()).unwrap();
        conn.execute_batch("DROP TABLE session_vectors; UPDATE meta SET value = '4' WHERE key = 'sessions.schema';").unwrap();
    }
    let mut index = env.open();
    let conn = rusqlite::Connection::open(env.home.index_db()).unwrap();
    let version: String = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'sessions.schema'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(version, "7", "migrated through every version since");
    assert_eq!(
        index.vaulted().unwrap().len(),
        1,
        "the vaulted session survives the migration"
    );
    assert_eq!(
        index.recall(&RecallQuery::new("mango")).unwrap().len(),
        1,
        "and is still found"
    );
    let fill = index
        .fill_vectors(&mut WordFamilies::new("families-1"), None, &mut |_| {})
        .unwrap();
    assert_eq!(
        fill.messages, 2,
        "the vaulted session's stored messages get vectors too"
    );
}

#[test]
fn the_workspace_recalls_by_words_when_no_model_can_be_had() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path().join("ambry"));
    let ws = Workspace::with_models(home.clone(), tmp.path().join("no-models"));
    let sessions = home.sessions_dir();
    fs::create_dir_all(&sessions).unwrap();
    fs::write(
        sessions.join("pets.jsonl"),
        line("user", "the kitten scratched the sofa") + &line("assistant", "try a scratching post"),
    )
    .unwrap();
    let now = chrono::DateTime::from_timestamp(NOW, 0).unwrap();
    let (hits, notes) = ws
        .recall(&RecallQuery::new("kitten sofa"), true, now)
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(
        hits[0].turns[0]
            .snippet_parts
            .iter()
            .filter(|p| p.hit)
            .count(),
        2,
        "highlighted as before"
    );
    assert!(notes.is_empty(), "{notes:?}");
    let lexical = SessionIndex::open(&home.index_db())
        .unwrap()
        .recall(&RecallQuery::new("kitten sofa"))
        .unwrap();
    assert_eq!(hits, lexical, "exactly the lexical ranking");
    let conn = rusqlite::Connection::open(home.index_db()).unwrap();
    let stored: i64 = conn
        .query_row("SELECT count(*) FROM session_vectors", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, 0);
    let why = ws.embed_sessions(None, &mut |_| {}).unwrap_err();
    assert!(
        why.to_string().contains("no-models"),
        "says where the model was looked for: {why}"
    );
}

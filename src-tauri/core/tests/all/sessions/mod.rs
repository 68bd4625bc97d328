//! The session index end to end on real files and a real SQLite database: the real transcript
//! samples, incremental indexing through every kind of file change, recall, and the watcher.

use crate::session_fixture;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ambry_core::sessions::{
    IndexSummary, RecallHit, RecallQuery, SessionChange, SessionError, SessionIndex,
    SessionWatcher, SessionsConfig, SourceKind, SourceRoots,
};
use ambry_core::{AmbryHome, ErrorCode};
use tempfile::TempDir;

/// The time the tests' indexing runs happen at (unix seconds): the vault dates disappearances
/// by the caller's clock, never by reading one itself.
const NOW: i64 = 1_780_000_000;

/// A temp Ambry home plus temp Claude and Codex homes.
struct Env {
    _tmp: TempDir,
    home: AmbryHome,
    roots: SourceRoots,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("ambry"));
        let roots = SourceRoots::resolve(
            &home,
            Some(tmp.path().join("user")),
            Some(tmp.path().join("claude")),
            Some(tmp.path().join("codex")),
        );
        Env {
            _tmp: tmp,
            home,
            roots,
        }
    }
    fn claude(&self) -> &Path {
        self.roots.claude.as_deref().unwrap()
    }
    fn codex(&self) -> &Path {
        self.roots.codex.as_deref().unwrap()
    }
    fn ambry(&self) -> &Path {
        &self.roots.ambry
    }
    fn open(&self) -> SessionIndex {
        SessionIndex::open(&self.home.index_db()).unwrap()
    }
    fn index(&self, cfg: &SessionsConfig) -> IndexSummary {
        self.index_at(cfg, NOW)
    }
    fn index_at(&self, cfg: &SessionsConfig, now: i64) -> IndexSummary {
        self.open()
            .index(&self.roots, cfg, None, now, &mut |_| {})
            .unwrap()
    }
    fn recall(&self, text: &str) -> Vec<RecallHit> {
        self.open().recall(&RecallQuery::new(text)).unwrap()
    }
    /// Rows the full-text index itself holds for `word`, after checking it agrees with the
    /// message table (recall joins the two, so a stale entry would not show there).
    fn fts_rows(&self, word: &str) -> i64 {
        let conn = rusqlite::Connection::open(self.home.index_db()).unwrap();
        conn.execute(
            "INSERT INTO session_fts(session_fts, rank) VALUES ('integrity-check', 1)",
            [],
        )
        .unwrap();
        conn.query_row(
            "SELECT count(*) FROM session_fts WHERE session_fts MATCH ?1",
            [word],
            |r| r.get(0),
        )
        .unwrap()
    }
    fn fixture(&self) {
        session_fixture::write_all(self.claude(), self.codex(), self.ambry());
    }
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats")
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn append(path: &Path, text: &str) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

fn line(role: &str, text: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": role, "text": text})
    )
}

fn count(index: &SessionIndex, text: &str) -> usize {
    index
        .recall(&RecallQuery {
            limit: 1000,
            ..RecallQuery::new(text)
        })
        .unwrap()
        .len()
}

#[test]
fn every_line_of_the_real_samples_is_indexed_or_deliberately_skipped() {
    let env = Env::new();
    let project = env.claude().join("-home-marco-projects-spotter");
    for name in ["short.jsonl", "tool_heavy.jsonl"] {
        write(
            &project.join(name),
            &fs::read_to_string(samples().join("claude-code").join(name)).unwrap(),
        );
    }
    for name in ["fixture-turn-1.jsonl", "fixture-turn-2.jsonl"] {
        let text = fs::read_to_string(samples().join("codex").join(name)).unwrap();
        write(
            &env.codex()
                .join("2026/05/12")
                .join(format!("rollout-2026-05-12T10-00-00-{name}")),
            &text,
        );
    }
    let s = env.index(&SessionsConfig::default());
    eprintln!("{s:#?}");
    assert_eq!(s.files, 4);
    assert_eq!(s.lines, 15 + 39 + 13 + 25);
    assert_eq!(s.malformed_lines, 0);
    let skipped: u64 = s.lines_skipped.values().sum();
    // short: 1 user prompt + 1 assistant text; tool_heavy: 2 user prompts + 1 assistant text;
    // codex: one user and one assistant message per turn (1 + 2 turns).
    let indexed_lines = 2 + 3 + 2 + 4;
    assert_eq!(s.messages_indexed, indexed_lines);
    assert_eq!(
        skipped + indexed_lines,
        s.lines,
        "every line is accounted for: {:?}",
        s.lines_skipped
    );
    let k = |kind: &str| s.lines_skipped.get(kind).copied().unwrap_or(0);
    assert_eq!(k("progress"), 3 + 10);
    assert_eq!(k("file-history-snapshot"), 1 + 3);
    assert_eq!(k("system"), 2 + 2);
    assert_eq!(k("queue-operation"), 2);
    assert_eq!(k("tool_use"), 2 + 6);
    assert_eq!(k("tool_result"), 2 + 6);
    assert_eq!(k("thinking"), 1 + 1);
    assert_eq!(
        k("boilerplate"),
        1 + 2 + 2 + 3,
        "interruptions, command echoes, environment context"
    );
    assert_eq!(
        k("event_msg:token_count") + k("event_msg:task_started") + k("event_msg:task_complete"),
        6 + 3 + 3
    );
    assert_eq!(k("meta"), 1);
    assert_eq!(k("empty"), 1 + 1, "the blank \\n\\n assistant text");
    assert_eq!(k("session_meta"), 2);
    assert_eq!(k("turn_context"), 3);
    assert_eq!(k("developer"), 3);
    assert_eq!(k("reasoning"), 3);
    assert_eq!(k("event_msg:user_message"), 3);
    assert_eq!(k("event_msg:agent_message"), 3);

    let index = env.open();
    let sessions = index.sessions(None, 10).unwrap();
    assert_eq!(sessions.len(), 4);
    let short = sessions
        .iter()
        .find(|m| m.session_id == "55604662-cf2a-4331-851a-ec234028f8ca")
        .unwrap();
    assert_eq!(
        short.title.as_deref(),
        Some("mix phx.server doesnt seem to start")
    );
    assert_eq!(short.cwd.as_deref(), Some("/home/marco/projects/spotter"));
    assert_eq!(short.model.as_deref(), Some("claude-opus-4-6"));
    assert_eq!(short.first_ts.as_deref(), Some("2026-02-10T21:11:52.438Z"));
    let codex = sessions
        .iter()
        .find(|m| m.source == SourceKind::Codex && m.messages == 4)
        .unwrap();
    assert_eq!(
        codex.title.as_deref(),
        Some("Hello, Codex! Please explain what you do.")
    );
    assert_eq!(codex.model.as_deref(), Some("o4-mini"));
    assert_eq!(codex.cwd.as_deref(), Some("/home/user/project"));

    let hits = env.recall("phoenix");
    assert!(
        hits.iter()
            .any(|h| h.session_id == "d6e0bada-1959-4eec-a9d2-0bfade768d8f"),
        "{hits:#?}"
    );
    assert!(
        env.recall("environment_context").is_empty(),
        "injected context is not indexed"
    );
    assert!(env.recall("\"Request interrupted\"").is_empty());
}

#[test]
fn tool_lines_are_indexed_when_switched_on_and_a_setting_change_reindexes() {
    let env = Env::new();
    let path = env.claude().join("-p").join("tool_heavy.jsonl");
    write(
        &path,
        &fs::read_to_string(samples().join("claude-code/tool_heavy.jsonl")).unwrap(),
    );
    env.index(&SessionsConfig::default());
    assert_eq!(count(&env.open(), "JSONSerializer"), 0);
    let with_tools = SessionsConfig {
        include_tools: true,
        ..Default::default()
    };
    let s = env.index(&with_tools);
    assert_eq!(s.files_reindexed_whole, 1);
    let hits = env
        .open()
        .recall(&RecallQuery::new("JSONSerializer"))
        .unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h.role == "tool"));
}

#[test]
fn incremental_indexing_follows_every_kind_of_file_change() {
    let env = Env::new();
    let cfg = SessionsConfig::default();
    let path = env.ambry().join("s1.jsonl");
    write(
        &path,
        &format!(
            "{{\"session\":{{\"id\":\"s1\",\"title\":\"Ledger work\",\"cwd\":\"/w/ledger\"}}}}\n{}",
            line("user", "alpha kiwi")
        ),
    );
    let s = env.index(&cfg);
    assert_eq!((s.files_indexed, s.messages_indexed), (1, 1));

    // Unchanged: nothing read.
    let s = env.index(&cfg);
    assert_eq!((s.files_indexed, s.bytes_read), (0, 0));

    // Append: only the new bytes.
    let appended = line("assistant", "bravo mango");
    append(&path, &appended);
    let s = env.index(&cfg);
    assert_eq!(
        (s.messages_indexed, s.bytes_read),
        (1, appended.len() as u64)
    );
    assert_eq!(
        count(&env.open(), "kiwi"),
        1,
        "old messages are not duplicated"
    );
    assert_eq!(env.fts_rows("kiwi"), 1);

    // A torn last line waits for its newline.
    let torn = line("user", "charlie papaya");
    let (first, rest) = torn.split_at(20);
    append(&path, first);
    let s = env.index(&cfg);
    assert_eq!(s.messages_indexed, 0);
    assert_eq!(s.malformed_lines, 0);
    append(&path, rest);
    let s = env.index(&cfg);
    assert_eq!(s.messages_indexed, 1);
    assert_eq!(count(&env.open(), "papaya"), 1);

    // Malformed lines are counted and skipped; the next good line is still read.
    append(
        &path,
        &format!("{{not json\n[1,2]\n{}", line("user", "delta quince")),
    );
    let s = env.index(&cfg);
    assert_eq!((s.malformed_lines, s.messages_indexed), (2, 1));

    // Truncated: read again from the start; what was indexed from it before is kept in the
    // vault (the index may hold its only copy), not lost.
    write(&path, &line("user", "echo lemon"));
    let s = env.index(&cfg);
    assert_eq!(s.files_reindexed_whole, 1);
    assert_eq!(count(&env.open(), "kiwi"), 1, "kept from before the cut");
    assert_eq!(count(&env.open(), "lemon"), 1);
    assert_eq!(env.fts_rows("kiwi"), 1);
    let vaulted = env.open().vaulted().unwrap();
    assert_eq!(vaulted.len(), 1, "{vaulted:?}");
    assert!(vaulted[0].path.to_string_lossy().contains("#truncated-"));
    assert_eq!(
        env.index(&cfg).files_indexed,
        0,
        "the kept copy is not looked for on disk again"
    );
    // Pruned like any vaulted session (the rest of this test follows the one file).
    let pruned = env.open().prune_source_removed(None, NOW, false).unwrap();
    assert_eq!(pruned.removed.len(), 1);

    // Replaced by a longer file with a different start (same size class, new content).
    let replacement = format!(
        "{}{}",
        line("user", "foxtrot grape"),
        line("assistant", "golf melon and more words to be longer")
    );
    let tmp = env.ambry().join("s1.jsonl.tmp");
    fs::write(&tmp, &replacement).unwrap();
    fs::rename(&tmp, &path).unwrap();
    let s = env.index(&cfg);
    assert_eq!(s.files_reindexed_whole, 1);
    assert_eq!(count(&env.open(), "lemon"), 0);
    assert_eq!(count(&env.open(), "grape"), 1);

    // Rewritten in place, longer, with a different head: also noticed.
    let mut f = OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all(line("user", "hotel guava").as_bytes()).unwrap();
    f.write_all(line("assistant", "india fig").repeat(3).as_bytes())
        .unwrap();
    drop(f);
    let s = env.index(&cfg);
    assert_eq!(s.files_reindexed_whole, 1);
    assert_eq!(count(&env.open(), "grape"), 0);
    assert_eq!(count(&env.open(), "guava"), 1);
    assert_eq!(
        env.fts_rows("grape"),
        0,
        "the full-text entries went with the messages"
    );

    // Deleted: the vault keeps it searchable, marked with when its source disappeared.
    fs::remove_file(&path).unwrap();
    let s = env.index(&cfg);
    assert_eq!(s.files_removed, 1);
    assert_eq!(s.sessions, 1);
    assert_eq!(count(&env.open(), "guava"), 1);
    let vaulted = env.open().vaulted().unwrap();
    assert_eq!(vaulted.len(), 1);
    assert_eq!(vaulted[0].path, path);
    let marked_at = vaulted[0].source_removed_at;
    assert_eq!(marked_at, NOW, "dated by the caller's clock");
    assert_eq!(
        env.index_at(&cfg, NOW + 3_600).files_removed,
        0,
        "marked once, not again on every pass"
    );
    assert_eq!(
        env.open().vaulted().unwrap()[0].source_removed_at,
        NOW,
        "a later pass keeps the first date"
    );

    // Prune by age: too recent to go; then all of them.
    let mut index = env.open();
    let kept = index
        .prune_source_removed(Some(30), marked_at + 86_400, false)
        .unwrap();
    assert!(kept.removed.is_empty());
    let dry = index.prune_source_removed(None, marked_at, true).unwrap();
    assert_eq!(dry.removed.len(), 1);
    assert_eq!(count(&env.open(), "guava"), 1, "a dry run removes nothing");
    let pruned = index
        .prune_source_removed(Some(30), marked_at + 31 * 86_400, false)
        .unwrap();
    assert_eq!(pruned.removed.len(), 1);
    assert_eq!(count(&env.open(), "guava"), 0);
    assert_eq!(
        env.fts_rows("guava"),
        0,
        "the full-text entries went with the messages"
    );
}

#[test]
fn a_vaulted_file_that_comes_back_is_read_again_and_unmarked() {
    let env = Env::new();
    let cfg = SessionsConfig::default();
    let path = env.ambry().join("back.jsonl");
    fs::create_dir_all(env.ambry()).unwrap();
    fs::write(&path, line("user", "quokka papaya")).unwrap();
    env.index(&cfg);
    fs::remove_file(&path).unwrap();
    env.index(&cfg);
    assert_eq!(env.open().vaulted().unwrap().len(), 1);
    fs::write(
        &path,
        format!(
            "{}{}",
            line("user", "wombat kiwi"),
            line("assistant", "numbat lime")
        ),
    )
    .unwrap();
    env.index(&cfg);
    assert!(env.open().vaulted().unwrap().is_empty());
    assert_eq!(count(&env.open(), "kiwi"), 1);
    assert_eq!(
        count(&env.open(), "papaya"),
        0,
        "a replaced file is read again whole"
    );
}

#[test]
fn bad_bytes_cost_only_their_line_wherever_they_are() {
    let env = Env::new();
    write(&env.ambry().join("good.jsonl"), &line("user", "juliet"));
    // Invalid UTF-8 in the very first line (kept, that character lost), a NUL (a line that is not
    // JSON), then valid lines: the file is a transcript.
    let mut mixed =
        b"{\"ts\":\"2026-06-01T10:00:00Z\",\"role\":\"user\",\"text\":\"caf\xe9\"}\n".to_vec();
    mixed.extend_from_slice(b"{\"role\":\"user\",\"text\":\"nul\0here\"}\n");
    mixed.extend_from_slice(line("user", "kilo").as_bytes());
    mixed.extend_from_slice(line("assistant", "lima").as_bytes());
    fs::write(env.ambry().join("mixed.jsonl"), &mixed).unwrap();
    let mut bin = vec![0u8, 159, 146, 150, 0, 1, 2];
    bin.extend(std::iter::repeat_n(0xffu8, 5000));
    fs::write(env.ambry().join("blob.jsonl"), &bin).unwrap();
    fs::write(
        env.ambry().join("noise.jsonl"),
        "lorem ipsum\nnot json at all\n\n",
    )
    .unwrap();
    let s = env.index(&SessionsConfig::default());
    assert_eq!(s.messages_indexed, 4, "juliet, caf\u{fffd}, kilo and lima");
    assert_eq!(s.malformed_lines, 3);
    assert_eq!(count(&env.open(), "kilo"), 1);
    let mut named: Vec<(String, u64)> = s
        .problems
        .iter()
        .map(|p| {
            (
                p.path.file_name().unwrap().to_string_lossy().into_owned(),
                p.malformed_lines,
            )
        })
        .collect();
    named.sort();
    assert_eq!(
        named,
        vec![
            ("mixed.jsonl".to_string(), 1),
            ("noise.jsonl".to_string(), 2)
        ]
    );
    let s = env.index(&SessionsConfig::default());
    assert_eq!(
        (s.files_indexed, s.malformed_lines),
        (0, 0),
        "unchanged files are not re-read"
    );
    // doctor names the files with skipped lines.
    let checks = ambry_core::sessions::session_checks(&env.home.index_db());
    let warning = checks
        .iter()
        .map(|c| c.detail.clone())
        .find(|d| d.contains("malformed"))
        .expect("a doctor warning");
    assert!(
        warning.contains("mixed.jsonl") && warning.contains("noise.jsonl"),
        "{warning}"
    );
}

#[test]
fn an_unreadable_transcript_is_reported_and_the_rest_indexed() {
    let env = Env::new();
    write(&env.ambry().join("a.jsonl"), &line("user", "mike"));
    // A symlink to itself cannot be opened by anyone, root included (mode 000 would not stop root).
    let unreadable = env.ambry().join("b.jsonl");
    std::os::unix::fs::symlink(&unreadable, &unreadable).unwrap();
    let s = env.index(&SessionsConfig::default());
    assert_eq!(s.messages_indexed, 1);
    assert_eq!(count(&env.open(), "mike"), 1);
    assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
    assert_eq!(s.problems[0].path, unreadable);
    assert!(
        s.problems[0]
            .error
            .as_deref()
            .unwrap()
            .contains("symbolic links"),
        "{:?}",
        s.problems
    );
    fs::remove_file(&unreadable).unwrap();
    write(&unreadable, &line("user", "november"));
    let s = env.index(&SessionsConfig::default());
    assert_eq!(
        (s.messages_indexed, s.problems.len()),
        (1, 0),
        "readable now: indexed on the next run"
    );
}

#[test]
fn concurrent_indexers_never_store_a_message_twice() {
    let env = Env::new();
    for f in 0..40 {
        let text: String = (0..200)
            .map(|m| line("user", &format!("s{f} m{m} quebec")))
            .collect();
        write(&env.ambry().join(format!("s{f}.jsonl")), &text);
    }
    let (db, roots) = (env.home.index_db(), env.roots.clone());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (db, roots) = (db.clone(), roots.clone());
            std::thread::spawn(move || {
                let mut index = SessionIndex::open(&db).unwrap();
                index
                    .index(&roots, &SessionsConfig::default(), None, NOW, &mut |_| {})
                    .unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM session_messages", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 40 * 200);
    assert_eq!(env.fts_rows("quebec"), 40 * 200);
}

#[test]
fn duplicates_left_by_an_older_version_are_removed_by_the_migration() {
    let env = Env::new();
    write(
        &env.ambry().join("a.jsonl"),
        &format!("{}{}", line("user", "romeo"), line("user", "sierra")),
    );
    env.index(&SessionsConfig::default());
    {
        let conn = rusqlite::Connection::open(env.home.index_db()).unwrap();
        conn.execute_batch(
            "INSERT INTO session_messages(file_id, role, ts, text) SELECT file_id, role, ts, text FROM session_messages;
             INSERT INTO session_fts(rowid, text) SELECT id, text FROM session_messages WHERE id > 2;
             ALTER TABLE session_files DROP COLUMN malformed;
             ALTER TABLE session_files DROP COLUMN source_removed_at;
             UPDATE meta SET value = '2' WHERE key = 'sessions.schema';",
        )
        .unwrap();
    }
    assert_eq!(count(&env.open(), "romeo"), 1);
    assert_eq!(env.fts_rows("romeo"), 1);
    let conn = rusqlite::Connection::open(env.home.index_db()).unwrap();
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM session_messages", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 2);
}

#[test]
fn a_corrupt_database_is_rebuilt_and_a_locked_one_is_reported() {
    let env = Env::new();
    env.fixture();
    fs::create_dir_all(env.home.root()).unwrap();
    let damaged = b"SQLite format 2\0 but then nonsense".repeat(300);
    fs::write(env.home.index_db(), &damaged).unwrap();
    let s = env.index(&SessionsConfig::default());
    assert_eq!(s.sessions as usize, session_fixture::SESSIONS.len());
    assert!(!env.recall("pgbouncer").is_empty());
    // The damaged file may hold the only copy of vaulted transcripts: set aside, byte for byte,
    // and named by the doctor.
    let kept = env.home.root().join("index.sqlite.corrupt-1");
    assert_eq!(fs::read(&kept).unwrap(), damaged);
    let checks = ambry_core::sessions::session_checks(&env.home.index_db());
    assert!(
        checks
            .iter()
            .any(|c| c.detail.contains("set aside")
                && c.detail.contains(&kept.display().to_string())),
        "{checks:?}"
    );

    let other = rusqlite::Connection::open(env.home.index_db()).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    write(&env.ambry().join("new.jsonl"), &line("user", "kilo"));
    let err = env
        .open()
        .index(
            &env.roots,
            &SessionsConfig::default(),
            None,
            NOW,
            &mut |_| {},
        )
        .unwrap_err();
    assert!(matches!(err, SessionError::Busy { .. }), "{err:?}");
    assert_eq!(err.code(), "session_index_busy");
    assert!(err.to_string().contains("try again"), "{err}");
    other.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn sources_can_be_limited_and_switched_off() {
    let env = Env::new();
    env.fixture();
    let mut index = env.open();
    let mut seen = Vec::new();
    let s = index
        .index(
            &env.roots,
            &SessionsConfig::default(),
            Some(SourceKind::Codex),
            NOW,
            &mut |p| seen.push((p.source, p.done, p.total)),
        )
        .unwrap();
    assert!(s.files > 0);
    assert_eq!(seen.len() as u64, s.files, "progress once per file");
    assert!(seen
        .iter()
        .all(|(source, _, total)| *source == SourceKind::Codex && *total == s.files));
    assert_eq!(seen.last().map(|p| p.1), Some(s.files));
    assert!(index
        .sessions(None, 100)
        .unwrap()
        .iter()
        .all(|m| m.source == SourceKind::Codex));
    index
        .index(
            &env.roots,
            &SessionsConfig::default(),
            None,
            NOW,
            &mut |_| {},
        )
        .unwrap();
    let only_claude = SessionsConfig {
        sources: vec![SourceKind::Claude],
        ..Default::default()
    };
    let s = index
        .index(&env.roots, &only_claude, None, NOW, &mut |_| {})
        .unwrap();
    assert!(s.files_removed > 0);
    let all = index.sessions(None, 100).unwrap();
    assert!(!all.is_empty() && all.iter().all(|m| m.source == SourceKind::Claude));
}

#[test]
fn recall_speaks_fts5_and_plain_questions() {
    let env = Env::new();
    env.fixture();
    env.index(&SessionsConfig::default());
    let index = env.open();
    let ids = |q: RecallQuery| -> Vec<String> {
        index
            .recall(&q)
            .unwrap()
            .into_iter()
            .map(|h| h.session_id)
            .collect()
    };

    // OR, phrase and prefix syntax reach FTS5 unchanged.
    let either = ids(RecallQuery::new("pgbouncer OR distroless"));
    assert!(
        either.contains(&"c-pgbouncer".to_string())
            && either.contains(&"x-docker-slim".to_string()),
        "{either:?}"
    );
    assert_eq!(
        ids(RecallQuery::new("\"token bucket\"")),
        vec!["n-rate-limit"]
    );
    assert!(
        ids(RecallQuery::new("\"bucket token\"")).is_empty(),
        "a phrase is not widened into words"
    );
    assert!(ids(RecallQuery::new("pgbounc*")).contains(&"c-pgbouncer".to_string()));
    // Stemming: "migrations" finds "migration", "decided" finds "decide" forms.
    assert!(ids(RecallQuery::new("migrations")).contains(&"x-orders-index".to_string()));

    // Syntax errors are retried sanitized instead of failing.
    assert!(ids(RecallQuery::new("\"token bucket")).contains(&"n-rate-limit".to_string()));
    assert!(ids(RecallQuery::new("note: pgbouncer")).contains(&"c-pgbouncer".to_string()));
    assert!(ids(RecallQuery::new("(((")).is_empty());

    // A question whose words are not all in the session still finds it, first.
    let hits = index
        .recall(&RecallQuery::new(
            "when did we decide to drop the Redis cache?",
        ))
        .unwrap();
    assert_eq!(hits[0].session_id, "c-redis-drop", "{hits:#?}");
    assert!(hits[0].widened);
    assert!(
        hits[0].snippet.contains("[Redis]") || hits[0].snippet.contains("[redis]"),
        "{}",
        hits[0].snippet
    );
    assert!(hits[0].snippet_parts.iter().any(|p| p.hit));
    assert_eq!(hits[0].score, 1.0);
    assert!(
        hits.windows(2).all(|w| w[0].score >= w[1].score),
        "scores fall with rank"
    );

    // Strict hits rank above widened ones.
    let hits = index
        .recall(&RecallQuery::new("redis materialized"))
        .unwrap();
    assert!(!hits[0].widened);
    assert!(hits.iter().skip_while(|h| !h.widened).all(|h| h.widened));

    // Filters.
    let q = RecallQuery {
        source: Some(SourceKind::Ambry),
        ..RecallQuery::new("memory")
    };
    assert!(index
        .recall(&q)
        .unwrap()
        .iter()
        .all(|h| h.source == SourceKind::Ambry));
    let q = RecallQuery {
        cwd_prefix: Some("/home/dev/infra".into()),
        ..RecallQuery::new("lock OR memory")
    };
    let hits = index.recall(&q).unwrap();
    assert!(
        !hits.is_empty()
            && hits
                .iter()
                .all(|h| h.cwd.as_deref() == Some("/home/dev/infra")),
        "{hits:#?}"
    );
    let q = RecallQuery {
        cwd_prefix: Some("/home/dev/inf".into()),
        ..RecallQuery::new("lock")
    };
    assert!(
        index.recall(&q).unwrap().is_empty(),
        "a prefix matches whole directories only"
    );
    let q = RecallQuery {
        limit: 2,
        ..RecallQuery::new("the")
    };
    assert!(index.recall(&q).unwrap().len() <= 2);
}

#[test]
fn sessions_and_transcripts_read_back() {
    let env = Env::new();
    env.fixture();
    env.index(&SessionsConfig::default());
    let index = env.open();
    let all = index.sessions(None, 100).unwrap();
    assert_eq!(all.len(), session_fixture::SESSIONS.len());
    assert!(
        all.windows(2).all(|w| w[0].last_ts >= w[1].last_ts),
        "newest first"
    );
    let t = index.transcript("x-jwt-rotation").unwrap();
    assert_eq!(
        t.meta.title.as_deref(),
        Some("Users get logged out randomly; I think the refresh token rotation is broken")
    );
    // Codex's environment block is agent context, shown apart from what was said.
    let context: Vec<(&str, Option<&str>)> = t
        .turns
        .iter()
        .filter(|t| t.role == "context")
        .map(|t| (t.text.as_str(), t.label.as_deref()))
        .collect();
    assert!(
        context
            .iter()
            .all(|(_, label)| *label == Some("Environment")),
        "{context:?}"
    );
    let said: Vec<&str> = t
        .turns
        .iter()
        .filter(|t| t.role != "tool" && t.role != "context")
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(
        said,
        session_fixture::SESSIONS
            .iter()
            .find(|s| s.id == "x-jwt-rotation")
            .unwrap()
            .turns
    );
    assert!(
        t.turns.iter().any(|t| t.role == "tool"),
        "the transcript shows tool turns"
    );
    let err = index.transcript("nope").unwrap_err();
    assert_eq!(err.code(), "session_not_found");
}

/// Recall quality on labeled questions: Hit@1, Hit@3 and MRR at the session level.
#[test]
fn recall_quality_gate() {
    let env = Env::new();
    env.fixture();
    env.index(&SessionsConfig::default());
    let index = env.open();
    let (mut hit1, mut hit3, mut rr) = (0.0, 0.0, 0.0);
    for (question, expected) in session_fixture::QUESTIONS {
        let hits = index.recall(&RecallQuery::new(*question)).unwrap();
        let mut sessions: Vec<&str> = Vec::new();
        for h in &hits {
            if !sessions.contains(&h.session_id.as_str()) {
                sessions.push(&h.session_id);
            }
        }
        let rank = sessions.iter().position(|s| s == expected);
        eprintln!(
            "{:>5}  {question:<55} → {:?}",
            rank.map(|r| (r + 1).to_string()).unwrap_or("-".into()),
            sessions.first()
        );
        if let Some(r) = rank {
            hit1 += (r == 0) as u8 as f64;
            hit3 += (r < 3) as u8 as f64;
            rr += 1.0 / (r as f64 + 1.0);
        }
    }
    let n = session_fixture::QUESTIONS.len() as f64;
    let (hit1, hit3, mrr) = (hit1 / n, hit3 / n, rr / n);
    println!("session recall on {n} questions: Hit@1 {hit1:.3}  Hit@3 {hit3:.3}  MRR {mrr:.3}");
    assert!(session_fixture::QUESTIONS.len() >= 20);
    assert!(
        hit1 >= HIT1_FLOOR,
        "Hit@1 {hit1:.3} fell below {HIT1_FLOOR}"
    );
    assert!(
        hit3 >= HIT3_FLOOR,
        "Hit@3 {hit3:.3} fell below {HIT3_FLOOR}"
    );
    assert!(mrr >= MRR_FLOOR, "MRR {mrr:.3} fell below {MRR_FLOOR}");
}

// Measured with sessions ranked as sessions: Hit@1 0.923, Hit@3 1.000, MRR 0.955 (26 questions;
// message-level ranking had 0.962 / 1.000 / 0.974: "speed up the CI pipeline cargo build" now
// finds its session third, behind two that say "CI" more often). One more miss fails the gate.
const HIT1_FLOOR: f64 = 0.92;
const HIT3_FLOOR: f64 = 0.96;
const MRR_FLOOR: f64 = 0.95;

#[test]
fn the_watcher_indexes_appends_and_new_roots() {
    let env = Env::new();
    let path = env.ambry().join("w1.jsonl");
    write(&path, &line("user", "lima"));
    let changes: Arc<Mutex<Vec<SessionChange>>> = Arc::default();
    let sink = changes.clone();
    let cfg = SessionsConfig::default();
    let watcher = SessionWatcher::start(
        env.home.index_db(),
        env.roots.clone(),
        cfg,
        Box::new(|| NOW + 60),
        Box::new(move |c| sink.lock().unwrap().push(c)),
    )
    .unwrap();
    let wait_for = |what: &str, check: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !check() {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; changes: {:?}",
                changes.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_for("the catch-up run", &|| count(&env.open(), "lima") == 1);

    append(&path, &line("assistant", "mike nectarine"));
    wait_for("the append", &|| count(&env.open(), "nectarine") == 1);
    assert!(changes.lock().unwrap().iter().any(|c| matches!(c, SessionChange::Indexed { session_id, messages: 1, .. } if session_id == "w1")));

    // The Codex root did not exist when the watcher started.
    let rollout = env
        .codex()
        .join("2026/06/01/rollout-2026-06-01T10-00-00-new.jsonl");
    let s = &session_fixture::SESSIONS[2];
    write(&rollout, &session_fixture::codex_lines(s, 0));
    wait_for("the new root", &|| count(&env.open(), "grace") >= 1);

    fs::remove_file(&path).unwrap();
    wait_for("the removal", &|| {
        changes
            .lock()
            .unwrap()
            .iter()
            .any(|c| matches!(c, SessionChange::Removed { .. }))
    });
    assert_eq!(
        count(&env.open(), "nectarine"),
        1,
        "the vault keeps a deleted transcript searchable"
    );
    let vaulted = env.open().vaulted().unwrap();
    assert_eq!(vaulted.len(), 1);
    assert_eq!(
        vaulted[0].source_removed_at,
        NOW + 60,
        "dated by the watcher's clock"
    );
    drop(watcher);
}

#[test]
fn an_index_of_the_previous_schema_is_migrated_without_losing_sessions() {
    let env = Env::new();
    let cfg = SessionsConfig::default();
    fs::create_dir_all(env.ambry()).unwrap();
    fs::write(
        env.ambry().join("old.jsonl"),
        line("user", "capybara mango"),
    )
    .unwrap();
    env.index(&cfg);
    {
        let conn = rusqlite::Connection::open(env.home.index_db()).unwrap();
        conn.execute_batch("ALTER TABLE session_files DROP COLUMN source_removed_at; ALTER TABLE session_files DROP COLUMN malformed; UPDATE meta SET value = '2' WHERE key = 'sessions.schema';").unwrap();
    }
    assert_eq!(
        count(&env.open(), "mango"),
        1,
        "schema 2 → 3 keeps the rows (vaulted sessions exist nowhere else)"
    );
    fs::remove_file(env.ambry().join("old.jsonl")).unwrap();
    env.index(&cfg);
    assert_eq!(env.open().vaulted().unwrap().len(), 1);
}

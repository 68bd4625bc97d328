//! The index file across versions and damage: migrations that keep the vault, a corrupt file
//! rebuilt, a locked one reported.

use super::*;

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
    let checks = ambry_sessions::sessions::session_checks(&env.home.index_db());
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

//! Secrets in transcripts (DESIGN §3): indexed and shown masked through every workspace call
//! the CLI, MCP and the app use, an index an older version wrote is masked when opened, and
//! `doctor` names the sessions whose transcripts hold them, never the secret.

use std::path::Path;

use ambry_core::IndexRequest;
use ambry_core::{AmbryHome, LaunchEnv, Workspace};
use ambry_sessions::sessions::RecallQuery;
use ambry_store::doctor::Status;

const AWS_KEY: &str = "AKIAZ3MXQ7V2LPRT4K9B";
const GH_TOKEN: &str = "ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R";
const GH_TAIL: &str = "4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R";

fn line(role: &str, text: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": role, "text": text})
    )
}

fn workspace(root: &Path) -> (Workspace, AmbryHome) {
    let home = AmbryHome::new(root.join("home"));
    let ws = Workspace::new(
        home.clone(),
        LaunchEnv::with_models_dir(root.join("no-models")),
    );
    (ws, home)
}

fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp(1_780_000_000, 0).unwrap()
}

fn write_transcript(home: &AmbryHome) {
    let transcript = home.sessions_dir().join("leaky.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::write(
        &transcript,
        format!(
            "{}{}",
            line("user", &format!("deploy the zebra service with {GH_TOKEN}")),
            line(
                "assistant",
                &format!("the zebra bucket uses key id {AWS_KEY} and PGPASSWORD=Xk9mP2qL7wZ4")
            ),
        ),
    )
    .unwrap();
}

/// Everything a person or an agent can be shown about sessions, as one text.
fn everything_shown(ws: &Workspace, query: &str) -> String {
    let (hits, _) = ws.recall(&RecallQuery::new(query), true, now()).unwrap();
    assert!(!hits.is_empty(), "{query} is found");
    let mut shown = serde_json::to_string(&hits).unwrap();
    for meta in ws.sessions(None, 100).unwrap() {
        shown.push_str(&serde_json::to_string(&meta).unwrap());
        shown.push_str(&serde_json::to_string(&ws.transcript(&meta.session_id).unwrap()).unwrap());
    }
    shown
}

/// Message `id`, stored masked, rewritten `verbatim` (with its full-text row), as an index of an
/// older version or older rules holds it.
fn store_verbatim(conn: &rusqlite::Connection, id: i64, masked: &str, verbatim: &str) {
    conn.execute(
        "INSERT INTO session_fts(session_fts, rowid, text) VALUES ('delete', ?1, ?2)",
        rusqlite::params![id, masked],
    )
    .unwrap();
    conn.execute(
        "UPDATE session_messages SET text = ?2 WHERE id = ?1",
        rusqlite::params![id, verbatim],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO session_fts(rowid, text) VALUES (?1, ?2)",
        rusqlite::params![id, verbatim],
    )
    .unwrap();
}

fn assert_masked(shown: &str) {
    for secret in [AWS_KEY, GH_TAIL, "Xk9mP2qL7wZ4"] {
        assert!(!shown.contains(secret), "{secret} shown verbatim: {shown}");
    }
    assert!(shown.contains("[secret masked: GitHub token]"), "{shown}");
}

#[test]
fn recall_show_and_the_list_mask_transcript_secrets_and_doctor_names_the_session() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, home) = workspace(tmp.path());
    write_transcript(&home);
    // Queries that match the words around the secrets, the keys and the masks' own words.
    for query in ["zebra", "PGPASSWORD", "key id", "github token"] {
        assert_masked(&everything_shown(&ws, query));
    }
    for secret in [AWS_KEY, GH_TAIL, "Xk9mP2qL7wZ4"] {
        let (hits, _) = ws.recall(&RecallQuery::new(secret), false, now()).unwrap();
        assert!(hits.is_empty(), "{secret} is not in the index: {hits:?}");
    }
    let checks = ws.doctor(None);
    let reported: Vec<_> = checks
        .iter()
        .filter(|c| c.detail.contains("secrets in their transcripts"))
        .collect();
    assert_eq!(reported.len(), 1, "{checks:#?}");
    assert_eq!(reported[0].status, Status::Warn);
    let session = &ws.sessions(None, 10).unwrap()[0].session_id;
    assert!(
        reported[0].detail.contains(session.as_str()),
        "{reported:?}"
    );
    assert!(
        reported[0].detail.starts_with("1 session(s)"),
        "{reported:?}"
    );
    assert!(!reported[0].detail.contains(GH_TAIL));
}

/// An index written before masking holds the secrets verbatim: doctor (read-only) still finds
/// them, and the next open masks them in place — the vaulted session whose transcript is gone
/// included, since nothing can read it again.
#[test]
fn an_index_an_older_version_wrote_is_masked_when_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, home) = workspace(tmp.path());
    write_transcript(&home);
    ws.index_sessions(&IndexRequest::default(), now(), &mut |_| {})
        .unwrap();
    // As an older version stored it: verbatim text, schema 5, and the transcript since deleted.
    {
        let conn = rusqlite::Connection::open(home.index_db()).unwrap();
        let rows: Vec<(i64, String)> = conn
            .prepare("SELECT id, text FROM session_messages")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for (id, masked) in rows {
            let verbatim = masked
                .replace("[secret masked: GitHub token]", GH_TOKEN)
                .replace("[secret masked: AWS access key id]", AWS_KEY);
            store_verbatim(&conn, id, &masked, &verbatim);
        }
        conn.execute(
            "UPDATE session_files SET first_prompt = ?1",
            [format!("deploy the zebra service with {GH_TOKEN}")],
        )
        .unwrap();
        conn.execute(
            "UPDATE meta SET value = '5' WHERE key = 'sessions.schema'",
            [],
        )
        .unwrap();
    }
    std::fs::remove_file(home.sessions_dir().join("leaky.jsonl")).unwrap();
    let before = ws.doctor(None);
    assert!(
        before
            .iter()
            .any(|c| c.detail.starts_with("1 session(s) have secrets")),
        "doctor finds verbatim secrets in an old index: {before:#?}"
    );
    let shown = everything_shown(&ws, "zebra");
    assert_masked(&shown);
    let (hits, _) = ws.recall(&RecallQuery::new(GH_TAIL), false, now()).unwrap();
    assert!(
        hits.is_empty(),
        "the secret's own value is no longer in the index: {hits:?}"
    );
}

/// Forms the rules first missed — a password handed to a command, a key block pasted on one
/// line — are masked in a transcript wherever it is shown, as a save refuses them; and an index
/// written under the older rules (schema 6, the values verbatim) is masked again when opened.
#[test]
fn passwords_on_command_lines_and_one_line_keys_are_masked_in_new_and_old_indexes() {
    const FORMS: [(&str, &str); 4] = [
        ("mysql -u root -pS3cretPass123 app", "S3cretPass123"),
        ("curl -u admin:P4ssw0rd-2024x https://api.internal/health", "P4ssw0rd-2024x"),
        ("sshpass -p 'Wint3r!2024x' ssh deploy@bastion", "Wint3r!2024x"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQ -----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
        ),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let (ws, home) = workspace(tmp.path());
    let transcript = home.sessions_dir().join("walrus.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let text: String = FORMS
        .iter()
        .map(|(form, _)| line("assistant", &format!("walrus step: {form}")))
        .collect();
    std::fs::write(
        &transcript,
        format!("{}{text}", line("user", "walrus deploy")),
    )
    .unwrap();
    let assert_none_shown = |ws: &Workspace| {
        let shown = everything_shown(ws, "walrus");
        for (form, value) in FORMS {
            assert!(!shown.contains(value), "{form} shown verbatim: {shown}");
        }
        assert!(
            shown.contains("[secret masked: password on a command line]"),
            "{shown}"
        );
        assert!(shown.contains("[secret masked: private key]"), "{shown}");
    };
    assert_none_shown(&ws);

    // As the older rules stored it: the values verbatim under schema 6.
    {
        let conn = rusqlite::Connection::open(home.index_db()).unwrap();
        let rows: Vec<(i64, String)> = conn
            .prepare("SELECT id, text FROM session_messages WHERE role = 'assistant'")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows.len(), FORMS.len());
        for ((id, masked), (form, _)) in rows.into_iter().zip(FORMS) {
            store_verbatim(&conn, id, &masked, &format!("walrus step: {form}"));
        }
        conn.execute(
            "UPDATE meta SET value = '6' WHERE key = 'sessions.schema'",
            [],
        )
        .unwrap();
    }
    std::fs::remove_file(&transcript).unwrap();
    let (ws, _) = workspace(tmp.path());
    assert_none_shown(&ws);
}

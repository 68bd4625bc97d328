//! Reading the index back: recall with FTS5 syntax and plain questions, the session list and
//! transcripts, and the recall quality gate.

use super::*;

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

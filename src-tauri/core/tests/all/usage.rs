//! Usage (DESIGN §14) on a temporary home: a replayed agent session's injections, an agent's
//! fetch and a person's edit are counted per memory; the counts match the injection ledger,
//! survive an index rebuild, and feed the review's unused finding.

use std::collections::HashMap;

use ambry_compose::compose::hook::{ContextEvent, ContextRequest};
use ambry_compose::ledger::{Form, Ledger};
use ambry_compose::usage::UseKind;
use ambry_core::{AmbryHome, Reader, Workspace};
use ambry_lifecycle::lifecycle::Finding;
use ambry_rank::rank::Gate;
use ambry_store::memory::{MemoryDraft, Scope, ScopeFilter};
use chrono::{DateTime, Duration, TimeZone, Utc};

fn day(n: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 9, 0, 0).unwrap() + Duration::days(n)
}

fn hook(event: ContextEvent, prompt: &str, source: Option<&str>) -> ContextRequest {
    ContextRequest {
        event,
        prompt: prompt.into(),
        source: source.map(str::to_string),
        session_id: Some("replayed-session".into()),
        agent: Some("claude".into()),
        record: true,
        transcript: None,
    }
}

#[test]
fn usage_counts_match_the_ledger_after_a_replayed_session_and_survive_an_index_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path().join("home"));
    let ws = Workspace::with_models(home.clone(), tmp.path().join("no-models"));
    let store = ws.place_of(None).unwrap();
    for (name, description, body) in [
        (
            "staging-deploy",
            "Deploying to staging",
            "Run make deploy-staging; it builds the image and rolls the staging cluster.",
        ),
        (
            "sqlx-migrations",
            "Database migrations with sqlx",
            "Create migrations with sqlx migrate add and apply them with sqlx migrate run.",
        ),
        (
            "fish-shell",
            "The login shell is fish",
            "Snippets to paste use fish syntax: set -x VAR value.",
        ),
        (
            "gpg-signing",
            "Commits are signed",
            "git config commit.gpgsign true on every machine.",
        ),
    ] {
        let draft = MemoryDraft {
            name: name.into(),
            kind: "project".into(),
            description: description.into(),
            body: body.into(),
            tags: vec![],
        };
        ws.create(&store, Scope::User, draft, day(0)).unwrap();
    }

    // The session: a start, turns (one repeating what the context holds), a compaction, turns.
    let mut clock = day(95);
    let mut tick = || {
        clock += Duration::minutes(1);
        clock
    };
    for request in [
        hook(ContextEvent::SessionStart, "", Some("startup")),
        hook(
            ContextEvent::Turn,
            "how do I deploy to staging with make deploy-staging",
            None,
        ),
        hook(ContextEvent::Turn, "deploy to staging again please", None),
        hook(ContextEvent::SessionStart, "", Some("compact")),
        hook(
            ContextEvent::Turn,
            "deploy staging: make deploy-staging",
            None,
        ),
        hook(
            ContextEvent::Turn,
            "add a sqlx migration and run sqlx migrate run",
            None,
        ),
    ] {
        ws.compose_context(&store, &request, Gate::CALIBRATED, tick())
            .unwrap();
    }
    // An agent fetched one memory (a read that counts as a use); a person edited another.
    let fetched = ws
        .read_memory(&store, None, "fish-shell", Reader::Agent, tick())
        .unwrap();
    assert_eq!(fetched.name, "fish-shell");
    ws.record_use(
        &store,
        Scope::User,
        "sqlx-migrations",
        UseKind::Edited,
        None,
        tick(),
    );

    let mut from_ledger: HashMap<String, (u64, DateTime<Utc>)> = HashMap::new();
    for i in Ledger::open(&home).unwrap().injections(None, None).unwrap() {
        if i.form == Form::Body {
            let e = from_ledger
                .entry(i.memory.name.clone())
                .or_insert((0, i.at));
            e.0 += 1;
            e.1 = e.1.max(i.at);
        }
    }
    assert_eq!(
        from_ledger.get("staging-deploy").map(|e| e.0),
        Some(2),
        "given once per context: {from_ledger:?}"
    );
    assert!(
        from_ledger.contains_key("sqlx-migrations"),
        "{from_ledger:?}"
    );

    let now = day(96);
    let check = |label: &str| {
        let rows = ws.list_with_usage(&store, ScopeFilter::All, now).unwrap();
        for row in &rows {
            let injected = from_ledger.get(&row.name).copied();
            let other = u64::from(matches!(
                row.name.as_str(),
                "fish-shell" | "sqlx-migrations"
            ));
            assert_eq!(
                row.uses_30d,
                injected.map_or(0, |e| e.0) + other,
                "{label}: {} counts {} uses",
                row.name,
                row.uses_30d
            );
            if let (Some((_, last)), false) = (injected, row.name == "sqlx-migrations") {
                assert_eq!(row.last_used, Some(last), "{label}: {}", row.name);
            }
        }
        let unused = rows.iter().find(|r| r.name == "gpg-signing").unwrap();
        assert_eq!((unused.uses_30d, unused.last_used), (0, None), "{label}");
    };
    check("after the session");

    // The index is derived data: removing it loses no usage.
    for f in std::fs::read_dir(home.root()).unwrap().flatten() {
        if f.file_name().to_string_lossy().starts_with("index.sqlite") {
            std::fs::remove_file(f.path()).unwrap();
        }
    }
    check("after the index was removed");

    // 96 days after they were written, only the memory no agent was given or fetched is unused.
    let unused: Vec<String> = ws
        .review(&store, now)
        .unwrap()
        .iter()
        .filter_map(|f| match f {
            Finding::Unused { memory, .. } => Some(memory.name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(unused, vec!["gpg-signing".to_string()]);
}

//! The review's "needs when" finding (DESIGN §5) on replayed sessions: a memory without `when`
//! that an agent fetched before its session was given it is listed with the prompt it answered;
//! one given first, or one that says when, is not; saying when takes it off the list.

use super::*;
use ambry_core::Finding;
use ambry_store::memory::RuleEdit;

/// One Claude Code transcript line.
fn line(session: &str, cwd: &str, second: u32, message: serde_json::Value) -> String {
    let role = message["role"].as_str().unwrap().to_string();
    serde_json::json!({"type": role, "sessionId": session, "cwd": cwd,
                       "timestamp": format!("2026-11-01T09:00:{second:02}Z"), "message": message})
    .to_string()
}

fn user(text: &str) -> serde_json::Value {
    serde_json::json!({"role": "user", "content": text})
}

fn call(tool: &str, input: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": tool, "input": input}]})
}

/// A fetch as the finding shows it: (session, agent, the prompt it answered).
type Seen = (String, String, Option<String>);

#[test]
fn a_memory_fetched_before_its_session_was_given_it_asks_to_say_when() {
    let tmp = tempfile::tempdir().unwrap();
    let me = tmp.path().join("me");
    let env = LaunchEnv::from_lookup(|_| None, Some(me.clone()));
    let ws = Arc::new(Workspace::new(AmbryHome::new(tmp.path().join("home")), env));
    let project = repo(&tmp.path().join("repo"));
    let store = ws.place_at(&project);
    let save = |name: &str, description: &str, body: &str, when: Option<&[String]>| {
        ws.save_ruled_when(
            &store,
            Scope::Project,
            draft(name, description, body),
            &RuleEdit::Keep,
            when,
            at(0),
        )
        .unwrap();
    };
    save(
        "use-pnpm",
        "Installing dependencies in this repo",
        "Never run `npm install` here; use `pnpm install` (the lockfile is pnpm's).",
        None,
    );
    save(
        "db-pool",
        "Connection pool sizing",
        "The worker's Postgres pool is 20 connections; raise pgbouncer's default_pool_size with it.",
        None,
    );
    save(
        "deploy-steps",
        "How a release is shipped",
        "Tag, then `make release`; never deploy on Fridays.",
        Some(&["shipping a release".to_string()]),
    );
    let cwd = project.display().to_string();
    for session in ["missed-1", "given-1"] {
        let composed = ws
            .compose_at(
                &project,
                &turn(session, "install the left-pad dependency"),
                at(1),
            )
            .unwrap();
        let names: Vec<_> = composed.selected.iter().map(|s| s.name.as_str()).collect();
        assert!(
            names.contains(&"use-pnpm") && !names.contains(&"db-pool"),
            "the turn was given use-pnpm and not db-pool: {names:?}"
        );
    }
    let transcripts = [
        (
            "missed-1",
            vec![
                line("missed-1", &cwd, 1, user("install the left-pad dependency")),
                line(
                    "missed-1",
                    &cwd,
                    20,
                    user("and bump the worker's pool size"),
                ),
                line(
                    "missed-1",
                    &cwd,
                    30,
                    call(
                        "mcp__ambry__memory_get",
                        serde_json::json!({"name": "db-pool"}),
                    ),
                ),
                line(
                    "missed-1",
                    &cwd,
                    31,
                    call(
                        "Bash",
                        serde_json::json!({"command": "ambry memory get deploy-steps"}),
                    ),
                ),
            ],
        ),
        (
            "given-1",
            vec![
                line("given-1", &cwd, 1, user("install the left-pad dependency")),
                line(
                    "given-1",
                    &cwd,
                    30,
                    call(
                        "mcp__ambry__memory_get",
                        serde_json::json!({"name": "use-pnpm"}),
                    ),
                ),
            ],
        ),
    ];
    let dir = me.join(".claude/projects/-repo");
    std::fs::create_dir_all(&dir).unwrap();
    for (session, lines) in transcripts {
        std::fs::write(
            dir.join(format!("{session}.jsonl")),
            lines.join("\n") + "\n",
        )
        .unwrap();
    }
    ws.index_sessions(&Default::default(), at(40), &mut |_| {})
        .unwrap();

    let needs_when = |now| -> Vec<(String, Vec<Seen>)> {
        ws.review(&store, now)
            .unwrap()
            .into_iter()
            .filter_map(|f| match f {
                Finding::NeedsWhen {
                    memory, fetches, ..
                } => Some((
                    memory.name,
                    fetches
                        .into_iter()
                        .map(|f| (f.session_id, f.agent, f.fetch.prompt))
                        .collect(),
                )),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        needs_when(at(50)),
        [(
            "db-pool".to_string(),
            vec![(
                "missed-1".to_string(),
                "claude".to_string(),
                Some("and bump the worker's pool size".to_string())
            )]
        )],
        "use-pnpm was given before it was fetched; deploy-steps says when"
    );

    let said = ws
        .review_when(
            &store,
            Scope::Project,
            "db-pool",
            &["bumping the worker's DB pool size".to_string()],
            at(55),
        )
        .unwrap();
    assert_eq!(said.lifecycle.when, ["bumping the worker's DB pool size"]);
    assert!(said
        .body
        .starts_with("The worker's Postgres pool is 20 connections"));
    assert_eq!(said.description, "Connection pool sizing");
    assert!(needs_when(at(56)).is_empty(), "it says when now");
}

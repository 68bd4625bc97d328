//! Memories with teeth (DESIGN §16) through the workspace: which calls a memory's rule catches,
//! what the ledger keeps of it, who may turn a rule on, and a rule run over past sessions.

use super::*;
use ambry_compose::enforce::{Decision, ToolCall};
use ambry_core::ToolCheck;
use ambry_core::{ContextEvent, ContextRequest};
use ambry_store::memory::{Enforce, RuleAction, RuleEdit, RuleStatus};

fn rule(pattern: &str, action: RuleAction) -> RuleEdit {
    RuleEdit::Set(Enforce::new(vec!["Bash".into()], pattern, action))
}

fn bash(command: &str, session: Option<&str>) -> ToolCheck {
    ToolCheck {
        call: ToolCall::from_hook("Bash", &serde_json::json!({ "command": command })),
        session_id: session.map(str::to_string),
        agent: Some("claude".into()),
        record: true,
    }
}

fn start(ws: &Workspace, cwd: &Path, session: &str, source: &str, second: u32) {
    ws.compose_at(cwd, &session_start(session, source), at(second))
        .unwrap();
}

#[test]
fn deny_refuses_with_the_memory_remind_speaks_once_per_context_and_unmatched_calls_pass() {
    let (_tmp, ws, project, store) = in_a_repository();
    ws.save_ruled(
        &store,
        Scope::Project,
        draft(
            "use-pnpm",
            "This repo uses pnpm",
            "Never npm install here: pnpm only (the lockfile is pnpm's).",
        ),
        &rule(r"\bnpm (i|install)\b", RuleAction::Deny),
        at(0),
    )
    .unwrap();
    ws.save_ruled(
        &store,
        Scope::User,
        draft(
            "migrations-reviewed",
            "Migrations",
            "Run migrations only after the dry run is reviewed.",
        ),
        &rule(r"\bmigrate\b", RuleAction::Remind),
        at(1),
    )
    .unwrap();

    let denied = ws.check_tool_call(
        &project,
        &bash("cd web && npm install left-pad", Some("s1")),
        at(2),
    );
    assert_eq!(denied.decision, Decision::Deny);
    assert!(
        denied.text.contains("use-pnpm") && denied.text.contains("pnpm only"),
        "{}",
        denied.text
    );
    let passed = ws.check_tool_call(&project, &bash("pnpm install", Some("s1")), at(3));
    assert_eq!(
        (passed.decision, passed.text.as_str()),
        (Decision::None, "")
    );

    start(&ws, &project, "s1", "startup", 4);
    let first = ws.check_tool_call(&project, &bash("./manage migrate --all", Some("s1")), at(5));
    assert_eq!(first.decision, Decision::Remind);
    assert!(first.text.contains("dry run is reviewed"), "{}", first.text);
    let again = ws.check_tool_call(&project, &bash("./manage migrate app", Some("s1")), at(6));
    assert_eq!(again.decision, Decision::None, "reminded once per context");
    // Another session's context is reminded too; a compaction starts this one over.
    let other = ws.check_tool_call(&project, &bash("./manage migrate", Some("s2")), at(7));
    assert_eq!(other.decision, Decision::Remind);
    start(&ws, &project, "s1", "compact", 8);
    let after = ws.check_tool_call(&project, &bash("./manage migrate", Some("s1")), at(9));
    assert_eq!(
        after.decision,
        Decision::Remind,
        "a new context is reminded again"
    );

    // What the rules did is in the ledger, per session.
    let checks = ws.tool_checks(Some("s1")).unwrap();
    let seen: Vec<(&str, &str)> = checks
        .iter()
        .map(|c| (c.name.as_str(), c.action.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("use-pnpm", "deny"),
            ("migrations-reviewed", "remind"),
            ("migrations-reviewed", "remind")
        ]
    );
    assert_eq!(checks[0].input, "cd web && npm install left-pad");
    assert_eq!(
        checks[0].project.as_deref(),
        store.project().map(|p| p.slug.as_str())
    );
}

#[test]
fn rules_that_are_off_proposed_retired_shadowed_or_broken_never_act() {
    let (_tmp, ws, project, store) = in_a_repository();
    let save = |name: &str, scope, edit: &RuleEdit, second| {
        ws.save_ruled(
            &store,
            scope,
            draft(name, "d", "body of the memory"),
            edit,
            at(second),
        )
        .unwrap();
    };
    save("off", Scope::User, &rule("alpha", RuleAction::Deny), 0);
    ws.set_rule_status(&store, Some(Scope::User), "off", RuleStatus::Off, at(1))
        .unwrap();
    let proposed = ws
        .agent_rule_edit(
            &store,
            Scope::User,
            "proposed",
            Some(Enforce::new(vec!["Bash".into()], "alpha", RuleAction::Deny)),
        )
        .unwrap();
    save("proposed", Scope::User, &proposed, 2);
    save("retired", Scope::User, &rule("alpha", RuleAction::Deny), 3);
    ws.review_supersede(&store, Scope::User, "retired", "off", at(4))
        .unwrap();
    // The project's memory of the same name shadows the user's, rule and all.
    save("shadowed", Scope::User, &rule("alpha", RuleAction::Deny), 5);
    save("shadowed", Scope::Project, &RuleEdit::Keep, 6);
    for check in [bash("alpha", None), bash("run alpha now", Some("s"))] {
        let verdict = ws.check_tool_call(&project, &check, at(7));
        assert_eq!(verdict.decision, Decision::None, "{verdict:?}");
    }
    // A rule another tool names does not catch a shell call, and `*` catches any tool.
    save(
        "edits",
        Scope::User,
        &RuleEdit::Set(Enforce::new(vec!["Edit".into()], "alpha", RuleAction::Deny)),
        8,
    );
    assert_eq!(
        ws.check_tool_call(&project, &bash("alpha", None), at(9))
            .decision,
        Decision::None
    );
    let edit = ToolCheck {
        call: ToolCall::from_hook(
            "Edit",
            &serde_json::json!({"file_path": "/r/alpha.rs", "new_string": "x"}),
        ),
        ..bash("", None)
    };
    assert_eq!(
        ws.check_tool_call(&project, &edit, at(10)).decision,
        Decision::Deny
    );

    // A rule broken by a hand edit: the memory still loads, the call goes on, the note names it.
    let path = store.dir(Scope::User).unwrap().join("hand.md");
    std::fs::write(&path, "---\nname: hand\ntype: feedback\ndescription: d\nenforce:\n  tool: Bash\n  match: '('\n  action: deny\n---\nbody\n").unwrap();
    ws.memories_written();
    let verdict = ws.check_tool_call(&project, &bash("( alpha", None), at(11));
    assert_eq!(verdict.decision, Decision::None);
    assert!(
        verdict
            .notes
            .iter()
            .any(|n| n.contains("user/hand") && n.contains("enforce.match")),
        "{:?}",
        verdict.notes
    );
    assert!(ws.get(&store, Some(Scope::User), "hand").is_ok());
}

#[test]
fn an_agents_rule_waits_for_the_person_and_never_replaces_theirs() {
    let (_tmp, ws, project, store) = in_a_repository();
    let proposal = Enforce::new(vec!["Bash".into()], r"\byarn\b", RuleAction::Deny);
    let edit = ws
        .agent_rule_edit(&store, Scope::User, "no-yarn", Some(proposal.clone()))
        .unwrap();
    ws.save_ruled(
        &store,
        Scope::User,
        draft("no-yarn", "npm workspaces, not yarn", "We moved off yarn."),
        &edit,
        at(0),
    )
    .unwrap();
    let saved = ws.get(&store, Some(Scope::User), "no-yarn").unwrap();
    assert_eq!(
        saved.lifecycle.enforce.as_ref().unwrap().status,
        RuleStatus::Proposed
    );
    assert_eq!(
        ws.check_tool_call(&project, &bash("yarn add x", None), at(1))
            .decision,
        Decision::None
    );
    let findings = ws.review(&store, at(2)).unwrap();
    assert!(
        findings.iter().any(|f| matches!(f, ambry_core::Finding::RuleProposed { memory, .. } if memory.name == "no-yarn")),
        "the review inbox lists the proposed rule"
    );

    ws.set_rule_status(&store, None, "no-yarn", RuleStatus::On, at(3))
        .unwrap();
    assert_eq!(
        ws.check_tool_call(&project, &bash("yarn add x", None), at(4))
            .decision,
        Decision::Deny
    );
    assert!(!ws
        .review(&store, at(5))
        .unwrap()
        .iter()
        .any(|f| matches!(f, ambry_core::Finding::RuleProposed { .. })));
    // The agent proposing a different rule for it is refused; proposing the same one changes nothing.
    let other = Enforce::new(vec!["Bash".into()], r"\bnpm\b", RuleAction::Deny);
    let err = ws
        .agent_rule_edit(&store, Scope::User, "no-yarn", Some(other))
        .unwrap_err();
    assert_eq!(err.code().as_str(), "invalid_field");
    assert!(err.to_string().contains("the person set"), "{err}");
    assert_eq!(
        ws.agent_rule_edit(&store, Scope::User, "no-yarn", Some(proposal))
            .unwrap(),
        RuleEdit::Keep
    );
    // A bad rule is refused on save, naming its field, and nothing is written.
    let bad = ws
        .save_ruled(
            &store,
            Scope::User,
            draft("bad", "d", "b"),
            &rule("(", RuleAction::Deny),
            at(6),
        )
        .unwrap_err();
    assert!(bad.to_string().contains("enforce.match"), "{bad}");
    assert!(ws.get(&store, Some(Scope::User), "bad").is_err());
}

#[test]
fn a_backtest_finds_exactly_the_past_calls_a_rule_matches() {
    let tmp = tempfile::tempdir().unwrap();
    let me = tmp.path().join("me");
    let env = LaunchEnv::from_lookup(|_| None, Some(me.clone()));
    let ws = Arc::new(Workspace::new(AmbryHome::new(tmp.path().join("home")), env));
    let project = repo(&tmp.path().join("repo"));
    let store = ws.place_at(&project);
    ws.save_ruled(
        &store,
        Scope::Project,
        draft("use-pnpm", "pnpm", "pnpm only"),
        &rule(r"\bnpm (i|install)\b", RuleAction::Deny),
        at(0),
    )
    .unwrap();
    let cwd = project.display().to_string();
    let line = |i: u32, content: serde_json::Value, role: &str| {
        serde_json::json!({"type": role, "sessionId": "past-1", "cwd": cwd, "timestamp": format!("2026-10-01T10:00:{i:02}Z"),
                           "message": {"role": role, "content": content}})
        .to_string()
    };
    let tool = |i: u32, command: &str| {
        line(
            i,
            serde_json::json!([{"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {"command": command}}]),
            "assistant",
        )
    };
    let lines = [
        line(0, serde_json::json!("add left-pad"), "user"),
        tool(1, "npm install left-pad"),
        line(
            2,
            serde_json::json!([{"type": "tool_result", "tool_use_id": "t1", "content": "npm install done"}]),
            "user",
        ),
        tool(3, "pnpm install left-pad"),
        tool(4, "npm i -D vitest && npm test"),
        tool(5, "echo npm install is not run here"),
    ];
    let dir = me.join(".claude/projects/-repo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("past-1.jsonl"), lines.join("\n") + "\n").unwrap();
    ws.index_sessions(&Default::default(), at(1), &mut |_| {})
        .unwrap();

    let report = ws.rule_backtest(&store, None, "use-pnpm", None).unwrap();
    let caught: Vec<&str> = report.caught.iter().map(|c| c.input.as_str()).collect();
    // The echo is caught too: what the rule would block wrongly is what the backtest is for.
    assert_eq!(
        caught,
        [
            "npm install left-pad",
            "npm i -D vitest && npm test",
            "echo npm install is not run here"
        ]
    );
    assert_eq!(
        (report.sessions, report.calls),
        (1, 4),
        "tool outputs are not calls"
    );
    assert_eq!(report.caught[0].ts.as_deref(), Some("2026-10-01T10:00:01Z"));
    // A draft rule is tested before it is saved.
    let draft_rule = Enforce::new(vec!["Bash".into()], r"^npm i\b", RuleAction::Deny);
    let tried = ws
        .rule_backtest(&store, None, "use-pnpm", Some(&draft_rule))
        .unwrap();
    assert_eq!(tried.caught.len(), 1);
}

/// A replayed session: the memory's body entered the context, then the agent ran what it says
/// not to. The review lists it as ignored, with the call and a rule to turn on; a session that
/// followed the memory is not listed.
#[test]
fn a_memory_the_session_held_and_then_contradicted_is_listed_as_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let me = tmp.path().join("me");
    let env = LaunchEnv::from_lookup(|_| None, Some(me.clone()));
    let ws = Arc::new(Workspace::new(AmbryHome::new(tmp.path().join("home")), env));
    let project = repo(&tmp.path().join("repo"));
    let store = ws.place_at(&project);
    ws.save(
        &store,
        Scope::Project,
        draft(
            "use-pnpm",
            "Installing dependencies in this repo",
            "Never run `npm install` here; use `pnpm install` (the lockfile is pnpm's).",
        ),
        at(0),
    )
    .unwrap();
    let cwd = project.display().to_string();
    for (session, command) in [
        ("ignored-1", "npm install left-pad"),
        ("followed-1", "pnpm install left-pad"),
    ] {
        let turn = ContextRequest {
            event: ContextEvent::Turn,
            prompt: "install the left-pad dependency".into(),
            source: None,
            session_id: Some(session.into()),
            agent: Some("claude".into()),
            record: true,
            transcript: None,
        };
        let composed = ws.compose_at(&project, &turn, at(1)).unwrap();
        assert!(
            composed.selected.iter().any(|s| s.name == "use-pnpm"),
            "the body entered the context"
        );
        let lines = [
            serde_json::json!({"type": "user", "sessionId": session, "cwd": cwd, "timestamp": "2026-11-01T09:00:01Z",
                               "message": {"role": "user", "content": "install the left-pad dependency"}}),
            serde_json::json!({"type": "assistant", "sessionId": session, "cwd": cwd, "timestamp": "2026-11-01T09:00:30Z",
                               "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}]}}),
        ];
        let dir = me.join(".claude/projects/-repo");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("{session}.jsonl")),
            lines.map(|l| l.to_string()).join("\n") + "\n",
        )
        .unwrap();
    }
    ws.index_sessions(&Default::default(), at(40), &mut |_| {})
        .unwrap();

    let ignored: Vec<_> = ws
        .review(&store, at(50))
        .unwrap()
        .into_iter()
        .filter_map(|f| match f {
            ambry_core::Finding::Ignored {
                memory,
                session_id,
                calls,
                rule,
                own_rule,
                ..
            } => Some((memory.name, session_id, calls, rule, own_rule)),
            _ => None,
        })
        .collect();
    assert_eq!(ignored.len(), 1, "{ignored:?}");
    let (name, session, calls, rule, own_rule) = &ignored[0];
    assert_eq!((name.as_str(), session.as_str()), ("use-pnpm", "ignored-1"));
    assert_eq!(calls[0].input, "npm install left-pad");
    assert!(!own_rule);
    // The rule offered catches what was ignored, and not what the memory recommends.
    let compiled = rule.compile().unwrap();
    assert!(
        compiled.pattern.is_match("npm install left-pad")
            && !compiled.pattern.is_match("pnpm install left-pad")
    );

    // Kept as it is: quiet until its text changes.
    ws.review_keep(&store, Scope::Project, "use-pnpm", at(51))
        .unwrap();
    assert!(!ws
        .review(&store, at(52))
        .unwrap()
        .iter()
        .any(|f| matches!(f, ambry_core::Finding::Ignored { .. })));
}

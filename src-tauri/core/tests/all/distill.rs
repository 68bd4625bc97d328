//! Distill through the workspace with a stand-in agent: a session grown since it was distilled
//! is sent from where it grew (earlier turns are not paid for twice), a malformed answer keeps
//! nothing, and an accepted proposal is an ordinary archived save with its `source`.

use ambry_core::Place;
use std::cell::RefCell;
use std::fs;
use std::path::Path;

use ambry_core::{AmbryHome, LaunchEnv, Workspace};
use ambry_core::{IndexRequest, Selection};
use ambry_lifecycle::distill::{AgentCall, AgentRunner, DistillError, Edits};
use ambry_sessions::sessions::SourceKind;
use ambry_store::config::DistillAgent;
use ambry_store::memory::{Scope, Store};
use chrono::Utc;
use serde_json::json;

/// Distills the scripted `answer` for the selected session and accepts its first proposal as is.
fn accept_first(
    ws: &Workspace,
    store: &Store,
    answer: String,
    now: chrono::DateTime<Utc>,
) -> ambry_core::SavedWithVector {
    let place = Place::from(store);
    let runner = Scripted::new(&[answer]);
    let report = ws
        .distill_with(&place, &selection(), None, false, now, &runner)
        .unwrap();
    let id = report.proposals[0].id.clone();
    ws.accept_proposal(&place, &id, &Edits::default(), now)
        .unwrap()
}

/// Answers each call with the next scripted text and keeps every prompt it was given.
struct Scripted {
    answers: RefCell<Vec<String>>,
    prompts: RefCell<Vec<String>>,
}

impl Scripted {
    fn new(answers: &[String]) -> Scripted {
        Scripted {
            answers: RefCell::new(answers.iter().rev().cloned().collect()),
            prompts: RefCell::new(Vec::new()),
        }
    }
}

impl AgentRunner for Scripted {
    fn call(&self, call: &AgentCall<'_>) -> Result<String, DistillError> {
        self.prompts.borrow_mut().push(call.prompt.to_string());
        Ok(self
            .answers
            .borrow_mut()
            .pop()
            .unwrap_or_else(|| r#"{"proposals": []}"#.into()))
    }
}

fn write_session(home: &Path, turns: &[(&str, &str)]) {
    let dir = home.join("sessions");
    fs::create_dir_all(&dir).unwrap();
    let mut text =
        json!({"session": {"id": "s-grow", "title": "t", "cwd": "/nowhere", "model": "m"}})
            .to_string()
            + "\n";
    for (i, (role, said)) in turns.iter().enumerate() {
        text.push_str(
            &json!({"ts": format!("2026-11-20T10:00:{i:02}Z"), "role": role, "text": said})
                .to_string(),
        );
        text.push('\n');
    }
    fs::write(dir.join("s-grow.jsonl"), text).unwrap();
}

fn index(ws: &Workspace) {
    let request = IndexRequest {
        only: Some(SourceKind::Ambry),
        rebuild: false,
    };
    ws.index_sessions(&request, Utc::now(), &mut |_| {})
        .unwrap();
}

fn proposal(name: &str, turn: usize) -> String {
    json!({"proposals": [{"action": "new", "scope": "user", "name": name, "type": "feedback",
        "description": "d", "body": "b", "target": null, "source_turns": [turn], "reason": "r"}]})
    .to_string()
}

fn selection() -> Selection {
    Selection {
        session: Some("s-grow".into()),
        ..Selection::default()
    }
}

#[test]
fn a_grown_session_is_sent_from_where_it_grew_and_an_unchanged_one_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(dir.path());
    let ws = Workspace::new(home.clone(), LaunchEnv::default());
    let store = Store::new(home, None);
    write_session(
        dir.path(),
        &[("user", "FIRST-TURN tabs not spaces"), ("assistant", "ok")],
    );
    index(&ws);
    let runner = Scripted::new(&[proposal("indent-style", 1), proposal("test-style", 3)]);
    let now = Utc::now();
    let first = ws
        .distill_with(
            &Place::from(&store),
            &selection(),
            Some(DistillAgent::Claude),
            false,
            now,
            &runner,
        )
        .unwrap();
    assert_eq!(first.proposals.len(), 1);

    let again = ws
        .distill_with(
            &Place::from(&store),
            &selection(),
            Some(DistillAgent::Claude),
            false,
            now,
            &runner,
        )
        .unwrap();
    assert!(again.calls.is_empty() && again.unchanged == vec!["s-grow".to_string()]);

    write_session(
        dir.path(),
        &[
            ("user", "FIRST-TURN tabs not spaces"),
            ("assistant", "ok"),
            ("user", "LATER-TURN run tests with nextest"),
        ],
    );
    index(&ws);
    let grown = ws
        .distill_with(
            &Place::from(&store),
            &selection(),
            Some(DistillAgent::Claude),
            false,
            now,
            &runner,
        )
        .unwrap();
    assert_eq!(grown.calls.len(), 1);
    assert_eq!(grown.proposals[0].source_turns[0].turn, 3);
    let prompts = runner.prompts.borrow();
    assert_eq!(prompts.len(), 2, "the unchanged run called nothing");
    assert!(prompts[1].contains("LATER-TURN") && !prompts[1].contains("FIRST-TURN"));
    assert!(prompts[1].contains("indent-style") || prompts[1].contains("(none yet)"));
}

#[test]
fn a_malformed_answer_keeps_nothing_and_the_session_is_tried_again() {
    let dir = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(dir.path());
    let ws = Workspace::new(home.clone(), LaunchEnv::default());
    let store = Store::new(home, None);
    write_session(
        dir.path(),
        &[("user", "remember tabs"), ("assistant", "ok")],
    );
    index(&ws);
    let bad = Scripted::new(&["{\"proposals\": [{\"name\": 1}]}".to_string()]);
    let err = ws
        .distill_with(
            &Place::from(&store),
            &selection(),
            None,
            false,
            Utc::now(),
            &bad,
        )
        .unwrap_err();
    assert_eq!(ambry_core::report(&err).code, "malformed_answer");
    assert!(ws.proposals(&Place::from(&store)).unwrap().is_empty());
    let plan = ws
        .distill_with(
            &Place::from(&store),
            &selection(),
            None,
            true,
            Utc::now(),
            &bad,
        )
        .unwrap();
    assert_eq!(plan.calls.len(), 1, "not marked distilled");
}

#[test]
fn accepting_saves_with_source_and_keeps_the_prior_version_of_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(dir.path());
    let ws = Workspace::new(home.clone(), LaunchEnv::default());
    let store = Store::new(home, None);
    write_session(
        dir.path(),
        &[("user", "we use pnpm now"), ("assistant", "ok")],
    );
    index(&ws);
    let now = Utc::now();
    ws.save(
        &Place::from(&store),
        Scope::User,
        ambry_store::memory::MemoryDraft {
            name: "package-manager".into(),
            kind: "reference".into(),
            description: "Which package manager".into(),
            body: "npm".into(),
            tags: vec![],
        },
        now,
    )
    .unwrap();
    let update = json!({"proposals": [{"action": "update", "scope": "user", "name": "package-manager",
        "type": "reference", "description": "Which package manager", "body": "pnpm", "target": "package-manager",
        "source_turns": [1], "reason": "moved"}]})
    .to_string();
    let saved = accept_first(&ws, &store, update, now);
    assert!(
        saved.outcome.archived.is_some(),
        "the npm version is archived"
    );
    let text = fs::read_to_string(&saved.outcome.memory.path).unwrap();
    assert!(
        text.contains("source: \"ambry-session:s-grow turns 1\"")
            || text.contains("source: ambry-session:s-grow turns 1"),
        "{text}"
    );
    assert!(text.contains("pnpm"));
    assert!(ws.proposals(&Place::from(&store)).unwrap().is_empty());
}

/// A rule distilled from a session is saved with its memory, off (`proposed`), and waits in the
/// review inbox for the person (DESIGN §16).
#[test]
fn an_accepted_proposal_carries_its_rule_off_until_the_person_turns_it_on() {
    let dir = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(dir.path());
    let ws = Workspace::new(home.clone(), LaunchEnv::default());
    let store = Store::new(home, None);
    write_session(
        dir.path(),
        &[
            ("user", "never npm install here, we use pnpm"),
            ("assistant", "ok"),
        ],
    );
    index(&ws);
    let now = Utc::now();
    let answer = json!({"proposals": [{"action": "new", "scope": "user", "name": "use-pnpm", "type": "feedback",
        "description": "pnpm, not npm", "body": "Use pnpm; never npm install.", "target": null,
        "source_turns": [1], "reason": "corrected",
        "enforce": {"tool": ["Bash"], "match": "\\bnpm install\\b", "action": "deny"},
        "when": ["installing a package", "adding a dependency"]}]})
    .to_string();
    let saved = accept_first(&ws, &store, answer, now);
    let rule = saved.outcome.memory.lifecycle.enforce.clone().unwrap();
    assert_eq!(rule.status, ambry_store::memory::RuleStatus::Proposed);
    // What the memory is for comes with it (DESIGN §5).
    assert_eq!(
        saved.outcome.memory.lifecycle.when,
        ["installing a package", "adding a dependency"]
    );
    let findings = ws.review(&Place::from(&store), now).unwrap();
    assert!(findings
        .iter()
        .any(|f| matches!(f, ambry_core::Finding::RuleProposed { memory, .. } if memory.name == "use-pnpm")));
}

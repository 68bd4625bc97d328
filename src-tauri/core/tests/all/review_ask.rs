//! Asking the person's agent about the review's uncertain pairs, through the workspace with a
//! stand-in agent: one call for the view's "duplicate or conflict?" pairs, the verdict beside
//! its finding in every later review, nothing sent again for unchanged pairs, a changed memory's
//! pair asked again, and no memory written.

use std::cell::RefCell;

use ambry_core::{AmbryHome, Finding, LaunchEnv, Place, Workspace};
use ambry_lifecycle::distill::{AgentCall, AgentRunner, DistillError};
use ambry_store::config::DistillAgent;
use ambry_store::memory::{MemoryDraft, Scope, Store};
use chrono::Utc;
use serde_json::json;

/// Answers every pair it is sent with `verdict`, and keeps each prompt.
struct Judge {
    verdict: &'static str,
    prompts: RefCell<Vec<String>>,
}

impl AgentRunner for Judge {
    fn call(&self, call: &AgentCall<'_>) -> Result<String, DistillError> {
        self.prompts.borrow_mut().push(call.prompt.to_string());
        let n = call.schema["properties"]["verdicts"]["maxItems"]
            .as_u64()
            .unwrap();
        let verdicts: Vec<_> = (1..=n)
            .map(|i| json!({"pair": i, "verdict": self.verdict, "reason": "one moved on"}))
            .collect();
        Ok(json!({ "verdicts": verdicts }).to_string())
    }
}

fn save(store: &Store, name: &str, description: &str, body: &str) {
    let draft = MemoryDraft {
        name: name.into(),
        kind: "project".into(),
        description: description.into(),
        body: body.into(),
        tags: Vec::new(),
    };
    store.save(Scope::User, draft, Utc::now()).unwrap();
}

/// The agent's verdict on the view's one "same subject" pair, if it has one.
fn verdict(ws: &Workspace, place: &Place) -> Option<String> {
    let findings = ws.review(place, Utc::now()).unwrap();
    let pair = findings
        .iter()
        .find_map(|f| match f {
            Finding::SameSubject { agent, .. } => Some(agent.clone()),
            _ => None,
        })
        .expect("a same-subject pair");
    pair.map(|v| format!("{} {}", v.verdict.as_str(), v.reason))
}

/// A workspace whose user memories hold one pair the review asks about: one says the install
/// moved on from what the other still describes.
fn pair_that_moved_on() -> (tempfile::TempDir, Workspace, Store) {
    let dir = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(dir.path());
    let ws = Workspace::new(home.clone(), LaunchEnv::default());
    let store = Store::new(home, None);
    save(
        &store,
        "pkg-install",
        "How dependencies are installed",
        "Dependencies are installed with the workspace install at the repository root.",
    );
    save(
        &store,
        "pkg-install-now",
        "How dependencies are installed now",
        "Dependencies are no longer installed per package; they are installed with the workspace install at the repository root.",
    );
    (dir, ws, store)
}

#[test]
fn the_agents_verdict_is_kept_beside_its_pair_until_a_memory_of_it_changes() {
    let (_dir, ws, store) = pair_that_moved_on();
    let place = Place::from(&store);
    assert_eq!(verdict(&ws, &place), None);
    let memories = || {
        store
            .list(ambry_store::memory::ScopeFilter::All)
            .unwrap()
            .into_iter()
            .map(|f| std::fs::read(&f.path).unwrap())
            .collect::<Vec<_>>()
    };
    let before = memories();

    let judge = Judge {
        verdict: "conflict",
        prompts: RefCell::new(Vec::new()),
    };
    let report = ws
        .review_ask_with(&place, Some(DistillAgent::Codex), false, Utc::now(), &judge)
        .unwrap();
    assert_eq!(judge.prompts.borrow().len(), 1);
    assert_eq!(report.pairs.len(), 1);
    assert!(judge.prompts.borrow()[0].contains("no longer installed per package"));
    assert_eq!(
        verdict(&ws, &place).as_deref(),
        Some("conflict one moved on")
    );
    assert_eq!(memories(), before, "an ask wrote a memory");

    let report = ws
        .review_ask_with(&place, Some(DistillAgent::Codex), false, Utc::now(), &judge)
        .unwrap();
    assert_eq!(
        judge.prompts.borrow().len(),
        1,
        "an unchanged pair was sent again"
    );
    assert_eq!(report.cached, 1);

    save(
        &store,
        "pkg-install-now",
        "How dependencies are installed now",
        "Dependencies are no longer installed per package; they are installed with the workspace install at the repository root, by CI too.",
    );
    assert_eq!(
        verdict(&ws, &place),
        None,
        "a verdict on the old text is shown"
    );
    let neither = Judge {
        verdict: "neither",
        prompts: RefCell::new(Vec::new()),
    };
    ws.review_ask_with(
        &place,
        Some(DistillAgent::Codex),
        false,
        Utc::now(),
        &neither,
    )
    .unwrap();
    assert_eq!(neither.prompts.borrow().len(), 1);
    assert_eq!(
        verdict(&ws, &place).as_deref(),
        Some("neither one moved on")
    );
}

#[test]
fn a_dry_run_through_the_workspace_sends_nothing_and_keeps_nothing() {
    let (dir, ws, store) = pair_that_moved_on();
    let place = Place::from(&store);
    let judge = Judge {
        verdict: "conflict",
        prompts: RefCell::new(Vec::new()),
    };
    let plan = ws
        .review_ask_with(&place, None, true, Utc::now(), &judge)
        .unwrap();
    assert!(judge.prompts.borrow().is_empty());
    assert_eq!(plan.agent, DistillAgent::Claude, "the configured default");
    assert!(plan.prompt.unwrap().contains("## Pair 1"));
    assert!(!dir.path().join("distill/verdicts.json").exists());
    assert_eq!(verdict(&ws, &place), None);
}

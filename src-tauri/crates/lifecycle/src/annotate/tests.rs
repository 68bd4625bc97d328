//! The annotate run with a fake agent on a real temp home with a project: which memories are
//! sent (in one call, within the budget, masked), a proposal per answered memory and never a
//! second one, answers out of bounds refused whole, and accept writing exactly the phrases —
//! refused when the memory changed or says when it is needed by now.

use std::cell::RefCell;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::*;
use crate::distill::{self, AgentCall, AgentRunner, DistillError};
use ambry_store::config::{DistillAgent, DistillConfig};
use ambry_store::home::AmbryHome;
use ambry_store::memory::{MemoryDraft, RuleEdit};
use ambry_store::project::Project;

const SECRET: &str = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

/// What a fake answers, from the labels a prompt sends.
type Answering = Box<dyn Fn(&[String]) -> String>;

/// Records every prompt it is sent and answers with what `answer` makes of the labels in it.
struct Fake {
    prompts: RefCell<Vec<String>>,
    answer: Answering,
}

impl Fake {
    fn answering(answer: impl Fn(&[String]) -> String + 'static) -> Fake {
        Fake {
            prompts: RefCell::new(Vec::new()),
            answer: Box::new(answer),
        }
    }

    /// Two phrases for every memory sent.
    fn phrases() -> Fake {
        Fake::answering(|labels| {
            answer_for(labels, |l| {
                json!([format!("working on {l}"), format!("why does {l} fail")])
            })
        })
    }

    fn calls(&self) -> usize {
        self.prompts.borrow().len()
    }
}

fn answer_for(labels: &[String], when: impl Fn(&str) -> Value) -> String {
    let items: Vec<Value> = labels
        .iter()
        .map(|l| json!({"memory": l, "when": when(l)}))
        .collect();
    json!({ "annotations": items }).to_string()
}

/// The labels a prompt sends, as the agent reads them.
fn labels_in(prompt: &str) -> Vec<String> {
    prompt
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(str::to_string)
        .collect()
}

impl AgentRunner for Fake {
    fn call(&self, call: &AgentCall<'_>) -> Result<String, DistillError> {
        self.prompts.borrow_mut().push(call.prompt.to_string());
        let labels = labels_in(call.prompt);
        assert_eq!(
            call.schema["properties"]["annotations"]["maxItems"],
            labels.len(),
            "the schema allows one answer a memory"
        );
        Ok((self.answer)(&labels))
    }
}

fn now() -> DateTime<Utc> {
    DateTime::from_timestamp(1_780_000_000, 0).unwrap()
}

struct Home {
    _tmp: tempfile::TempDir,
    store: Store,
    inbox: Inbox,
    config: DistillConfig,
}

fn save(store: &Store, scope: Scope, name: &str, body: &str, keys: &[(&str, &str)]) {
    let draft = MemoryDraft {
        name: name.into(),
        kind: "project".into(),
        description: format!("About {name}"),
        body: body.into(),
        tags: vec!["infra".into()],
    };
    store
        .save_ruled(scope, draft, keys, &RuleEdit::Keep, now())
        .unwrap();
}

/// A view with a project: two user memories and a project one without `when`, one that says
/// when already, and one retired.
fn home() -> Home {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    let project = Project {
        slug: "repo-00000000".into(),
        root,
        remote: None,
    };
    let home = AmbryHome::new(tmp.path().join("home"));
    let store = Store::new(home.clone(), Some(project));
    save(
        &store,
        Scope::User,
        "db-pool",
        "The pool holds at most 20 connections.",
        &[("source", "claude-import")],
    );
    save(
        &store,
        Scope::User,
        "release-day",
        "We release on Thursdays.",
        &[],
    );
    save(
        &store,
        Scope::Project,
        "api-port",
        "The API listens on 8080.",
        &[],
    );
    save(
        &store,
        Scope::User,
        "has-when",
        "Payments answer 429 over 10 requests a second.",
        &[("when", "[a 429 from payments, rate limits]")],
    );
    save(
        &store,
        Scope::User,
        "old-port",
        "The API listened on 80.",
        &[("superseded_by", "api-port")],
    );
    Home {
        _tmp: tmp,
        store,
        inbox: Inbox::new(&home),
        config: DistillConfig::default(),
    }
}

fn run(home: &Home, dry_run: bool, fake: &Fake) -> Result<AnnotateReport, DistillError> {
    let setup = AnnotateSetup {
        call: OneCall {
            config: &home.config,
            agent: DistillAgent::Codex,
            dry_run,
            extra_args: Vec::new(),
        },
        store: &home.store,
        inbox: &home.inbox,
        now: now(),
    };
    annotate(&setup, fake)
}

fn file(home: &Home, scope: Scope, name: &str) -> String {
    std::fs::read_to_string(home.store.get(Some(scope), name).unwrap().path).unwrap()
}

/// A memory file without its `updated:` line (a write stamps it), and without `when:`.
fn without_stamps(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("updated:") && !l.starts_with("when:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_memories_without_when_go_in_one_call_and_each_answer_waits_as_a_proposal() {
    let home = home();
    let before = file(&home, Scope::User, "db-pool");
    let fake = Fake::phrases();
    let report = run(&home, false, &fake).unwrap();
    assert_eq!(fake.calls(), 1, "one call for all the memories");
    let sent = &fake.prompts.borrow()[0];
    for text in [
        "at most 20 connections",
        "Thursdays",
        "8080",
        "About db-pool",
    ] {
        assert!(sent.contains(text), "{text} was not sent: {sent}");
    }
    assert!(
        !sent.contains("10 requests a second"),
        "a memory that says when was sent"
    );
    assert!(
        !sent.contains("listened on 80"),
        "a retired memory was sent"
    );
    assert_eq!(
        report.memories,
        ["project/api-port", "user/db-pool", "user/release-day"]
    );
    assert_eq!(report.proposals.len(), 3);
    let pending = home.inbox.proposals().unwrap();
    assert_eq!(pending, report.proposals);
    let api = pending.iter().find(|p| p.name == "api-port").unwrap();
    assert_eq!(api.action, Action::When);
    assert_eq!(api.target.as_deref(), Some("api-port"));
    assert_eq!(
        api.when,
        [
            "working on project/api-port",
            "why does project/api-port fail"
        ]
    );
    assert_eq!(api.project.as_ref().unwrap().slug, "repo-00000000");
    assert!(api.body.is_empty(), "a when proposal carries only phrases");
    let db = pending.iter().find(|p| p.name == "db-pool").unwrap();
    assert!(db.project.is_none());
    assert_eq!(file(&home, Scope::User, "db-pool"), before, "a run wrote");
}

#[test]
fn a_memory_with_a_pending_proposal_is_not_sent_again() {
    let home = home();
    run(&home, false, &Fake::phrases()).unwrap();
    let again = Fake::phrases();
    let report = run(&home, false, &again).unwrap();
    assert_eq!(again.calls(), 0, "sent again while its proposal waits");
    assert_eq!(report.pending.len(), 3);
    assert_eq!(home.inbox.proposals().unwrap().len(), 3);
}

#[test]
fn a_memory_the_answer_skips_is_sent_again_next_time() {
    let home = home();
    let fake = Fake::answering(|labels| {
        answer_for(&labels[..1], |_| json!(["first phrase", "second phrase"]))
    });
    let report = run(&home, false, &fake).unwrap();
    assert_eq!(report.proposals.len(), 1);
    assert_eq!(report.unanswered, ["user/db-pool", "user/release-day"]);
    let again = Fake::phrases();
    let report = run(&home, false, &again).unwrap();
    assert_eq!(report.memories, ["user/db-pool", "user/release-day"]);
    assert_eq!(report.pending, ["project/api-port"]);
}

#[test]
fn a_dry_run_shows_the_masked_text_and_its_size_and_sends_nothing() {
    let home = home();
    // A secret in a file written by hand (a save refuses one) is masked before anything is sent.
    let dir = home.store.home().root().join("memory");
    std::fs::write(
        dir.join("registry.md"),
        format!("---\nname: registry\ntype: project\ndescription: The registry\n---\nThe registry token is {SECRET}.\n"),
    )
    .unwrap();
    let fake = Fake::phrases();
    let report = run(&home, true, &fake).unwrap();
    assert_eq!(fake.calls(), 0, "a dry run called the agent");
    assert_eq!(report.memories.len(), 4);
    let text = report.prompt.expect("the text that would be sent");
    assert_eq!(report.prompt_bytes, text.len());
    assert!(report.estimated_tokens as usize > text.len() / 4);
    assert!(!text.contains("ghp_"), "a secret would be sent: {text}");
    assert!(text.contains("[secret masked: "), "{text}");
    assert!(home.inbox.proposals().unwrap().is_empty());
}

#[test]
fn memories_over_the_budget_are_left_for_a_later_run() {
    let mut home = home();
    let api = home.store.get(Some(Scope::Project), "api-port").unwrap();
    let one = prompt::build(&[prompt::render_memory(&api)]).len();
    home.config.chunk_bytes = one + 10;
    let fake = Fake::phrases();
    let report = run(&home, false, &fake).unwrap();
    assert_eq!(report.memories, ["project/api-port"]);
    assert_eq!(report.over_budget, ["user/db-pool", "user/release-day"]);
    assert_eq!(labels_in(&fake.prompts.borrow()[0]), ["project/api-port"]);

    let mut broke = self::home();
    broke.config.max_tokens = 10;
    let fake = Fake::phrases();
    let report = run(&broke, false, &fake).unwrap();
    assert_eq!(fake.calls(), 0, "a call over the token budget was made");
    assert_eq!(report.over_budget.len(), 3);
}

#[test]
fn an_answer_out_of_bounds_is_refused_whole_and_keeps_nothing() {
    let long = "x".repeat(121);
    let bad: Vec<(&str, Answering)> = vec![
        (
            "a memory never sent",
            Box::new(|_| {
                json!({"annotations": [{"memory": "user/nope", "when": ["a", "b"]}]}).to_string()
            }),
        ),
        (
            "one memory twice",
            Box::new(|l| {
                json!({"annotations": [{"memory": l[0], "when": ["a b", "c d"]}, {"memory": l[0], "when": ["e f", "g h"]}]})
                    .to_string()
            }),
        ),
        (
            "one phrase",
            Box::new(|l| answer_for(l, |_| json!(["only this"]))),
        ),
        (
            "the same phrase twice",
            Box::new(|l| answer_for(l, |_| json!(["only this", "Only this "]))),
        ),
        (
            "six phrases",
            Box::new(|l| answer_for(l, |_| json!(["a1", "a2", "a3", "a4", "a5", "a6"]))),
        ),
        (
            "a long phrase",
            Box::new(move |l| answer_for(l, |_| json!(["short", long.clone()]))),
        ),
        (
            "a phrase on two lines",
            Box::new(|l| answer_for(l, |_| json!(["one\ntwo", "three"]))),
        ),
        (
            "a secret",
            Box::new(|l| answer_for(l, |_| json!(["short", format!("use {SECRET}")]))),
        ),
        ("prose", Box::new(|_| "Here are some phrases: …".into())),
    ];
    for (what, answer) in bad {
        let home = home();
        let fake = Fake::answering(answer);
        let err = run(&home, false, &fake).unwrap_err();
        assert!(
            matches!(err, DistillError::MalformedAnswer { .. }),
            "{what}: {err}"
        );
        assert!(
            home.inbox.proposals().unwrap().is_empty(),
            "{what}: a proposal was kept"
        );
    }
}

fn proposal_for(home: &Home, name: &str) -> Proposal {
    home.inbox
        .proposals()
        .unwrap()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap()
}

#[test]
fn accept_writes_exactly_the_phrases_and_nothing_else_of_the_memory() {
    let home = home();
    run(&home, false, &Fake::phrases()).unwrap();
    let before = file(&home, Scope::User, "db-pool");
    let p = proposal_for(&home, "db-pool");
    let saved = distill::accept(
        &home.inbox,
        &home.store,
        &p.id,
        &distill::Edits::default(),
        now(),
    )
    .unwrap();
    let m = saved.memory;
    assert_eq!(
        m.lifecycle.when,
        ["working on user/db-pool", "why does user/db-pool fail"]
    );
    let after = file(&home, Scope::User, "db-pool");
    assert!(
        after.contains("when: [working on user/db-pool, why does user/db-pool fail]\n"),
        "{after}"
    );
    assert_eq!(without_stamps(&after), without_stamps(&before));
    assert_eq!(m.lifecycle.source.as_deref(), Some("claude-import"));
    assert_eq!(m.tags, ["infra"]);
    assert!(home.inbox.get(&p.id).is_err(), "still pending");

    // The project's memory is accepted from its view only.
    let api = proposal_for(&home, "api-port");
    let user_view = Store::new(home.store.home().clone(), None);
    let err = distill::accept(
        &home.inbox,
        &user_view,
        &api.id,
        &distill::Edits::default(),
        now(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("repo-00000000"), "{err}");
}

#[test]
fn accept_is_refused_when_the_memory_changed_or_says_when_by_now_or_is_edited() {
    let home = home();
    run(&home, false, &Fake::phrases()).unwrap();
    let refused = |name: &str, edits: &distill::Edits| {
        let p = proposal_for(&home, name);
        let before = file(&home, p.scope, name);
        let err = distill::accept(&home.inbox, &home.store, &p.id, edits, now()).unwrap_err();
        assert_eq!(file(&home, p.scope, name), before, "a refused accept wrote");
        assert!(home.inbox.get(&p.id).is_ok(), "a refused proposal left");
        err.to_string()
    };
    let edited = distill::Edits {
        body: Some("Something else.".into()),
        ..Default::default()
    };
    let why = refused("api-port", &edited);
    assert!(why.contains("changes nothing else"), "{why}");

    // The person said when it is needed meanwhile: their phrases stay.
    save(
        &home.store,
        Scope::User,
        "db-pool",
        "The pool holds at most 20 connections.",
        &[("when", "[raising the pool size]")],
    );
    let why = refused("db-pool", &distill::Edits::default());
    assert!(
        why.contains("says when it is needed since") && why.contains("raising the pool size"),
        "{why}"
    );

    // Its text changed: the phrases were for another text.
    save(
        &home.store,
        Scope::User,
        "release-day",
        "We release on Tuesdays now.",
        &[],
    );
    let why = refused("release-day", &distill::Edits::default());
    assert!(why.contains("changed since"), "{why}");

    // Rejected, it is gone and nothing changed.
    let p = proposal_for(&home, "release-day");
    distill::reject(&home.inbox, &p.id, now()).unwrap();
    assert!(home.inbox.get(&p.id).is_err());
}

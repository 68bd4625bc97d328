//! The ask run with a fake agent: batching, the dry run, the budget, keeping verdicts by pair
//! content, and a changed memory's pairs asked again.

use std::cell::RefCell;

use chrono::{DateTime, Utc};
use serde_json::json;

use super::*;
use crate::distill::{AgentCall, AgentRunner, DistillError};
use crate::lifecycle::{Finding, Subject};
use ambry_store::config::{DistillAgent, DistillConfig};
use ambry_store::home::AmbryHome;
use ambry_store::memory::Scope;

const SECRET: &str = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

/// Records every prompt it is sent and answers with what `answer` makes of the pair count.
struct Fake {
    prompts: RefCell<Vec<String>>,
    answer: Box<dyn Fn(usize) -> String>,
}

impl Fake {
    fn answering(answer: impl Fn(usize) -> String + 'static) -> Fake {
        Fake {
            prompts: RefCell::new(Vec::new()),
            answer: Box::new(answer),
        }
    }

    /// Every pair a conflict.
    fn conflicts() -> Fake {
        Fake::answering(|n| {
            let verdicts: Vec<_> = (1..=n)
                .map(|i| json!({"pair": i, "verdict": "conflict", "reason": format!("pair {i} names two tools\nfor one job")}))
                .collect();
            json!({ "verdicts": verdicts }).to_string()
        })
    }

    fn calls(&self) -> usize {
        self.prompts.borrow().len()
    }
}

impl AgentRunner for Fake {
    fn call(&self, call: &AgentCall<'_>) -> Result<String, DistillError> {
        self.prompts.borrow_mut().push(call.prompt.to_string());
        let n = call.schema["properties"]["verdicts"]["maxItems"]
            .as_u64()
            .unwrap() as usize;
        Ok((self.answer)(n))
    }
}

fn subject(name: &str, body: &str) -> Subject {
    Subject {
        scope: Scope::User,
        name: name.into(),
        description: format!("About {name}"),
        body: body.into(),
    }
}

fn same_subject(a: Subject, b: Subject) -> Finding {
    Finding::SameSubject {
        memories: [a, b],
        similarity: 0.5,
        claims: vec![("still so".into(), "no longer".into())],
        subject: Vec::new(),
        agent: None,
    }
}

fn findings() -> Vec<Finding> {
    vec![
        same_subject(
            subject("pkg-install", "Install with yarn at the root."),
            subject(
                "pkg-install-now",
                "We no longer use yarn; npm workspaces now.",
            ),
        ),
        Finding::Duplicate {
            memories: [
                subject("dup-a", "Deploy on Tuesdays."),
                subject("dup-b", "Deploys go out on Tuesday."),
            ],
            similarity: 0.9,
            subject: Vec::new(),
            agreed: Vec::new(),
            meaning: None,
        },
        same_subject(
            subject("api-port", "The API listens on 8080."),
            subject("api-port-new", "The API moved to port 9090."),
        ),
    ]
}

fn now() -> DateTime<Utc> {
    DateTime::from_timestamp(1_780_000_000, 0).unwrap()
}

struct Home {
    _tmp: tempfile::TempDir,
    verdicts: Verdicts,
    config: DistillConfig,
}

fn home() -> Home {
    let tmp = tempfile::tempdir().unwrap();
    let verdicts = Verdicts::new(&AmbryHome::new(tmp.path()));
    Home {
        _tmp: tmp,
        verdicts,
        config: DistillConfig::default(),
    }
}

fn run(
    home: &Home,
    findings: &[Finding],
    dry_run: bool,
    fake: &Fake,
) -> Result<AskReport, DistillError> {
    let setup = AskSetup {
        call: OneCall {
            config: &home.config,
            agent: DistillAgent::Codex,
            dry_run,
            extra_args: Vec::new(),
        },
        verdicts: &home.verdicts,
        now: now(),
    };
    ask(&setup, findings, fake)
}

fn attached(home: &Home, mut findings: Vec<Finding>) -> Vec<Option<AgentVerdict>> {
    attach(&mut findings, &home.verdicts.read().unwrap());
    findings
        .into_iter()
        .filter_map(|f| match f {
            Finding::SameSubject { agent, .. } => Some(agent),
            _ => None,
        })
        .collect()
}

#[test]
fn the_uncertain_pairs_go_in_one_call_and_each_verdict_is_kept_and_shown() {
    let home = home();
    let fake = Fake::conflicts();
    let report = run(&home, &findings(), false, &fake).unwrap();
    assert_eq!(fake.calls(), 1, "one call for all the pairs");
    let sent = &fake.prompts.borrow()[0];
    for text in ["Install with yarn", "npm workspaces", "8080", "9090"] {
        assert!(sent.contains(text), "{text} was not sent: {sent}");
    }
    assert!(!sent.contains("Tuesday"), "a settled duplicate was sent");
    assert!(sent.contains("## Pair 2"), "{sent}");
    assert_eq!(report.pairs.len(), 2);
    assert!(report.unanswered.is_empty());
    let shown = attached(&home, findings());
    assert_eq!(shown.len(), 2);
    for verdict in shown {
        let verdict = verdict.expect("a kept verdict beside the finding");
        assert_eq!(verdict.verdict, PairVerdict::Conflict);
        assert_eq!(verdict.agent, DistillAgent::Codex);
        assert!(
            !verdict.reason.contains('\n'),
            "one line: {}",
            verdict.reason
        );
    }
}

#[test]
fn a_second_ask_sends_nothing_for_pairs_whose_memories_are_unchanged() {
    let home = home();
    run(&home, &findings(), false, &Fake::conflicts()).unwrap();
    let again = Fake::conflicts();
    let report = run(&home, &findings(), false, &again).unwrap();
    assert_eq!(again.calls(), 0, "asked again about unchanged pairs");
    assert_eq!(report.cached, 2);
    assert!(report.pairs.is_empty());
}

#[test]
fn a_changed_memory_leaves_its_pair_without_a_verdict_until_asked_again() {
    let home = home();
    run(&home, &findings(), false, &Fake::conflicts()).unwrap();
    let mut changed = findings();
    changed[2] = same_subject(
        subject("api-port", "The API listens on 8080 in production."),
        subject("api-port-new", "The API moved to port 9090."),
    );
    let shown = attached(&home, changed.clone());
    assert!(shown[0].is_some(), "the unchanged pair keeps its verdict");
    assert!(shown[1].is_none(), "a verdict on the old text was shown");

    let fake = Fake::answering(|_| {
        json!({"verdicts": [{"pair": 1, "verdict": "neither", "reason": "production only"}]})
            .to_string()
    });
    let report = run(&home, &changed, false, &fake).unwrap();
    assert_eq!(fake.calls(), 1);
    assert_eq!(report.cached, 1);
    assert_eq!(
        report.pairs.iter().map(|p| &p.memories).collect::<Vec<_>>(),
        vec![&["user/api-port".to_string(), "user/api-port-new".to_string()]]
    );
    assert!(fake.prompts.borrow()[0].contains("in production"));
    let shown = attached(&home, changed);
    assert_eq!(shown[1].as_ref().unwrap().verdict, PairVerdict::Neither);
}

#[test]
fn a_dry_run_shows_the_masked_text_and_its_size_and_sends_nothing() {
    let home = home();
    let mut with_secret = findings();
    with_secret[0] = same_subject(
        subject(
            "pkg-install",
            &format!("Install with yarn; token {SECRET}."),
        ),
        subject("pkg-install-now", "We no longer use yarn."),
    );
    let fake = Fake::conflicts();
    let report = run(&home, &with_secret, true, &fake).unwrap();
    assert_eq!(fake.calls(), 0, "a dry run called the agent");
    assert_eq!(report.pairs.len(), 2);
    let text = report.prompt.expect("the text that would be sent");
    assert_eq!(report.prompt_bytes, text.len());
    assert!(report.estimated_tokens as usize > text.len() / 4);
    assert!(!text.contains("ghp_"), "a secret would be sent: {text}");
    assert!(text.contains("[secret masked: "), "{text}");
    assert!(!home.verdicts.path().exists(), "a dry run wrote verdicts");
}

#[test]
fn pairs_over_the_budget_are_left_for_a_later_run() {
    let mut home = home();
    let one_pair = prompt::build(&[prompt::render_pair(1, &uncertain(&findings())[0])]).len();
    home.config.chunk_bytes = one_pair + 10;
    let fake = Fake::conflicts();
    let report = run(&home, &findings(), false, &fake).unwrap();
    assert_eq!(report.pairs.len(), 1);
    assert_eq!(
        report.over_budget,
        vec![["user/api-port".to_string(), "user/api-port-new".to_string()]]
    );

    let mut broke = self::home();
    broke.config.max_tokens = 10;
    let fake = Fake::conflicts();
    let report = run(&broke, &findings(), false, &fake).unwrap();
    assert_eq!(fake.calls(), 0, "a call over the token budget was made");
    assert_eq!(report.over_budget.len(), 2);
}

#[test]
fn an_answer_naming_a_pair_never_sent_is_refused_and_keeps_nothing() {
    let home = home();
    let fake = Fake::answering(|_| {
        json!({"verdicts": [{"pair": 7, "verdict": "duplicate", "reason": "same"}]}).to_string()
    });
    let err = run(&home, &findings(), false, &fake).unwrap_err();
    assert!(matches!(err, DistillError::MalformedAnswer { .. }), "{err}");
    assert!(!home.verdicts.path().exists());
    let prose = Fake::answering(|_| "They look like duplicates to me.".into());
    let err = run(&home, &findings(), false, &prose).unwrap_err();
    assert!(matches!(err, DistillError::MalformedAnswer { .. }), "{err}");
}

#[test]
fn a_pair_the_answer_skips_is_asked_again_next_time() {
    let home = home();
    let fake = Fake::answering(|_| {
        json!({"verdicts": [{"pair": 2, "verdict": "conflict", "reason": "two ports"}]}).to_string()
    });
    let report = run(&home, &findings(), false, &fake).unwrap();
    assert_eq!(
        report.unanswered,
        vec![[
            "user/pkg-install".to_string(),
            "user/pkg-install-now".to_string()
        ]]
    );
    let again = Fake::conflicts();
    let report = run(&home, &findings(), false, &again).unwrap();
    assert_eq!(again.calls(), 1);
    assert_eq!(report.pairs.len(), 1);
    assert_eq!(report.cached, 1);
}

#[test]
fn a_pairs_key_is_its_contents_in_either_order() {
    let a = subject("a", "one");
    let b = subject("b", "two");
    assert_eq!(pair_key(&a, &b), pair_key(&b, &a));
    let renamed = Subject {
        name: "c".into(),
        ..a.clone()
    };
    assert_eq!(pair_key(&a, &b), pair_key(&renamed, &b));
    assert_ne!(pair_key(&a, &b), pair_key(&subject("a", "one!"), &b));
}

#[test]
fn a_damaged_verdicts_file_is_an_error_not_an_empty_cache() {
    let home = home();
    let path = home.verdicts.path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{not json").unwrap();
    assert!(matches!(
        home.verdicts.read(),
        Err(DistillError::Damaged { .. })
    ));
    let err = run(&home, &findings(), false, &Fake::conflicts()).unwrap_err();
    assert!(matches!(err, DistillError::Damaged { .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{not json");
}

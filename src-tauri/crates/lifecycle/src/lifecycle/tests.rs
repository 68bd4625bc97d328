//! The inbox and its actions on a real temp home with a git repository as the project.

use std::process::Command;

use super::*;
use ambry_compose::compose::{compose, Budgets, ComposeInput};
use ambry_compose::ledger::Held;
use ambry_rank::rank::Gate;
use ambry_rank::rank::{CorpusCache, Semantic};
use ambry_store::config::{RetrievalConfig, Strategy};
use ambry_store::home::AmbryHome;
use ambry_store::project::Project;
use std::collections::HashMap;

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

fn setup() -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    let project = Project {
        slug: "repo-00000000".into(),
        root,
        remote: None,
    };
    let store = Store::new(AmbryHome::new(tmp.path().join("home")), Some(project));
    (tmp, store)
}

fn save(store: &Store, scope: Scope, name: &str, description: &str, body: &str) {
    let draft = MemoryDraft {
        name: name.into(),
        kind: "project".into(),
        description: description.into(),
        body: body.into(),
        tags: vec![],
    };
    store
        .save(scope, draft, at("2026-01-01T00:00:00Z"))
        .unwrap();
}

fn kinds(findings: &[Finding]) -> Vec<(String, Vec<String>)> {
    findings
        .iter()
        .map(|f| {
            let kind = serde_json::to_value(f).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string();
            (kind, f.names().iter().map(|(_, n)| n.to_string()).collect())
        })
        .collect()
}

#[test]
fn the_inbox_finds_duplicates_conflicts_and_expired_and_keep_quiets_them() {
    let (_tmp, store) = setup();
    save(
        &store,
        Scope::User,
        "install-deps",
        "How to install dependencies",
        "Run pnpm install at the repository root before building.",
    );
    save(
        &store,
        Scope::Project,
        "setup-deps",
        "Installing dependencies",
        "Run npm install at the repository root before building.",
    );
    save(
        &store,
        Scope::User,
        "test-style",
        "How tests are written",
        "Tests use real databases, never mocks, and each test cleans up its own rows.",
    );
    save(
        &store,
        Scope::User,
        "test-rules",
        "How tests are written here",
        "Tests use real databases, never mocks; each test cleans up its own rows.",
    );
    save(
        &store,
        Scope::User,
        "unrelated",
        "Commit messages",
        "Imperative mood, 72 columns.",
    );
    store
        .save_with_keys(
            Scope::User,
            MemoryDraft {
                name: "freeze".into(),
                kind: "project".into(),
                description: "Release freeze".into(),
                body: "No merges to main this week.".into(),
                tags: vec![],
            },
            &[("expires", "2026-03-01")],
            at("2026-01-01T00:00:00Z"),
        )
        .unwrap();
    let today: NaiveDate = "2026-03-01".parse().unwrap();
    let found = kinds(&review(&store, today).unwrap());
    assert!(
        found.contains(&("expired".into(), vec!["freeze".into()])),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            "duplicate".into(),
            vec!["test-rules".into(), "test-style".into()]
        )),
        "{found:?}"
    );
    assert!(
        found.iter().any(|(k, n)| k == "conflict"
            && n.contains(&"install-deps".to_string())
            && n.contains(&"setup-deps".to_string())),
        "{found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|(_, n)| n.contains(&"unrelated".to_string())),
        "{found:?}"
    );

    // Keep quiets the pair until the memory's text changes.
    keep(
        &store,
        Scope::User,
        "test-rules",
        at("2026-03-02T00:00:00Z"),
    )
    .unwrap();
    keep(
        &store,
        Scope::User,
        "test-style",
        at("2026-03-02T00:00:00Z"),
    )
    .unwrap();
    let found = kinds(&review(&store, today).unwrap());
    assert!(!found.iter().any(|(k, _)| k == "duplicate"), "{found:?}");
    save(
        &store,
        Scope::User,
        "test-rules",
        "How tests are written here",
        "Tests use real databases, never mocks; each test cleans up its own rows. Always.",
    );
    let found = kinds(&review(&store, today).unwrap());
    assert!(found.iter().any(|(k, _)| k == "duplicate"), "{found:?}");
}

#[test]
fn supersede_and_merge_are_archived_writes_and_retired_memories_are_never_injected() {
    let (_tmp, store) = setup();
    save(
        &store,
        Scope::User,
        "old-deploy",
        "Deploy steps",
        "Deploy with the fabfile: fab deploy.",
    );
    save(
        &store,
        Scope::User,
        "new-deploy",
        "Deploy steps",
        "Deploy with the release workflow.",
    );
    save(
        &store,
        Scope::User,
        "a-note",
        "Deploy note a",
        "deploy note a",
    );
    save(
        &store,
        Scope::User,
        "b-note",
        "Deploy note b",
        "deploy note b",
    );
    let now = at("2026-02-01T00:00:00Z");
    let retired = supersede(&store, Scope::User, "old-deploy", "new-deploy", now).unwrap();
    // The version before the supersede is what undoes it.
    let before = store.versions(Scope::User, Some("old-deploy")).unwrap();
    assert_eq!(
        retired.undo,
        [Replaced {
            scope: Scope::User,
            name: "old-deploy".into(),
            version: before[0].version.clone(),
        }]
    );
    let retired = retired.memory;
    assert_eq!(
        retired.lifecycle.superseded_by.as_deref(),
        Some("new-deploy")
    );
    assert_eq!(
        store
            .versions(Scope::User, Some("old-deploy"))
            .unwrap()
            .len(),
        1
    );
    assert!(supersede(&store, Scope::User, "a-note", "missing", now).is_err());

    let merged = merge(
        &store,
        (Scope::User, "a-note"),
        (Scope::User, "b-note"),
        MergeText {
            body: Some("notes a and b".into()),
            description: Some("Deploy notes a and b".into()),
        },
        now,
    )
    .unwrap();
    // Undone by the kept one's version before the merge and the forgotten one's.
    let undo: Vec<&str> = merged.undo.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(undo, ["a-note", "b-note"]);
    for r in &merged.undo {
        let versions = store.versions(r.scope, Some(&r.name)).unwrap();
        assert_eq!(versions[0].version, r.version, "{r:?}");
    }
    let merged = merged.memory;
    assert_eq!(merged.body, "notes a and b\n");
    assert_eq!(merged.description, "Deploy notes a and b");
    assert_eq!(merged.lifecycle.merged_from, vec!["b-note"]);
    assert!(store.get(Some(Scope::User), "b-note").is_err());
    assert_eq!(
        store.versions(Scope::User, Some("a-note")).unwrap().len(),
        1
    );
    assert_eq!(
        store.versions(Scope::User, Some("b-note")).unwrap().len(),
        1
    );
    let text = std::fs::read_to_string(&merged.path).unwrap();
    assert!(text.contains("merged_from: [b-note]\n"), "{text}");

    store
        .save_with_keys(
            Scope::User,
            MemoryDraft {
                name: "deploy-freeze".into(),
                kind: "project".into(),
                description: "Deploy freeze".into(),
                body: "No deploy during the freeze.".into(),
                tags: vec![],
            },
            &[("expires", "2026-02-01")],
            now,
        )
        .unwrap();
    let retrieval = RetrievalConfig {
        strategy: Strategy::Bm25,
        ..Default::default()
    };
    let held = Held::default();
    let uses = HashMap::new();
    let turn = |query: &str, today: &str| {
        compose(
            &store,
            &mut CorpusCache::in_memory(),
            &retrieval,
            &ComposeInput {
                start: false,
                resumed: None,
                query: Some(query),
                conversation: None,
                held: &held,
                gate: Gate::CALIBRATED,
                budgets: Budgets::from_config(&Default::default()),
                uses: &uses,
                today: Some(today.parse().unwrap()),
                disagreements: &ambry_compose::compose::NoDisagreements,
            },
            Semantic::Unavailable(&ambry_rank::embed::ModelUnavailable::NotRequested),
        )
    };
    let c = turn("how do we deploy", "2026-02-01");
    let injected: Vec<&str> = c.selected.iter().map(|s| s.name.as_str()).collect();
    assert!(injected.contains(&"new-deploy"), "{injected:?}");
    assert!(
        !injected.contains(&"old-deploy"),
        "superseded injected: {injected:?}"
    );
    // Asked about it by name: not on the day it expires, but the day before.
    let c = turn("is there a deploy freeze", "2026-02-01");
    assert!(
        !c.selected.iter().any(|s| s.name == "deploy-freeze"),
        "expired injected: {:?}",
        c.selected
    );
    let c = turn("is there a deploy freeze", "2026-01-31");
    assert!(
        c.selected.iter().any(|s| s.name == "deploy-freeze"),
        "{:?}",
        c.selected
    );
}

#[test]
fn a_project_memory_naming_a_removed_path_is_stale_with_the_commit() {
    let (_tmp, store) = setup();
    let root = store.project().unwrap().root.clone();
    let git = |args: &[&str]| {
        assert!(Command::new("git")
            .arg("-C")
            .arg(&root)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "-c",
                "commit.gpgsign=false"
            ])
            .args(args)
            .output()
            .unwrap()
            .status
            .success());
    };
    git(&["init", "-q"]);
    std::fs::create_dir_all(root.join("legacy")).unwrap();
    std::fs::write(root.join("legacy/run.sh"), "x").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-qm", "start"]);
    git(&["rm", "-rq", "legacy"]);
    git(&["commit", "-qm", "Remove the legacy scripts"]);
    save(
        &store,
        Scope::Project,
        "how-to-run",
        "Running locally",
        "Start it with legacy/run.sh from the root.",
    );
    let findings = review(&store, "2026-01-01".parse().unwrap()).unwrap();
    let stale = findings
        .iter()
        .find_map(|f| match f {
            Finding::Stale { memory, missing } => Some((memory.name.clone(), missing.clone())),
            _ => None,
        })
        .expect("a stale finding");
    assert_eq!(stale.0, "how-to-run");
    assert_eq!(stale.1[0].path, "legacy/run.sh");
    assert_eq!(stale.1[0].subject, "Remove the legacy scripts");
}

/// A store of one template filled in many times: every pair is a duplicate. The inbox lists the
/// closest `PAIR_FINDINGS_MAX` pairs (in the order of every pair), not all of them, and a pair
/// less alike waits for a later review.
#[test]
fn an_inbox_of_near_identical_memories_lists_the_closest_pairs_up_to_its_limit() {
    let (_tmp, store) = setup();
    let template = "Deploys go through the canary stage with the rollout dashboard open";
    for k in 0..33 {
        save(
            &store,
            Scope::User,
            &format!("deploy-note-{k:02}"),
            template,
            template,
        );
    }
    // Alike, but less than the copies are alike to one another.
    save(
        &store,
        Scope::User,
        "zz-deploy-variant",
        "Deploys go through the canary stage",
        "Deploys go through the canary stage with the rollout dashboard and the pager open",
    );
    let findings = review(&store, chrono::NaiveDate::from_ymd_opt(2026, 2, 1).unwrap()).unwrap();
    let pairs: Vec<Vec<String>> = kinds(&findings)
        .into_iter()
        .map(|(kind, names)| {
            assert_eq!(kind, "duplicate");
            names
        })
        .collect();
    // 33 copies make 528 pairs, all of similarity 1.
    assert_eq!(pairs.len(), PAIR_FINDINGS_MAX);
    assert!(pairs
        .iter()
        .all(|names| !names.contains(&"zz-deploy-variant".to_string())));
    let mut sorted = pairs.clone();
    sorted.sort();
    assert_eq!(pairs, sorted, "listed in the order of every pair");
}

/// A pair that reads as one statement but where one says it moved away from what the other
/// states is asked about — "same subject: duplicate or conflict?" — never listed as a duplicate
/// (a merge would keep both answers as one).
#[test]
fn a_pair_that_reads_alike_but_moved_on_is_asked_about_not_offered_as_a_merge() {
    let (_tmp, store) = setup();
    save(
        &store,
        Scope::User,
        "pkg-install",
        "How dependencies are installed",
        "Dependencies are installed with the workspace install at the repository root.",
    );
    save(
        &store,
        Scope::User,
        "pkg-install-now",
        "How dependencies are installed now",
        "Dependencies are no longer installed per package; they are installed with the workspace install at the repository root.",
    );
    let findings = review(&store, at("2026-06-01T00:00:00Z").date_naive()).unwrap();
    assert_eq!(
        kinds(&findings),
        vec![(
            "same_subject".to_string(),
            vec!["pkg-install".to_string(), "pkg-install-now".to_string()]
        )],
        "{findings:#?}"
    );
    let Finding::SameSubject { claims, .. } = &findings[0] else {
        unreachable!()
    };
    assert_eq!(
        claims,
        &vec![("still so".to_string(), "no longer".to_string())]
    );
}

/// A merge never goes through a memory file that is a symbolic link: it copied what the link
/// pointed to and deleted the link.
#[test]
fn a_merge_through_a_memory_that_is_a_link_is_refused_and_changes_nothing() {
    let (tmp, store) = setup();
    save(&store, Scope::User, "ok", "fine", "fine");
    let outside = tmp.path().join("elsewhere.md");
    let text = "---\nname: linked\ntype: user\ndescription: d\n---\nfrom outside the store\n";
    std::fs::write(&outside, text).unwrap();
    let link = store.dir(Scope::User).unwrap().join("linked.md");
    std::os::unix::fs::symlink(&outside, &link).unwrap();

    let merged = merge(
        &store,
        (Scope::User, "ok"),
        (Scope::User, "linked"),
        MergeText::default(),
        at("2026-01-02T00:00:00Z"),
    );
    assert!(merged.is_err(), "{merged:?}");
    assert_eq!(store.get(None, "ok").unwrap().body, "fine\n");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), text);
}

/// The review's JSON of a home holding two user memories, `(name, description, body)` each.
fn review_json_of_two(a: (&str, &str, &str), b: (&str, &str, &str)) -> serde_json::Value {
    let (_tmp, store) = setup();
    for (name, description, body) in [a, b] {
        save(&store, Scope::User, name, description, body);
    }
    let findings = review(&store, at("2026-06-01T00:00:00Z").date_naive()).unwrap();
    serde_json::to_value(&findings).unwrap()
}

/// A conflict carries its evidence: the rival claims and what both memories are about, as the
/// review's JSON shows them.
#[test]
fn a_conflict_shows_the_rival_claims_and_the_subject_they_share() {
    let json = review_json_of_two(
        (
            "orders-port",
            "Port of the orders service",
            "The orders service listens on port 8081.",
        ),
        (
            "orders-port-new",
            "Port of the orders service",
            "The orders service listens on port 9090.",
        ),
    );
    assert_eq!(json[0]["kind"], "conflict", "{json:#}");
    assert_eq!(
        json[0]["claims"][0],
        serde_json::json!(["8081", "9090"]),
        "{json:#}"
    );
    assert_eq!(
        json[0]["subject"],
        serde_json::json!(["orders service"]),
        "{json:#}"
    );
}

/// A duplicate that says one value two ways shows both ways as its evidence.
#[test]
fn a_duplicate_shows_the_values_both_state_each_in_its_own_words() {
    let json = review_json_of_two(
        (
            "token-lifetime",
            "Access token lifetime",
            "Access tokens expire after 15 minutes.",
        ),
        (
            "token-lifetime-seconds",
            "Access token lifetime",
            "Access tokens expire after 900 seconds.",
        ),
    );
    assert_eq!(json[0]["kind"], "duplicate", "{json:#}");
    assert_eq!(
        json[0]["agreed"],
        serde_json::json!([["15 minutes", "900 seconds"]]),
        "{json:#}"
    );
}

/// Two memories that say one rule in other words, with nothing apart: a duplicate when the
/// model reads them as one meaning, shown with that reading; neither when it does not.
#[test]
fn one_rule_in_other_words_is_a_duplicate_when_the_model_reads_one_meaning() {
    let (_tmp, store) = setup();
    save(
        &store,
        Scope::User,
        "typed-python-functions",
        "All functions need type hints",
        "Every new Python function should have full type annotations for its parameters and return value.",
    );
    save(
        &store,
        Scope::User,
        "annotate-signatures",
        "Annotation policy",
        "Write complete annotations on any function signature you add to the Python code, return type included.",
    );
    let today = at("2026-06-01T00:00:00Z").date_naive();
    // Unit vectors whose cosine is `c`: the first memory on one axis, the other turned from it.
    let review_at = |c: f32| {
        let vector_of = move |m: &Memory| {
            Some(if m.name == "typed-python-functions" {
                vec![1.0, 0.0]
            } else {
                vec![c, (1.0 - c * c).sqrt()]
            })
        };
        serde_json::to_value(review_with(&store, today, &vector_of, None).unwrap()).unwrap()
    };
    let alike = review_at(0.71);
    assert_eq!(alike[0]["kind"], "duplicate", "{alike:#}");
    let meaning = alike[0]["meaning"].as_f64().unwrap();
    assert!((meaning - 0.71).abs() < 1e-3, "{alike:#}");
    assert!(alike[0]["similarity"].as_f64().unwrap() < crate::lifecycle::pairs::DUPLICATE_AT);
    let apart = review_at(0.5);
    assert_eq!(apart, serde_json::json!([]), "{apart:#}");
    // Words only, nothing says they are one.
    assert_eq!(
        serde_json::to_value(review(&store, today).unwrap()).unwrap(),
        serde_json::json!([])
    );
}

/// Merged without a text of the person's, the kept body takes in only the other's sentences it
/// does not say: a sentence both have is never there twice.
#[test]
fn a_merge_without_a_text_keeps_one_body_and_takes_in_only_the_others_new_sentences() {
    let (_tmp, store) = setup();
    save(
        &store,
        Scope::User,
        "test-style",
        "How tests are written",
        "Tests use real databases, never mocks. Each test cleans up its own rows.",
    );
    save(
        &store,
        Scope::User,
        "test-rules",
        "How tests are written here",
        "Tests use real databases, never mocks.\nRun them with cargo nextest.",
    );
    let into = (Scope::User, "test-style");
    let from = (Scope::User, "test-rules");
    let draft = merge_draft(&store, into, from).unwrap();
    assert_eq!(
        draft.body,
        "Tests use real databases, never mocks. Each test cleans up its own rows.\n"
    );
    let offered: Vec<&str> = draft.differing.iter().map(|d| d.text.as_str()).collect();
    assert_eq!(offered, ["Run them with cargo nextest."]);

    let merged = merge(
        &store,
        into,
        from,
        MergeText::default(),
        at("2026-01-02T00:00:00Z"),
    )
    .unwrap()
    .memory;
    assert_eq!(
        merged.body,
        "Tests use real databases, never mocks. Each test cleans up its own rows.\nRun them with cargo nextest.\n"
    );
    assert_eq!(merged.description, "How tests are written");
}

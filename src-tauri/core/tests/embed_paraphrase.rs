//! An independent semantic check: queries that share no word with the memory they target.
//! bm25 cannot answer these by construction; the embedding model must. Needs the assets
//! (`ENGRAM_TEST_MODELS`, set by `make test`); fails saying what to run when they are absent.

use std::collections::HashSet;
use std::path::PathBuf;

use engram_core::embed::{reindex, semantic_scores, shared_embedder, ModelPaths, VectorCache};
use engram_core::memory::{Memory, Scope};

/// (name, description, body)
const MEMORIES: &[(&str, &str, &str)] = &[
    ("db-migrations", "How schema changes ship", "Run sqlx migrate before deploying; never edit an applied migration file."),
    ("jwt-refresh-flow", "Auth token renewal", "Access tokens expire after 15 minutes; the client swaps the refresh token at /auth/refresh."),
    ("ci-flaky-tests", "Unreliable checks in the pipeline", "The integration suite times out on the shared runner; rerun once before investigating."),
    ("release-process", "Cutting a version", "Tag vX.Y.Z on main, the workflow builds artifacts and publishes the changelog."),
    ("code-review-style", "Review etiquette", "Prefer small pull requests; reviewers answer within a day; nits are prefixed with nit:."),
    ("logging-policy", "What goes into logs", "Structured JSON logs; never log passwords or personal data; use trace ids."),
    ("k8s-rollback", "Reverting a bad rollout", "kubectl rollout undo deployment/api restores the previous replica set."),
    ("cache-invalidation", "Redis entries going stale", "Keys carry a version prefix; bump it to drop every cached product page."),
    ("oncall-rotation", "Who answers pages", "Weekly rotation, handover on Monday at 10:00, escalate after 30 minutes."),
    ("python-env", "Interpreter setup", "Use uv venv with Python 3.12; pin dependencies in requirements.lock."),
    ("frontend-build", "Bundling the web UI", "Vite builds to dist/; run pnpm build, assets are hashed for long caching."),
    ("payment-webhooks", "Stripe event handling", "Verify the signature header, process idempotently by event id, reply 200 quickly."),
    ("backup-restore", "Database snapshots", "Nightly pg_dump to S3, kept 30 days; restore with pg_restore into a scratch instance first."),
    ("feature-flags", "Toggling unfinished work", "Flags live in LaunchDarkly; remove a flag within two sprints of full rollout."),
    ("rate-limits", "Throttling API clients", "Token bucket of 100 requests per minute per key; return 429 with Retry-After."),
    ("timezone-handling", "Dates and clocks", "Store UTC everywhere; convert to the viewer's zone only when rendering."),
    ("error-budget", "Reliability target", "99.9% monthly availability; freeze launches when the budget is spent."),
    ("dependency-updates", "Keeping libraries current", "Renovate opens weekly grouped PRs; merge after the suite passes."),
    ("user-prefers-tabs", "Editor preference", "Indent with tabs in Go and Makefiles, four spaces elsewhere; no trailing whitespace."),
    ("memory-leak-hunt", "Growing RSS in the worker", "Heap profiles showed an unbounded map of sessions; evict entries after an hour."),
];

/// (query, target name): no word of the query appears in the target's name, description or body.
const QUERIES: &[(&str, &str)] = &[
    ("altering tables in production", "db-migrations"),
    (
        "keeping people signed in when credentials lapse",
        "jwt-refresh-flow",
    ),
    (
        "why does the build sometimes go red randomly",
        "ci-flaky-tests",
    ),
    (
        "how do we ship a fresh edition of our software",
        "release-process",
    ),
    ("giving feedback on teammates' patches", "code-review-style"),
    (
        "sensitive information in diagnostic output",
        "logging-policy",
    ),
    ("go back after a broken cluster upgrade", "k8s-rollback"),
    (
        "outdated stored copies shown to shoppers",
        "cache-invalidation",
    ),
    (
        "who is responsible for emergencies at night",
        "oncall-rotation",
    ),
    (
        "isolated sandbox for scripting language packages",
        "python-env",
    ),
    ("compiling javascript for browsers", "frontend-build"),
    (
        "card charge notifications from the billing provider",
        "payment-webhooks",
    ),
    ("recover lost data after disaster", "backup-restore"),
    (
        "hide half-done functionality behind switches",
        "feature-flags",
    ),
    ("too many calls from one customer", "rate-limits"),
    (
        "showing local hours in different countries",
        "timezone-handling",
    ),
    ("how much downtime is acceptable", "error-budget"),
    (
        "upgrading third-party packages regularly",
        "dependency-updates",
    ),
    ("source code layout taste", "user-prefers-tabs"),
    ("process consuming ever more ram", "memory-leak-hunt"),
];

fn model_paths() -> ModelPaths {
    let dir = std::env::var_os("ENGRAM_TEST_MODELS").map(PathBuf::from).unwrap_or_else(|| {
        panic!("ENGRAM_TEST_MODELS is not set: run `scripts/fetch-models.sh DIR` and set ENGRAM_TEST_MODELS=DIR (make test does both)")
    });
    let paths = ModelPaths::new(&dir, "all-MiniLM-L6-v2");
    if let Err(e) = paths.check() {
        panic!(
            "embedding assets missing under ENGRAM_TEST_MODELS={}: {e}",
            dir.display()
        );
    }
    paths
}

const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "how", "who", "why", "does", "our", "are", "too", "one", "new",
    "from", "into", "after", "when", "what", "more", "ever", "is", "in", "of", "a", "an", "to",
    "we", "do", "at", "on", "by",
];

/// Content-word stems (a 5-letter prefix stands in for a stemmer, erring on the strict side).
fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(|w| w.to_lowercase())
        .filter(|w| w.len() > 2 && !STOP_WORDS.contains(&w.as_str()))
        .map(|w| w.chars().take(5).collect())
        .collect()
}

#[test]
fn the_fixture_really_shares_no_words() {
    let mut overlaps = Vec::new();
    for (query, target) in QUERIES {
        let (name, description, body) = MEMORIES
            .iter()
            .find(|m| m.0 == *target)
            .expect("target exists");
        let doc = words(&format!("{name} {description} {body}"));
        let shared: Vec<_> = words(query).intersection(&doc).cloned().collect();
        if !shared.is_empty() {
            overlaps.push(format!("{query:?} shares {shared:?} with {target}"));
        }
    }
    assert!(overlaps.is_empty(), "{overlaps:#?}");
}

#[test]
fn semantic_ranking_finds_memories_with_no_shared_words() {
    let paths = model_paths();
    let dir = tempfile::tempdir().unwrap();
    let docs: Vec<Memory> = MEMORIES
        .iter()
        .map(|(name, description, body)| Memory {
            scope: Scope::User,
            name: name.to_string(),
            kind: "note".into(),
            description: description.to_string(),
            created: None,
            updated: None,
            tags: vec![],
            body: body.to_string(),
            path: dir.path().join(format!("{name}.md")),
        })
        .collect();
    let embedder = shared_embedder(&paths).unwrap();
    let mut embedder = embedder.lock().unwrap();
    reindex(&docs, &mut *embedder, &mut |_| {}).unwrap();
    let mut cache = VectorCache::new();

    let (mut hit1, mut hit3, mut rr) = (0usize, 0usize, 0f64);
    let mut misses = Vec::new();
    for (query, target) in QUERIES {
        let scores = semantic_scores(query, &docs, &mut *embedder, &mut cache).unwrap();
        let mut order: Vec<usize> = (0..docs.len()).collect();
        order.sort_by(|&a, &b| {
            scores[b]
                .unwrap_or(0.0)
                .total_cmp(&scores[a].unwrap_or(0.0))
        });
        let rank = order.iter().position(|&i| docs[i].name == *target).unwrap() + 1;
        hit1 += usize::from(rank == 1);
        hit3 += usize::from(rank <= 3);
        rr += 1.0 / rank as f64;
        if rank > 3 {
            misses.push(format!(
                "{query:?} → {target} at rank {rank} (top: {})",
                docs[order[0]].name
            ));
        }
    }
    let n = QUERIES.len() as f64;
    let (h1, h3, mrr) = (hit1 as f64 / n, hit3 as f64 / n, rr / n);
    println!("paraphrase set (semantic only): Hit@1 {h1:.2}  Hit@3 {h3:.2}  MRR {mrr:.2}");
    assert!(
        h3 >= 0.80,
        "paraphrase Hit@3 {h3:.2} < 0.80; misses: {misses:#?}"
    );
    assert!(
        mrr >= 0.70,
        "paraphrase MRR {mrr:.2} < 0.70; misses: {misses:#?}"
    );
}

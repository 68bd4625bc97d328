//! Eval of the default strategy against bm25 on an independent set: a paraphrase class
//! (queries share no word with their target) and a keyword class (queries quote the target's
//! own terms). Runs bm25, blend and rrf through the real ranker and the real model; needs
//! `ENGRAM_TEST_MODELS` (set by `make test`) and fails saying what to run without it.

use std::path::PathBuf;

use engram_core::config::{Fusion, Strategy};
use engram_core::embed::{reindex, semantic_arg, shared_embedder, ModelPaths, ModelScorer};
use engram_core::memory::{Memory, Scope};
use engram_core::rank::{rank, Corpus, DocTerms, SearchParams, Semantic, Synonyms};

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

/// (query, target): the target's own distinctive words.
const KEYWORD_QUERIES: &[(&str, &str)] = &[
    ("sqlx migrate", "db-migrations"),
    ("refresh token endpoint", "jwt-refresh-flow"),
    ("integration suite timeout runner", "ci-flaky-tests"),
    ("kubectl rollout undo", "k8s-rollback"),
    ("redis version prefix", "cache-invalidation"),
    ("uv venv requirements.lock", "python-env"),
    ("vite pnpm build", "frontend-build"),
    ("stripe webhook signature", "payment-webhooks"),
    ("pg_dump restore", "backup-restore"),
    ("launchdarkly flag", "feature-flags"),
    ("429 retry-after token bucket", "rate-limits"),
    ("renovate grouped PRs", "dependency-updates"),
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

#[derive(Debug, Clone, Copy)]
struct Metrics {
    hit1: f64,
    hit3: f64,
    mrr: f64,
}

fn evaluate(
    corpus: &Corpus,
    queries: &[(&str, &str)],
    params: &SearchParams,
    semantic: &dyn Fn() -> Semantic<'static>,
) -> Metrics {
    let synonyms = Synonyms::new(&[]);
    let (mut h1, mut h3, mut rr) = (0.0, 0.0, 0.0);
    for (query, target) in queries {
        let ranking = rank(corpus, query, params, &synonyms, semantic());
        if let Some(pos) = ranking.hits.iter().position(|h| h.name == *target) {
            let r = (pos + 1) as f64;
            h1 += f64::from(u8::from(r == 1.0));
            h3 += f64::from(u8::from(r <= 3.0));
            rr += 1.0 / r;
        }
    }
    let n = queries.len() as f64;
    Metrics {
        hit1: h1 / n,
        hit3: h3 / n,
        mrr: rr / n,
    }
}

#[test]
fn default_strategy_beats_bm25_on_paraphrases_and_never_loses_on_keywords() {
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
    {
        let embedder = shared_embedder(&paths).unwrap();
        let mut embedder = embedder.lock().unwrap();
        reindex(&docs, &mut *embedder, &mut |_| {}).unwrap();
    }
    let corpus = Corpus::build(docs.iter().map(DocTerms::from_memory));
    let scorer: &'static Result<ModelScorer, _> = Box::leak(Box::new(ModelScorer::load(&paths)));
    let semantic = move || semantic_arg(scorer);
    let lexical_only = || Semantic::Unavailable("bm25 baseline".into());
    let params = |strategy, fusion| SearchParams {
        strategy,
        fusion,
        semantic_weight: engram_core::config::RetrievalConfig::default().semantic_weight as f32,
        min_score: 0.0,
        limit: None,
    };

    let default = engram_core::config::RetrievalConfig::default();
    let mut table = Vec::new();
    for (label, strategy, fusion) in [
        ("bm25", Strategy::Bm25, Fusion::Blend),
        ("blend", Strategy::Auto, Fusion::Blend),
        ("rrf", Strategy::Auto, Fusion::Rrf),
    ] {
        let p = params(strategy, fusion);
        let para = if strategy == Strategy::Bm25 {
            evaluate(&corpus, QUERIES, &p, &lexical_only)
        } else {
            evaluate(&corpus, QUERIES, &p, &semantic)
        };
        let kw = if strategy == Strategy::Bm25 {
            evaluate(&corpus, KEYWORD_QUERIES, &p, &lexical_only)
        } else {
            evaluate(&corpus, KEYWORD_QUERIES, &p, &semantic)
        };
        println!(
            "{label:<6} paraphrase Hit@1 {:.2} Hit@3 {:.2} MRR {:.2} | keyword Hit@1 {:.2} Hit@3 {:.2} MRR {:.2}",
            para.hit1, para.hit3, para.mrr, kw.hit1, kw.hit3, kw.mrr
        );
        table.push((label, fusion, para, kw));
    }
    // Sensitivity of blend to its weight, printed for tuning (not gated).
    for w in [0.4f32, 0.5, 0.6, 0.7] {
        let p = SearchParams {
            semantic_weight: w,
            ..params(Strategy::Auto, Fusion::Blend)
        };
        let para = evaluate(&corpus, QUERIES, &p, &semantic);
        let kw = evaluate(&corpus, KEYWORD_QUERIES, &p, &semantic);
        println!("blend w={w:.1} paraphrase Hit@1 {:.2} Hit@3 {:.2} MRR {:.2} | keyword Hit@1 {:.2} MRR {:.2}", para.hit1, para.hit3, para.mrr, kw.hit1, kw.mrr);
    }
    let bm25 = table[0];
    let chosen = table
        .iter()
        .find(|t| t.0 != "bm25" && t.1 == default.fusion)
        .unwrap();
    assert!(
        chosen.2.hit3 >= 0.80,
        "default fusion paraphrase Hit@3 {:.2} < 0.80",
        chosen.2.hit3
    );
    assert!(
        chosen.2.mrr > bm25.2.mrr,
        "default fusion must beat bm25 on paraphrases"
    );
    assert!(
        chosen.3.hit1 >= bm25.3.hit1 && chosen.3.mrr >= bm25.3.mrr - 1e-9,
        "default fusion worse than bm25 on keywords: {:?} vs {:?}",
        chosen.3,
        bm25.3
    );
}

//! Eval of the default strategy against bm25 on an independent set: a paraphrase class
//! (queries share no word with their target) and a keyword class (queries quote the target's
//! own terms). Runs bm25, blend and rrf through the real ranker and the real model; needs
//! `AMBRY_TEST_MODELS` (set by `make test`) and fails saying what to run without it.

use ambry_rank::embed::{reindex, semantic_arg, shared_embedder, ModelScorer};
use ambry_rank::rank::{rank, Corpus, DocTerms, SearchParams, Semantic, Synonyms};
use ambry_store::config::{Fusion, Strategy};

use crate::support;
use support::model_paths;
use support::paraphrase_set::{MEMORIES, QUERIES};

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
    let docs = support::memories(dir.path(), MEMORIES);
    {
        let embedder = shared_embedder(&paths).unwrap();
        let mut embedder = embedder.lock().unwrap();
        reindex(&docs, &mut *embedder, &mut |_| {}).unwrap();
    }
    let corpus = Corpus::build(docs.iter().map(DocTerms::from_memory));
    let scorer: &'static Result<ModelScorer, _> = Box::leak(Box::new(ModelScorer::load(&paths)));
    let semantic = move || semantic_arg(scorer);
    let lexical_only = || Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested);
    let params = |strategy, fusion| SearchParams {
        strategy,
        fusion,
        semantic_weight: ambry_store::config::RetrievalConfig::default().semantic_weight as f32,
        min_score: 0.0,
        limit: None,
    };

    let default = ambry_store::config::RetrievalConfig::default();
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

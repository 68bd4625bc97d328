//! Search and compose at 1k, 10k and 100k memories: warm (corpus cached in-process), warm with
//! the per-call disk check, cold from the persistent cache (a fresh `ambry` process), and cold
//! from nothing (first run ever). Then the app's search overlay at 10k: `Workspace::search` over
//! every memory (user and every project) as the app calls it on each keystroke, ranked with bm25,
//! and with the model when `AMBRY_TEST_MODELS` names a directory holding it (every memory then
//! gets a sidecar of random vectors). Numbers are reported in the issue notes; nothing is asserted.

use std::hint::black_box;

use ambry_compose::compose::{compose, Budgets, ComposeInput};
use ambry_core::{Coverage, SearchOptions, Workspace};
use ambry_rank::rank::{self, CorpusCache, SearchParams, Semantic, Synonyms};
use ambry_store::config::{RetrievalConfig, Strategy};
use ambry_store::memory::ScopeFilter;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

mod synthetic;

const QUERY: &str = "why does the refresh token cache break after a canary deploy?";

fn benches(c: &mut Criterion) {
    let retrieval = RetrievalConfig {
        strategy: Strategy::Bm25,
        ..Default::default()
    };
    let params = SearchParams::from_config(&retrieval);
    let synonyms = Synonyms::new(&[]);
    for n in [1_000usize, 10_000, 100_000] {
        let tmp = tempfile::tempdir().unwrap();
        let store = synthetic::build_store(tmp.path(), n);
        let mut group = c.benchmark_group(format!("memories_{n}"));
        group.sample_size(if n >= 100_000 { 10 } else { 20 });

        // The ranker alone on a built corpus.
        let mut cache = CorpusCache::in_memory();
        let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
        group.bench_function(BenchmarkId::new("rank_warm", n), |b| {
            b.iter(|| {
                black_box(rank::rank(
                    &corpus,
                    QUERY,
                    &params,
                    &synonyms,
                    Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
                ))
            })
        });
        // search(): the same plus a stat of every file to catch edits.
        group.bench_function(BenchmarkId::new("search_warm_checked", n), |b| {
            b.iter(|| {
                black_box(
                    rank::search(
                        &store,
                        &mut cache,
                        ScopeFilter::All,
                        QUERY,
                        &params,
                        &synonyms,
                        Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
                    )
                    .unwrap(),
                )
            })
        });
        // A fresh process: snapshots come from index.sqlite.
        CorpusCache::persistent(&store.home().index_db())
            .corpus(&store, ScopeFilter::All)
            .unwrap();
        group.bench_function(BenchmarkId::new("search_cold_persistent", n), |b| {
            b.iter(|| {
                let mut fresh = CorpusCache::persistent(&store.home().index_db());
                black_box(
                    rank::search(
                        &store,
                        &mut fresh,
                        ScopeFilter::All,
                        QUERY,
                        &params,
                        &synonyms,
                        Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
                    )
                    .unwrap(),
                )
            })
        });
        group.bench_function(BenchmarkId::new("compose_cold_persistent", n), |b| {
            b.iter(|| {
                let mut fresh = CorpusCache::persistent(&store.home().index_db());
                let held = Default::default();
                let uses = Default::default();
                let request = ComposeInput {
                    start: false,
                    resumed: None,
                    query: Some(QUERY),
                    conversation: None,
                    held: &held,
                    gate: rank::Gate::CALIBRATED,
                    budgets: Budgets::from_config(&Default::default()),
                    uses: &uses,
                    today: None,
                    disagreements: &ambry_compose::compose::NoDisagreements,
                };
                black_box(compose(
                    &store,
                    &mut fresh,
                    &retrieval,
                    &request,
                    Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
                ))
            })
        });
        if n <= 10_000 {
            // First run ever: read, parse and stem every file.
            group.bench_function(BenchmarkId::new("search_cold_nothing", n), |b| {
                b.iter(|| {
                    let mut fresh = CorpusCache::in_memory();
                    black_box(
                        rank::search(
                            &store,
                            &mut fresh,
                            ScopeFilter::All,
                            QUERY,
                            &params,
                            &synonyms,
                            Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
                        )
                        .unwrap(),
                    )
                })
            });
        }
        group.finish();
    }
}

/// What a person types into the overlay: a few prefixes of one query, as keystrokes arrive.
const TYPED: &[&str] = &[
    "re",
    "refresh tok",
    "refresh token cache after a canary dep",
    "database migration rollback",
];

/// The overlay's call (the app's `search_memories`: everything, 50 rows, evident hits only) on a
/// workspace that trusts its watcher, as the app's does.
fn workspace_benches(c: &mut Criterion) {
    let n = 10_000;
    let tmp = tempfile::tempdir().unwrap();
    let store = synthetic::build_store(tmp.path(), n);
    let models = std::env::var_os("AMBRY_TEST_MODELS").filter(|m| !m.is_empty());
    let model_id = RetrievalConfig::default().embedding_model;
    if models.is_some() {
        synthetic::write_random_sidecars(&store, &model_id);
    }
    let workspace = Workspace::with_models(
        store.home().clone(),
        models
            .clone()
            .unwrap_or_else(|| tmp.path().join("no-models").into()),
    );
    workspace.trust_watcher();
    let mut group = c.benchmark_group(format!("workspace_everything_{n}"));
    group.sample_size(30);
    let mut strategies = vec![("bm25", Some(Strategy::Bm25))];
    if models.is_some() {
        strategies.push(("auto", None));
    }
    for (label, strategy) in strategies {
        let options = SearchOptions {
            limit: Some(50),
            strategy,
            only_evident: true,
            today: None,
        };
        // The first call reads the corpus (and loads the model, reads every sidecar).
        let first = workspace
            .search(TYPED[0], Coverage::Everything, &options)
            .unwrap();
        assert_eq!(
            first.strategy,
            strategy.unwrap_or(Strategy::Semantic),
            "{:?}",
            first.note
        );
        for query in TYPED {
            group.bench_function(BenchmarkId::new(label, query), |b| {
                b.iter(|| {
                    black_box(
                        workspace
                            .search(query, Coverage::Everything, &options)
                            .unwrap(),
                    )
                })
            });
        }
    }
    group.finish();
}

criterion_group!(search, benches);
criterion_group!(workspace, workspace_benches);
criterion_main!(search, workspace);

//! Search and compose at 1k, 10k and 100k memories: warm (corpus cached in-process), warm with
//! the per-call disk check, cold from the persistent cache (a fresh `engram` process), and cold
//! from nothing (first run ever). Numbers are reported in the issue notes; nothing is asserted.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use engram_core::compose::{compose, ComposeRequest};
use engram_core::config::{RetrievalConfig, Strategy};
use engram_core::memory::ScopeFilter;
use engram_core::rank::{self, CorpusCache, SearchParams, Semantic, Synonyms};

mod synthetic;

const QUERY: &str = "why does the refresh token cache break after a canary deploy?";

fn benches(c: &mut Criterion) {
    let retrieval = RetrievalConfig { strategy: Strategy::Bm25, ..Default::default() };
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
            b.iter(|| black_box(rank::rank(&corpus, QUERY, &params, &synonyms, Semantic::Unavailable("bench".into()))))
        });
        // search(): the same plus a stat of every file to catch edits.
        group.bench_function(BenchmarkId::new("search_warm_checked", n), |b| {
            b.iter(|| {
                black_box(
                    rank::search(&store, &mut cache, ScopeFilter::All, QUERY, &params, &synonyms, Semantic::Unavailable("bench".into()))
                        .unwrap(),
                )
            })
        });
        // A fresh process: snapshots come from index.sqlite.
        CorpusCache::persistent(&store.home().index_db()).corpus(&store, ScopeFilter::All).unwrap();
        group.bench_function(BenchmarkId::new("search_cold_persistent", n), |b| {
            b.iter(|| {
                let mut fresh = CorpusCache::persistent(&store.home().index_db());
                black_box(
                    rank::search(&store, &mut fresh, ScopeFilter::All, QUERY, &params, &synonyms, Semantic::Unavailable("bench".into()))
                        .unwrap(),
                )
            })
        });
        group.bench_function(BenchmarkId::new("compose_cold_persistent", n), |b| {
            b.iter(|| {
                let mut fresh = CorpusCache::persistent(&store.home().index_db());
                let request = ComposeRequest::new(QUERY, &retrieval);
                black_box(compose(&store, &mut fresh, &retrieval, &request, Semantic::Unavailable("bench".into())))
            })
        });
        if n <= 10_000 {
            // First run ever: read, parse and stem every file.
            group.bench_function(BenchmarkId::new("search_cold_nothing", n), |b| {
                b.iter(|| {
                    let mut fresh = CorpusCache::in_memory();
                    black_box(
                        rank::search(&store, &mut fresh, ScopeFilter::All, QUERY, &params, &synonyms, Semantic::Unavailable("bench".into()))
                            .unwrap(),
                    )
                })
            });
        }
        group.finish();
    }
}

criterion_group!(search, benches);
criterion_main!(search);

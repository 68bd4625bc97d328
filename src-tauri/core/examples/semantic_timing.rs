//! Where a warm semantic search spends its time at N memories (the embedding of the query vs.
//! scoring every sidecar): `semantic_timing AMBRY_HOME MODELS_DIR`, e.g. on a home from
//! `gen_memories DIR N all-MiniLM-L6-v2`.
use ambry_core::AmbryHome;
use ambry_rank::embed::{ModelPaths, ModelScorer, TextEmbedder};
use ambry_rank::rank::{CorpusCache, SemanticScorer};
use ambry_store::memory::{ScopeFilter, Store};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let home = AmbryHome::new(&args[1]);
    let paths = ModelPaths::new(&args[2], "all-MiniLM-L6-v2");
    let store = Store::new(home, None);
    let mut cache = CorpusCache::in_memory();
    let corpus = cache.corpus(&store, ScopeFilter::All).unwrap();
    let scorer = ModelScorer::load(&paths).unwrap().trust_watcher();
    for q in [
        "warm",
        "refresh token cache after a canary deploy",
        "database migration rollback",
        "flaky",
    ] {
        let t = Instant::now();
        let s = scorer.similarities(q, &corpus.docs).unwrap();
        println!(
            "{q:?}: similarities over {} docs {:.1} ms",
            s.len(),
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    let shared = ambry_rank::embed::shared_embedder(&paths).unwrap();
    for q in ["refresh token cache after a canary deploy", "flaky"] {
        let t = Instant::now();
        shared.lock().unwrap().embed(&[q.to_string()]).unwrap();
        println!(
            "{q:?}: embed only {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}

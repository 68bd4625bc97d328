//! Measures the embedding path on this machine and prints one line per figure:
//! raw fastembed throughput, reindex throughput on the same texts, peak RSS, and a no-op
//! reindex over many current sidecars.
//!
//! `cargo run --release -p ambry-core --example embed_bench -- MODELS_DIR [BATCH] [TEXTS] [NOOP_DOCS]`
//! Run once per batch size: peak RSS (VmHWM) is per process.

use std::path::Path;
use std::time::Instant;

use ambry_rank::embed::{
    embedded_text, reindex, semantic_scores, sidecar_path, text_hash, write_sidecar, EmbedError,
    Embedder, ModelPaths, TextEmbedder, VectorCache,
};
use ambry_store::memory::{Memory, Scope};

const WORDS: &[&str] = &[
    "deploy",
    "database",
    "migration",
    "token",
    "refresh",
    "cache",
    "kubernetes",
    "pipeline",
    "review",
    "branch",
    "rebase",
    "schema",
    "index",
    "latency",
    "retry",
    "queue",
    "worker",
    "config",
    "secret",
    "rotate",
    "test",
    "fixture",
    "mock",
    "release",
    "rollback",
    "alert",
    "dashboard",
    "metric",
    "trace",
    "span",
    "user",
    "session",
    "login",
    "cookie",
    "header",
    "proxy",
];

fn memory(dir: &Path, i: usize) -> Memory {
    // ~70 words of developer prose per memory, varied by index.
    let body: Vec<&str> = (0..70)
        .map(|k| WORDS[(i * 7 + k * 13 + k * k) % WORDS.len()])
        .collect();
    Memory::sketch(
        Scope::User,
        format!("memory-{i}"),
        "note",
        format!(
            "note {i} about {} and {}",
            WORDS[i % WORDS.len()],
            WORDS[(i / 3) % WORDS.len()]
        ),
        body.join(" "),
        dir.join(format!("memory-{i}.md")),
    )
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let models = args
        .get(1)
        .expect("usage: embed_bench MODELS_DIR [BATCH] [TEXTS] [NOOP_DOCS]");
    let batch: usize = args
        .get(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(ambry_rank::embed::BATCH_SIZE);
    let n: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(256);
    let noop_docs: usize = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let paths = ModelPaths::new(models, "all-MiniLM-L6-v2");

    let start = Instant::now();
    let mut embedder = Embedder::load(&paths).expect("load").with_batch_size(batch);
    println!("load_s {:.3}", start.elapsed().as_secs_f64());
    let first = Instant::now();
    embedder
        .embed(&["how do we roll back a deploy".to_string()])
        .unwrap();
    println!("first_query_embed_s {:.3}", first.elapsed().as_secs_f64());
    // What an idle long-lived process gets back by letting go of the model.
    let loaded_rss = rss_mb();
    embedder.release_if_idle(std::time::Duration::ZERO, Instant::now());
    println!("rss_mb loaded {loaded_rss:.0} released {:.0}", rss_mb());
    let reload = Instant::now();
    embedder
        .embed(&["how do we roll back a deploy".to_string()])
        .unwrap();
    println!(
        "reload_and_embed_s {:.3} rss_mb {:.0}",
        reload.elapsed().as_secs_f64(),
        rss_mb()
    );

    let dir = tempfile::tempdir().unwrap();
    let docs: Vec<Memory> = (0..n).map(|i| memory(dir.path(), i)).collect();
    let texts: Vec<String> = docs
        .iter()
        .map(|m| embedded_text(&m.name, &m.description, &m.body))
        .collect();
    embedder.embed(&texts[..batch.min(n)]).unwrap(); // warm-up

    let start = Instant::now();
    embedder.embed(&texts).unwrap();
    let raw = n as f64 / start.elapsed().as_secs_f64();
    println!("batch {batch} raw_texts_per_s {raw:.1}");

    let start = Instant::now();
    let report = reindex(&docs, &mut embedder, &mut |_| {}).unwrap();
    let re = n as f64 / start.elapsed().as_secs_f64();
    assert_eq!(report.created, n);
    println!(
        "batch {batch} reindex_texts_per_s {re:.1} ratio {:.3}",
        re / raw
    );
    println!("batch {batch} peak_rss_mb {:.0}", peak_rss_mb());

    // Reindex work outside the model (text, hash, header read, atomic write), with an embedder
    // that costs nothing: the throughput ratio is embed / (embed + this).
    let overhead_dir = tempfile::tempdir().unwrap();
    let overhead_docs: Vec<Memory> = (0..n).map(|i| memory(overhead_dir.path(), i)).collect();
    let start = Instant::now();
    reindex(&overhead_docs, &mut FreeEmbedder, &mut |_| {}).unwrap();
    let overhead = start.elapsed().as_secs_f64() / n as f64;
    println!(
        "reindex_overhead_ms_per_doc {:.3} model_ms_per_doc {:.1} implied_ratio {:.3}",
        overhead * 1e3,
        1e3 / raw,
        (1.0 / raw) / (1.0 / raw + overhead)
    );

    if noop_docs > 0 {
        let many = tempfile::tempdir().unwrap();
        let docs: Vec<Memory> = (0..noop_docs).map(|i| memory(many.path(), i)).collect();
        let vector = vec![0.1f32; embedder.dimension()];
        for m in &docs {
            let hash = text_hash(&embedded_text(&m.name, &m.description, &m.body));
            write_sidecar(&sidecar_path(&m.path), embedder.model_id(), hash, &vector).unwrap();
        }
        let start = Instant::now();
        let report = reindex(&docs, &mut embedder, &mut |_| {}).unwrap();
        assert_eq!(report.up_to_date, noop_docs);
        println!(
            "noop_reindex_docs {noop_docs} seconds {:.3}",
            start.elapsed().as_secs_f64()
        );
        let mut cache = VectorCache::new();
        for pass in ["cold", "warm"] {
            let start = Instant::now();
            let scores =
                semantic_scores("roll back a bad deploy", &docs, &mut embedder, &mut cache)
                    .unwrap();
            assert!(scores.iter().all(Option::is_some));
            println!(
                "semantic_query_{pass}_docs {noop_docs} seconds {:.3}",
                start.elapsed().as_secs_f64()
            );
        }
    }
}

/// A zero-cost stand-in so the bench isolates reindex's own work.
struct FreeEmbedder;
impl TextEmbedder for FreeEmbedder {
    fn model_id(&self) -> &str {
        "all-MiniLM-L6-v2"
    }
    fn dimension(&self) -> usize {
        384
    }
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|_| vec![0.1; 384]).collect())
    }
}

//! Where the search overlay's time goes per keystroke: the app's call (`Workspace::search` over
//! every memory, 51 rows, evident hits only) for each prefix of a few typed queries, warm, as
//! the app makes it with a watcher running. Prints p50/p95 per strategy, and loops for a profiler
//! with `--loop N`.
//!
//! `cargo run --release -p ambry-core --example search_timing -- HOME MODELS_DIR [--loop N]`
//! (a home from `gen_memories DIR N all-MiniLM-L6-v2`).

use std::path::PathBuf;
use std::time::Instant;

use ambry_core::{AmbryHome, Coverage, SearchOptions, Strategy, Workspace};

const QUERIES: [&str; 3] = [
    "refresh token cache after a canary deploy",
    "database migration rollback",
    "flaky integration tests",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: search_timing HOME MODELS_DIR [--loop N]");
        std::process::exit(2);
    }
    let ws = Workspace::with_models(AmbryHome::new(PathBuf::from(&args[0])), &args[1]);
    ws.trust_watcher();
    let loops: usize = match args.get(2).map(String::as_str) {
        Some("--loop") => args[3].parse().expect("--loop N"),
        _ => 1,
    };
    for strategy in [Strategy::Bm25, Strategy::Auto] {
        let options = SearchOptions {
            limit: Some(51),
            strategy: Some(strategy),
            only_evident: true,
            today: None,
        };
        // Warm: the corpus read and, for Auto, the model loaded.
        ws.search("warm", Coverage::Everything, &options)
            .expect("search");
        let mut times = Vec::new();
        for _ in 0..loops {
            for query in QUERIES {
                for end in 1..=query.len() {
                    let prefix = &query[..end];
                    if prefix.trim().is_empty() {
                        continue;
                    }
                    let t = Instant::now();
                    ws.search(prefix, Coverage::Everything, &options)
                        .expect("search");
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                }
            }
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{strategy:?}: {} searches, p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
            times.len(),
            times[times.len() / 2],
            times[times.len() * 95 / 100],
            times[times.len() - 1]
        );
    }
}

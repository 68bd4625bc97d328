//! Generates a synthetic store for whole-process benchmarks: `gen_memories DIR N [MODEL_ID]`
//! writes DIR/home (AMBRY_HOME) and DIR/repo (the project cwd). With MODEL_ID, every memory
//! also gets a `.vec` sidecar of that model holding a random unit vector (384 dimensions): the
//! semantic scan costs the same as over real vectors, without embedding N texts first
//! (about 18 texts/s here). Each sidecar is current for its memory's text, as after
//! `memory reindex`, so nothing that checks (the review count) embeds the store again. The
//! vectors carry no meaning; use them to time, never to judge ranking.

#[path = "../benches/synthetic.rs"]
mod synthetic;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(n)) = (args.next(), args.next().and_then(|n| n.parse().ok())) else {
        eprintln!("usage: gen_memories DIR N [MODEL_ID]");
        std::process::exit(2);
    };
    let store = synthetic::build_store(std::path::Path::new(&dir), n);
    if let Some(model_id) = args.next() {
        synthetic::write_random_sidecars(&store, &model_id);
    }
}

//! Generates a synthetic store for whole-process benchmarks: `gen_memories DIR N [MODEL_ID]`
//! writes DIR/home (ENGRAM_HOME) and DIR/repo (the project cwd). With MODEL_ID, every memory
//! also gets a `.vec` sidecar of that model holding a random unit vector (384 dimensions): the
//! semantic scan costs the same as over real vectors, without embedding N texts first
//! (about 18 texts/s here). The vectors carry no meaning; use them to time, never to judge
//! ranking.

#[path = "../benches/synthetic.rs"]
mod synthetic;

use engram_core::embed::{text_hash, write_sidecar};
use engram_core::memory::ScopeFilter;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(n)) = (args.next(), args.next().and_then(|n| n.parse().ok())) else {
        eprintln!("usage: gen_memories DIR N [MODEL_ID]");
        std::process::exit(2);
    };
    let store = synthetic::build_store(std::path::Path::new(&dir), n);
    if let Some(model_id) = args.next() {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        for file in store.list(ScopeFilter::All).expect("list the generated store") {
            let vector: Vec<f32> = (0..384).map(|_| next()).collect();
            let sidecar = file.path.with_extension("vec");
            write_sidecar(&sidecar, &model_id, text_hash(&file.path.display().to_string()), &vector).expect("write a sidecar");
        }
    }
}

//! Generates a synthetic store for whole-process benchmarks: `gen_memories DIR N` writes
//! DIR/home (ENGRAM_HOME) and DIR/repo (the project cwd).

#[path = "../benches/synthetic.rs"]
mod synthetic;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(n)) = (args.next(), args.next().and_then(|n| n.parse().ok())) else {
        eprintln!("usage: gen_memories DIR N");
        std::process::exit(2);
    };
    synthetic::build_store(std::path::Path::new(&dir), n);
}

//! Where the time of one `ambry compose` goes, step by step, as a fresh process pays it and
//! as a warm compose service pays it. Prints one line per step (milliseconds).
//!
//! `cargo run --release -p ambry-core --example compose_timing -- HOME CWD MODELS_DIR [QUERY]`
//! (a store from `gen_memories`, with `.vec` sidecars from `ambry memory reindex`).

use std::path::PathBuf;
use std::time::Instant;

use ambry_compose::compose::hook::ContextRequest;
use ambry_compose::compose::{compose, Budgets, ComposeInput};
use ambry_core::AmbryHome;
use ambry_core::ComposeService;
use ambry_rank::embed::{shared_embedder, ModelPaths, ModelScorer, TextEmbedder, VectorCache};
use ambry_rank::rank::{CorpusCache, Semantic};
use ambry_store::config::{Config, Strategy};
use ambry_store::memory::{ScopeFilter, Store};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: compose_timing HOME CWD MODELS_DIR [QUERY]");
        std::process::exit(2);
    }
    let home = AmbryHome::new(PathBuf::from(&args[0]));
    let cwd = PathBuf::from(&args[1]);
    let models_dir = PathBuf::from(&args[2]);
    let query = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| "why does the refresh token cache break after a canary deploy?".into());
    let mut step = Step(Instant::now());

    println!("fresh process:");
    let config = Config::load(&home.config_file()).expect("config");
    step.print("config load");
    let project = ambry_store::project::resolve(&cwd).ok();
    step.print("project resolve (git)");
    let store = Store::new(home.clone(), project);
    let mut cache = CorpusCache::persistent(&home.index_db());
    step.print("open index.sqlite");
    let corpus = cache.corpus(&store, ScopeFilter::All).expect("corpus");
    step.print(&format!(
        "corpus from the persistent cache ({} docs, stat every file)",
        corpus.len()
    ));
    let paths = ModelPaths::new(&models_dir, config.retrieval.embedding_model.clone());
    let scorer = ModelScorer::load(&paths).expect("model");
    step.print("model load (ONNX Runtime + all-MiniLM-L6-v2)");
    let embedder = shared_embedder(&paths).expect("model");
    embedder
        .lock()
        .unwrap()
        .embed(std::slice::from_ref(&query))
        .expect("embed");
    step.print("query embed (first inference)");
    embedder
        .lock()
        .unwrap()
        .embed(std::slice::from_ref(&query))
        .expect("embed");
    step.print("query embed (second inference)");
    let mut vectors = VectorCache::new();
    let found = corpus
        .docs
        .iter()
        .filter(|d| vectors.vector(&d.path, paths.model_id()).is_some())
        .count();
    step.print(&format!("read {found} .vec sidecars"));
    let found = corpus
        .docs
        .iter()
        .filter(|d| vectors.vector(&d.path, paths.model_id()).is_some())
        .count();
    step.print(&format!("revalidate {found} cached vectors (stat only)"));
    let mut retrieval = config.retrieval.clone();
    retrieval.strategy = Strategy::Semantic;
    let held = Default::default();
    let uses = Default::default();
    let request = ComposeInput {
        start: false,
        resumed: None,
        query: Some(&query),
        conversation: None,
        held: &held,
        gate: ambry_rank::rank::Gate::CALIBRATED,
        budgets: Budgets::from_config(&config.compose),
        uses: &uses,
        today: None,
        disagreements: &ambry_compose::compose::NoDisagreements,
    };
    let c = compose(
        &store,
        &mut cache,
        &retrieval,
        &request,
        Semantic::Available(&scorer),
    );
    step.print(&format!(
        "compose, semantic, cold vectors ({} bytes)",
        c.bytes
    ));
    compose(
        &store,
        &mut cache,
        &retrieval,
        &request,
        Semantic::Available(&scorer),
    );
    step.print("compose, semantic, warm (embed + cosine + bm25 + bodies)");
    retrieval.strategy = Strategy::Bm25;
    compose(
        &store,
        &mut cache,
        &retrieval,
        &request,
        Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
    );
    step.print("compose, bm25, warm");

    println!("compose service (after warm-up):");
    let service = ComposeService::new(ambry_core::Workspace::with_models(
        home.clone(),
        models_dir.clone(),
    ));
    service.warm_up();
    step.print("warm-up");
    for i in 0..3 {
        service
            .compose(
                &cwd,
                &ContextRequest::query(&query, None),
                chrono::Utc::now(),
            )
            .expect("compose");
        step.print(&format!("served compose #{}", i + 1));
    }
}

struct Step(Instant);
impl Step {
    fn print(&mut self, what: &str) {
        println!(
            "  {:>8.2} ms  {what}",
            self.0.elapsed().as_secs_f64() * 1000.0
        );
        self.0 = Instant::now();
    }
}

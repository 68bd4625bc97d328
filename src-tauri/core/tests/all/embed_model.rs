//! The real all-MiniLM-L6-v2 through ONNX Runtime. Needs the assets: `make test` fetches them
//! and sets `AMBRY_TEST_MODELS`; without them these tests fail saying what to run.

use ambry_core::ErrorCode;
use ambry_rank::embed::{
    reindex, release_idle_shared_model, shared_embedder, Embedder, ModelPaths, TextEmbedder,
    MODEL_DIMENSION,
};
use ambry_store::memory::{Memory, Scope};

use crate::support;
use support::model_paths;

/// A user memory at `dir/NAME.md` (not written).
fn memory_in(dir: &std::path::Path, name: &str, description: &str, body: &str) -> Memory {
    Memory::sketch(
        Scope::User,
        name,
        "project",
        description,
        body,
        dir.join(format!("{name}.md")),
    )
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn similar_meanings_are_closer_than_unrelated_ones() {
    let embedder = shared_embedder(&model_paths()).unwrap();
    let mut embedder = embedder.lock().unwrap();
    let texts: Vec<String> = ["a cat", "a kitten", "the stock market"]
        .map(String::from)
        .to_vec();
    let v = embedder.embed(&texts).unwrap();
    assert_eq!(v.len(), 3);
    assert!(v.iter().all(|x| x.len() == MODEL_DIMENSION));
    let related = cosine(&v[0], &v[1]);
    let unrelated = cosine(&v[0], &v[2]);
    assert!(
        related > unrelated + 0.3,
        "cat/kitten {related} vs cat/stock market {unrelated}"
    );
}

#[test]
fn the_model_is_loaded_once_per_process() {
    let paths = model_paths();
    let a = shared_embedder(&paths).unwrap();
    let b = shared_embedder(&paths).unwrap();
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    // A second independent load reuses the process's single ONNX Runtime environment.
    let mut second = Embedder::load(&paths).unwrap();
    assert_eq!(
        second.embed(&["x".to_string()]).unwrap()[0].len(),
        MODEL_DIMENSION
    );
}

#[test]
fn an_idle_model_is_released_and_the_next_call_loads_it_again_with_the_same_vectors() {
    let mut embedder = Embedder::load(&model_paths()).unwrap();
    let text = vec!["rotate the signing keys every quarter".to_string()];
    let before = embedder.embed(&text).unwrap();
    let used = std::time::Instant::now();
    let idle = std::time::Duration::from_secs(600);
    assert!(!embedder.release_if_idle(idle, used), "just used: kept");
    assert!(embedder.is_loaded());
    assert!(
        embedder.release_if_idle(idle, used + idle),
        "idle for the whole period: released"
    );
    assert!(!embedder.is_loaded());
    assert!(
        !embedder.release_if_idle(idle, used + idle * 2),
        "nothing left to release"
    );
    let after = embedder.embed(&text).unwrap();
    assert!(embedder.is_loaded(), "embedding loads the model again");
    assert_eq!(before, after, "the reloaded model gives the same vector");
}

#[test]
fn the_shared_model_is_released_only_when_idle_and_its_holders_keep_working() {
    let paths = model_paths();
    let shared = shared_embedder(&paths).unwrap();
    let text = vec!["the deploy window is Tuesday".to_string()];
    let before = shared.lock().unwrap().embed(&text).unwrap();
    let now = std::time::Instant::now();
    assert!(
        !release_idle_shared_model(std::time::Duration::from_secs(3600), now),
        "used a moment ago: kept"
    );
    // Other tests in this process use the same model; release waits for a moment it is free.
    let deadline = now + std::time::Duration::from_secs(20);
    let mut released = false;
    while !released && std::time::Instant::now() < deadline {
        released = release_idle_shared_model(
            std::time::Duration::ZERO,
            std::time::Instant::now() + std::time::Duration::from_secs(1),
        );
    }
    assert!(released, "an idle shared model was never released");
    // The same handle embeds again, with the same result.
    assert_eq!(shared.lock().unwrap().embed(&text).unwrap(), before);
}

#[test]
fn a_missing_runtime_is_an_error_naming_the_fetch_command() {
    let empty = tempfile::tempdir().unwrap();
    let err = Embedder::load(&ModelPaths::new(empty.path(), "all-MiniLM-L6-v2")).unwrap_err();
    assert_eq!(err.code(), "embedding_runtime_missing");
    assert!(err.to_string().contains("fetch-models.sh"));
}

#[test]
fn reindex_writes_vectors_the_model_agrees_with() {
    let paths = model_paths();
    let dir = tempfile::tempdir().unwrap();
    let docs = support::memories(
        dir.path(),
        &[
            (
                "db-migrations",
                "how schema changes ship",
                "Run sqlx migrate before deploy.",
            ),
            ("cat-care", "feeding the kitten", "Wet food twice a day."),
        ],
    );
    let embedder = shared_embedder(&paths).unwrap();
    let mut embedder = embedder.lock().unwrap();
    let report = reindex(&docs, &mut *embedder, &mut |_| {}).unwrap();
    assert_eq!(report.created, 2);
    let query = embedder
        .embed(&["looking after a young cat".to_string()])
        .unwrap()
        .remove(0);
    let cat = ambry_rank::embed::read_sidecar(&dir.path().join("cat-care.vec")).unwrap();
    let db = ambry_rank::embed::read_sidecar(&dir.path().join("db-migrations.vec")).unwrap();
    assert!(cosine(&query, &cat.vector) > cosine(&query, &db.vector));
}

#[test]
fn saving_with_the_model_writes_a_current_sidecar() {
    use ambry_rank::embed::{save_with_vector, VectorStatus};
    use ambry_store::memory::{MemoryDraft, Store};
    let home = tempfile::tempdir().unwrap();
    let store = Store::new(ambry_core::AmbryHome::new(home.path()), None);
    let draft = MemoryDraft {
        name: "deploy-steps".into(),
        kind: "project".into(),
        description: "how we ship".into(),
        body: "make release".into(),
        tags: vec![],
    };
    let now = chrono::Utc::now();
    let saved = save_with_vector(&store, Scope::User, draft.clone(), now, &model_paths()).unwrap();
    assert_eq!(saved.vector, VectorStatus::Written);
    let sidecar =
        ambry_rank::embed::read_sidecar(&saved.outcome.memory.path.with_extension("vec")).unwrap();
    assert_eq!(sidecar.vector.len(), MODEL_DIMENSION);
    let again = save_with_vector(&store, Scope::User, draft, now, &model_paths()).unwrap();
    assert_eq!(again.vector, VectorStatus::Current);
}

#[test]
fn the_ranker_scorer_uses_the_model_and_ignores_other_models() {
    use ambry_rank::embed::{text_hash, write_sidecar, ModelScorer};
    use ambry_rank::rank::{DocTerms, SemanticScorer};
    let paths = model_paths();
    let dir = tempfile::tempdir().unwrap();
    let docs = [
        memory_in(dir.path(), "pets", "", "Feeding the kitten wet food."),
        memory_in(dir.path(), "stocks", "", "Index funds and bonds."),
    ];
    {
        let embedder = shared_embedder(&paths).unwrap();
        let mut embedder = embedder.lock().unwrap();
        reindex(&docs[..1], &mut *embedder, &mut |_| {}).unwrap();
    }
    write_sidecar(
        &dir.path().join("stocks.vec"),
        "some-other-model",
        text_hash("x"),
        &[1.0; MODEL_DIMENSION],
    )
    .unwrap();
    let scorer = ModelScorer::load(&paths).unwrap();
    let terms: Vec<std::sync::Arc<DocTerms>> = docs
        .iter()
        .map(|m| DocTerms::from_memory(m).into())
        .collect();
    let scores = scorer
        .similarities("caring for a young cat", &terms)
        .unwrap();
    assert!(scores[0].unwrap() > 0.3, "{scores:?}");
    assert_eq!(
        scores[1], None,
        "a sidecar of another model contributes nothing"
    );
}

/// A prompt that refers back is ranked with the person's previous prompt, which that turn
/// embedded already: the follow-up runs the model once, for itself, and still finds what the
/// exchange was about (a whole exchange embedded anew cost a served turn a third more).
#[test]
fn a_follow_up_runs_the_model_once_and_finds_what_the_previous_prompt_was_about() {
    use ambry_rank::embed::ModelScorer;
    use ambry_rank::rank::conversation::Exchange;
    use ambry_rank::rank::{rank_for_gate_in, Corpus, DocTerms, Gate, SearchParams, Semantic};
    use ambry_store::config::{Fusion, Strategy};
    let paths = model_paths();
    let dir = tempfile::tempdir().unwrap();
    let memory =
        |name: &str, description: &str, body: &str| memory_in(dir.path(), name, description, body);
    let memories = [
        memory(
            "db-pool",
            "Connection pool sizing for the services",
            "Raise max_connections in pool.toml together with Postgres' limit; each replica holds its own pool.",
        ),
        memory(
            "release-notes",
            "How release notes are written",
            "Changelog entries come from Conventional Commits; release-please cuts the notes.",
        ),
    ];
    {
        let embedder = shared_embedder(&paths).unwrap();
        let mut embedder = embedder.lock().unwrap();
        reindex(&memories, &mut *embedder, &mut |_| {}).unwrap();
    }
    let corpus = Corpus::build(memories.iter().map(DocTerms::from_memory));
    let scorer = ModelScorer::load(&paths).unwrap();
    let params = SearchParams {
        strategy: Strategy::Auto,
        fusion: Fusion::Blend,
        semantic_weight: 0.6,
        min_score: 0.0,
        limit: None,
    };
    let synonyms = ambry_rank::rank::Synonyms::new(&[]);
    let turn = |prompt: &str, exchange: Option<Exchange<'_>>| {
        rank_for_gate_in(
            &corpus,
            prompt,
            exchange,
            &params,
            &synonyms,
            Semantic::Available(&scorer),
            Gate::CALIBRATED,
            0,
        )
        .admitted_names()
    };
    let asked = "bump the api's database connection pool to 50";
    assert_eq!(turn(asked, None), ["db-pool"]);
    assert_eq!(scorer.queries_embedded(), 1);
    let text = format!("{asked}\nDone: max_connections is 50 for the api.");
    let follow_up = turn(
        "ok, do the same for the worker",
        Some(Exchange {
            text: &text,
            asked: &format!("  {asked}\n"),
        }),
    );
    assert_eq!(follow_up, ["db-pool"]);
    assert_eq!(
        scorer.queries_embedded(),
        2,
        "the follow-up alone was embedded; the previous prompt's vector was kept"
    );
}

#[test]
fn a_loaded_model_tokenizes_on_the_calling_thread_with_the_same_vectors() {
    let texts: Vec<String> = [
        "why does the refresh token cache break after a canary deploy?",
        "a kitten",
        "rotate the signing keys every quarter, and tell the on-call first",
    ]
    .map(String::from)
    .to_vec();
    let mut embedder = Embedder::load(&model_paths()).unwrap();
    // A prompt is one text: handing it to a thread pool and waiting for a pool thread cost more
    // than tokenizing it (see `load_model`).
    assert!(!tokenizers::parallelism::get_parallelism());
    let serial = embedder.embed(&texts).unwrap();
    tokenizers::parallelism::set_parallelism(true);
    let pooled = embedder.embed(&texts);
    tokenizers::parallelism::set_parallelism(false);
    assert_eq!(serial, pooled.unwrap(), "the same tokens, the same vectors");
}

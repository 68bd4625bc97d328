//! Retrieval quality gate (DESIGN §4): the labeled fixture in `tests/fixtures/eval` is saved
//! through the real store and ranked by the real ranker; Hit@1, Hit@3 and MRR are printed
//! overall and per class, and floors just under the measured values catch regressions.

use std::collections::BTreeMap;
use std::path::Path;

use ambry_core::AmbryHome;
use ambry_rank::rank::{self, CorpusCache, SearchParams, Semantic, Synonyms};
use ambry_store::config::{Fusion, Strategy};
use ambry_store::memory::{MemoryDraft, Scope, ScopeFilter, Store};
use ambry_store::project::Project;
use serde::Deserialize;

use crate::support;
use support::model_paths;

#[derive(Deserialize)]
struct MemoryFixture {
    memory: Vec<FixtureMemory>,
}

#[derive(Deserialize)]
struct FixtureMemory {
    scope: String,
    name: String,
    #[serde(rename = "type")]
    kind: String,
    description: String,
    body: String,
}

#[derive(Deserialize)]
struct QueryFixture {
    query: Vec<FixtureQuery>,
}

#[derive(Deserialize)]
pub struct FixtureQuery {
    pub q: String,
    pub class: String,
    pub expect: String,
    pub expect_scope: Option<String>,
}

fn fixture_dir() -> std::path::PathBuf {
    crate::support::manifest_dir().join("tests/fixtures/eval")
}

/// Saves the fixture into a fresh home with a project; returns the store and the queries.
pub fn load_fixture(root: &Path) -> (Store, Vec<FixtureQuery>) {
    let memories: MemoryFixture =
        toml::from_str(&std::fs::read_to_string(fixture_dir().join("memories.toml")).unwrap())
            .unwrap();
    let queries: QueryFixture =
        toml::from_str(&std::fs::read_to_string(fixture_dir().join("queries.toml")).unwrap())
            .unwrap();
    let project = Project {
        slug: "payments-0a1b2c3d".into(),
        root: root.join("repo"),
        remote: None,
    };
    let store = Store::new(AmbryHome::new(root.join("home")), Some(project));
    let now = "2026-06-01T00:00:00Z".parse().unwrap();
    for m in memories.memory {
        let scope = if m.scope == "project" {
            Scope::Project
        } else {
            Scope::User
        };
        let draft = MemoryDraft {
            name: m.name,
            kind: m.kind,
            description: m.description,
            body: m.body,
            tags: vec![],
        };
        store.save(scope, draft, now).unwrap();
    }
    (store, queries.query)
}

#[derive(Default, Clone, Copy)]
struct Tally {
    n: usize,
    hit1: usize,
    hit3: usize,
    rr: f64,
}

impl Tally {
    fn add(&mut self, rank: Option<usize>) {
        self.n += 1;
        if let Some(r) = rank {
            self.hit1 += usize::from(r == 1);
            self.hit3 += usize::from(r <= 3);
            self.rr += 1.0 / r as f64;
        }
    }
    fn hit1(&self) -> f64 {
        self.hit1 as f64 / self.n as f64
    }
    fn hit3(&self) -> f64 {
        self.hit3 as f64 / self.n as f64
    }
    fn mrr(&self) -> f64 {
        self.rr / self.n as f64
    }
}

fn evaluate(
    store: &Store,
    queries: &[FixtureQuery],
    strategy: Strategy,
) -> BTreeMap<String, Tally> {
    evaluate_with(store, queries, strategy, Fusion::Blend, None)
}

fn evaluate_with(
    store: &Store,
    queries: &[FixtureQuery],
    strategy: Strategy,
    fusion: Fusion,
    scorer: Option<&dyn ambry_rank::rank::SemanticScorer>,
) -> BTreeMap<String, Tally> {
    let defaults = ambry_store::config::RetrievalConfig::default();
    let params = SearchParams {
        strategy,
        fusion,
        semantic_weight: defaults.semantic_weight as f32,
        min_score: 0.0,
        limit: None,
    };
    let synonyms = Synonyms::new(&[]);
    let mut cache = CorpusCache::in_memory();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for q in queries {
        let semantic = match scorer {
            Some(s) => Semantic::Available(s),
            None => Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
        };
        let ranking = rank::search(
            store,
            &mut cache,
            ScopeFilter::All,
            &q.q,
            &params,
            &synonyms,
            semantic,
        )
        .unwrap();
        let position = ranking.hits.iter().position(|h| {
            h.name == q.expect
                && q.expect_scope
                    .as_deref()
                    .is_none_or(|s| h.scope.as_str() == s)
        });
        let rank = position.map(|p| p + 1);
        if rank != Some(1) {
            let top: Vec<&str> = ranking
                .hits
                .iter()
                .take(3)
                .map(|h| h.name.as_str())
                .collect();
            println!(
                "  miss [{}] {:?} → expected {} at {:?}, got {:?}",
                q.class, q.q, q.expect, rank, top
            );
        }
        tallies.entry(q.class.clone()).or_default().add(rank);
        tallies.entry("ALL".into()).or_default().add(rank);
    }
    tallies
}

fn print_table(label: &str, tallies: &BTreeMap<String, Tally>) {
    println!(
        "\n{label}\n{:<11} {:>4} {:>6} {:>6} {:>6}",
        "class", "n", "Hit@1", "Hit@3", "MRR"
    );
    for (class, t) in tallies {
        println!(
            "{class:<11} {:>4} {:>6.3} {:>6.3} {:>6.3}",
            t.n,
            t.hit1(),
            t.hit3(),
            t.mrr()
        );
    }
}

#[test]
fn fixture_is_big_enough_and_well_labeled() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, queries) = load_fixture(tmp.path());
    let files = store.list(ScopeFilter::All).unwrap();
    assert!(files.len() >= 100, "{} memories", files.len());
    assert!(files.iter().all(|f| f.parsed.is_ok()));
    assert!(queries.len() >= 80);
    for q in &queries {
        assert!(
            files.iter().any(|f| f.name == q.expect),
            "query {:?} expects unknown memory {}",
            q.q,
            q.expect
        );
        assert!(["keyword", "morph", "synonym", "paraphrase", "shadow"].contains(&q.class.as_str()));
    }
}

#[test]
fn bm25_meets_its_floors() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, queries) = load_fixture(tmp.path());
    let bm25 = evaluate(&store, &queries, Strategy::Bm25);
    print_table("bm25", &bm25);
    let keyword = evaluate(&store, &queries, Strategy::Keyword);
    print_table("keyword", &keyword);

    let all = bm25["ALL"];
    // Floors sit just under the measured values (see the printed table); raise them with the ranker.
    assert!(
        all.hit1() >= FLOOR_HIT1,
        "Hit@1 {:.3} < {FLOOR_HIT1}",
        all.hit1()
    );
    assert!(
        all.hit3() >= FLOOR_HIT3,
        "Hit@3 {:.3} < {FLOOR_HIT3}",
        all.hit3()
    );
    assert!(all.mrr() >= FLOOR_MRR, "MRR {:.3} < {FLOOR_MRR}", all.mrr());
    for class in ["keyword", "morph", "synonym", "shadow"] {
        assert!(
            bm25[class].hit3() >= 0.85,
            "{class} Hit@3 {:.3}",
            bm25[class].hit3()
        );
    }
    assert!(
        bm25["synonym"].mrr() > keyword["synonym"].mrr(),
        "synonym expansion must beat exact matching on the synonym class"
    );
}

#[test]
fn a_shadowed_user_memory_never_surfaces_inside_the_project() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, queries) = load_fixture(tmp.path());
    let params = SearchParams {
        strategy: Strategy::Bm25,
        fusion: Fusion::Blend,
        semantic_weight: 0.4,
        min_score: 0.0,
        limit: None,
    };
    let mut cache = CorpusCache::in_memory();
    for q in queries.iter().filter(|q| q.class == "shadow") {
        let ranking = rank::search(
            &store,
            &mut cache,
            ScopeFilter::All,
            &q.q,
            &params,
            &Synonyms::new(&[]),
            Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
        )
        .unwrap();
        assert!(
            ranking
                .hits
                .iter()
                .any(|h| h.name == q.expect && h.scope == Scope::Project),
            "{:?}",
            q.q
        );
        assert!(
            !ranking
                .hits
                .iter()
                .any(|h| h.name == q.expect && h.scope == Scope::User),
            "user copy of {} leaked",
            q.expect
        );
        // Searching the user scope alone still finds the user's copy.
        let user_only = rank::search(
            &store,
            &mut cache,
            ScopeFilter::User,
            &q.q,
            &params,
            &Synonyms::new(&[]),
            Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
        )
        .unwrap();
        assert!(user_only.hits.iter().all(|h| h.scope == Scope::User));
    }
}

// Measured: Hit@1 0.819, Hit@3 0.904, MRR 0.863 (83 queries).
const FLOOR_HIT1: f64 = 0.80;
const FLOOR_HIT3: f64 = 0.89;
const FLOOR_MRR: f64 = 0.85;

#[test]
fn the_default_strategy_meets_its_floors_and_never_loses_keywords() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, queries) = load_fixture(tmp.path());
    let paths = model_paths();
    let embedder = ambry_rank::embed::shared_embedder(&paths).unwrap();
    let files = store.list(ScopeFilter::All).unwrap();
    let report =
        ambry_rank::embed::reindex_files(files, &mut *embedder.lock().unwrap(), &mut |_| {})
            .unwrap();
    assert_eq!(report.failed.len(), 0);
    let scorer = ambry_rank::embed::ModelScorer::load(&paths).unwrap();

    let bm25 = evaluate(&store, &queries, Strategy::Bm25);
    let blend = evaluate_with(
        &store,
        &queries,
        Strategy::Semantic,
        Fusion::Blend,
        Some(&scorer),
    );
    let rrf = evaluate_with(
        &store,
        &queries,
        Strategy::Semantic,
        Fusion::Rrf,
        Some(&scorer),
    );
    print_table("bm25", &bm25);
    print_table("semantic + blend (default)", &blend);
    print_table("semantic + rrf", &rrf);

    let all = blend["ALL"];
    assert!(all.hit1() >= SEMANTIC_FLOOR_HIT1, "Hit@1 {:.3}", all.hit1());
    assert!(all.hit3() >= SEMANTIC_FLOOR_HIT3, "Hit@3 {:.3}", all.hit3());
    assert!(all.mrr() >= SEMANTIC_FLOOR_MRR, "MRR {:.3}", all.mrr());
    assert!(
        blend["paraphrase"].hit3() >= 0.80,
        "paraphrase Hit@3 {:.3}",
        blend["paraphrase"].hit3()
    );
    assert!(
        blend["paraphrase"].hit3() > bm25["paraphrase"].hit3(),
        "embeddings must help paraphrases"
    );
    assert!(
        blend["keyword"].mrr() >= bm25["keyword"].mrr(),
        "never worse than bm25 on keywords"
    );
}

// Measured with the defaults (calibrated blend, w 0.6): Hit@1 0.928, Hit@3 0.976, MRR 0.958;
// paraphrase Hit@3 0.944 (plain blend was 0.892 / 0.964 / 0.934).
const SEMANTIC_FLOOR_HIT1: f64 = 0.91;
const SEMANTIC_FLOOR_HIT3: f64 = 0.96;
const SEMANTIC_FLOOR_MRR: f64 = 0.94;

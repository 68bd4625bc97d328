//! The held-out evaluation set in `tests/eval_set/`: loading it into a real home (the user scope
//! and three projects, saved through the store, with or without the `when` phrases of
//! `when.toml`), its deterministic dev/test split, and scoring
//! rankings into Hit@1, Hit@3 and MRR per class and per half.
//!
//! Deliberately does not: choose strategies or floors (the eval tests do), or print per-query
//! results of the test half (tuning looks at dev only).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ambry_core::AmbryHome;
use ambry_rank::rank::{self, CorpusCache, SearchParams, Semantic, SemanticScorer, Synonyms};
use ambry_store::config::{Fusion, Strategy};
use ambry_store::memory::{MemoryDraft, Scope, ScopeFilter, Store};
use ambry_store::project::Project;
use serde::Deserialize;

pub const PROJECTS: [&str; 3] = ["ledger", "atlas", "etl"];
pub const CLASSES: [&str; 6] = [
    "keyword",
    "morphology",
    "synonym",
    "paraphrase",
    "shadowing",
    "long-prompt",
];

#[derive(Deserialize)]
struct MemoryFile {
    memory: Vec<SetMemory>,
}

#[derive(Deserialize, Clone)]
pub struct SetMemory {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    pub body: String,
    /// Filled from the file: `None` for user.toml, else the project.
    #[serde(skip)]
    pub project: Option<String>,
}

#[derive(Deserialize)]
struct QueryFile {
    query: Vec<SetQuery>,
}

#[derive(Deserialize, Clone)]
pub struct SetQuery {
    pub q: String,
    pub class: String,
    /// Every right answer; a hit on any of them counts.
    pub expect: Vec<String>,
    /// The repository the agent works in; defaults to the query file's project.
    pub project: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Half {
    Dev,
    Test,
}

impl Half {
    pub fn label(self) -> &'static str {
        match self {
            Half::Dev => "dev",
            Half::Test => "test",
        }
    }
}

impl SetQuery {
    pub fn project(&self) -> &str {
        self.project
            .as_deref()
            .expect("every query has a project after loading")
    }

    /// FNV-1a of the query text: a split that never moves when queries are added or reordered.
    pub fn half(&self) -> Half {
        let mut h: u64 = 0xcbf29ce484222325;
        for b in self.q.as_bytes() {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x100000001b3);
        }
        if h.is_multiple_of(2) {
            Half::Dev
        } else {
            Half::Test
        }
    }
}

pub fn set_dir() -> PathBuf {
    super::manifest_dir().join("tests/eval_set")
}

pub fn memories() -> Vec<SetMemory> {
    let mut all = Vec::new();
    for (file, project) in [
        ("user", None),
        ("ledger", Some("ledger")),
        ("atlas", Some("atlas")),
        ("etl", Some("etl")),
    ] {
        let text = std::fs::read_to_string(set_dir().join(format!("{file}.toml"))).unwrap();
        let parsed: MemoryFile =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{file}.toml: {e}"));
        all.extend(parsed.memory.into_iter().map(|mut m| {
            m.project = project.map(str::to_string);
            m
        }));
    }
    all
}

pub fn queries() -> Vec<SetQuery> {
    let mut all = Vec::new();
    for file in ["ledger", "atlas", "etl", "user"] {
        let text = std::fs::read_to_string(set_dir().join(format!("queries/{file}.toml"))).unwrap();
        let parsed: QueryFile =
            toml::from_str(&text).unwrap_or_else(|e| panic!("queries/{file}.toml: {e}"));
        all.extend(parsed.query.into_iter().map(|mut q| {
            if q.project.is_none() {
                assert_ne!(
                    file, "user",
                    "queries/user.toml must name the project of {:?}",
                    q.q
                );
                q.project = Some(file.to_string());
            }
            q
        }));
    }
    all
}

/// A home holding the whole set: one store per project, all sharing the user scope.
pub struct LoadedSet {
    pub stores: BTreeMap<String, Store>,
    pub queries: Vec<SetQuery>,
}

/// The `when` phrases of `when.toml` (written from the memories alone, never from the queries),
/// per file table (`user` or a project) and memory name.
pub fn when_phrases() -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let text = std::fs::read_to_string(set_dir().join("when.toml")).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("when.toml: {e}"))
}

pub fn load(root: &Path) -> LoadedSet {
    load_with(root, false)
}

/// `load`, each memory saved with its `when` phrases from `when.toml` when `with_when`.
pub fn load_with(root: &Path, with_when: bool) -> LoadedSet {
    let when = if with_when {
        when_phrases()
    } else {
        BTreeMap::new()
    };
    let all = memories();
    for (table, names) in &when {
        for name in names.keys() {
            let project = (table != "user").then_some(table.as_str());
            assert!(
                all.iter()
                    .any(|m| m.name == *name && m.project.as_deref() == project),
                "when.toml [{table}] {name}: no such memory"
            );
        }
    }
    let home = AmbryHome::new(root.join("home"));
    let stores: BTreeMap<String, Store> = PROJECTS
        .iter()
        .map(|p| {
            let project = Project {
                slug: format!("{p}-0a1b2c3d"),
                root: root.join(p),
                remote: None,
            };
            (p.to_string(), Store::new(home.clone(), Some(project)))
        })
        .collect();
    let now = "2026-06-01T00:00:00Z".parse().unwrap();
    for m in all {
        let draft = MemoryDraft {
            name: m.name,
            kind: m.kind,
            description: m.description,
            body: m.body,
            tags: vec![],
        };
        let table = m.project.as_deref().unwrap_or("user");
        let phrases = when.get(table).and_then(|t| t.get(&draft.name));
        let value = phrases.map(|p| ambry_store::memory::when::value(p));
        let keys: Vec<(&str, &str)> = value.iter().map(|v| ("when", v.as_str())).collect();
        match &m.project {
            None => stores["ledger"]
                .save_with_keys(Scope::User, draft, &keys, now)
                .unwrap(),
            Some(p) => stores[p]
                .save_with_keys(Scope::Project, draft, &keys, now)
                .unwrap(),
        };
    }
    LoadedSet {
        stores,
        queries: queries(),
    }
}

#[derive(Default, Clone, Copy, Debug)]
pub struct Tally {
    pub n: usize,
    pub hit1: usize,
    pub hit3: usize,
    pub rr: f64,
}

impl Tally {
    pub fn add(&mut self, rank: Option<usize>) {
        self.n += 1;
        if let Some(r) = rank {
            self.hit1 += usize::from(r == 1);
            self.hit3 += usize::from(r <= 3);
            self.rr += 1.0 / r as f64;
        }
    }
    pub fn hit1(&self) -> f64 {
        self.hit1 as f64 / self.n.max(1) as f64
    }
    pub fn hit3(&self) -> f64 {
        self.hit3 as f64 / self.n.max(1) as f64
    }
    pub fn mrr(&self) -> f64 {
        self.rr / self.n.max(1) as f64
    }
}

/// Tallies keyed by (half, class); class "ALL" sums a half.
pub type Report = BTreeMap<(Half, String), Tally>;

pub struct Config<'a> {
    pub strategy: Strategy,
    pub fusion: Fusion,
    pub semantic_weight: f32,
    pub scorer: Option<&'a dyn SemanticScorer>,
}

/// Ranks every query in its project's view and returns the rank of its first right answer.
/// With `show_dev_misses`, prints the dev half's misses (never the test half's).
pub fn evaluate(set: &LoadedSet, config: &Config<'_>, show_dev_misses: bool) -> Report {
    let params = SearchParams {
        strategy: config.strategy,
        fusion: config.fusion,
        semantic_weight: config.semantic_weight,
        min_score: 0.0,
        limit: None,
    };
    let synonyms = Synonyms::new(&[]);
    let mut caches: BTreeMap<&str, CorpusCache> = PROJECTS
        .iter()
        .map(|p| (*p, CorpusCache::in_memory()))
        .collect();
    let mut report = Report::new();
    for q in &set.queries {
        let semantic = match config.scorer {
            Some(s) => Semantic::Available(s),
            None => Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
        };
        let store = &set.stores[q.project()];
        let cache = caches.get_mut(q.project()).unwrap();
        let ranking = rank::search(
            store,
            cache,
            ScopeFilter::All,
            &q.q,
            &params,
            &synonyms,
            semantic,
        )
        .unwrap();
        let rank = ranking
            .hits
            .iter()
            .position(|h| q.expect.contains(&h.name))
            .map(|p| p + 1);
        if show_dev_misses && q.half() == Half::Dev && rank != Some(1) {
            let top: Vec<&str> = ranking
                .hits
                .iter()
                .take(3)
                .map(|h| h.name.as_str())
                .collect();
            println!(
                "  dev miss [{}] {:?} → {:?} at {rank:?}, top {top:?}",
                q.class, q.q, q.expect
            );
        }
        let half = q.half();
        report.entry((half, q.class.clone())).or_default().add(rank);
        report.entry((half, "ALL".into())).or_default().add(rank);
    }
    report
}

pub fn print_report(label: &str, report: &Report) {
    println!(
        "\n{label}\n{:<5} {:<12} {:>4} {:>6} {:>6} {:>6}",
        "half", "class", "n", "Hit@1", "Hit@3", "MRR"
    );
    for ((half, class), t) in report {
        println!(
            "{:<5} {class:<12} {:>4} {:>6.3} {:>6.3} {:>6.3}",
            half.label(),
            t.n,
            t.hit1(),
            t.hit3(),
            t.mrr()
        );
    }
}

/// Every store's files, for the reindex that writes sidecars (user files appear once).
pub fn all_files(set: &LoadedSet) -> Vec<ambry_store::memory::MemoryFile> {
    let mut files = set.stores["ledger"].list(ScopeFilter::User).unwrap();
    for store in set.stores.values() {
        files.extend(store.list(ScopeFilter::Project).unwrap());
    }
    files
}

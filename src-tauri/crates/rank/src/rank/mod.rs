//! The ranker (DESIGN §4): picks the memories relevant to what the agent is about to do.
//!
//! Owns: the strategies (`keyword`, `bm25`, `semantic` through a pluggable scorer, `auto`),
//! normalization (top score 1.0), `min_score`, omission of zero scores, and the search entry
//! point shared by `ambry memory search`, `ambry compose` and the app.
//! Deliberately does not: load embeddings (a `SemanticScorer` is passed in) or read the clock.
//!
//! Tuning notes (eval fixture `tests/fixtures/eval`, 103 memories, 83 queries): a sweep of
//! k1 ∈ {0.9, 1.2, 1.5, 2.0} × b ∈ {0.5, 0.75, 0.9} × headline weight ∈ {2, 3, 4} gave the same
//! Hit@1 (0.819) everywhere and MRR between 0.863 and 0.867 — one query's worth. Memories are short
//! and similar in length, so the surface is flat; the classic k1 = 1.2, b = 0.75 and DESIGN's 3×
//! headline weight are kept rather than chasing a single query (the held-out set would punish it).

pub mod bm25;
pub mod conversation;
pub mod corpus;
pub mod fusion;
pub mod relevance;
mod snapshot;
pub mod synonyms;
pub mod tokenize;
pub mod when;
mod when_terms;

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

pub use corpus::{Corpus, DocTerms};
pub use relevance::{
    rank_for_gate, rank_for_gate_in, rank_with_gate, rank_with_relevance, Evidence, Gate,
    GatedRanking, Relevance, RelevantRanking,
};
pub use snapshot::{CorpusCache, Shadowing};
pub use synonyms::Synonyms;

use ambry_store::config::{Fusion, RetrievalConfig, Strategy};
use ambry_store::error::ErrorCode;
use ambry_store::memory::{Retiring, Scope, ScopeFilter, Store, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum RankError {
    #[error(transparent)]
    Store(StoreError),
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl ErrorCode for RankError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            RankError::Store(e) => e.code(),
            RankError::Io { .. } => ambry_store::error::Code::Io,
        }
    }
}

/// Cosine similarities from local embeddings; provided by the embedding module.
pub trait SemanticScorer {
    /// Similarity of `query` to each document, in the order given; `None` where a document has
    /// no usable vector (missing sidecar, another model).
    fn similarities(&self, query: &str, docs: &[Arc<DocTerms>])
        -> Result<Vec<Option<f32>>, String>;

    /// The best cosine of each document's `when` phrases to `query`, in the order given; `None`
    /// where a document has no phrase (or no vector for one). Asked for only after
    /// `similarities` of the same query, and only when some document has phrases. A scorer
    /// without phrase vectors leaves the memories' own cosines as they are.
    fn when_similarities(
        &self,
        query: &str,
        docs: &[Arc<DocTerms>],
    ) -> Result<Vec<Option<f32>>, String> {
        let _ = query;
        Ok(vec![None; docs.len()])
    }
}

/// Each document's cosine as the ranker uses it: its own, raised to its best `when` phrase's
/// where it has phrases (`when::with_cosine`).
fn cosines(
    scorer: &dyn SemanticScorer,
    query: &str,
    docs: &[Arc<DocTerms>],
    has_when: bool,
) -> Result<Vec<Option<f32>>, String> {
    let own = scorer.similarities(query, docs)?;
    if !has_when {
        return Ok(own);
    }
    Ok(when::with_cosine(
        own,
        &scorer.when_similarities(query, docs)?,
    ))
}

/// Whether semantic scoring can be used for this call, and if not, why: an error of the one
/// vocabulary (the model slot's `ModelUnavailable`, or the `EmbedError` a model failed to load
/// with), whose message is the note the ranking carries.
#[derive(Clone, Copy)]
pub enum Semantic<'a> {
    Available(&'a dyn SemanticScorer),
    Unavailable(&'a dyn ErrorCode),
}

/// Everything a search needs besides the corpus and the query.
#[derive(Debug, Clone)]
pub struct SearchParams {
    pub strategy: Strategy,
    pub fusion: Fusion,
    pub semantic_weight: f32,
    pub min_score: f32,
    pub limit: Option<usize>,
}

impl SearchParams {
    pub fn from_config(config: &RetrievalConfig) -> Self {
        SearchParams {
            strategy: config.strategy,
            fusion: config.fusion,
            semantic_weight: config.semantic_weight as f32,
            min_score: config.min_score as f32,
            limit: None,
        }
    }
}

/// One ranked memory (the shape of `ambry memory search --json`, plus the body size).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub scope: Scope,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    pub score: f64,
    pub path: PathBuf,
    #[serde(skip)]
    pub body_bytes: u64,
    /// Whether the memory is retired, from the corpus (see `DocTerms::retiring`).
    #[serde(skip)]
    pub retiring: Retiring,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ranking {
    pub hits: Vec<Hit>,
    /// The strategy that actually ran (auto resolved, or a fallback).
    pub strategy: Strategy,
    /// Why the strategy differs from the one asked for, when it does.
    pub note: Option<String>,
}

/// Searches the scopes `filter` covers, refreshing `cache` against the disk first.
pub fn search(
    store: &Store,
    cache: &mut CorpusCache,
    filter: ScopeFilter,
    query: &str,
    params: &SearchParams,
    synonyms: &Synonyms,
    semantic: Semantic<'_>,
) -> Result<Ranking, RankError> {
    let corpus = cache.corpus(store, filter)?;
    Ok(rank(&corpus, query, params, synonyms, semantic))
}

/// Ranks `corpus` against `query`: normalized, `min_score` applied, zero scores omitted.
pub fn rank(
    corpus: &Corpus,
    query: &str,
    params: &SearchParams,
    synonyms: &Synonyms,
    semantic: Semantic<'_>,
) -> Ranking {
    rank_indexed(corpus, query, params, synonyms, semantic).0
}

/// `rank`, plus each hit's index in `corpus.docs` (in hit order), so what is computed per hit
/// afterwards (evidence) reads that document directly instead of looking it up by path.
pub(crate) fn rank_indexed(
    corpus: &Corpus,
    query: &str,
    params: &SearchParams,
    synonyms: &Synonyms,
    semantic: Semantic<'_>,
) -> (Ranking, Vec<u32>) {
    let scored = score(corpus, query, params, synonyms, semantic);
    ranking_in_order(corpus, scored, params)
}

/// `scored` as a ranking, best first and cut to the limit, with each hit's index in
/// `corpus.docs` (in hit order).
pub(crate) fn ranking_in_order(
    corpus: &Corpus,
    scored: Scored,
    params: &SearchParams,
) -> (Ranking, Vec<u32>) {
    let mut order = best_candidates(corpus, &scored.scores, params);
    order.sort_unstable_by(|a, b| best_first(corpus, &scored.scores, *a, *b));
    let hits = order.iter().map(|&i| scored.hit(corpus, i)).collect();
    (
        Ranking {
            hits,
            strategy: scored.strategy,
            note: scored.note,
        },
        order,
    )
}

/// Every document's normalized score (best 1.0), before any is turned into a hit: a caller that
/// needs only the best few hits (compose, at ten thousand memories) materializes only those.
pub(crate) struct Scored {
    /// One per document of the corpus, in its order; normalized.
    pub scores: Vec<f32>,
    pub strategy: Strategy,
    pub note: Option<String>,
}

impl Scored {
    /// The score a hit of document `i` shows: rounded so JSON output is stable and readable.
    pub fn rounded(&self, i: u32) -> f64 {
        (self.scores[i as usize] as f64 * 10_000.0).round() / 10_000.0
    }

    /// Document `i` as a hit.
    pub fn hit(&self, corpus: &Corpus, i: u32) -> Hit {
        let d = &corpus.docs[i as usize];
        Hit {
            scope: d.scope,
            name: d.name.clone(),
            kind: d.kind.clone(),
            description: d.description.clone(),
            score: self.rounded(i),
            path: d.path.clone(),
            body_bytes: d.body_bytes,
            retiring: d.retiring.clone(),
        }
    }
}

/// Scores `corpus` against `query` with the strategy `params` asks for (falling back to bm25,
/// with a note, when semantic scoring is unavailable or fails), normalized.
pub(crate) fn score(
    corpus: &Corpus,
    query: &str,
    params: &SearchParams,
    synonyms: &Synonyms,
    semantic: Semantic<'_>,
) -> Scored {
    let weighted = bm25::weighted_query(query, synonyms);
    // The `when` field joins the lexical input only where a memory has one (DESIGN §5).
    let has_when = when::any(corpus);
    let lexical_scores = || {
        let lexical = bm25::bm25_scores(corpus, &weighted);
        if has_when {
            when::with_lexical(lexical, &when::bm25_scores(corpus, &weighted))
        } else {
            lexical
        }
    };
    let (mut scores, strategy, note) = match params.strategy {
        Strategy::Keyword => (
            bm25::keyword_scores(corpus, &weighted),
            Strategy::Keyword,
            None,
        ),
        Strategy::Bm25 => (lexical_scores(), Strategy::Bm25, None),
        Strategy::Semantic | Strategy::Auto => {
            let lexical = lexical_scores();
            let asked_for_semantic = params.strategy == Strategy::Semantic;
            match semantic {
                Semantic::Available(scorer) => match cosines(scorer, query, &corpus.docs, has_when)
                {
                    Ok(cosine) => {
                        let confidence =
                            bm25::coverage_of_best(corpus, &weighted, synonyms, &lexical);
                        (
                            fuse(&lexical, &cosine, confidence, params),
                            Strategy::Semantic,
                            None,
                        )
                    }
                    Err(why) => (
                        lexical,
                        Strategy::Bm25,
                        Some(format!("semantic scoring failed ({why}); ranked with bm25")),
                    ),
                },
                Semantic::Unavailable(why) if asked_for_semantic => (
                    lexical,
                    Strategy::Bm25,
                    Some(format!("semantic unavailable ({why}); ranked with bm25")),
                ),
                Semantic::Unavailable(why) => (
                    lexical,
                    Strategy::Bm25,
                    Some(format!("auto: using bm25 because {why}")),
                ),
            }
        }
    };
    fusion::normalize(&mut scores);
    Scored {
        scores,
        strategy,
        note,
    }
}

/// How hits rank: best score first; ties by scope, then name, then corpus order (so an unstable
/// selection orders them exactly as a stable sort of the whole ranking would).
pub(crate) fn best_first(corpus: &Corpus, scores: &[f32], a: u32, b: u32) -> std::cmp::Ordering {
    let (ai, bi) = (a as usize, b as usize);
    scores[bi]
        .total_cmp(&scores[ai])
        .then_with(|| corpus.docs[bi].scope.cmp(&corpus.docs[ai].scope))
        .then_with(|| corpus.docs[ai].name.cmp(&corpus.docs[bi].name))
        .then_with(|| a.cmp(&b))
}

/// The documents that are hits (a positive score, at least `min_score`), in corpus order.
fn hit_candidates(scores: &[f32], params: &SearchParams) -> Vec<u32> {
    (0..scores.len() as u32)
        .filter(|&i| {
            let s = scores[i as usize];
            s > 0.0 && s >= params.min_score
        })
        .collect()
}

/// The hits that survive the limit, in no particular order: with a limit, the best entries are
/// selected before anything is sorted (a search box at 10k memories sorts twenty hits, not ten
/// thousand).
pub(crate) fn best_candidates(corpus: &Corpus, scores: &[f32], params: &SearchParams) -> Vec<u32> {
    let mut order = hit_candidates(scores, params);
    if let Some(limit) = params.limit {
        if limit < order.len() {
            if limit > 0 {
                order.select_nth_unstable_by(limit - 1, |a, b| best_first(corpus, scores, *a, *b));
            }
            order.truncate(limit);
        }
    }
    order
}

fn fuse(
    lexical: &[f32],
    cosine: &[Option<f32>],
    lexical_confidence: f32,
    params: &SearchParams,
) -> Vec<f32> {
    match params.fusion {
        Fusion::Blend => {
            fusion::calibrated_blend(lexical, cosine, lexical_confidence, params.semantic_weight)
        }
        Fusion::Rrf => {
            let semantic: Vec<f32> = cosine.iter().map(|c| c.unwrap_or(0.0).max(0.0)).collect();
            fusion::rrf(&[lexical.to_vec(), semantic], 60.0)
        }
    }
}

/// A user memory of type project at `/m/NAME.md`, for the ranker's tests.
#[cfg(test)]
pub(crate) fn test_memory(
    name: &str,
    description: &str,
    body: &str,
) -> ambry_store::memory::Memory {
    ambry_store::memory::Memory::sketch(
        ambry_store::memory::Scope::User,
        name,
        "project",
        description,
        body,
        format!("/m/{name}.md"),
    )
}

/// [`test_memory`]'s terms.
#[cfg(test)]
pub(crate) fn test_doc(name: &str, description: &str, body: &str) -> DocTerms {
    DocTerms::from_memory(&test_memory(name, description, body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ambry_store::memory::Memory;

    fn doc(scope: Scope, name: &str, description: &str, body: &str) -> DocTerms {
        DocTerms::from_memory(&Memory::sketch(
            scope,
            name,
            "project",
            description,
            body,
            format!("/{scope}/{name}.md"),
        ))
    }

    fn params(strategy: Strategy) -> SearchParams {
        SearchParams {
            strategy,
            fusion: Fusion::Blend,
            semantic_weight: 0.4,
            min_score: 0.0,
            limit: None,
        }
    }

    fn corpus() -> Corpus {
        Corpus::build([
            doc(
                Scope::User,
                "build-cmd",
                "How to build",
                "cargo build --release",
            ),
            doc(
                Scope::Project,
                "build-cmd",
                "How to build this repo",
                "make all",
            ),
            doc(
                Scope::User,
                "tabs",
                "Indentation preference",
                "Use tabs, never spaces.",
            ),
        ])
    }

    #[test]
    fn top_is_one_zeros_are_omitted_and_project_shadows_user() {
        let r = rank(
            &corpus(),
            "build",
            &params(Strategy::Bm25),
            &Synonyms::new(&[]),
            Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested),
        );
        assert_eq!(
            r.hits.len(),
            1,
            "tabs has no match; the user build-cmd is shadowed"
        );
        assert_eq!(r.hits[0].scope, Scope::Project);
        assert_eq!(r.hits[0].score, 1.0);
        assert_eq!(r.note, None);
    }

    #[test]
    fn min_score_and_limit_cut() {
        let c = Corpus::build([
            doc(Scope::User, "a", "deploy deploy deploy", "deploy"),
            doc(
                Scope::User,
                "b",
                "other",
                "deploy once among many many other words here",
            ),
        ]);
        let mut p = params(Strategy::Bm25);
        let all = rank(
            &c,
            "deploy",
            &p,
            &Synonyms::new(&[]),
            Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested),
        );
        assert_eq!(all.hits.len(), 2);
        p.min_score = (all.hits[1].score as f32) + 0.01;
        assert_eq!(
            rank(
                &c,
                "deploy",
                &p,
                &Synonyms::new(&[]),
                Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested)
            )
            .hits
            .len(),
            1
        );
        p.min_score = 0.0;
        p.limit = Some(1);
        assert_eq!(
            rank(
                &c,
                "deploy",
                &p,
                &Synonyms::new(&[]),
                Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested)
            )
            .hits
            .len(),
            1
        );
    }

    struct Fixed(Vec<Option<f32>>);
    impl SemanticScorer for Fixed {
        fn similarities(
            &self,
            _: &str,
            docs: &[Arc<DocTerms>],
        ) -> Result<Vec<Option<f32>>, String> {
            assert_eq!(docs.len(), self.0.len());
            Ok(self.0.clone())
        }
    }

    struct Failing;
    impl SemanticScorer for Failing {
        fn similarities(&self, _: &str, _: &[Arc<DocTerms>]) -> Result<Vec<Option<f32>>, String> {
            Err("model timed out".into())
        }
    }

    #[test]
    fn semantic_finds_what_shares_no_words_and_falls_back_with_a_note() {
        let c = corpus();
        // Corpus order after shadowing: user tabs, then project build-cmd.
        assert_eq!(c.docs[0].name, "tabs");
        let scorer = Fixed(vec![Some(0.9), Some(0.1)]);
        let r = rank(
            &c,
            "whitespace style",
            &params(Strategy::Semantic),
            &Synonyms::new(&[]),
            Semantic::Available(&scorer),
        );
        assert_eq!(r.strategy, Strategy::Semantic);
        assert_eq!(r.hits[0].name, "tabs");
        let r = rank(
            &c,
            "build",
            &params(Strategy::Semantic),
            &Synonyms::new(&[]),
            Semantic::Available(&Failing),
        );
        assert_eq!(r.strategy, Strategy::Bm25);
        assert!(r.note.unwrap().contains("model timed out"));
        let missing = crate::embed::EmbedError::ModelMissing {
            path: "/models/model.onnx".into(),
            models_dir: "/models".into(),
        };
        let r = rank(
            &c,
            "build",
            &params(Strategy::Auto),
            &Synonyms::new(&[]),
            Semantic::Unavailable(&missing),
        );
        assert_eq!(r.strategy, Strategy::Bm25);
        assert_eq!(
            r.note.unwrap(),
            format!("auto: using bm25 because {missing}"),
            "the note says why in the error's own words"
        );
    }

    #[test]
    fn semantic_asked_for_but_unavailable_says_why_with_a_coded_reason() {
        let c = Corpus::build([doc(Scope::User, "build", "Build steps", "cargo build")]);
        let why = crate::embed::ModelUnavailable::NotLent;
        assert_eq!(why.code(), "model_unavailable");
        let r = rank(
            &c,
            "build",
            &params(Strategy::Semantic),
            &Synonyms::new(&[]),
            Semantic::Unavailable(&why),
        );
        assert_eq!(r.strategy, Strategy::Bm25);
        assert_eq!(
            r.note.as_deref(),
            Some("semantic unavailable (the model is not available); ranked with bm25")
        );
        assert_eq!(r.hits.len(), 1);
    }

    #[test]
    fn keyword_strategy_ignores_synonyms() {
        let c = Corpus::build([doc(Scope::User, "ship-it", "Release steps", "ship")]);
        let r = rank(
            &c,
            "deploy",
            &params(Strategy::Keyword),
            &Synonyms::new(&[]),
            Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested),
        );
        assert!(r.hits.is_empty());
        let r = rank(
            &c,
            "deploy",
            &params(Strategy::Bm25),
            &Synonyms::new(&[]),
            Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested),
        );
        assert_eq!(r.hits.len(), 1);
    }
}

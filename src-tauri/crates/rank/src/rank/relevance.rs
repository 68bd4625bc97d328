//! How much evidence backs a hit, in terms a person can read: the ranker normalizes every
//! ranking so its top hit scores 1.0, which says nothing about whether that hit is related to
//! the query at all. Evidence is absolute: how many of the query's words the memory contains,
//! and how similar its embedding is to the query's.
//!
//! Owns: `rank_with_relevance` (the ranking plus evidence per hit, hits with no evidence
//! dropped when asked), the thresholds that turn evidence into a `Relevance` label, and the
//! injection gate (DESIGN §5): the one judgement of "relevant enough to hand an agent" that
//! compose, `memory search`, the MCP `memory_search` and the app's search labels all show. A hit
//! the gate refuses is labelled weak at most, however high its normalized score; one it admits
//! is a good match at least.
//! Deliberately does not: change the order or the scores `rank` gives (compose and the CLI use
//! those unchanged); a person's search view uses this to label and to drop noise.

use std::cell::RefCell;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::tokenize::terms;
use super::{
    best_candidates, best_first, ranking_in_order, score, Corpus, DocTerms, Hit, Ranking, Scored,
    SearchParams, Semantic, SemanticScorer, Synonyms,
};

/// MiniLM cosine at or above which a memory is about the same thing as the query (measured:
/// cat/kitten 0.60, a paraphrased memory and its query 0.45–0.7, unrelated sentences 0–0.2).
pub const STRONG_COSINE: f32 = 0.5;
pub const GOOD_COSINE: f32 = 0.35;
/// Below this, similarity is what any two English sentences share: no evidence.
pub const WEAK_COSINE: f32 = 0.22;

/// The relevance gate: a hit passes when its evidence `strength` clears an absolute `floor`
/// and its ranker score (normalized, the best hit 1.0) is within `margin` of the best. It never
/// fills up to a count: a prompt unrelated to every memory passes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    pub floor: f32,
    pub margin: f32,
}

impl Gate {
    /// Calibrated on the eval set as whole 30-turn sessions (`tests/all/context_economy.rs`,
    /// `context_curve`; the whole bytes–recall curve is in docs/retrieval-eval.md, "Context
    /// economy"). Dev: recall 0.750 at 2.52× the oracle's bytes; test: 0.667 at 2.95×, the test
    /// curve's best recall at ≤ 3×. Floor 0.25 (dev's best at ≤ 3×: 0.792 at 2.79×) costs 3.54×
    /// on the test half, whose sessions need fewer bytes for the map (a fixed cost per
    /// context) to hide in. No setting reaches recall 0.95 at ≤ 2×: a paraphrased prompt puts
    /// its memory below the top few for MiniLM.
    pub const CALIBRATED: Gate = Gate {
        floor: 0.3,
        margin: 0.25,
    };

    /// Lets everything through (the eval's "no gate" row).
    pub const OPEN: Gate = Gate {
        floor: 0.0,
        margin: 1.0,
    };

    pub fn admits(&self, score: f64, evidence: &Evidence) -> bool {
        evidence.strength >= self.floor && self.admits_score(score)
    }

    /// Whether a hit scoring `score` (normalized, rounded as hits are) is close enough to the
    /// best for the gate to admit it given the evidence.
    pub fn admits_score(&self, score: f64) -> bool {
        score >= 1.0 - f64::from(self.margin) - 1e-9
    }
}

impl Default for Gate {
    fn default() -> Self {
        Gate::CALIBRATED
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Relevance {
    /// No word of the query and no real similarity: noise, left out.
    None,
    Weak,
    Good,
    Strong,
}

/// The evidence behind one hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// Distinct query words (stemmed) the memory contains.
    pub matched_terms: usize,
    /// Distinct words in the query (stemmed, stop-words dropped).
    pub query_terms: usize,
    /// Whether a synonym of a query word matched (it counts as weak evidence on its own).
    pub synonym_match: bool,
    /// Cosine similarity to the query, when semantic scoring ran and the memory has a vector.
    pub cosine: Option<f32>,
    /// Absolute evidence in 0..=1: the larger of the cosine and the share of the query's words
    /// the memory contains (a synonym alone counts as half a word).
    pub strength: f32,
    /// Passes the relevance gate: what compose would inject for this query.
    pub gated: bool,
    pub relevance: Relevance,
}

impl Evidence {
    fn judge(
        matched_terms: usize,
        query_terms: usize,
        synonym_match: bool,
        cosine: Option<f32>,
    ) -> Evidence {
        let c = cosine.unwrap_or(0.0);
        let all_words = query_terms > 0 && matched_terms == query_terms;
        let most_words = query_terms > 0 && matched_terms * 2 >= query_terms && matched_terms > 0;
        let relevance = if all_words || c >= STRONG_COSINE {
            Relevance::Strong
        } else if most_words || c >= GOOD_COSINE {
            Relevance::Good
        } else if matched_terms > 0 || synonym_match || c >= WEAK_COSINE {
            Relevance::Weak
        } else {
            Relevance::None
        };
        let words = if query_terms == 0 {
            0.0
        } else {
            let synonym = if synonym_match && matched_terms < query_terms {
                0.5
            } else {
                0.0
            };
            (matched_terms as f32 + synonym) / query_terms as f32
        };
        Evidence {
            matched_terms,
            query_terms,
            synonym_match,
            cosine,
            strength: words.max(c).clamp(0.0, 1.0),
            gated: false,
            relevance,
        }
    }
}

/// A ranking whose hits each carry their evidence.
#[derive(Debug, Clone)]
pub struct RelevantRanking {
    pub ranking: Ranking,
    /// One per hit of `ranking`, in the same order.
    pub evidence: Vec<Evidence>,
}

/// Passes similarities through and keeps a copy, so the evidence uses the very cosines the
/// ranking used (the query is embedded once).
struct Recording<'a> {
    inner: &'a dyn SemanticScorer,
    seen: RefCell<Option<Vec<Option<f32>>>>,
    /// The best `when` phrase cosines, when the ranking asked for them.
    seen_when: RefCell<Option<Vec<Option<f32>>>>,
}

impl SemanticScorer for Recording<'_> {
    fn similarities(
        &self,
        query: &str,
        docs: &[Arc<DocTerms>],
    ) -> Result<Vec<Option<f32>>, String> {
        let result = self.inner.similarities(query, docs);
        if let Ok(cosines) = &result {
            *self.seen.borrow_mut() = Some(cosines.clone());
        }
        result
    }

    fn when_similarities(
        &self,
        query: &str,
        docs: &[Arc<DocTerms>],
    ) -> Result<Vec<Option<f32>>, String> {
        let result = self.inner.when_similarities(query, docs);
        if let Ok(cosines) = &result {
            *self.seen_when.borrow_mut() = Some(cosines.clone());
        }
        result
    }
}

/// A scorer that embeds `text` whatever query it is asked about: an exchange is ranked by its
/// words while its meaning is the person's previous prompt's (`conversation::Exchange`).
struct MeaningOf<'a> {
    inner: &'a dyn SemanticScorer,
    text: &'a str,
}

impl SemanticScorer for MeaningOf<'_> {
    fn similarities(&self, _: &str, docs: &[Arc<DocTerms>]) -> Result<Vec<Option<f32>>, String> {
        self.inner.similarities(self.text, docs)
    }

    fn when_similarities(
        &self,
        _: &str,
        docs: &[Arc<DocTerms>],
    ) -> Result<Vec<Option<f32>>, String> {
        self.inner.when_similarities(self.text, docs)
    }
}

/// `rank`, then evidence for each hit (judged by the calibrated gate); with `drop_unevident`,
/// hits without evidence are left out.
pub fn rank_with_relevance(
    corpus: &Corpus,
    query: &str,
    params: &SearchParams,
    synonyms: &Synonyms,
    semantic: Semantic<'_>,
    drop_unevident: bool,
) -> RelevantRanking {
    rank_with_gate(
        corpus,
        query,
        params,
        synonyms,
        semantic,
        drop_unevident,
        Gate::CALIBRATED,
    )
}

/// [`rank_with_relevance`] under a given gate.
pub fn rank_with_gate(
    corpus: &Corpus,
    query: &str,
    params: &SearchParams,
    synonyms: &Synonyms,
    semantic: Semantic<'_>,
    drop_unevident: bool,
    gate: Gate,
) -> RelevantRanking {
    let (scored, cosines) = score_recording(corpus, query, params, synonyms, semantic);
    let (ranking, indices) = ranking_in_order(corpus, scored, params);
    let judge = Judge::new(corpus, query, synonyms, cosines);
    let mut hits: Vec<Hit> = Vec::with_capacity(ranking.hits.len());
    let mut evidence = Vec::with_capacity(ranking.hits.len());
    for (hit, doc) in ranking.hits.into_iter().zip(indices) {
        let e = judge.evidence(doc, hit.score, gate);
        if !drop_unevident || e.relevance > Relevance::None {
            hits.push(hit);
            evidence.push(e);
        }
    }
    RelevantRanking {
        ranking: Ranking {
            hits,
            strategy: ranking.strategy,
            note: ranking.note,
        },
        evidence,
    }
}

/// What an injection needs of a ranking: every evident hit the gate could admit and the first
/// `refused_listed` evident hits it refuses, in rank order, with their evidence; the evident
/// hits after those are only counted (`refused_more`). The same hits, evidence and order as
/// [`rank_with_gate`] with `drop_unevident`, cut where compose stops reading: at ten thousand
/// memories with the model every memory is a hit, and making each one a `Hit` (and judging it)
/// cost more than the rest of a served turn.
pub fn rank_for_gate(
    corpus: &Corpus,
    query: &str,
    params: &SearchParams,
    synonyms: &Synonyms,
    semantic: Semantic<'_>,
    gate: Gate,
    refused_listed: usize,
) -> GatedRanking {
    rank_for_gate_in(
        corpus,
        query,
        None,
        params,
        synonyms,
        semantic,
        gate,
        refused_listed,
    )
}

/// [`rank_for_gate`] for a prompt in its conversation: when the prompt alone is unsure,
/// `exchange` (the last exchange before it) is ranked too and fused in (`rank::conversation`).
#[allow(clippy::too_many_arguments)]
pub fn rank_for_gate_in(
    corpus: &Corpus,
    query: &str,
    exchange: Option<super::conversation::Exchange<'_>>,
    params: &SearchParams,
    synonyms: &Synonyms,
    semantic: Semantic<'_>,
    gate: Gate,
    refused_listed: usize,
) -> GatedRanking {
    let (mut scored, mut cosines) = score_recording(corpus, query, params, synonyms, semantic);
    // A prompt with evidence of its own ranks alone: the exchange is for one that says too little
    // ("do the same for the worker") for its best match to clear the gate's floor.
    let unsure = || {
        let best = (0..scored.scores.len() as u32)
            .filter(|&i| scored.scores[i as usize] > 0.0)
            .min_by(|a, b| best_first(corpus, &scored.scores, *a, *b));
        best.is_none_or(|doc| {
            let judge = Judge::new(corpus, query, synonyms, cosines.clone());
            judge.evidence(doc, scored.rounded(doc), gate).strength < gate.floor
        })
    };
    let exchange = exchange.filter(|e| !e.text.trim().is_empty() && unsure());
    if let Some(exchange) = exchange {
        let meaning;
        let semantic_of_exchange = match semantic {
            Semantic::Available(inner) if !exchange.asked.trim().is_empty() => {
                meaning = MeaningOf {
                    inner,
                    text: exchange.asked,
                };
                Semantic::Available(&meaning)
            }
            other => other,
        };
        let (other, other_cosines) = score_recording(
            corpus,
            exchange.text,
            params,
            synonyms,
            semantic_of_exchange,
        );
        super::conversation::fuse_scores(&mut scored.scores, &other.scores);
        cosines = super::conversation::fuse_cosines(cosines, other_cosines);
    }
    // The exchange's words are evidence as much as the prompt's: a hit is judged by both and
    // keeps the stronger evidence.
    let exchange_judge = exchange.map(|e| Judge::new(corpus, e.text, synonyms, cosines.clone()));
    let judge = Judge::new(corpus, query, synonyms, cosines);
    let evidence_of = |doc: u32, score: f64| {
        let own = judge.evidence(doc, score, gate);
        match exchange_judge
            .as_ref()
            .map(|j| j.evidence(doc, score, gate))
        {
            Some(other) if other.strength > own.strength => other,
            _ => own,
        }
    };
    let evident =
        |doc: u32| judge.evident(doc) || exchange_judge.as_ref().is_some_and(|j| j.evident(doc));
    // As `rank` cuts: the best `limit` hits, whatever their evidence.
    let mut order = best_candidates(corpus, &scored.scores, params);
    let admissible = |i: u32| gate.admits_score(scored.rounded(i));
    // Sorted only as far as it is read: every hit the gate could admit, and room for the refused
    // ones listed (more is sorted below if evidence-less hits use that room up).
    let wanted = order.iter().filter(|&&i| admissible(i)).count() + refused_listed + 16;
    let mut sorted = sort_prefix(corpus, &scored.scores, &mut order, wanted);
    let mut hits = Vec::new();
    let mut evidence = Vec::new();
    let mut refused = 0;
    let mut refused_more = 0;
    let mut at = 0;
    while at < order.len() {
        if at == sorted {
            sorted = sort_prefix(corpus, &scored.scores, &mut order[at..], usize::MAX) + at;
        }
        let doc = order[at];
        at += 1;
        if refused >= refused_listed && !admissible(doc) {
            // Past every hit the gate could admit (and enough refused ones listed): the rest,
            // in any order, are only counted.
            refused_more += order[at - 1..]
                .iter()
                .filter(|&&d| !admissible(d) && evident(d))
                .count();
            // Hits the gate could admit by score are sorted above every other; none is left.
            break;
        }
        let e = evidence_of(doc, scored.rounded(doc));
        if e.relevance == Relevance::None {
            continue;
        }
        if !e.gated {
            refused += 1;
        }
        hits.push(scored.hit(corpus, doc));
        evidence.push(e);
    }
    GatedRanking {
        relevant: RelevantRanking {
            ranking: Ranking {
                hits,
                strategy: scored.strategy,
                note: scored.note,
            },
            evidence,
        },
        refused_more,
    }
}

/// A ranking cut where an injection stops reading it (see [`rank_for_gate`]).
#[derive(Debug, Clone)]
pub struct GatedRanking {
    pub relevant: RelevantRanking,
    /// Evident hits the gate refuses, after the ones `relevant` lists.
    pub refused_more: usize,
}

impl GatedRanking {
    /// The names of the hits the gate admits, best first.
    pub fn admitted_names(&self) -> Vec<String> {
        self.relevant
            .ranking
            .hits
            .iter()
            .zip(&self.relevant.evidence)
            .filter(|(_, e)| e.gated)
            .map(|(h, _)| h.name.clone())
            .collect()
    }
}

/// Sorts the best `wanted` of `order` to its front (the rest after them, unsorted); returns how
/// many are sorted.
fn sort_prefix(corpus: &Corpus, scores: &[f32], order: &mut [u32], wanted: usize) -> usize {
    let cmp = |a: &u32, b: &u32| best_first(corpus, scores, *a, *b);
    if wanted < order.len() {
        if wanted > 0 {
            order.select_nth_unstable_by(wanted - 1, cmp);
        }
        order[..wanted].sort_unstable_by(cmp);
        wanted
    } else {
        order.sort_unstable_by(cmp);
        order.len()
    }
}

/// The ranking's scores, and the cosines it used (the query is embedded once).
fn score_recording(
    corpus: &Corpus,
    query: &str,
    params: &SearchParams,
    synonyms: &Synonyms,
    semantic: Semantic<'_>,
) -> (Scored, Option<Vec<Option<f32>>>) {
    match semantic {
        Semantic::Available(scorer) => {
            let recording = Recording {
                inner: scorer,
                seen: RefCell::new(None),
                seen_when: RefCell::new(None),
            };
            let scored = score(
                corpus,
                query,
                params,
                synonyms,
                Semantic::Available(&recording),
            );
            // Evidence judges the cosine the ranking used: a phrase's, where it is higher.
            let cosines = match (
                recording.seen.into_inner(),
                recording.seen_when.into_inner(),
            ) {
                (Some(own), Some(when)) => Some(super::when::with_cosine(own, &when)),
                (own, _) => own,
            };
            (scored, cosines)
        }
        unavailable => (score(corpus, query, params, synonyms, unavailable), None),
    }
}

/// Judges documents against one query: each query word's postings looked up once, then searched
/// per document.
struct Judge<'a> {
    corpus: &'a Corpus,
    exact: Vec<&'a [(u32, f32)]>,
    /// Each exact word's postings in the `when` field, in the order of `exact`.
    exact_when: Vec<&'a [(u32, f32)]>,
    synonyms: Vec<&'a [(u32, f32)]>,
    cosines: Option<Vec<Option<f32>>>,
    /// Documents holding any word or synonym of the query, marked on first use (counting the
    /// evident hits of a long tail).
    mentioned: std::cell::OnceCell<Vec<bool>>,
}

impl<'a> Judge<'a> {
    fn new(
        corpus: &'a Corpus,
        query: &str,
        synonyms: &Synonyms,
        cosines: Option<Vec<Option<f32>>>,
    ) -> Judge<'a> {
        let exact: Vec<String> = {
            let mut t = terms(query);
            t.sort();
            t.dedup();
            t
        };
        let synonym_postings = exact
            .iter()
            .flat_map(|t| {
                synonyms
                    .mates(t)
                    .into_iter()
                    .filter(|m| !exact.iter().any(|e| e == m))
            })
            .map(|m| corpus.postings(m))
            .collect();
        Judge {
            corpus,
            exact: exact.iter().map(|t| corpus.postings(t)).collect(),
            exact_when: exact
                .iter()
                .map(|t| corpus.postings(&super::when::term(t)))
                .collect(),
            synonyms: synonym_postings,
            cosines,
            mentioned: std::cell::OnceCell::new(),
        }
    }

    fn cosine(&self, doc: u32) -> Option<f32> {
        self.cosines
            .as_ref()
            .and_then(|c| c.get(doc as usize).copied().flatten())
    }

    /// The evidence behind document `doc` as a hit scoring `score`, judged by `gate`.
    fn evidence(&self, doc: u32, score: f64, gate: Gate) -> Evidence {
        // A word counts whether the memory says it or its `when` phrases do.
        let matched = self
            .exact
            .iter()
            .zip(&self.exact_when)
            .filter(|(p, w)| Corpus::posted(p, doc) || Corpus::posted(w, doc))
            .count();
        let synonym_match = self.synonyms.iter().any(|p| Corpus::posted(p, doc));
        let mut e = Evidence::judge(matched, self.exact.len(), synonym_match, self.cosine(doc));
        // The label is the gate's judgement: what an agent would be given reads as a good or
        // strong match, what it would not as weak at most, whatever the words or the cosine.
        e.gated = gate.admits(score, &e);
        e.relevance = if e.gated && e.relevance > Relevance::None {
            e.relevance.max(Relevance::Good)
        } else {
            e.relevance.min(Relevance::Weak)
        };
        e
    }

    /// Whether `doc` has any evidence at all (what `evidence` labels above `None`): a query word
    /// or a synonym of one, or a cosine of at least `WEAK_COSINE`.
    fn evident(&self, doc: u32) -> bool {
        if self.cosine(doc).unwrap_or(0.0) >= WEAK_COSINE {
            return true;
        }
        let mentioned = self.mentioned.get_or_init(|| {
            let mut marked = vec![false; self.corpus.len()];
            for postings in self
                .exact
                .iter()
                .chain(&self.exact_when)
                .chain(&self.synonyms)
            {
                for &(d, _) in *postings {
                    marked[d as usize] = true;
                }
            }
            marked
        });
        mentioned[doc as usize]
    }
}

#[cfg(test)]
#[path = "relevance_tests.rs"]
mod tests;

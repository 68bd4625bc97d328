//! The `when` field in ranking (DESIGN §5, "What a memory is for"): a prompt is matched against
//! the situations a memory says it is needed in, as well as against what the memory says.
//!
//! Owns: the field's index terms (the phrases' words under a prefix of their own, so they have
//! their own postings, document frequencies and scores and never count as a headline or body
//! word), its BM25 scores, the best phrase cosine of each memory, and how both join the ranker's
//! two inputs before fusion. With no memory saying `when`, every function here leaves those
//! inputs exactly as they were.
//! Deliberately does not: read or bound the frontmatter (`memory::when` does), embed (the
//! `SemanticScorer` does), or fuse and normalize (`rank::score` and `fusion` do).
//!
//! Calibration (dev half of tests/eval_set only, as whole sessions in `context_economy`; the
//! figures are in that file's notes): `LEXICAL_WEIGHT` and `COSINE_WEIGHT` below.

use std::sync::Arc;

use super::bm25::K1;
use super::corpus::{Corpus, DocTerms};
pub use super::when_terms::{add_terms, term, PREFIX};

/// How much a `when` match counts against a headline/body match of the same raw BM25 score.
/// Dev sessions, shipped gate: 1.0 → recall 0.829 at 2.91× the oracle; 0.5 → 0.838 at 2.88×
/// (a phrase's words are fewer and more common than a headline's, so a full weight let a
/// shared everyday word lift unrelated memories).
pub const LEXICAL_WEIGHT: f32 = 0.5;
/// How much a phrase's cosine counts against the whole memory's: a memory's vector is the
/// ranker's semantic evidence, raised to its best phrase's (times this) when that is higher.
/// Dev sessions, shipped gate (lexical 0.5): 1.0 → recall 0.838 at 2.88×; 0.85 → 0.817 at
/// 2.66× — on the same bytes–recall frontier, so the phrase counts as written.
pub const COSINE_WEIGHT: f32 = 1.0;

/// Whether any document of `corpus` says when it is needed.
pub fn any(corpus: &Corpus) -> bool {
    corpus.docs.iter().any(|d| !d.when.is_empty())
}

/// BM25 of the `when` field, per document. Phrases are a few words each, so there is no length
/// normalization (b = 0): a memory with more situations is not punished for listing them.
pub fn bm25_scores(corpus: &Corpus, query: &[(String, f32)]) -> Vec<f32> {
    let n = corpus.len() as f32;
    let mut scores = vec![0.0f32; corpus.len()];
    for (word, weight) in query {
        let postings = corpus.postings(&term(word));
        if postings.is_empty() {
            continue;
        }
        let df = postings.len() as f32;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for &(doc, tf) in postings {
            scores[doc as usize] += weight * idf * tf * (K1 + 1.0) / (tf + K1);
        }
    }
    scores
}

/// The lexical input with the `when` field's scores added (see `LEXICAL_WEIGHT`).
pub fn with_lexical(mut lexical: Vec<f32>, when: &[f32]) -> Vec<f32> {
    for (l, w) in lexical.iter_mut().zip(when) {
        *l += LEXICAL_WEIGHT * w;
    }
    lexical
}

/// Each memory's cosine raised to its best phrase's (see `COSINE_WEIGHT`); a memory without a
/// vector of its own but with phrase vectors is judged by those.
pub fn with_cosine(body: Vec<Option<f32>>, when: &[Option<f32>]) -> Vec<Option<f32>> {
    body.into_iter()
        .zip(when)
        .map(|(b, w)| match (b, w.map(|w| w * COSINE_WEIGHT)) {
            (Some(b), Some(w)) => Some(b.max(w)),
            (b, w) => b.or(w),
        })
        .collect()
}

/// Whether document `doc` holds query word `word` in its `when` field.
pub fn has(corpus: &Corpus, word: &str, doc: u32) -> bool {
    Corpus::posted(corpus.postings(&term(word)), doc)
}

/// The phrases of every document that has any, with the document's index: what a scorer embeds.
pub fn phrases_of(docs: &[Arc<DocTerms>]) -> impl Iterator<Item = (usize, &str)> {
    docs.iter()
        .enumerate()
        .flat_map(|(i, d)| d.when.iter().map(move |p| (i, p.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{rank, SearchParams, Semantic, SemanticScorer, Synonyms};
    use ambry_store::config::{Fusion, Strategy};
    use ambry_store::memory::{Lifecycle, Memory};

    fn doc(name: &str, description: &str, body: &str, when: &[&str]) -> DocTerms {
        DocTerms::from_memory(&Memory {
            lifecycle: Lifecycle {
                when: when.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            },
            ..crate::rank::test_memory(name, description, body)
        })
    }

    fn params(strategy: Strategy) -> SearchParams {
        SearchParams {
            strategy,
            fusion: Fusion::Blend,
            semantic_weight: 0.6,
            min_score: 0.0,
            limit: None,
        }
    }

    fn unavailable() -> Semantic<'static> {
        Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested)
    }

    #[test]
    fn a_prompt_in_the_words_of_a_when_phrase_finds_its_memory() {
        let docs = |pool_when: &[&str]| {
            Corpus::build([
                doc(
                    "db-pool",
                    "Connection pool sizing",
                    "Max 20 per pod; pgbouncer in front.",
                    pool_when,
                ),
                doc(
                    "retries",
                    "Retry policy",
                    "Back off exponentially on upstream errors.",
                    &[],
                ),
            ])
        };
        let prompt = "the payments api keeps answering 429";
        let without = rank(
            &docs(&[]),
            prompt,
            &params(Strategy::Bm25),
            &Synonyms::new(&[]),
            unavailable(),
        );
        assert!(
            without.hits.iter().all(|h| h.name != "db-pool"),
            "{:?}",
            without.hits
        );
        let with = rank(
            &docs(&["a 429 from the payments api", "bumping the pool size"]),
            prompt,
            &params(Strategy::Bm25),
            &Synonyms::new(&[]),
            unavailable(),
        );
        assert_eq!(with.hits[0].name, "db-pool", "{:?}", with.hits);
    }

    #[test]
    fn when_words_are_a_field_of_their_own() {
        let d = doc("a", "alpha", "beta", &["gamma beta"]);
        let names: Vec<&str> = d.terms.iter().map(|(t, _)| &**t).collect();
        assert!(
            names.contains(&"when:gamma") && names.contains(&"when:beta"),
            "{names:?}"
        );
        assert!(!names.contains(&"gamma"), "a when word is no body word");
        assert_eq!(
            d.length,
            doc("a", "alpha", "beta", &[]).length,
            "nor does it lengthen the body"
        );
    }

    /// Cosines by memory name for the whole memory, and by phrase for its phrases.
    struct Fixed {
        body: Vec<(&'static str, f32)>,
        phrase: Vec<(&'static str, f32)>,
    }
    impl SemanticScorer for Fixed {
        fn similarities(
            &self,
            _: &str,
            docs: &[Arc<DocTerms>],
        ) -> Result<Vec<Option<f32>>, String> {
            Ok(docs
                .iter()
                .map(|d| {
                    self.body
                        .iter()
                        .find(|(n, _)| *n == d.name)
                        .map(|(_, c)| *c)
                })
                .collect())
        }
        fn when_similarities(
            &self,
            _: &str,
            docs: &[Arc<DocTerms>],
        ) -> Result<Vec<Option<f32>>, String> {
            Ok(docs
                .iter()
                .map(|d| {
                    d.when
                        .iter()
                        .filter_map(|p| self.phrase.iter().find(|(q, _)| q == p).map(|(_, c)| *c))
                        .reduce(f32::max)
                })
                .collect())
        }
    }

    #[test]
    fn the_best_phrase_cosine_counts_and_no_phrase_changes_nothing() {
        let corpus = Corpus::build([
            doc(
                "deploy-freeze",
                "Release calendar",
                "No deploys on Fridays after noon.",
                &["shipping on a friday"],
            ),
            doc("style", "Formatting", "rustfmt everything.", &[]),
        ]);
        let scorer = Fixed {
            body: vec![("deploy-freeze", 0.2), ("style", 0.3)],
            phrase: vec![("shipping on a friday", 0.7)],
        };
        let r = rank(
            &corpus,
            "can I push it out today",
            &params(Strategy::Semantic),
            &Synonyms::new(&[]),
            Semantic::Available(&scorer),
        );
        assert_eq!(r.hits[0].name, "deploy-freeze", "{:?}", r.hits);
        let plain = Corpus::build([
            doc(
                "deploy-freeze",
                "Release calendar",
                "No deploys on Fridays after noon.",
                &[],
            ),
            doc("style", "Formatting", "rustfmt everything.", &[]),
        ]);
        let r = rank(
            &plain,
            "can I push it out today",
            &params(Strategy::Semantic),
            &Synonyms::new(&[]),
            Semantic::Available(&scorer),
        );
        assert_eq!(r.hits[0].name, "style");
        assert_eq!(
            with_cosine(vec![Some(0.4), None], &[None, None]),
            vec![Some(0.4), None]
        );
        assert_eq!(with_lexical(vec![1.5, 0.0], &[0.0, 0.0]), vec![1.5, 0.0]);
    }
}

//! Okapi BM25 over weighted fields, and the plain keyword-overlap strategy.
//!
//! Owns: the scoring formulas and query-term weighting (exact terms 1.0, synonyms 0.5).
//! Deliberately does not: normalize, cut or fuse; `rank::search` does that for every strategy.

use std::collections::HashMap;

use super::corpus::Corpus;
use super::synonyms::Synonyms;
use super::tokenize::terms;

/// Term-frequency saturation (see the eval sweep in the `rank` module notes).
pub const K1: f32 = 1.2;
/// Length normalization.
pub const B: f32 = 0.75;
/// Weight of a synonym relative to a term the query actually used.
pub const SYNONYM_WEIGHT: f32 = 0.5;
/// Coverage is the share of the query's idf mass the best lexical match explains, but never
/// out of more than this many of the rarest terms' worth: a long agent prompt (file names,
/// errors, instructions) holds far more words than any one memory could share, so without a cap
/// a memory matching its file name and error exactly looked unsure and lost its lexical weight.
/// Queries shorter than this are unaffected (6 and 8 measured the same on the dev half, 4 began
/// to move the short classes).
pub const COVERAGE_CAP_TERMS: f32 = 8.0;

/// Stemmed query terms with their weights: each distinct term 1.0, each synonym 0.5 unless the
/// query already has it.
pub fn weighted_query(query: &str, synonyms: &Synonyms) -> Vec<(String, f32)> {
    let mut weights: HashMap<String, f32> = HashMap::new();
    let exact = terms(query);
    for t in &exact {
        weights.insert(t.clone(), 1.0);
    }
    for t in &exact {
        for mate in synonyms.mates(t) {
            weights.entry(mate.to_string()).or_insert(SYNONYM_WEIGHT);
        }
    }
    for mate in synonyms.phrase_mates(&exact) {
        weights.entry(mate.to_string()).or_insert(SYNONYM_WEIGHT);
    }
    let mut out: Vec<(String, f32)> = weights.into_iter().collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Raw BM25 score per document (same order as `corpus.docs`).
pub fn bm25_scores(corpus: &Corpus, query: &[(String, f32)]) -> Vec<f32> {
    let n = corpus.len() as f32;
    let mut scores = vec![0.0f32; corpus.len()];
    for (term, weight) in query {
        let postings = corpus.postings(term);
        if postings.is_empty() {
            continue;
        }
        let df = postings.len() as f32;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for &(doc, tf) in postings {
            let dl = corpus.docs[doc as usize].length;
            let norm = K1 * (1.0 - B + B * dl / corpus.average_length);
            scores[doc as usize] += weight * idf * tf * (K1 + 1.0) / (tf + norm);
        }
    }
    scores
}

/// How much of the query the best lexical match explains: the idf-weighted share of the query's
/// terms that the top-scoring document contains (1.0 when it contains them all; a term it has
/// only through a synonym counts at the synonym weight). Terms the corpus has never seen count at
/// the highest idf, since they are the query's most specific words. Capped: see
/// `COVERAGE_CAP_TERMS`.
pub fn coverage_of_best(
    corpus: &Corpus,
    query: &[(String, f32)],
    synonyms: &Synonyms,
    scores: &[f32],
) -> f32 {
    let Some(best) = scores
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > 0.0)
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i as u32)
    else {
        return 0.0;
    };
    let n = corpus.len() as f32;
    let (mut matched, mut total) = (0.0f32, 0.0f32);
    // A word the memory's `when` phrases hold explains the query as well as one it says.
    let has = |term: &str| {
        Corpus::posted(corpus.postings(term), best)
            || Corpus::posted(corpus.postings(&super::when_terms::term(term)), best)
    };
    // Synonyms are not part of what the person asked; they only give partial credit below.
    for (term, weight) in query.iter().filter(|(_, w)| *w >= 1.0) {
        let df = corpus.postings(term).len() as f32;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        total += weight * idf;
        if has(term) {
            matched += weight * idf;
        } else if synonyms.mates(term).iter().any(|m| has(m)) {
            matched += SYNONYM_WEIGHT * weight * idf;
        }
    }
    // A long prompt is measured against what a focused query could ask (see COVERAGE_CAP_TERMS).
    let rarest = (1.0 + (n - 1.0 + 0.5) / 1.5).ln();
    total = total.min(COVERAGE_CAP_TERMS * rarest);
    if total > 0.0 {
        (matched / total).min(1.0)
    } else {
        0.0
    }
}

/// Share of the query's distinct exact terms a document contains (synonyms ignored).
pub fn keyword_scores(corpus: &Corpus, query: &[(String, f32)]) -> Vec<f32> {
    let exact: Vec<&String> = query
        .iter()
        .filter(|(_, w)| *w >= 1.0)
        .map(|(t, _)| t)
        .collect();
    let mut scores = vec![0.0f32; corpus.len()];
    if exact.is_empty() {
        return scores;
    }
    for term in &exact {
        for &(doc, _) in corpus.postings(term) {
            scores[doc as usize] += 1.0 / exact.len() as f32;
        }
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::corpus::DocTerms;

    fn doc(name: &str, description: &str, body: &str) -> DocTerms {
        crate::rank::test_doc(name, description, body)
    }

    fn corpus() -> Corpus {
        Corpus::build([
            doc(
                "postgres-migrations",
                "How we run database migrations",
                "Use sqlx migrate run before tests.",
            ),
            doc(
                "deploy-checklist",
                "Steps to ship a release",
                "Tag, build, push the image, roll out.",
            ),
            doc(
                "code-style",
                "Formatting rules",
                "Run rustfmt; no trailing whitespace. Mention database once.",
            ),
        ])
    }

    #[test]
    fn the_document_about_the_query_wins() {
        let c = corpus();
        let q = weighted_query("how do I run the database migrations?", &Synonyms::new(&[]));
        let s = bm25_scores(&c, &q);
        let best = s
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap()
            .0;
        assert_eq!(c.docs[best].name, "postgres-migrations");
    }

    #[test]
    fn synonyms_reach_documents_at_lower_weight() {
        let c = corpus();
        let syn = Synonyms::new(&[]);
        let q = weighted_query("deploy", &syn);
        let s = bm25_scores(&c, &q);
        let idx = c
            .docs
            .iter()
            .position(|d| d.name == "deploy-checklist")
            .unwrap();
        assert!(s[idx] > 0.0, "deploy finds ship/release via synonyms");
        let exact = bm25_scores(&c, &weighted_query("ship", &syn))[idx];
        assert!(exact > s[idx] * 0.99 || s[idx] > 0.0);
        let q = weighted_query("deploy", &syn);
        assert!(q.iter().any(|(t, w)| t == "deploy" && *w == 1.0));
        assert!(q.iter().any(|(t, w)| t == "ship" && *w == SYNONYM_WEIGHT));
    }

    #[test]
    fn headline_matches_outweigh_body_mentions() {
        let c = corpus();
        let s = bm25_scores(&c, &weighted_query("database", &Synonyms::new(&[])));
        let migrations = c
            .docs
            .iter()
            .position(|d| d.name == "postgres-migrations")
            .unwrap();
        let style = c.docs.iter().position(|d| d.name == "code-style").unwrap();
        assert!(s[migrations] > s[style]);
    }

    #[test]
    fn a_long_prompt_is_not_made_unsure_by_words_no_memory_could_have() {
        let c = Corpus::build([
            doc(
                "vault-rotation",
                "When credentials rotate",
                "Quarterly, by the platform team.",
            ),
            doc("onboarding", "First week", "Ask for access on day one."),
            doc("code-style", "Formatting rules", "Run rustfmt."),
        ]);
        let syn = Synonyms::new(&[]);
        let coverage = |q: &str| {
            let query = weighted_query(q, &syn);
            coverage_of_best(&c, &query, &syn, &bm25_scores(&c, &query))
        };
        assert_eq!(
            coverage("vault rotation"),
            1.0,
            "a focused query is unaffected"
        );
        let six = coverage("vault rotation zeta1 zeta2 zeta3 zeta4 zeta5 zeta6");
        let twenty = coverage(&format!(
            "vault rotation {}",
            (1..=20)
                .map(|i| format!("omega{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        assert!(six > 0.2, "{six}");
        assert_eq!(
            six, twenty,
            "past the cap, more unmatched words do not lower the confidence"
        );
    }

    #[test]
    fn coverage_says_how_much_of_the_query_the_best_match_explains() {
        let c = corpus();
        let syn = Synonyms::new(&[]);
        let full = weighted_query("sqlx migrations", &syn);
        assert_eq!(
            coverage_of_best(&c, &full, &syn, &bm25_scores(&c, &full)),
            1.0
        );
        let partial = weighted_query("rustfmt quarterly forecast", &syn);
        let cov = coverage_of_best(&c, &partial, &syn, &bm25_scores(&c, &partial));
        assert!(cov > 0.0 && cov < 0.5, "one rare word of three: {cov}");
        let via_synonym = weighted_query("rollout", &syn);
        let cov = coverage_of_best(&c, &via_synonym, &syn, &bm25_scores(&c, &via_synonym));
        assert!((cov - SYNONYM_WEIGHT).abs() < 1e-6, "{cov}");
        let none = weighted_query("zebra", &syn);
        assert_eq!(
            coverage_of_best(&c, &none, &syn, &bm25_scores(&c, &none)),
            0.0
        );
    }

    #[test]
    fn keyword_counts_exact_term_overlap_only() {
        let c = corpus();
        let s = keyword_scores(
            &c,
            &weighted_query("rustfmt whitespace", &Synonyms::new(&[])),
        );
        let style = c.docs.iter().position(|d| d.name == "code-style").unwrap();
        assert_eq!(s[style], 1.0);
        assert_eq!(s.iter().filter(|x| **x > 0.0).count(), 1);
    }
}

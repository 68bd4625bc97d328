//! The gate's tests: relevance labels, the floor and what a hit needs to be injected.

use super::*;
use ambry_store::config::{Fusion, Strategy};

fn doc(name: &str, description: &str, body: &str) -> DocTerms {
    crate::rank::test_doc(name, description, body)
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

/// Cosines by memory name (the corpus orders documents its own way).
struct Fixed(Vec<(&'static str, f32)>);
impl SemanticScorer for Fixed {
    fn similarities(&self, _: &str, docs: &[Arc<DocTerms>]) -> Result<Vec<Option<f32>>, String> {
        Ok(docs
            .iter()
            .map(|d| self.0.iter().find(|(n, _)| *n == d.name).map(|(_, c)| *c))
            .collect())
    }
}

fn corpus() -> Corpus {
    Corpus::build([
        doc(
            "jwt-refresh",
            "How token refresh works",
            "The auth middleware refreshes JWT tokens.",
        ),
        doc(
            "kitten-food",
            "What the kitten eats",
            "Wet food twice a day.",
        ),
        doc("deploy-steps", "Shipping a release", "Run make deploy."),
        doc(
            "pg-backups",
            "Nightly postgres backups",
            "Dumps go to the bucket.",
        ),
    ])
}

#[test]
fn every_word_matched_is_strong_and_an_unrelated_memory_is_dropped() {
    let r = rank_with_relevance(
        &corpus(),
        "token refresh",
        &params(Strategy::Bm25),
        &Synonyms::new(&[]),
        Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested),
        true,
    );
    assert_eq!(r.ranking.hits.len(), 1);
    assert_eq!(r.ranking.hits[0].name, "jwt-refresh");
    assert_eq!(r.evidence[0].relevance, Relevance::Strong);
    assert_eq!(
        (r.evidence[0].matched_terms, r.evidence[0].query_terms),
        (2, 2)
    );
}

#[test]
fn half_the_words_is_good_and_a_synonym_alone_is_weak_unless_the_gate_admits_it() {
    let r = rank_with_relevance(
        &corpus(),
        "token rotation",
        &params(Strategy::Bm25),
        &Synonyms::new(&[]),
        Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested),
        true,
    );
    assert_eq!(r.evidence[0].relevance, Relevance::Good);
    // "database" and "postgres" are one built-in synonym group (db/database/sql/postgres):
    // half a word of evidence (0.5), which the calibrated gate admits, so compose would give
    // it to an agent and the label says so.
    let database = |gate| {
        rank_with_gate(
            &corpus(),
            "database",
            &params(Strategy::Bm25),
            &Synonyms::new(&[]),
            Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested),
            true,
            gate,
        )
    };
    let r = database(Gate::CALIBRATED);
    assert_eq!(r.ranking.hits.len(), 1, "{:?}", r.ranking.hits);
    assert_eq!(r.ranking.hits[0].name, "pg-backups");
    assert!(r.evidence[0].synonym_match && r.evidence[0].matched_terms == 0);
    assert!(r.evidence[0].gated);
    assert_eq!(r.evidence[0].relevance, Relevance::Good);
    // A stricter floor refuses it: a weak match, still shown to a person.
    let r = database(Gate {
        floor: 0.6,
        margin: 0.25,
    });
    assert!(!r.evidence[0].gated);
    assert_eq!(r.evidence[0].relevance, Relevance::Weak);
}

#[test]
fn the_label_is_the_gates_judgement_not_the_words_alone() {
    // Both memories hold every word of the query, so by words alone both are strong; the
    // second ranks far below the first (its body is long, the words are not in its
    // headline), so the gate's margin refuses it and it reads as a weak match.
    let long = format!(
        "{} cache invalidation once.",
        "unrelated filler text. ".repeat(80)
    );
    let corpus = Corpus::build([
        doc(
            "cache-invalidation",
            "Cache invalidation rules",
            "Invalidate the cache on every write.",
        ),
        doc("release-notes", "What shipped this month", &long),
    ]);
    let r = rank_with_relevance(
        &corpus,
        "cache invalidation",
        &params(Strategy::Bm25),
        &Synonyms::new(&[]),
        Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested),
        true,
    );
    assert_eq!(r.ranking.hits.len(), 2, "{:?}", r.ranking.hits);
    assert_eq!(r.ranking.hits[0].name, "cache-invalidation");
    assert!(r.evidence[0].gated);
    assert_eq!(r.evidence[0].relevance, Relevance::Strong);
    assert_eq!(r.evidence[1].matched_terms, 2);
    assert!(
        r.ranking.hits[1].score < 0.75,
        "{}",
        r.ranking.hits[1].score
    );
    assert!(!r.evidence[1].gated);
    assert_eq!(r.evidence[1].relevance, Relevance::Weak);
}

#[test]
fn an_unrelated_query_keeps_only_real_similarity_though_normalized_scores_say_1_0() {
    // Semantic scoring gives every memory some similarity; the normalized top is 1.0 anyway.
    let scorer = Fixed(vec![
        ("jwt-refresh", 0.12),
        ("kitten-food", 0.18),
        ("deploy-steps", 0.05),
        ("pg-backups", 0.1),
    ]);
    let r = rank_with_relevance(
        &corpus(),
        "stock market crash",
        &params(Strategy::Semantic),
        &Synonyms::new(&[]),
        Semantic::Available(&scorer),
        true,
    );
    assert!(
        r.ranking.hits.is_empty(),
        "noise kept: {:?}",
        r.ranking.hits
    );
    let scorer = Fixed(vec![
        ("jwt-refresh", 0.12),
        ("kitten-food", 0.61),
        ("deploy-steps", 0.05),
        ("pg-backups", 0.1),
    ]);
    let r = rank_with_relevance(
        &corpus(),
        "what should my cat eat",
        &params(Strategy::Semantic),
        &Synonyms::new(&[]),
        Semantic::Available(&scorer),
        true,
    );
    assert_eq!(r.ranking.hits.len(), 1, "{:?}", r.ranking.hits);
    assert_eq!(r.ranking.hits[0].name, "kitten-food");
    assert_eq!(r.evidence[0].relevance, Relevance::Strong);
    assert_eq!(r.evidence[0].cosine, Some(0.61));
}

/// Cosines computed from each memory's name.
struct ByName(fn(&str) -> Option<f32>);
impl SemanticScorer for ByName {
    fn similarities(&self, _: &str, docs: &[Arc<DocTerms>]) -> Result<Vec<Option<f32>>, String> {
        Ok(docs.iter().map(|d| (self.0)(&d.name)).collect())
    }
}

#[test]
fn the_injection_cut_is_the_full_rankings_head_and_counts_the_rest() {
    // Three hundred memories sharing a few words, with cosines in steps of 0.05 (many ties,
    // some memories without a vector): every way the cut could differ from the whole.
    let words = ["token", "cache", "deploy", "canary", "refresh", "backup"];
    let docs: Vec<DocTerms> = (0..300)
        .map(|i| {
            let name = format!("m{i:03}");
            let description = format!("{} notes", words[i % words.len()]);
            let body = format!(
                "{} and {}",
                words[(i / 7) % words.len()],
                "filler ".repeat(i % 5)
            );
            doc(&name, &description, &body)
        })
        .collect();
    let corpus = Corpus::build(docs);
    let scorer = ByName(|name| {
        let i: u32 = name[1..].parse().unwrap();
        (!i.is_multiple_of(11)).then(|| ((i * 37) % 15) as f32 * 0.05)
    });
    let strict = Gate {
        floor: 0.6,
        margin: 0.1,
    };
    for strategy in [Strategy::Semantic, Strategy::Bm25] {
        for query in ["refresh token cache", "canary deploy", "zebra", ""] {
            for gate in [Gate::CALIBRATED, Gate::OPEN, strict] {
                for limit in [None, Some(5)] {
                    let mut p = params(strategy);
                    p.limit = limit;
                    let semantic = || Semantic::Available(&scorer);
                    let syn = Synonyms::new(&[]);
                    let full = rank_with_gate(&corpus, query, &p, &syn, semantic(), true, gate);
                    for listed in [0, 3, 20] {
                        let cut = rank_for_gate(&corpus, query, &p, &syn, semantic(), gate, listed);
                        let case = format!("{strategy:?} {query:?} {gate:?} {limit:?} {listed}");
                        let n = cut.relevant.ranking.hits.len();
                        assert_eq!(cut.relevant.ranking.hits, full.ranking.hits[..n], "{case}");
                        assert_eq!(cut.relevant.evidence, full.evidence[..n], "{case}");
                        assert_eq!(cut.relevant.ranking.strategy, full.ranking.strategy);
                        let rest = &full.evidence[n..];
                        assert!(rest.iter().all(|e| !e.gated), "a gated hit was cut: {case}");
                        assert_eq!(cut.refused_more, rest.len(), "{case}");
                        let refused = full.evidence[..n].iter().filter(|e| !e.gated).count();
                        assert!(
                            refused
                                >= listed.min(full.evidence.iter().filter(|e| !e.gated).count()),
                            "{case}"
                        );
                    }
                }
            }
        }
    }
}

//! A prompt ranked in its conversation (DESIGN §5): the last exchange before it ("bump the
//! api's pool to 50" — "Done.") is ranked as a second query and fused in when the prompt alone
//! is unsure, so "do the same for the worker" finds what "the same" was about while a prompt
//! that says what it wants ranks by its own words alone.
//!
//! Owns: how the exchange's scores and cosines join the prompt's (`PROMPT_WEIGHT`, calibrated on
//! the dev half's conversation sessions in `context_economy`). Whether the exchange is used at
//! all (only for a prompt whose own best match is below the gate's floor) is decided where the
//! evidence is judged (`relevance::rank_for_gate_in`).
//! Deliberately does not: read the transcript (`sessions::last_exchange` does), score either
//! query (`rank::score` does) or judge evidence (`relevance` does, with the fused cosines).

use super::fusion::normalize;

/// The last exchange before a prompt, as the ranker takes it.
#[derive(Debug, Clone, Copy)]
pub struct Exchange<'a> {
    /// The whole exchange, the person's previous prompt and the reply's end: its words are
    /// ranked and are evidence.
    pub text: &'a str,
    /// The person's previous prompt: its meaning stands for the exchange's. That prompt was a
    /// turn of its own, so a long-lived scorer holds its vector already and a turn that refers
    /// back runs the model once, as any turn does (the whole exchange embedded anew cost a served
    /// turn a third more); the reply's own words still count through `text`.
    pub asked: &'a str,
}

/// How much the prompt counts against its exchange when the prompt alone is unsure (its best
/// match has too little evidence to clear the gate): the exchange leads, the prompt still
/// breaks ties toward what it does say. Dev conversation sessions (follow-up recall / bytes ×
/// oracle): prompt alone 0.667 / 3.95×; exchange fused in at every turn, prompt leading at
/// 0.5, 0.646 / 4.28× (and every other turn worse); only for an unsure prompt, exchange
/// leading: prompt weight 0.5 0.729 / 3.85×, 0.2 0.729 / 3.79×. "Unsure" at the gate's floor:
/// at 0.4 follow-ups 0.750 but the whole session's recall fell 0.819 → 0.774.
pub const PROMPT_WEIGHT: f32 = 0.2;

/// The exchange's normalized scores with the prompt's added at `PROMPT_WEIGHT`, normalized
/// again (into `prompt`).
pub fn fuse_scores(prompt: &mut [f32], exchange: &[f32]) {
    for (p, e) in prompt.iter_mut().zip(exchange) {
        *p = PROMPT_WEIGHT * *p + e;
    }
    normalize(prompt);
}

/// Each memory's cosine to the prompt or to the exchange, whichever is higher: what the last
/// exchange was about is as much evidence for a prompt that refers back to it.
pub fn fuse_cosines(
    prompt: Option<Vec<Option<f32>>>,
    exchange: Option<Vec<Option<f32>>>,
) -> Option<Vec<Option<f32>>> {
    match (prompt, exchange) {
        (Some(p), Some(e)) => Some(
            p.into_iter()
                .zip(e)
                .map(|(p, e)| match (p, e) {
                    (Some(p), Some(e)) => Some(p.max(e)),
                    (p, e) => p.or(e),
                })
                .collect(),
        ),
        (p, _) => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{rank_for_gate_in, Corpus, DocTerms, Gate, SearchParams, Semantic, Synonyms};
    use ambry_store::config::{Fusion, Strategy};

    #[test]
    fn the_exchange_leads_and_the_prompt_breaks_ties() {
        let mut scores = vec![1.0, 0.1];
        fuse_scores(&mut scores, &[0.0, 1.0]);
        assert!(scores[1] > scores[0], "{scores:?}");
        let mut tied = vec![1.0, 0.0];
        fuse_scores(&mut tied, &[1.0, 1.0]);
        assert!(tied[0] > tied[1], "{tied:?}");
        assert_eq!(
            fuse_cosines(
                Some(vec![Some(0.3), None]),
                Some(vec![Some(0.8), Some(0.4)])
            ),
            Some(vec![Some(0.8), Some(0.4)])
        );
        assert_eq!(
            fuse_cosines(None, Some(vec![Some(0.8)])),
            None,
            "no model, no cosine"
        );
    }

    fn doc(name: &str, description: &str, body: &str) -> DocTerms {
        crate::rank::test_doc(name, description, body)
    }

    fn gated(corpus: &Corpus, prompt: &str, exchange: Option<&str>) -> Vec<String> {
        let exchange = exchange.map(|text| Exchange { text, asked: text });
        let params = SearchParams {
            strategy: Strategy::Bm25,
            fusion: Fusion::Blend,
            semantic_weight: 0.6,
            min_score: 0.0,
            limit: None,
        };
        rank_for_gate_in(
            corpus,
            prompt,
            exchange,
            &params,
            &Synonyms::new(&[]),
            Semantic::Unavailable(&crate::embed::ModelUnavailable::NotRequested),
            Gate::CALIBRATED,
            0,
        )
        .admitted_names()
    }

    #[test]
    fn a_prompt_that_refers_back_finds_what_the_exchange_was_about_and_a_clear_one_ranks_alone() {
        let corpus = Corpus::build([
            doc(
                "db-pool",
                "Connection pool sizing",
                "Max 20 connections per pod.",
            ),
            doc(
                "retries",
                "Retry policy",
                "Back off exponentially on upstream errors.",
            ),
        ]);
        let exchange = "bump the api's connection pool to 50\nDone.";
        assert!(gated(&corpus, "do the same for the worker", None).is_empty());
        assert_eq!(
            gated(&corpus, "do the same for the worker", Some(exchange)),
            ["db-pool"]
        );
        assert_eq!(
            gated(&corpus, "what is our retry policy", Some(exchange)),
            gated(&corpus, "what is our retry policy", None),
            "a prompt with evidence of its own is ranked alone"
        );
    }
}

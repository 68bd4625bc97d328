//! Pairs of memories that say the same thing (duplicates) or the same subject with different
//! claims (conflicts), judged on their words and, when both have a vector of the configured
//! model, on their embeddings.
//!
//! Owns: the similarity of two memories (Jaccard over stemmed terms of description and body,
//! fused with the cosine of their embeddings when there is one), the thresholds, and the
//! verdict for a pair.
//! Deliberately does not: read files, embed, or decide scope rules (the review does), or find
//! the claims themselves (`claims` does).
//!
//! The verdict is read from the two memories' claims (`rival`): two subjects are neither, a
//! rival claim is a conflict and never a merge, the same claims read alike — or one meaning to
//! the model with nothing apart, rival or unsure — are a duplicate, and what the claims cannot
//! settle is asked about ("duplicate or conflict?").
//!
//! Thresholds were calibrated on the labelled set in `tests/review_set/` (dev half only) and
//! the claims tuned on the three dev halves of `tests/review_set_independent/`; every half is
//! gated by `tests/all/review_eval.rs`, which holds the measured figures. With embeddings, on
//! the independent set's four frozen test halves: duplicates precision 0.696 / 1.000 / 0.885 /
//! 0.931, recall 0.640 / 0.400 / 0.479 / 0.540; conflicts precision 0.791 / 0.786 / 0.750 /
//! 0.700, recall 0.680 / 0.660 / 0.562 / 0.560; near misses judged a conflict 4, 5, 3 and 6
//! of 50.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use ambry_rank::rank::tokenize::terms;
use ambry_store::memory::Memory;

use super::rival::{compare, Claims, Comparison};

/// Words only: two memories at least this similar (Jaccard) say the same thing.
pub const DUPLICATE_AT_TOKENS: f64 = 0.3;
/// Words only: two memories at least this similar talk about the same subject.
pub const SAME_SUBJECT_AT_TOKENS: f64 = 0.2;
/// Words only: two memories using rival tools (`yarn` / `npm`) at least this similar, with a
/// subject in common, disagree — their words rarely overlap much ("CI runs on GitHub Actions" /
/// "Our pipeline is CircleCI").
pub const RIVAL_TOOLS_AT_TOKENS: f64 = 0.05;
/// With embeddings: the same, on the fused similarity.
pub const RIVAL_TOOLS_AT: f64 = 0.2;
/// Words only: two memories at least this similar that state the same claims (a value, tool or
/// name in common, nothing new on either side) say the same thing, one of them shortly.
pub const SAME_CLAIMS_AT_TOKENS: f64 = 0.2;
/// With embeddings: the same, on the fused similarity.
pub const SAME_CLAIMS_AT: f64 = 0.45;
/// Words only: two memories at least this similar that state the same values however each
/// writes them ("15 minutes" / "900 seconds", "1 GiB" / "1024 MiB"), nothing apart or unsure,
/// say the same thing, whatever else one of them names (dev halves of the independent set:
/// duplicates recall 0.700 → 0.720, precision unchanged).
pub const SAME_VALUES_AT_TOKENS: f64 = 0.2;
/// With embeddings: the same, on the fused similarity (dev 0.740 → 0.780, dev2 0.280 → 0.360,
/// no pair of another label taken for a duplicate; 0.38 and 0.40 alike, 0.42 0.760 / 0.340).
pub const SAME_VALUES_AT: f64 = 0.40;
/// With embeddings: the cosine's share of the fused similarity.
pub const EMBEDDING_WEIGHT: f64 = 0.6;
/// With embeddings: fused similarity at which two memories say the same thing.
pub const DUPLICATE_AT: f64 = 0.54;
/// The model's cosine from which a pair with nothing apart, rival or unsure is one memory
/// however few words the two share.
pub const MEANS_THE_SAME_AT: f64 = 0.70;
/// From this cosine, a pair that would be one memory but for values the words cannot tie to
/// one question is asked about ("duplicate or conflict?").
pub const MEANS_THE_SAME_UNSURE_AT: f64 = 0.74;
/// With embeddings: fused similarity at which two memories talk about the same subject.
pub const SAME_SUBJECT_AT: f64 = 0.4;

/// One side of a pair: the text claims are read from and its terms.
#[derive(Debug, Clone)]
pub struct Side {
    /// The memory's name: a short label its writer chose for its subject.
    name: String,
    terms: BTreeSet<String>,
    /// Description and body, the description a clause of its own (as if it ended in a full
    /// stop).
    text: String,
    /// What it asserts, read once and only when first judged: most memories of a large store
    /// are in no candidate pair.
    claims: OnceLock<Claims>,
}

impl Side {
    pub fn new(description: &str, body: &str) -> Side {
        Side::named("", description, body)
    }

    /// A side whose name is known: names that read alike but for one qualifier name two
    /// subjects (`rival::compare`).
    pub fn named(name: &str, description: &str, body: &str) -> Side {
        let text = format!("{description}\n{body}");
        Side {
            name: name.to_string(),
            terms: terms(&text).into_iter().collect(),
            text: format!("{description}.\n{body}"),
            claims: OnceLock::new(),
        }
    }

    pub fn of(memory: &Memory) -> Side {
        Side::named(&memory.name, &memory.description, &memory.body)
    }

    /// What it asserts.
    pub fn claims(&self) -> &Claims {
        self.claims
            .get_or_init(|| Claims::of(&self.text).named(&self.name))
    }

    /// Description and body, as claims are read from them.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The stemmed terms of description and body, as the Jaccard compares them.
    pub fn terms(&self) -> &BTreeSet<String> {
        &self.terms
    }
}

/// What a pair is, if anything worth a person's look.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Duplicate,
    /// The claims on which they disagree, as `(first's, second's)`.
    Conflict(Vec<(String, String)>),
    /// They read as one statement but hold something apart (a rival value, one moved away
    /// from what the other says): the same subject, and the words cannot tell a duplicate from
    /// a conflict — asked, never offered as a merge.
    Uncertain(Vec<(String, String)>),
}

/// A pair's similarity and verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The similarity the thresholds apply to (fused when `cosine` is known).
    pub similarity: f64,
    pub token_similarity: f64,
    pub cosine: Option<f64>,
    pub verdict: Option<Verdict>,
    /// How their claims compare (the shared subject, the rival claims), when they were close
    /// enough to be compared: the evidence a finding shows.
    pub claims: Option<Comparison>,
}

/// Judges a pair; `cosine` is the cosine of their vectors when both have one of one model.
pub fn judge(a: &Side, b: &Side, cosine: Option<f64>) -> Judgement {
    let token_similarity = jaccard(&a.terms, &b.terms);
    let (similarity, duplicate_at, same_subject_at, rival_tools_at, same_claims_at, same_values_at) =
        match cosine {
            Some(c) => (
                EMBEDDING_WEIGHT * c + (1.0 - EMBEDDING_WEIGHT) * token_similarity,
                DUPLICATE_AT,
                SAME_SUBJECT_AT,
                RIVAL_TOOLS_AT,
                SAME_CLAIMS_AT,
                SAME_VALUES_AT,
            ),
            None => (
                token_similarity,
                DUPLICATE_AT_TOKENS,
                SAME_SUBJECT_AT_TOKENS,
                RIVAL_TOOLS_AT_TOKENS,
                SAME_CLAIMS_AT_TOKENS,
                SAME_VALUES_AT_TOKENS,
            ),
        };
    // Claims, not string differences (DESIGN §14): two subjects are neither; any rival claim is
    // a conflict and never a merge; the same claims read alike are a duplicate; values that
    // differ where the words cannot tell whether they answer one question are asked about.
    let comparison = (similarity >= rival_tools_at).then(|| compare(a.claims(), b.claims()));
    let verdict = match &comparison {
        None => None,
        Some(Comparison { apart: Some(_), .. }) => None,
        // Less alike than one subject usually reads: only rival tools with a subject named in
        // common (the same task, component, language or environment) are a disagreement.
        Some(c) if similarity < same_subject_at => {
            (c.tools_rival && !c.subject.is_empty()).then(|| Verdict::Conflict(c.rivals.clone()))
        }
        Some(c) if !c.rivals.is_empty() => Some(Verdict::Conflict(c.rivals.clone())),
        Some(c) if similarity >= duplicate_at && !c.unsure.is_empty() => {
            Some(Verdict::Uncertain(c.unsure.clone()))
        }
        Some(_) if similarity >= duplicate_at => Some(Verdict::Duplicate),
        // Words apart but one meaning to the model, nothing apart, rival or unsure: one
        // memory written twice ("Every new Python function should have full type annotations"
        // / "Write complete annotations on any function signature you add").
        Some(c) if c.unsure.is_empty() && cosine.is_some_and(|c| c >= MEANS_THE_SAME_AT) => {
            Some(Verdict::Duplicate)
        }
        Some(c) if cosine.is_some_and(|c| c >= MEANS_THE_SAME_UNSURE_AT) => {
            Some(Verdict::Uncertain(c.unsure.clone()))
        }
        Some(c) if similarity >= same_claims_at && c.same_claims => Some(Verdict::Duplicate),
        Some(c) if similarity >= same_values_at && c.same_values => Some(Verdict::Duplicate),
        Some(_) => None,
    };
    Judgement {
        similarity,
        token_similarity,
        cosine,
        verdict,
        claims: comparison,
    }
}

pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

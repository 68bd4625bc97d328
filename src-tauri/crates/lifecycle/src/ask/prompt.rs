//! What the agent is sent about the uncertain pairs and what it must answer: the instructions,
//! each pair numbered with what the local judge saw differ, the strict answer schema (per pair a
//! verdict — duplicate, conflict or neither — and a one-sentence reason), and checking an answer
//! against the pairs that were sent.
//!
//! Owns: the bounds on each memory's text in a prompt, masking secrets before anything is sent,
//! and the rules an answer is held to.
//! Deliberately does not: decide which pairs are sent (the run does), run anything, or write.

use crate::distill::proposal::AnswerProblem;
use serde::Deserialize;
use serde_json::{json, Value};

use super::verdict::PairVerdict;
use crate::distill::proposal::MAX_ANSWER_BYTES;
use crate::lifecycle::Subject;
use ambry_store::memory::secrets::mask_secrets;

/// Most bytes of one memory's body in a prompt (a long one is cut, with a note).
const BODY_BYTES: usize = 2_000;
/// Most bytes of a reason kept from an answer: one sentence.
pub const REASON_BYTES: usize = 300;

const INSTRUCTIONS: &str = "You judge pairs of long-term memories from Ambry, a memory store that coding agents read in later sessions. Each pair is about the same subject, and the words alone could not tell whether the two say the same thing.

For each pair decide:
- \"duplicate\": both say the same thing (a paraphrase, one shorter than the other, a number as a word or as digits, a duration in other units); merging them into one loses nothing.
- \"conflict\": they answer the same question differently (rival tools, values, versions, paths, hosts, ports, time zones, a rule and its negation, one says it moved away from what the other states): at most one of them is still true.
- \"neither\": they are about different things (another service, environment, person or branch), or both hold together.

Answer with JSON only, matching the schema: {\"verdicts\": [{\"pair\" (the pair's number), \"verdict\" (\"duplicate\", \"conflict\" or \"neither\"), \"reason\" (one sentence naming what decided it)}]}, one entry for each pair.";

/// One pair the local judge could not settle: a "same subject" finding.
#[derive(Debug, Clone)]
pub struct Uncertain {
    pub memories: [Subject; 2],
    pub claims: Vec<(String, String)>,
    pub key: String,
}

/// One memory of a pair as the agent reads it: masked and bounded.
fn render_side(label: &str, s: &Subject) -> String {
    let body = crate::distill::prompt::masked_body(&s.body, BODY_BYTES);
    format!(
        "{label} ({}/{}): {}\n  {}\n",
        s.scope,
        s.name,
        mask_secrets(s.description.trim()),
        body.replace('\n', "\n  ")
    )
}

/// The section of one pair, numbered `n` (from 1).
pub fn render_pair(n: usize, pair: &Uncertain) -> String {
    let [a, b] = &pair.memories;
    let differs: Vec<String> = pair
        .claims
        .iter()
        .map(|(x, y)| format!("{} / {}", mask_secrets(x), mask_secrets(y)))
        .collect();
    let differs = if differs.is_empty() {
        String::new()
    } else {
        format!("What differs, as the words read: {}\n", differs.join("; "))
    };
    format!(
        "\n## Pair {n}\n{differs}{}{}",
        render_side("A", a),
        render_side("B", b)
    )
}

/// The whole prompt, from the rendered pair sections.
pub fn build(sections: &[String]) -> String {
    let mut out = String::from(INSTRUCTIONS);
    out.push('\n');
    for s in sections {
        out.push_str(s);
    }
    out
}

/// The answer schema for `n` pairs.
pub fn answer_schema(n: usize) -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["verdicts"],
        "properties": {
            "verdicts": {
                "type": "array",
                "maxItems": n,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["pair", "verdict", "reason"],
                    "properties": {
                        "pair": {"type": "integer"},
                        "verdict": {"type": "string", "enum": ["duplicate", "conflict", "neither"]},
                        "reason": {"type": "string"},
                    }
                }
            }
        }
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    verdicts: Vec<AnswerItem>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerItem {
    pair: i64,
    verdict: PairVerdict,
    reason: String,
}

/// The verdicts of an answer for `n` pairs, as `(index from 0, verdict, reason)`: a pair the
/// answer skips has none (it is asked again next time), a number outside the pairs or given twice
/// makes the whole answer malformed (it cannot be trusted to mean the pairs sent). The reason is
/// one line, masked, and at most `REASON_BYTES`.
pub fn check_answer(
    answer: &str,
    n: usize,
) -> Result<Vec<(usize, PairVerdict, String)>, AnswerProblem> {
    if answer.len() > MAX_ANSWER_BYTES {
        return Err(AnswerProblem::TooLarge(answer.len()));
    }
    let parsed: Answer = serde_json::from_str(answer.trim())
        .map_err(|e| AnswerProblem::Malformed(format!("{e}")))?;
    let mut out: Vec<(usize, PairVerdict, String)> = Vec::new();
    for item in parsed.verdicts {
        let Some(index) = usize::try_from(item.pair)
            .ok()
            .filter(|p| (1..=n).contains(p))
            .map(|p| p - 1)
        else {
            return Err(AnswerProblem::Malformed(format!(
                "pair {} was not sent (1 to {n} were)",
                item.pair
            )));
        };
        if out.iter().any(|(i, _, _)| *i == index) {
            return Err(AnswerProblem::Malformed(format!(
                "pair {} is judged twice",
                item.pair
            )));
        }
        out.push((index, item.verdict, one_sentence(&item.reason)));
    }
    Ok(out)
}

/// A reason as the review shows it: one line, masked, bounded.
fn one_sentence(reason: &str) -> String {
    // Control characters and escape sequences out: the reason reaches a terminal as text.
    let clean = ambry_sessions::sessions::scrub(reason);
    let flat = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = mask_secrets(&flat).into_owned();
    if flat.len() <= REASON_BYTES {
        return flat;
    }
    let cut = flat.floor_char_boundary(REASON_BYTES);
    format!("{}…", &flat[..cut])
}

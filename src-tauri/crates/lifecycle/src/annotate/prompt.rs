//! What the agent is sent about the memories that do not say when they are needed, and what it
//! must answer: the instructions, each memory by its label with its description and body, the
//! strict answer schema (per memory 2–5 phrases in the words a person would type when they need
//! it), and checking an answer against the memories that were sent.
//!
//! Owns: the bounds on each memory's text in a prompt, masking secrets before anything is sent,
//! and the rules an answer is held to (a memory never sent, one answered twice, too few, too
//! many, long, multi-line or secret-looking phrases refuse the whole answer).
//! Deliberately does not: decide which memories are sent (the run does), run anything, or write.

use crate::distill::proposal::AnswerProblem;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::distill::proposal::MAX_ANSWER_BYTES;
use ambry_store::memory::secrets::{find_secret, mask_secrets};
use ambry_store::memory::when::MAX_PHRASE_CHARS;
use ambry_store::memory::Memory;

/// Most bytes of one memory's body in a prompt (a long one is cut, with a note).
const BODY_BYTES: usize = 2_000;
/// Fewest phrases an answer gives a memory: one phrase is one way to ask, and a memory is
/// needed for more than one.
pub const MIN_PHRASES: usize = 2;
/// Most phrases an answer gives a memory: more dilutes what each says.
pub const MAX_PHRASES: usize = 5;

const INSTRUCTIONS: &str = "You help a person's long-term memories from Ambry, a memory store that coding agents read in later sessions, reach the agent when they are needed. Each memory below does not say yet in which situations it is needed.

For each memory write 2 to 5 short phrases (each at most 120 characters, one line): the words a person would type to their coding agent, or the situation they would be in, when this memory is what the agent needs to know. Write them as the person would ask (\"bumping the DB pool size\", \"why do payments return 429\", \"release the app\"), not as the memory states its fact; vary them (a task, a question, an error seen). Never copy a secret or a credential into a phrase.

Answer with JSON only, matching the schema: {\"annotations\": [{\"memory\" (the memory's label exactly as given after \"## \", for example \"user/db-pool\"), \"when\" (the phrases)}]}, one entry for each memory.";

/// One memory as the agent reads it, under its label (`scope/name`): masked and bounded.
pub fn render_memory(m: &Memory) -> String {
    let body = crate::distill::prompt::masked_body(&m.body, BODY_BYTES);
    format!(
        "\n## {}\nDescription: {}\n{}\n",
        label(m),
        mask_secrets(m.description.trim()),
        body
    )
}

/// How a memory is named in the prompt, the answer and a report: `scope/name`.
pub fn label(m: &Memory) -> String {
    format!("{}/{}", m.scope, m.name)
}

/// The whole prompt, from the rendered memory sections.
pub fn build(sections: &[String]) -> String {
    let mut out = String::from(INSTRUCTIONS);
    out.push('\n');
    for s in sections {
        out.push_str(s);
    }
    out
}

/// The answer schema for `n` memories: strict (every property required, nothing else) so
/// Codex's `--output-schema` and Claude Code's `--json-schema` accept the same text.
pub fn answer_schema(n: usize) -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["annotations"],
        "properties": {
            "annotations": {
                "type": "array",
                "maxItems": n,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["memory", "when"],
                    "properties": {
                        "memory": {
                            "type": "string",
                            "description": "The memory's label exactly as given, scope/name",
                        },
                        "when": {
                            "type": "array",
                            "minItems": MIN_PHRASES,
                            "maxItems": MAX_PHRASES,
                            "description": "2 to 5 short phrases, one line each, in the words a person would type when they need this memory (a task, a question, an error seen); not the memory's own wording",
                            "items": {"type": "string"},
                        },
                    }
                }
            }
        }
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    annotations: Vec<AnswerItem>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerItem {
    memory: String,
    when: Vec<String>,
}

/// The phrases of an answer for the memories labelled `sent`, as `(index into sent, phrases)`:
/// a memory the answer skips has none (it is sent again next time). Anything else out of bounds
/// refuses the whole answer: it cannot be trusted to mean the memories sent, and a person
/// reviews what is kept.
pub fn check_answer(
    answer: &str,
    sent: &[String],
) -> Result<Vec<(usize, Vec<String>)>, AnswerProblem> {
    if answer.len() > MAX_ANSWER_BYTES {
        return Err(AnswerProblem::TooLarge(answer.len()));
    }
    let parsed: Answer = serde_json::from_str(answer.trim())
        .map_err(|e| AnswerProblem::Malformed(format!("{e}")))?;
    let mut out: Vec<(usize, Vec<String>)> = Vec::new();
    for item in parsed.annotations {
        let label = item.memory.trim();
        let Some(index) = sent.iter().position(|s| s == label) else {
            return Err(AnswerProblem::Malformed(format!(
                "{label} was not sent (sent: {})",
                sent.join(", ")
            )));
        };
        if out.iter().any(|(i, _)| *i == index) {
            return Err(AnswerProblem::Malformed(format!(
                "{label} is answered twice"
            )));
        }
        let phrases = phrases(item.when)
            .map_err(|why| AnswerProblem::Malformed(format!("the phrases for {label}: {why}")))?;
        out.push((index, phrases));
    }
    Ok(out)
}

/// One memory's phrases, trimmed and each said once, or why they cannot be proposed.
fn phrases(given: Vec<String>) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for p in given {
        let p = p.trim().to_string();
        if !out.iter().any(|q| q.eq_ignore_ascii_case(&p)) {
            out.push(p);
        }
    }
    if out.len() < MIN_PHRASES || out.len() > MAX_PHRASES {
        return Err(format!(
            "{} different phrase(s), {MIN_PHRASES} to {MAX_PHRASES} wanted",
            out.len()
        ));
    }
    for p in &out {
        if p.is_empty() {
            return Err("a phrase is empty".into());
        }
        if p.chars().any(char::is_control) {
            return Err("a phrase spans lines or holds a control character".into());
        }
        if p.chars().count() > MAX_PHRASE_CHARS {
            return Err(format!(
                "a phrase is longer than {MAX_PHRASE_CHARS} characters"
            ));
        }
        if let Some(found) = find_secret(p) {
            return Err(format!("a phrase looks like a secret ({})", found.kind));
        }
    }
    Ok(out)
}

//! The text sent to the agent for one call: what to do, the existing memories of the view (so
//! it proposes changes, not copies) and one chunk of transcript turns, each numbered as in the
//! transcript so a proposal can point at its source turns.
//!
//! Owns: splitting a session's turns into chunks within `chunk_bytes`, the bounds on each turn
//! and on the memories shown, and the token estimate a dry run and the budget use.
//! Deliberately does not: read files, run anything, or decide which sessions are sent.

use ambry_store::memory::secrets::mask_secrets;
use ambry_store::memory::{Memory, Scope};

/// Most bytes of one turn's text in a prompt (a pasted log is cut, with a note).
const TURN_BYTES: usize = 4_000;
/// Most bytes of one memory's body shown as context.
const MEMORY_BODY_BYTES: usize = 600;
/// Most bytes of the existing-memories section.
const MEMORIES_BYTES: usize = 16_000;
/// Tokens an answer is assumed to take, for the estimate.
pub const ANSWER_TOKENS: u64 = 1_500;

/// One numbered turn: `(number in the transcript, role, text)`.
pub type NumberedTurn = (usize, String, String);

const INSTRUCTIONS: &str = "You review a past coding-agent session and propose long-term memories for Ambry, a memory store the agents read in later sessions.

Propose only what a careful person would want remembered across sessions: decisions and their reasons, conventions, how this project is built, tested and deployed, the person's stated preferences, facts that took effort to find. Never propose routine operations, what is obvious from the code, one-off task state, or anything secret (keys, tokens, passwords).

The existing memories are listed first. Do not copy them: if the session changes what one says, propose an `update` (target = its name, same name); if a new memory replaces one, a `supersede` (name = the new memory, target = the old one); if two existing memories say the same, a `duplicate` (name = the one to keep, target = the one to merge into it). Otherwise `new`.

Answer with JSON only, matching the schema: {\"proposals\": [{\"action\", \"scope\" (\"user\" for the person's preferences across projects, \"project\" for this repository), \"name\" (lowercase-hyphenated, at most 64 characters), \"type\" (user, feedback, project or reference), \"description\" (one line), \"body\" (markdown), \"target\" (null for new), \"source_turns\" (the numbers of the turns it came from), \"reason\", \"enforce\" (null, or — only when the person corrected a command the agent ran — a rule that catches that mistake at the tool call: {\"tool\": [\"Bash\"], \"match\": a regex over the command line, \"action\": \"deny\" or \"remind\"}; it stays off until the person turns it on), \"when\" (2-5 short phrases: the situations or prompts in which the memory will be needed, in the words the person would type then, not the memory's own — e.g. \"bumping the DB pool size\", \"a 429 from the payments API\")}]}. An empty list is a fine answer. At most 20 proposals.";

/// Splits `turns` into chunks whose rendered text stays within `chunk_bytes` (a single turn
/// longer than that is its own chunk, cut to `TURN_BYTES`).
pub fn chunks(turns: &[NumberedTurn], chunk_bytes: usize) -> Vec<Vec<NumberedTurn>> {
    let mut out: Vec<Vec<NumberedTurn>> = Vec::new();
    let mut current: Vec<NumberedTurn> = Vec::new();
    let mut size = 0;
    for turn in turns {
        let bytes = render_turn(turn).len();
        if !current.is_empty() && size + bytes > chunk_bytes {
            out.push(std::mem::take(&mut current));
            size = 0;
        }
        size += bytes;
        current.push(turn.clone());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn render_turn((n, role, text): &NumberedTurn) -> String {
    // A credential pasted in a session never leaves the machine through distill.
    let text = mask_secrets(text);
    let text = text.trim();
    if text.len() <= TURN_BYTES {
        return format!("[turn {n}] {role}: {text}\n\n");
    }
    let cut = text.floor_char_boundary(TURN_BYTES);
    format!(
        "[turn {n}] {role}: {}\n[… {} more bytes of this turn not shown]\n\n",
        &text[..cut],
        text.len() - cut
    )
}

fn render_memories(memories: &[Memory]) -> String {
    if memories.is_empty() {
        return "(none yet)\n".to_string();
    }
    let mut out = String::new();
    let mut left = 0;
    for (i, m) in memories.iter().enumerate() {
        let mut body = m.body.trim().to_string();
        if body.len() > MEMORY_BODY_BYTES {
            let cut = body.floor_char_boundary(MEMORY_BODY_BYTES);
            body.truncate(cut);
            body.push_str(" […]");
        }
        let entry = format!(
            "- {}/{} ({}): {}\n  {}\n",
            m.scope,
            m.name,
            m.kind,
            m.description,
            body.replace('\n', "\n  ")
        );
        if out.len() + entry.len() > MEMORIES_BYTES {
            left = memories.len() - i;
            break;
        }
        out.push_str(&entry);
    }
    if left > 0 {
        out.push_str(&format!("- … and {left} more not shown\n"));
    }
    out
}

/// The whole prompt of one call.
pub fn build(
    session_id: &str,
    title: Option<&str>,
    project: Option<&str>,
    memories: &[Memory],
    chunk: &[NumberedTurn],
    total_turns: usize,
) -> String {
    let mut out = String::new();
    out.push_str(INSTRUCTIONS);
    out.push_str("\n\n## Existing memories\n\n");
    out.push_str(&render_memories(memories));
    let first = chunk.first().map_or(0, |t| t.0);
    let last = chunk.last().map_or(0, |t| t.0);
    out.push_str(&format!(
        "\n## Session {session_id}{}{}\n\nTurns {first}–{last} of {total_turns}:\n\n",
        title.map(|t| format!(" — {t}")).unwrap_or_default(),
        project
            .map(|p| format!(" (project {p})"))
            .unwrap_or_default(),
    ));
    for turn in chunk {
        out.push_str(&render_turn(turn));
    }
    out
}

/// About 4 bytes a token for English and code: the estimate a dry run shows and the budget
/// counts (input plus an assumed answer).
pub fn estimate_tokens(prompt_bytes: usize) -> u64 {
    (prompt_bytes as u64).div_ceil(4) + ANSWER_TOKENS
}

/// Memories shown to the agent: the view's live ones, project first.
pub fn memories_for_prompt(mut memories: Vec<Memory>) -> Vec<Memory> {
    memories.retain(|m| !m.is_retired(None));
    memories.sort_by_key(|m| (m.scope != Scope::Project, m.name.clone()));
    memories
}

/// A memory's body as an agent is sent it: secrets masked, at most `limit` bytes (cut at a
/// character boundary, saying how much was left out).
pub fn masked_body(body: &str, limit: usize) -> String {
    let body = mask_secrets(body.trim()).into_owned();
    if body.len() <= limit {
        return body;
    }
    let cut = body.floor_char_boundary(limit);
    format!(
        "{} […{} more bytes not shown]",
        &body[..cut],
        body.len() - cut
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(n: usize, text: &str) -> NumberedTurn {
        (n, "user".into(), text.into())
    }

    #[test]
    fn chunks_stay_within_the_bound_and_keep_every_turn_in_order() {
        let turns: Vec<_> = (1..=10).map(|n| turn(n, &"word ".repeat(50))).collect();
        let chunks = chunks(&turns, 700);
        assert!(chunks.len() > 1);
        let flat: Vec<usize> = chunks.iter().flatten().map(|t| t.0).collect();
        assert_eq!(flat, (1..=10).collect::<Vec<_>>());
        for c in &chunks {
            let bytes: usize = c.iter().map(|t| render_turn(t).len()).sum();
            assert!(bytes <= 700 || c.len() == 1, "{bytes}");
        }
    }

    #[test]
    fn a_secret_in_a_turn_is_not_sent() {
        let rendered = render_turn(&turn(
            1,
            "the key is ghp_0123456789abcdefghijABCDEFGHIJ012345",
        ));
        assert!(!rendered.contains("ghp_"), "{rendered}");
        assert!(rendered.contains("[secret masked: "));
    }

    #[test]
    fn a_huge_turn_is_cut_with_a_note() {
        let text = "é".repeat(10_000);
        let rendered = render_turn(&turn(3, &text));
        assert!(rendered.len() < TURN_BYTES + 200);
        assert!(rendered.contains("more bytes of this turn not shown"));
    }

    #[test]
    fn the_prompt_numbers_turns_as_in_the_transcript() {
        let p = build(
            "s1",
            Some("title"),
            None,
            &[],
            &[turn(7, "we ship on fridays")],
            9,
        );
        assert!(p.contains("[turn 7] user: we ship on fridays"));
        assert!(p.contains("Turns 7–7 of 9"));
        assert!(p.contains("(none yet)"));
    }
}

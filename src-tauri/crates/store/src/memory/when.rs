//! `when:` — the situations or prompts in which a memory is needed (DESIGN §5, "What a memory is
//! for"), written by whoever saves it: `when: ["bumping the DB pool size", "a 429 from payments"]`.
//!
//! Owns: the key's name, its bounds (how many phrases a write may give and how long each may be),
//! the value a write puts in the frontmatter (a flow list, each phrase quoted when it needs it),
//! and bounding what a hand-edited file says before the ranker reads it.
//! Deliberately does not: parse the frontmatter line (`frontmatter::lifecycle` reads it like the
//! other optional keys, so it stays in the file byte for byte) or rank (see `rank::when`).

use super::scalar::quote_if_needed;

pub const WHEN_KEY: &str = "when";
/// A few phrases say when a memory is needed; more dilutes what each says and costs a vector each.
pub const MAX_PHRASES: usize = 8;
/// A phrase is a situation or a prompt, not a paragraph.
pub const MAX_PHRASE_CHARS: usize = 120;

/// Why a `when` list cannot be written, in words a caller can act on.
pub fn check(phrases: &[String]) -> Result<(), String> {
    if phrases.len() > MAX_PHRASES {
        return Err(format!(
            "at most {MAX_PHRASES} phrases (got {}): say when the memory is needed in a few short ones",
            phrases.len()
        ));
    }
    for p in phrases {
        if p.trim().is_empty() {
            return Err("a phrase is empty".into());
        }
        if p.contains(['\n', '\r']) {
            return Err(format!("`{p}` spans lines; a phrase is one line"));
        }
        if p.chars().count() > MAX_PHRASE_CHARS {
            return Err(format!(
                "`{}…` is longer than {MAX_PHRASE_CHARS} characters; a phrase is a situation, not a paragraph",
                p.chars().take(40).collect::<String>()
            ));
        }
    }
    Ok(())
}

/// The frontmatter value of `phrases`: `["a", b]`, each trimmed and quoted when it needs it.
pub fn value(phrases: &[String]) -> String {
    let items: Vec<String> = phrases.iter().map(|p| quote_if_needed(p.trim())).collect();
    format!("[{}]", items.join(", "))
}

/// What the ranker reads of a file's phrases: the first `MAX_PHRASES` non-empty ones, each cut
/// to `MAX_PHRASE_CHARS` (a hand-edited file is read, never refused, for being long).
pub fn bounded(phrases: Vec<String>) -> Vec<String> {
    phrases
        .into_iter()
        .map(|p| p.trim().chars().take(MAX_PHRASE_CHARS).collect::<String>())
        .filter(|p| !p.is_empty())
        .take(MAX_PHRASES)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::frontmatter::{lifecycle, parse, render};

    fn phrases(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_written_list_reads_back_as_the_same_phrases_and_survives_a_rewrite() {
        let when = phrases(&[
            "bumping the DB pool size",
            "a 429: from payments",
            "say \"hi\", then",
        ]);
        let text = format!(
            "---\nname: a\ntype: project\ndescription: d\nwhen: {}\n---\nbody\n",
            value(&when)
        );
        let doc = parse(&text).unwrap();
        assert_eq!(lifecycle(&doc.extra).unwrap().when, when);
        assert_eq!(render(&doc), text, "kept byte for byte");
    }

    #[test]
    fn hand_written_block_lists_are_read_and_bounded() {
        let text =
            "---\nname: a\ntype: user\ndescription: d\nwhen:\n  - first\n  - '  second  '\n---\n";
        let doc = parse(text).unwrap();
        assert_eq!(lifecycle(&doc.extra).unwrap().when, ["first", "second"]);
        assert_eq!(render(&doc), text);
        let many: Vec<String> = (0..20).map(|i| format!("{}{i}", "x".repeat(200))).collect();
        let read = bounded(many);
        assert_eq!(read.len(), MAX_PHRASES);
        assert!(read.iter().all(|p| p.chars().count() == MAX_PHRASE_CHARS));
        let absent = parse("---\nname: a\ntype: user\ndescription: d\n---\n").unwrap();
        assert!(lifecycle(&absent.extra).unwrap().when.is_empty());
    }

    #[test]
    fn a_write_is_refused_too_many_empty_multiline_or_long_phrases() {
        assert!(check(&phrases(&["one", "two"])).is_ok());
        assert!(check(&[]).is_ok());
        let nine: Vec<String> = (0..9).map(|i| format!("p{i}")).collect();
        assert!(check(&nine).unwrap_err().contains("at most 8"));
        assert!(check(&phrases(&[" "])).unwrap_err().contains("empty"));
        assert!(check(&phrases(&["a\nb"])).unwrap_err().contains("one line"));
        assert!(check(&["y".repeat(121)]).unwrap_err().contains("120"));
    }
}

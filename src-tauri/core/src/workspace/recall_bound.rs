//! The bound on what recall searches for: a question, not a document.
//!
//! Owns: the limits on a recall query (bytes and distinct words) and cutting a longer one to
//! its first distinct words, with the note that says so. Every search step costs in proportion
//! to the words asked for (the full-text query, the per-word check of each candidate, the
//! snippets, the model's tokenizer), so an unbounded query made recall's cost grow with the
//! square of its length; a 10 MB one never answered.
//! Deliberately does not: search, or change a query within the bounds (its syntax is kept).

use std::collections::HashSet;

/// A question longer than this is pasted text, not a question.
pub const MAX_QUERY_BYTES: usize = 2048;
/// Distinct words a query keeps: more adds cost and no precision (bm25 over dozens of words
/// matches nearly every message).
pub const MAX_QUERY_TERMS: usize = 32;
/// Longer runs of letters are no word a person searches for (a hash, a blob).
const MAX_TERM_CHARS: usize = 64;

/// `text` as recall searches for it, and a note when it was cut.
pub fn bounded_recall_text(text: &str) -> (String, Option<String>) {
    let words = || {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
    };
    let mut seen = HashSet::new();
    let mut kept: Vec<String> = Vec::new();
    let mut distinct = 0usize;
    for word in words() {
        let word: String = word
            .chars()
            .take(MAX_TERM_CHARS)
            .collect::<String>()
            .to_lowercase();
        if seen.insert(word.clone()) {
            distinct += 1;
            if kept.len() < MAX_QUERY_TERMS {
                kept.push(word);
            }
        }
    }
    if text.len() <= MAX_QUERY_BYTES && distinct <= MAX_QUERY_TERMS {
        return (text.to_string(), None);
    }
    let note = format!(
        "the query was cut to its first {} distinct word(s) (it had {} bytes and {distinct} distinct words; recall searches at most {MAX_QUERY_TERMS} words of {MAX_QUERY_BYTES} bytes)",
        kept.len(),
        text.len()
    );
    (kept.join(" "), Some(note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_is_kept_as_written_and_a_document_is_cut_to_its_first_words() {
        let question = "why did we drop \"the redis cache\" OR memcached*";
        assert_eq!(bounded_recall_text(question), (question.to_string(), None));

        let long: String = (0..50_000).map(|i| format!("word{i} ")).collect();
        let (text, note) = bounded_recall_text(&long);
        assert_eq!(text.split(' ').count(), MAX_QUERY_TERMS);
        assert!(text.starts_with("word0 word1 word2"), "{text}");
        assert!(note.unwrap().contains("50000 distinct words"));

        // Few words but many bytes: one endless word, or one word repeated.
        let (text, note) = bounded_recall_text(&"x".repeat(10 << 20));
        assert_eq!(text.len(), MAX_TERM_CHARS);
        assert!(note.is_some());
        let (text, _) = bounded_recall_text(&"redis ".repeat(100_000));
        assert_eq!(text, "redis");
    }
}

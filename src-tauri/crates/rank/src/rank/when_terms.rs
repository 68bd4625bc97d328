//! The index terms of a memory's `when` phrases (DESIGN §5): each word under a prefix of its
//! own, so the field has its own postings and document frequencies in the corpus.
//!
//! Owns: the prefix and turning phrases into the field's terms.
//! Deliberately does not: score the field or join it to the ranking (`when` does), or read the
//! frontmatter (`memory::when` does). The corpus builds its postings with this file alone, so
//! the corpus and the scoring of the field do not import each other.

use std::collections::HashMap;

use super::tokenize::terms;

/// Marks a term as a word of a `when` phrase. Terms are alphanumeric, so no word of a headline,
/// a body or a query ever starts with it.
pub const PREFIX: &str = "when:";

/// The `when` field's term for a query or phrase term.
pub fn term(word: &str) -> String {
    format!("{PREFIX}{word}")
}

/// Adds the words of `phrases` to a document's weighted terms, each occurrence counting 1.
pub fn add_terms(phrases: &[String], weights: &mut HashMap<String, f32>) {
    for phrase in phrases {
        for t in terms(phrase) {
            *weights.entry(term(&t)).or_default() += 1.0;
        }
    }
}

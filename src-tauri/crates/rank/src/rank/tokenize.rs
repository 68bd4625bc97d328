//! Text to index terms: the one tokenizer shared by documents and queries.
//!
//! Owns: lowercasing, splitting on non-alphanumerics (so `pkg/auth/refresh.go` yields its
//! parts) and at camelCase humps, stop-word removal, and Porter2 stemming (rust-stemmers).
//! Deliberately does not: weigh fields or expand synonyms.

use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

/// English function words plus filler common in prompts to an agent.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
    "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each", "few", "for",
    "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his",
    "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "lets", "me",
    "might", "more", "most", "must", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
    "once", "only", "or", "other", "our", "ours", "out", "over", "own", "please", "same", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
    "us", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
    "why", "will", "with", "would", "you", "your", "yours", "yourself", "s", "t", "d", "ll", "m",
    "re", "ve", "don", "doesn", "didn", "isn", "wasn", "won", "wouldn", "shouldn", "couldn",
    "can't", "want", "need", "get", "got", "make", "sure", "thing", "things", "way", "use",
    "using", "used",
];

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Whether a lowercase word carries no meaning for retrieval; the one list memory ranking and
/// session recall share.
pub fn is_stop_word(word: &str) -> bool {
    static SET: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
        .contains(word)
}

/// Stems one lowercase word.
pub fn stem(word: &str) -> String {
    stemmer().stem(word).into_owned()
}

/// Splits raw text into lowercase words: non-alphanumerics separate, camelCase humps and
/// letter/digit boundaries inside identifiers also separate (`parseJWTToken2` → parse, jwt,
/// token, 2); the whole identifier is kept as well so exact identifiers still match.
pub fn words(text: &str, mut emit: impl FnMut(&str)) {
    for raw in text.split(|c: char| !c.is_alphanumeric()) {
        if raw.is_empty() {
            continue;
        }
        let lower = raw.to_lowercase();
        let parts = identifier_parts(raw);
        if parts.len() > 1 {
            for part in &parts {
                emit(&part.to_lowercase());
            }
        }
        emit(&lower);
    }
}

fn identifier_parts(raw: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = raw.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (pos, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_is_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary = (prev.is_lowercase() && c.is_uppercase())
            || (prev.is_uppercase() && c.is_uppercase() && next_is_lower)
            || (prev.is_alphabetic() && c.is_ascii_digit())
            || (prev.is_ascii_digit() && c.is_alphabetic());
        if boundary {
            parts.push(&raw[start..pos]);
            start = pos;
        }
    }
    parts.push(&raw[start..]);
    parts
}

/// Index terms of `text`: words minus stop words, stemmed. Order is preserved; duplicates kept.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    words(text, |w| {
        if !is_stop_word(w) && w.chars().count() <= 40 {
            out.push(stem(w));
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_parts() {
        assert_eq!(
            terms("pkg/auth/refresh.go"),
            vec!["pkg", "auth", "refresh", "go"]
        );
    }

    #[test]
    fn identifiers_yield_parts_and_the_whole() {
        let t = terms("parseJWTToken refresh_token");
        for expected in ["pars", "jwt", "token", "parsejwttoken", "refresh"] {
            assert!(
                t.contains(&expected.to_string()),
                "{expected} missing from {t:?}"
            );
        }
    }

    #[test]
    fn stop_words_drop_and_morphology_folds() {
        assert_eq!(
            terms("How do we deploy the services?"),
            vec!["deploy", "servic"]
        );
        assert_eq!(
            terms("deploying deployed deployment")[0..2],
            ["deploy".to_string(), "deploy".to_string()]
        );
        assert_eq!(terms("migrations"), terms("migration"));
    }

    #[test]
    fn unicode_is_lowercased_not_dropped() {
        assert_eq!(terms("Größe"), vec![stem("größe")]);
    }
}

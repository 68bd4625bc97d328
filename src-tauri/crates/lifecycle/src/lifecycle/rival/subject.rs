//! What a memory is about: its environment (production, staging, development), component (the
//! API, the worker, the CLI), language, task (testing, linting, building…), and the qualifiers
//! of its subject nouns ("the *orders* service", "*feature* branches", "*unit* tests", the
//! *connect* timeout").
//!
//! Owns: reading those from a memory's words, and the rule that two memories are about
//! different subjects when both name one kind of subject and share none of it (two services'
//! ports in one sentence shape are two facts, not a disagreement).
//! Deliberately does not: compare claims (`claims` does) or weigh similarity (`pairs` does).

use std::collections::{BTreeMap, BTreeSet};

use ambry_rank::rank::tokenize::{is_stop_word, stem};

use super::lexicon::{lexicon, Found, Word};

/// The kinds of subject word the lexicon names (categories that are not alternatives).
const SUBJECT_CATEGORIES: &[&str] = &["environment", "component", "language", "task"];

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Subject {
    /// Kind of subject (a lexicon category, or `head:<noun>` for a qualified noun) → the words
    /// naming it.
    pub named: BTreeMap<String, BTreeSet<String>>,
    /// A qualifier's stem → the word as written, to show as evidence.
    written: BTreeMap<String, String>,
}

impl Subject {
    /// The subject of `words`, whose first `described` words are the memory's description.
    pub fn of(words: &[Word], found: &[Found], described: usize) -> Subject {
        let lex = lexicon();
        let mut named: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut written = BTreeMap::new();
        // Words that are a tool or a language: they say how, not which one.
        let mut tool_at = vec![false; words.len()];
        // A memory that tells of a move ("we migrated the API from Heroku", "bundler
        // migration") uses "migration" for the move, not for database migrations.
        let tells_of_a_move = words.iter().any(|w| lex.moved.contains(&w.text));
        for f in found {
            let category = &lex.categories[f.category].name;
            if category == "task" && f.member == "migrate" && tells_of_a_move {
                continue;
            }
            if SUBJECT_CATEGORIES.contains(&category.as_str()) {
                named
                    .entry(category.clone())
                    .or_default()
                    .insert(f.member.clone());
            }
            if lex.rivals(f.category) || category == "language" {
                for flag in &mut tool_at[f.at..f.at + f.len] {
                    *flag = true;
                }
            }
        }
        // A subject noun's qualifiers are read in the first line only (a memory's description,
        // which names its subject); further on, the word before a noun is as often a verb
        // ("Name branches …") or a passing detail.
        for (i, w) in words.iter().enumerate().take(described) {
            let Some(head) = lex.heads.get(&w.text) else {
                continue;
            };
            let mut qualifiers = BTreeSet::new();
            let mut k = i;
            while k > 0 && qualifiers.len() < 2 {
                k -= 1;
                let q = &words[k];
                if q.ends_clause {
                    break;
                }
                if tool_at[k] {
                    continue;
                }
                let t = q.text.as_str();
                if is_stop_word(t)
                    || lex.subject_generic.iter().any(|g| g == t)
                    || !t.chars().all(|c| c.is_alphabetic() || c == '_')
                    || lex.heads.get(t).is_some_and(|h| h == head)
                {
                    break;
                }
                written.insert(stem(t), t.to_string());
                qualifiers.insert(stem(t));
            }
            if !qualifiers.is_empty() {
                named
                    .entry(format!("head:{head}"))
                    .or_default()
                    .extend(qualifiers);
            }
        }
        Subject { named, written }
    }

    /// Two words that show `self` and `other` are about different subjects: a kind of subject
    /// both name, with nothing in common.
    pub fn apart_from(&self, other: &Subject) -> Option<(String, String)> {
        self.named.iter().find_map(|(kind, mine)| {
            let theirs = other.named.get(kind)?;
            mine.is_disjoint(theirs).then(|| {
                (
                    mine.iter().cloned().collect::<Vec<_>>().join(" "),
                    theirs.iter().cloned().collect::<Vec<_>>().join(" "),
                )
            })
        })
    }

    /// What both name: the subject two memories share, as evidence.
    pub fn shared_with(&self, other: &Subject) -> Vec<String> {
        let mut out = Vec::new();
        for (kind, mine) in &self.named {
            if let Some(theirs) = other.named.get(kind) {
                for w in mine.intersection(theirs) {
                    match kind.strip_prefix("head:") {
                        Some(head) => {
                            let shown = self.written.get(w).unwrap_or(w);
                            out.push(format!("{shown} {head}"))
                        }
                        None => out.push(w.clone()),
                    }
                }
            }
        }
        out
    }
}

/// Words anywhere in `words` that name a subject: the word right before a subject noun ("the
/// *orders* service", "*staging* database"), environments and components.
pub fn naming_words(words: &[Word], found: &[Found]) -> Vec<String> {
    let lex = lexicon();
    let mut out: Vec<String> = found
        .iter()
        .filter(|f| {
            matches!(
                lex.categories[f.category].name.as_str(),
                "environment" | "component"
            )
        })
        .flat_map(|f| words[f.at..f.at + f.len].iter().map(|w| w.text.clone()))
        .collect();
    for (i, w) in words.iter().enumerate().skip(1) {
        if lex.heads.contains_key(&w.text) && !words[i - 1].ends_clause {
            out.push(words[i - 1].text.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::lexicon::split;
    use super::*;

    /// The subject of a memory whose description is the first line of `text`.
    fn subject(text: &str) -> Subject {
        let words = split(text);
        let described = split(text.lines().next().unwrap_or_default()).len();
        Subject::of(&words, &lexicon().find(&words), described)
    }

    #[test]
    fn two_services_two_environments_or_two_kinds_of_branch_are_apart() {
        let apart = |a: &str, b: &str| subject(a).apart_from(&subject(b)).is_some();
        assert!(apart(
            "The orders service listens on port 8081.",
            "The inventory service listens on port 8082."
        ));
        assert!(apart(
            "Staging is deployed to us-west-2.",
            "Production is deployed to us-east-1."
        ));
        assert!(apart(
            "Feature branches are named `feat/<id>`.",
            "Release branches are named `release/<v>`."
        ));
        assert!(apart(
            "The shopper Android app sets minSdk",
            "The courier Android app sets minSdk"
        ));
        assert!(apart(
            "Run the Go unit tests",
            "Run the Go integration tests"
        ));
        assert!(apart(
            "Run the test suite with `make test`.",
            "Run the linters with `make lint`."
        ));
    }

    #[test]
    fn one_subject_said_two_ways_is_not_apart() {
        let apart = |a: &str, b: &str| subject(a).apart_from(&subject(b)).is_some();
        assert!(!apart(
            "The auth service is owned by the Identity team.",
            "The Platform team owns the auth service."
        ));
        assert!(!apart(
            "The API Deployment runs five replicas in production.",
            "In prod we run 5 replicas of the api Deployment."
        ));
        assert!(!apart(
            "Do not force-push to any branch, including your own feature branches.",
            "Force-pushing to your own feature branches is fine."
        ));
        // One side naming no environment says nothing about the other's.
        assert!(!apart(
            "Deploy with `fly deploy`.",
            "Deploying to production is `fly deploy`."
        ));
        assert_eq!(
            subject("The orders service").shared_with(&subject("orders service migrations")),
            ["orders service"]
        );
    }
}

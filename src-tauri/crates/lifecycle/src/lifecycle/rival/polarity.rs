//! Which way a memory says each of its words: as what is done ("use anyhow", "Cargo.lock is
//! committed") or as what is not ("must not depend on anyhow", "Don't commit the Cargo.lock",
//! "Redux is no longer used", "moved from Vault to …", "replaced HTTPoison with Req").
//!
//! Owns: the scope of a negation (the rest of its clause after "not", "never", "avoid",
//! "instead of"…; the whole clause for "no longer", "removed", "shut down"…; what stands
//! between "from"/"off" and "to" after a move; what stands between "replaced" and "with"), and
//! the words' polarity per side.
//! Deliberately does not: decide that a flip is a conflict (`claims` does, for the words both
//! sides share and only when the subject is shared) or know tools.

use std::collections::BTreeMap;

use ambry_rank::rank::tokenize::{is_stop_word, stem};

use super::lexicon::{lexicon, Word};

/// How a side says one word: done, not done, or both (in different clauses).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Said {
    pub done: bool,
    pub not_done: bool,
    /// What a negation is about: the first word after "not", "never", "avoid"… and a tool
    /// right after it ("never *commit*", "must not *depend* on *anyhow*"), every word of a
    /// clause turned whole ("*Redux* is no longer used"), what a move left. A verb's object
    /// ("avoid wasting a *CI* cycle") or a word later in the clause ("don't put emojis in …
    /// commit *messages*") is not.
    pub refused: bool,
}

/// For each of `words`, whether its clause says it is not so.
#[cfg(test)]
pub fn negated(words: &[Word]) -> Vec<bool> {
    scopes(words)
        .into_iter()
        .map(|s| s != Scope::Done)
        .collect()
}

/// How a word stands to the negations of its clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Done,
    /// Later in a negated clause.
    Within,
    /// What the negation is about.
    Refused,
}

/// How many words after a negation it is about (stop words and common verbs not counted).
const TARGET_WORDS: usize = 2;

fn scopes(words: &[Word]) -> Vec<Scope> {
    let mut out = Vec::with_capacity(words.len());
    let mut start = 0;
    for end in 0..words.len() {
        let last = end + 1 == words.len();
        let boundary = words[end].ends_clause
            || words.get(end + 1).is_some_and(|w| {
                matches!(w.text.as_str(), "and" | "but" | "so" | "while" | "whereas")
            });
        if boundary || last {
            out.extend(negated_in(&words[start..=end]));
            start = end + 1;
        }
    }
    out
}

/// Each stemmed word of `words` and which way it is said; stop words and words too common to
/// carry a rule ("use", "run", "code") are left out.
#[cfg(test)]
pub fn polarity(words: &[Word]) -> BTreeMap<String, Said> {
    read(words, 0).1
}

/// For each of `words` whether its clause says it is not so, and each stemmed word and which
/// way it is said (read once: a memory is read once per review). The first `label` words are
/// a title ("Force push policy"): what it refuses counts, a word it merely names does not say
/// that it is done.
pub fn read(words: &[Word], label: usize) -> (Vec<bool>, BTreeMap<String, Said>) {
    let lex = lexicon();
    let scopes = scopes(words);
    let mut out: BTreeMap<String, Said> = BTreeMap::new();
    for (k, (w, scope)) in words.iter().zip(scopes.iter().copied()).enumerate() {
        let t = w.text.as_str();
        if is_stop_word(t) || t.len() < 2 || is_marker(t) || (k < label && scope == Scope::Done) {
            continue;
        }
        let stemmed = stem(t);
        if lex.polarity_generic.contains(&stemmed) {
            continue;
        }
        let said = out.entry(stemmed).or_default();
        match scope {
            Scope::Done => said.done = true,
            Scope::Within => said.not_done = true,
            Scope::Refused => {
                said.not_done = true;
                said.refused = true;
            }
        }
    }
    (scopes.into_iter().map(|s| s != Scope::Done).collect(), out)
}

/// Whether a word is part of a negation rather than a claim ("not", "avoid", "moved").
fn is_marker(t: &str) -> bool {
    lexicon().markers.contains(t)
}

/// Whether `phrase` starts at `clause[i]`.
fn at(clause: &[Word], i: usize, phrase: &[String]) -> bool {
    !phrase.is_empty()
        && clause.len() >= i + phrase.len()
        && phrase.iter().zip(&clause[i..]).all(|(p, w)| *p == w.text)
}

/// For each word of one clause, how it stands to the clause's negations.
fn negated_in(clause: &[Word]) -> Vec<Scope> {
    let lex = lexicon();
    let n = clause.len();
    let mut not = vec![Scope::Done; n];
    // "Redux is no longer used", "per package is no longer …": the tools of the clause and the
    // words right after the marker are what was left; the rest is what the clause is about.
    if let Some(i) = (0..n).find(|i| lex.negate_clause.iter().any(|p| at(clause, *i, p))) {
        let mut scope = vec![Scope::Within; n];
        for f in lex.find(clause) {
            for flag in &mut scope[f.at..f.at + f.len] {
                *flag = Scope::Refused;
            }
        }
        let mut targets = 0;
        for k in i..n {
            let t = clause[k].text.as_str();
            if targets < TARGET_WORDS
                && !is_stop_word(t)
                && !is_marker(t)
                && !lex.polarity_generic.contains(&stem(t))
            {
                targets += 1;
                scope[k] = Scope::Refused;
            }
        }
        return scope;
    }
    // A move: what stands between "from" (or "off") and "to" was left.
    if let Some(m) = (0..n).find(|i| lex.moved.iter().any(|w| *w == clause[*i].text)) {
        if let Some(from) = (m..n).find(|i| matches!(clause[*i].text.as_str(), "from" | "off")) {
            let to = (from..n).find(|i| clause[*i].text == "to").unwrap_or(n);
            for flag in &mut not[from + 1..to] {
                *flag = Scope::Refused;
            }
        }
        return not;
    }
    // "replaced X with Y": X was left; "X was replaced by Y": X was left.
    if let Some(r) = (0..n).find(|i| lex.replaced.iter().any(|w| *w == clause[*i].text)) {
        if clause.get(r + 1).is_some_and(|w| w.text == "by") {
            for flag in &mut not[..r] {
                *flag = Scope::Refused;
            }
        } else {
            let with = (r..n).find(|i| clause[*i].text == "with").unwrap_or(n);
            for flag in &mut not[r + 1..with] {
                *flag = Scope::Refused;
            }
        }
        return not;
    }
    // "Prefer X over Y": what follows "over" is not chosen.
    let preferring = (0..n).find(|i| lex.preferred.iter().any(|w| *w == clause[*i].text));
    let over = preferring.and_then(|p| (p..n).find(|i| clause[*i].text == "over"));
    let negation = (0..n).find(|i| lex.negate_after.iter().any(|p| at(clause, *i, p)));
    // "Pest is not installed", "MockK isn't a dependency": the tool the clause names before
    // its copula is what the negation is about.
    if let Some(i) = negation.filter(|i| {
        over.is_none()
            && (matches!(clause[*i].text.as_str(), "isnt" | "arent" | "wasnt")
                || i.checked_sub(1).is_some_and(|k| {
                    matches!(clause[k].text.as_str(), "is" | "are" | "was" | "were")
                }))
    }) {
        for f in lex.find(&clause[..i]) {
            for flag in &mut not[f.at..f.at + f.len] {
                *flag = Scope::Refused;
            }
        }
    }
    if let Some(i) = over.or(negation) {
        // Past the first word a negation is about, only a tool still is ("must not depend on
        // *anyhow*"); another word is the verb's object ("avoid wasting a *CI* cycle"), said
        // neither way.
        let tool_at: Vec<bool> = {
            let mut at = vec![false; n];
            for f in lex.find(clause).iter().filter(|f| lex.rivals(f.category)) {
                at[f.at..f.at + f.len].iter_mut().for_each(|x| *x = true);
            }
            at
        };
        let mut targets = 0;
        for k in i..n {
            let t = clause[k].text.as_str();
            let counts =
                !is_stop_word(t) && !is_marker(t) && !lex.polarity_generic.contains(&stem(t));
            if counts && targets < TARGET_WORDS && (targets == 0 || tool_at[k]) {
                targets += 1;
                not[k] = Scope::Refused;
            } else {
                if counts {
                    targets += 1;
                }
                not[k] = Scope::Within;
            }
        }
    }
    not
}

#[cfg(test)]
mod tests {
    use super::super::lexicon::split;
    use super::*;

    fn said(text: &str, word: &str) -> Said {
        polarity(&split(text))
            .get(&stem(word))
            .copied()
            .unwrap_or_default()
    }

    const DONE: Said = Said {
        done: true,
        not_done: false,
        refused: false,
    };
    const NOT: Said = Said {
        done: false,
        not_done: true,
        refused: true,
    };

    #[test]
    fn a_negation_turns_the_rest_of_its_clause() {
        assert_eq!(
            said("Use anyhow for errors in the library crates.", "anyhow"),
            DONE
        );
        assert_eq!(
            said(
                "Library crates must not depend on anyhow; they define typed errors",
                "anyhow"
            ),
            NOT
        );
        assert_eq!(
            said(
                "Library crates must not depend on anyhow; they define typed errors",
                "typed"
            ),
            DONE
        );
        assert_eq!(said("Don't commit the CLI's Cargo.lock", "commit"), NOT);
        assert_eq!(
            said("Omit semicolons in TypeScript code", "semicolons"),
            NOT
        );
        assert_eq!(said("Never squash when merging", "squash"), NOT);
    }

    #[test]
    fn a_tool_said_not_to_be_there_is_refused() {
        assert_eq!(said("Pest is not installed.", "pest"), NOT);
        assert_eq!(
            said("MockK isn't a dependency of the service.", "mockk"),
            NOT
        );
        assert_eq!(said("Pest runs the tests; it is fast.", "pest"), DONE);
    }

    #[test]
    fn what_is_preferred_over_is_refused() {
        let text = "Prefer composition over inheritance in the domain layer.";
        assert_eq!(said(text, "inheritance"), NOT);
        assert_eq!(said(text, "composition"), DONE);
    }

    #[test]
    fn a_word_later_in_a_negated_clause_is_not_what_the_negation_is_about() {
        let text = "Don't put emojis in code comments or commit messages.";
        assert!(said(text, "put").refused);
        // The verb's object is not: "avoid wasting a CI cycle" says nothing against CI.
        let object = said(text, "emojis");
        assert!(object.not_done && !object.refused);
        assert!(!said("Avoid wasting a CI cycle.", "ci").refused);
        assert!(
            said("Must not depend on anyhow.", "anyhow").refused,
            "a tool is"
        );
        let later = said(text, "messages");
        assert!(later.not_done && !later.refused);
    }

    #[test]
    fn what_was_moved_from_or_replaced_was_left() {
        let moved = "The dashboard moved off Redux to Zustand.";
        assert_eq!((said(moved, "redux"), said(moved, "zustand")), (NOT, DONE));
        let from = "Secrets moved from Vault to AWS Secrets Manager last quarter";
        assert_eq!((said(from, "vault"), said(from, "manager")), (NOT, DONE));
        let replaced = "We replaced HTTPoison with Req for all outbound HTTP";
        assert_eq!(
            (said(replaced, "httpoison"), said(replaced, "req")),
            (NOT, DONE)
        );
        assert_eq!(
            said(
                "Jenkins is no longer used; builds moved to GitLab CI.",
                "jenkins"
            ),
            NOT
        );
    }

    #[test]
    fn a_word_said_both_ways_is_both() {
        let both = "Build with the Gradle wrapper, not a system-wide gradle install.";
        assert_eq!(
            said(both, "gradle"),
            Said {
                done: true,
                not_done: true,
                refused: false
            }
        );
    }
}

//! The vocabulary claims are read with, loaded once from `lexicon.toml` (kept as data beside
//! this file, so a category grows without touching code), and the one word splitter every
//! part of the claim reader shares.
//!
//! Owns: parsing the lexicon, finding its members in a text (multi-word members, spellings,
//! members written with a capital only where the lowercase word means something else), and
//! splitting a text into lowercase words and clauses.
//! Deliberately does not: decide what a match means (a rival, a subject): `claims` does.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

#[derive(Deserialize)]
struct File {
    categories: std::collections::BTreeMap<String, CategoryFile>,
    subject: SubjectFile,
    polarity: PolarityFile,
}

#[derive(Deserialize)]
struct CategoryFile {
    rivals: bool,
    members: Vec<String>,
}

#[derive(Deserialize)]
struct SubjectFile {
    heads: Vec<String>,
    generic: Vec<String>,
}

#[derive(Deserialize)]
struct PolarityFile {
    before: Vec<String>,
    clause: Vec<String>,
    moved: Vec<String>,
    preferred: Vec<String>,
    replaced: Vec<String>,
    generic: Vec<String>,
}

/// One group of alternatives, or one kind of subject word.
#[derive(Debug)]
pub struct Category {
    pub name: String,
    /// Members are alternatives a project picks one of.
    pub rivals: bool,
}

/// One way of writing a member: its words, and whether case matters (`Go` the language, not
/// "go" the verb).
#[derive(Debug)]
struct Spelling {
    words: Vec<String>,
    /// The words as the lexicon writes them, compared when case matters.
    originals: Vec<String>,
    exact_case: bool,
    category: usize,
    member: String,
}

/// A member found in a text: its category, its name, and where its first word is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub category: usize,
    pub member: String,
    pub at: usize,
    pub len: usize,
}

#[derive(Debug)]
pub struct Lexicon {
    pub categories: Vec<Category>,
    spellings: Vec<Spelling>,
    /// Spellings by their first word, lowercase.
    by_first: HashMap<String, Vec<usize>>,
    /// Head noun spelling → the head's name.
    pub heads: HashMap<String, String>,
    pub subject_generic: Vec<String>,
    pub negate_after: Vec<Vec<String>>,
    pub negate_clause: Vec<Vec<String>>,
    pub moved: Vec<String>,
    pub preferred: Vec<String>,
    pub replaced: Vec<String>,
    pub polarity_generic: std::collections::HashSet<String>,
    /// Every word of a negation, a move or a replacement.
    pub markers: std::collections::HashSet<String>,
}

/// The lexicon shipped with Ambry.
pub fn lexicon() -> &'static Lexicon {
    static LEXICON: OnceLock<Lexicon> = OnceLock::new();
    LEXICON.get_or_init(|| Lexicon::parse(include_str!("lexicon.toml")))
}

impl Lexicon {
    fn parse(text: &str) -> Lexicon {
        let file: File = toml::from_str(text).expect("the shipped lexicon parses");
        let mut categories = Vec::new();
        let mut spellings = Vec::new();
        for (name, c) in file.categories {
            let category = categories.len();
            categories.push(Category {
                name,
                rivals: c.rivals,
            });
            for member in &c.members {
                let canonical = member.split('|').next().unwrap_or_default().to_lowercase();
                for spelling in member.split('|') {
                    let words = split(spelling);
                    spellings.push(Spelling {
                        originals: words.iter().map(|w| w.original.clone()).collect(),
                        words: words.into_iter().map(|w| w.text).collect(),
                        exact_case: spelling.chars().any(char::is_uppercase),
                        category,
                        member: canonical.clone(),
                    });
                }
            }
        }
        let mut by_first: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, s) in spellings.iter().enumerate() {
            if let Some(first) = s.words.first() {
                by_first.entry(first.to_lowercase()).or_default().push(i);
            }
        }
        // Longest spelling first, so "github actions" wins over "github".
        for list in by_first.values_mut() {
            list.sort_by_key(|i| std::cmp::Reverse(spellings[*i].words.len()));
        }
        let mut heads = HashMap::new();
        for head in &file.subject.heads {
            let name = head.split('|').next().unwrap_or_default().to_string();
            for spelling in head.split('|') {
                heads.insert(spelling.to_string(), name.clone());
            }
        }
        let phrases = |v: &[String]| -> Vec<Vec<String>> {
            v.iter()
                .map(|p| split(p).into_iter().map(|w| w.text).collect())
                .collect()
        };
        let markers = file
            .polarity
            .before
            .iter()
            .chain(&file.polarity.clause)
            .flat_map(|p| split(p).into_iter().map(|w| w.text))
            .chain(file.polarity.moved.iter().cloned())
            .chain(file.polarity.replaced.iter().cloned())
            .collect();
        Lexicon {
            markers,
            categories,
            spellings,
            by_first,
            heads,
            subject_generic: file.subject.generic,
            negate_after: phrases(&file.polarity.before),
            negate_clause: phrases(&file.polarity.clause),
            moved: file.polarity.moved,
            preferred: file.polarity.preferred,
            replaced: file.polarity.replaced,
            // Compared by stem: "running" is as common as "run".
            polarity_generic: file
                .polarity
                .generic
                .iter()
                .map(|g| ambry_rank::rank::tokenize::stem(g))
                .collect(),
        }
    }

    /// Every member named in `words`, left to right, none overlapping.
    pub fn find(&self, words: &[Word]) -> Vec<Found> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let hit = self.by_first.get(&words[i].text).and_then(|list| {
                list.iter().map(|s| &self.spellings[*s]).find(|s| {
                    s.words.len() <= words.len() - i
                        && s.words.iter().zip(&s.originals).zip(&words[i..]).all(
                            |((w, original), got)| {
                                *w == got.text && (!s.exact_case || *original == got.original)
                            },
                        )
                })
            });
            match hit {
                Some(s) => {
                    out.push(Found {
                        category: s.category,
                        member: s.member.clone(),
                        at: i,
                        len: s.words.len(),
                    });
                    i += s.words.len();
                }
                None => i += 1,
            }
        }
        out
    }

    pub fn rivals(&self, category: usize) -> bool {
        self.categories[category].rivals
    }
}

/// One word of a text: lowercase, and as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub original: String,
    /// Whether a clause ends after this word (`;`, `.`, `,`, `:` or a closing bracket).
    pub ends_clause: bool,
}

/// Splits text into words: apostrophes dropped (`don't` → `dont`, a possessive `'s` dropped
/// whole), every other character but letters, digits and `.`, `_`, `#`, `+` inside a word
/// separates; a trailing `.` ends a clause as a full stop does. `X-free` reads as "without X".
pub fn split(text: &str) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    for raw in text.split_whitespace() {
        let cleaned;
        let raw = if raw.contains(['\'', '’']) {
            cleaned = raw
                .replace("'s", "")
                .replace("’s", "")
                .replace(['\'', '’'], "");
            cleaned.as_str()
        } else {
            raw
        };
        let clause_end = raw.ends_with([';', '.', ',', ':', ')', '!', '?']);
        let mut parts: Vec<&str> = raw
            .split(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '#' | '+')))
            .map(|p| p.trim_matches('.'))
            .filter(|p| !p.is_empty())
            .collect();
        // "emoji-free": without emoji.
        if parts.len() >= 2 && parts.last().is_some_and(|p| p.eq_ignore_ascii_case("free")) {
            parts.pop();
            parts.insert(0, "without");
        }
        // "80%": the sign is a word, as "80 percent" says it.
        if raw.contains('%') && !parts.is_empty() {
            parts.push("percent");
        }
        let n = parts.len();
        for (k, p) in parts.into_iter().enumerate() {
            out.push(Word {
                text: p.to_lowercase(),
                original: p.to_string(),
                ends_clause: clause_end && k + 1 == n,
            });
        }
        if clause_end && n == 0 {
            if let Some(last) = out.last_mut() {
                last.ends_clause = true;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        let lex = lexicon();
        lex.find(&split(text))
            .into_iter()
            .map(|f| format!("{}:{}", lex.categories[f.category].name, f.member))
            .collect()
    }

    #[test]
    fn members_are_found_by_any_spelling_and_the_longest_first() {
        assert_eq!(
            names("CI runs on GitHub Actions, not Jenkins"),
            ["ci_system:github actions", "ci_system:jenkins"]
        );
        assert_eq!(names("pins Node.js 22"), ["js_runtime:node"]);
        assert_eq!(
            names("run `./gradlew build`"),
            ["jvm_build_tool:gradle", "task:build"]
        );
    }

    #[test]
    fn a_member_written_with_a_capital_is_matched_only_so() {
        assert!(names("Go files are indented with tabs").contains(&"language:go".to_string()));
        assert!(!names("errors go to the tracker").contains(&"language:go".to_string()));
    }

    #[test]
    fn words_drop_apostrophes_and_mark_clause_ends() {
        let w = split("Don't commit the CLI's Cargo.lock; it is ignored.");
        let texts: Vec<&str> = w.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "dont",
                "commit",
                "the",
                "cli",
                "cargo.lock",
                "it",
                "is",
                "ignored"
            ]
        );
        assert!(w[4].ends_clause && w[7].ends_clause && !w[0].ends_clause);
        let free: Vec<String> = split("emoji-free commits")
            .into_iter()
            .map(|w| w.text)
            .collect();
        assert_eq!(free, ["without", "emoji", "commits"]);
    }
}

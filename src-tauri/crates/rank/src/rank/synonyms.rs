//! Developer vocabulary: words that mean the same thing in a prompt and in a memory.
//!
//! Owns: the built-in synonym groups, merging config groups in, and expanding a query's stemmed
//! terms with their group mates (the caller gives them half weight, so exact terms win ties).
//! Deliberately does not: know about scoring.

use std::collections::HashMap;

use super::tokenize::terms;

/// Built-in groups; each word is tokenized and stemmed like any text.
const BUILT_IN: &[&[&str]] = &[
    &[
        "test", "tests", "spec", "specs", "mock", "fake", "stub", "fixture", "unittest",
    ],
    &[
        "db",
        "database",
        "sql",
        "postgres",
        "postgresql",
        "psql",
        "mysql",
        "sqlite",
    ],
    &["deploy", "release", "ship", "rollout", "publish"],
    &[
        "auth",
        "authentication",
        "login",
        "signin",
        "credential",
        "credentials",
        "sso",
        "oauth",
    ],
    &["repo", "repository", "codebase"],
    &[
        "config",
        "configuration",
        "settings",
        "setting",
        "preferences",
        "options",
    ],
    &["k8s", "kubernetes", "kubectl", "helm"],
    &[
        "ci",
        "pipeline",
        "workflow",
        "github actions",
        "buildkite",
        "jenkins",
    ],
    &["error", "exception", "failure", "crash", "panic"],
    &["bug", "defect", "issue", "regression"],
    &["doc", "docs", "documentation", "readme"],
    &[
        "dependency",
        "dependencies",
        "package",
        "library",
        "crate",
        "module",
    ],
    &["env", "environment", "dotenv"],
    &["secret", "secrets", "token", "apikey", "vault"],
    &[
        "perf",
        "performance",
        "latency",
        "slow",
        "speed",
        "throughput",
    ],
    &["cache", "caching", "memoize", "redis", "memcached"],
    &["queue", "broker", "kafka", "rabbitmq", "sqs"],
    &["log", "logs", "logging", "tracing", "telemetry"],
    &[
        "style",
        "format",
        "formatting",
        "lint",
        "linter",
        "prettier",
        "rustfmt",
    ],
    &["frontend", "ui", "client", "react", "css"],
    &["backend", "server", "api", "service"],
    &["js", "javascript", "ts", "typescript", "node"],
    &["py", "python"],
    &["branch", "git", "commit", "rebase", "merge"],
    &["pr", "mr", "review", "pull request"],
    &["container", "docker", "image", "dockerfile"],
    &["migration", "migrate", "schema"],
    &["delete", "remove", "drop", "purge"],
    &["timezone", "tz", "utc"],
];

/// Synonym groups of stemmed terms, indexed by term: building is linear in the words of all
/// groups and a lookup touches only the groups a term is in, so one huge group costs nothing to
/// queries that do not use its words (mates are listed per group, never copied per word).
///
/// A multi-word entry ("pull request") reaches its group only as a whole phrase: its words one
/// by one are ordinary words ("request" alone is not a pull request), so they are mates of the
/// group's other words but never bring the group in themselves.
#[derive(Debug, Clone, Default)]
pub struct Synonyms {
    groups: Vec<Vec<String>>,
    groups_of: HashMap<String, Vec<usize>>,
    /// (stemmed words of a multi-word entry, its group)
    phrases: Vec<(Vec<String>, usize)>,
}

impl Synonyms {
    /// The built-in groups plus `extra` (from `retrieval.synonyms`).
    pub fn new(extra: &[Vec<String>]) -> Self {
        let mut syn = Synonyms::default();
        for group in BUILT_IN {
            syn.add_group(group.iter().copied());
        }
        for group in extra {
            syn.add_group(group.iter().map(String::as_str));
        }
        syn
    }

    fn add_group<'a>(&mut self, words: impl Iterator<Item = &'a str>) {
        // (stems, whether the entry is several words); one word may still give several stems
        // (`k8s` → k, 8, k8s), and each of those brings the group in as before.
        let entries: Vec<(Vec<String>, bool)> = words
            .map(|w| (terms(w), w.split_whitespace().count() > 1))
            .filter(|(t, _)| !t.is_empty())
            .collect();
        let mut stems: Vec<String> = entries
            .iter()
            .flat_map(|(t, _)| t.iter().cloned())
            .collect();
        stems.sort();
        stems.dedup();
        if stems.len() < 2 {
            return;
        }
        let id = self.groups.len();
        let mut triggers: Vec<&String> = entries
            .iter()
            .filter(|(_, phrase)| !phrase)
            .flat_map(|(t, _)| t)
            .collect();
        triggers.sort();
        triggers.dedup();
        for s in triggers {
            self.groups_of.entry(s.clone()).or_default().push(id);
        }
        for (phrase, _) in entries.iter().filter(|(_, phrase)| *phrase) {
            self.phrases.push((phrase.clone(), id));
        }
        self.groups.push(stems);
    }

    /// Stemmed terms related to `term` (not including it), each once.
    pub fn mates<'a>(&'a self, term: &str) -> Vec<&'a str> {
        let Some(ids) = self.groups_of.get(term) else {
            return Vec::new();
        };
        let mut seen = std::collections::HashSet::new();
        ids.iter()
            .flat_map(|&id| self.groups[id].iter())
            .map(String::as_str)
            .filter(|m| *m != term && seen.insert(*m))
            .collect()
    }

    /// Stemmed terms related to the multi-word entries that `query_terms` (a query's terms in
    /// order) contain as consecutive words, each once.
    pub fn phrase_mates<'a>(&'a self, query_terms: &[String]) -> Vec<&'a str> {
        let mut seen = std::collections::HashSet::new();
        self.phrases
            .iter()
            .filter(|(phrase, _)| {
                query_terms
                    .windows(phrase.len())
                    .any(|w| w == phrase.as_slice())
            })
            .flat_map(|(_, id)| self.groups[*id].iter())
            .map(String::as_str)
            .filter(|m| seen.insert(*m))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_connect_in_both_directions_after_stemming() {
        let s = Synonyms::new(&[]);
        assert!(s.mates("databas").contains(&"postgr") || s.mates("databas").contains(&"postgres"));
        assert!(s.mates("deploy").contains(&"ship"));
        assert!(s.mates("ship").contains(&"deploy"));
        assert!(s.mates("k8s").contains(&"kubernet"));
        assert!(s.mates("zebra").is_empty());
    }

    #[test]
    fn a_huge_group_is_indexed_once_and_still_connects_its_words() {
        let letters = |i: usize| -> String {
            (0..4)
                .map(|k| (b'a' + ((i / 26usize.pow(k)) % 26) as u8) as char)
                .collect()
        };
        let words: Vec<String> = (0..5000).map(|i| format!("zq{}", letters(i))).collect();
        let s = Synonyms::new(std::slice::from_ref(&words));
        // One copy of each group, not a list of mates per word (n² strings for a group of n).
        let stored: usize = s.groups.iter().map(Vec::len).sum();
        assert!(stored < 5000 + 1000, "{stored} strings stored");
        let mate_count = s.mates(&terms(&words[1])[0]).len();
        assert_eq!(mate_count, 4999);
        assert!(s.mates("zebra").is_empty());
    }

    #[test]
    fn a_multi_word_entry_brings_its_group_in_only_as_a_whole_phrase() {
        let s = Synonyms::new(&[]);
        assert!(
            s.mates("request").is_empty(),
            "an HTTP request is not a pull request: {:?}",
            s.mates("request")
        );
        assert!(s.mates("action").is_empty(), "{:?}", s.mates("action"));
        assert!(
            s.mates("pr").contains(&"pull") && s.mates("pr").contains(&"request"),
            "{:?}",
            s.mates("pr")
        );
        let phrase = s.phrase_mates(&terms("open a pull request for it"));
        assert!(
            phrase.contains(&"pr") && phrase.contains(&"review"),
            "{phrase:?}"
        );
        assert!(s
            .phrase_mates(&terms("pull the latest changes, then send the request"))
            .is_empty());
        assert!(s
            .phrase_mates(&terms("rerun the github actions job"))
            .contains(&"ci"));
    }

    #[test]
    fn config_groups_extend_the_vocabulary() {
        let s = Synonyms::new(&[vec!["gql".into(), "graphql".into()]]);
        assert!(s.mates("gql").contains(&"graphql"));
    }
}

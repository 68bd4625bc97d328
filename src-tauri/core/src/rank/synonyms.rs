//! Developer vocabulary: words that mean the same thing in a prompt and in a memory.
//!
//! Owns: the built-in synonym groups, merging config groups in, and expanding a query's stemmed
//! terms with their group mates (the caller gives them half weight, so exact terms win ties).
//! Deliberately does not: know about scoring.

use std::collections::HashMap;

use super::tokenize::terms;

/// Built-in groups; each word is tokenized and stemmed like any text.
const BUILT_IN: &[&[&str]] = &[
    &["test", "tests", "spec", "specs", "mock", "fake", "stub", "fixture", "unittest"],
    &["db", "database", "sql", "postgres", "postgresql", "psql", "mysql", "sqlite"],
    &["deploy", "release", "ship", "rollout", "publish"],
    &["auth", "authentication", "login", "signin", "credential", "credentials", "sso", "oauth"],
    &["repo", "repository", "codebase"],
    &["config", "configuration", "settings", "setting", "preferences", "options"],
    &["k8s", "kubernetes", "kubectl", "helm"],
    &["ci", "pipeline", "workflow", "github actions", "buildkite", "jenkins"],
    &["error", "exception", "failure", "crash", "panic"],
    &["bug", "defect", "issue", "regression"],
    &["doc", "docs", "documentation", "readme"],
    &["dependency", "dependencies", "package", "library", "crate", "module"],
    &["env", "environment", "dotenv"],
    &["secret", "secrets", "token", "apikey", "vault"],
    &["perf", "performance", "latency", "slow", "speed", "throughput"],
    &["cache", "caching", "memoize", "redis", "memcached"],
    &["queue", "broker", "kafka", "rabbitmq", "sqs"],
    &["log", "logs", "logging", "tracing", "telemetry"],
    &["style", "format", "formatting", "lint", "linter", "prettier", "rustfmt"],
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

/// Map from a stemmed term to the other stemmed terms of its groups.
#[derive(Debug, Clone, Default)]
pub struct Synonyms {
    mates: HashMap<String, Vec<String>>,
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
        let mut stems: Vec<String> = words.flat_map(terms).collect();
        stems.sort();
        stems.dedup();
        for s in &stems {
            let entry = self.mates.entry(s.clone()).or_default();
            for other in &stems {
                if other != s && !entry.contains(other) {
                    entry.push(other.clone());
                }
            }
        }
    }

    /// Stemmed terms related to `term` (not including it).
    pub fn mates(&self, term: &str) -> &[String] {
        self.mates.get(term).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_connect_in_both_directions_after_stemming() {
        let s = Synonyms::new(&[]);
        assert!(s.mates("databas").contains(&"postgr".to_string()) || s.mates("databas").contains(&"postgres".to_string()));
        assert!(s.mates("deploy").contains(&"ship".to_string()));
        assert!(s.mates("ship").contains(&"deploy".to_string()));
        assert!(s.mates("k8s").contains(&"kubernet".to_string()));
        assert!(s.mates("zebra").is_empty());
    }

    #[test]
    fn config_groups_extend_the_vocabulary() {
        let s = Synonyms::new(&[vec!["gql".into(), "graphql".into()]]);
        assert!(s.mates("gql").contains(&"graphql".to_string()));
    }
}

//! Pairs of memories that say the same thing (duplicates) or the same subject with different
//! claims (conflicts), judged on their words.
//!
//! Owns: the token similarity of two memories (Jaccard over stemmed terms of description and
//! body), the thresholds, and the claims that make two neighbours disagree: different members
//! of one group of alternatives (`pnpm` vs `npm`), different version numbers.
//! Deliberately does not: read files or decide scope rules (the review does), or use the
//! embedding model.
//!
//! Thresholds: `DUPLICATE_AT` and `SAME_SUBJECT_AT` are first values, chosen by hand on a few
//! examples; they have not been calibrated on a labelled set yet.

use std::collections::BTreeSet;

use crate::memory::Memory;
use crate::rank::tokenize::terms;

/// Two memories at least this similar say the same thing.
pub const DUPLICATE_AT: f64 = 0.6;
/// Two memories at least this similar talk about the same subject.
pub const SAME_SUBJECT_AT: f64 = 0.25;

/// Alternatives a memory usually picks one of; two neighbours picking different ones disagree.
const ALTERNATIVES: &[&[&str]] = &[
    &["npm", "pnpm", "yarn", "bun"],
    &["tabs", "spaces"],
    &["postgres", "postgresql", "mysql", "sqlite", "mariadb"],
    &["jest", "vitest", "mocha"],
    &["pip", "poetry", "uv", "pipenv"],
    &["merge", "rebase", "squash"],
    &["docker", "podman"],
    &["webpack", "vite", "esbuild", "rollup"],
    &["true", "false"],
    &["always", "never"],
];

/// The terms a memory is compared on.
pub fn term_set(memory: &Memory) -> BTreeSet<String> {
    terms(&format!("{} {}", memory.description, memory.body))
        .into_iter()
        .collect()
}

pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// The claims on which two texts disagree, as `(this one's, that one's)`.
pub fn differing_claims(a: &str, b: &str) -> Vec<(String, String)> {
    let words = |t: &str| -> BTreeSet<String> {
        t.split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
            .map(|w| w.trim_matches('.').to_ascii_lowercase())
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (wa, wb) = (words(a), words(b));
    let mut claims = Vec::new();
    for group in ALTERNATIVES {
        let pa: Vec<&str> = group.iter().copied().filter(|w| wa.contains(*w)).collect();
        let pb: Vec<&str> = group.iter().copied().filter(|w| wb.contains(*w)).collect();
        // One side names an alternative the other does not, and the other names a different one.
        if let (Some(x), Some(y)) = (
            pa.iter().find(|w| !pb.contains(w)),
            pb.iter().find(|w| !pa.contains(w)),
        ) {
            claims.push((x.to_string(), y.to_string()));
        }
    }
    let versions = |w: &BTreeSet<String>| -> BTreeSet<String> {
        w.iter()
            .filter(|t| {
                t.contains('.')
                    && t.split('.')
                        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            })
            .cloned()
            .collect()
    };
    let (va, vb) = (versions(&wa), versions(&wb));
    if let (Some(x), Some(y)) = (va.difference(&vb).next(), vb.difference(&va).next()) {
        claims.push((x.clone(), y.clone()));
    }
    claims
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_alternatives_and_versions_are_claims_shared_ones_are_not() {
        assert_eq!(
            differing_claims("Install with pnpm install", "Install with npm install"),
            vec![("pnpm".to_string(), "npm".to_string())]
        );
        assert_eq!(
            differing_claims("Node 20.11 is required", "Node 18.2 is required"),
            vec![("20.11".to_string(), "18.2".to_string())]
        );
        assert!(differing_claims("use pnpm, not npm", "pnpm and npm both work").is_empty());
        assert!(differing_claims("tests run in CI", "lint runs in CI").is_empty());
    }
}

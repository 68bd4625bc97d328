//! The claims on which two memories about one subject disagree: different members of one group
//! of alternatives (`pnpm` vs `npm`), or different values — numbers, versions, paths, hosts —
//! standing in the same place of the sentence (`port 8080` vs `port 3000`).
//!
//! Owns: the groups of alternatives, what counts as a value, and the rule that two values are
//! rival claims only when a neighbouring word is shared (so `charts/api` next to `helm` and
//! `values-prod.yaml` next to `-f` are two facts, not a disagreement).
//! Deliberately does not: decide whether two memories share a subject (`pairs` does, from their
//! similarity) or read files.

use std::collections::BTreeSet;

use crate::rank::tokenize::terms;

/// Alternatives a memory usually picks one of; two neighbours picking different ones disagree.
/// General developer vocabulary, not words of any one labelled pair.
const ALTERNATIVES: &[&[&str]] = &[
    &["npm", "pnpm", "yarn", "bun"],
    &["tabs", "spaces"],
    &["postgres", "postgresql", "mysql", "sqlite", "mariadb"],
    &["jest", "vitest", "mocha"],
    &["pip", "poetry", "uv", "pipenv"],
    &["merge", "rebase", "squash"],
    &["docker", "podman"],
    &["webpack", "vite", "esbuild", "rollup", "parcel"],
    &["true", "false"],
    &["always", "never"],
    &["enabled", "disabled"],
    &["stable", "nightly", "beta"],
    &["eslint", "biome", "oxlint"],
    &["prettier", "biome"],
    &["flake8", "ruff", "pylint"],
    &["mypy", "pyright"],
    &["helm", "kustomize"],
    &["kafka", "rabbitmq", "sqs", "nats"],
    &["diesel", "sqlx", "seaorm", "prisma", "typeorm", "drizzle"],
    &["vscode", "neovim", "emacs", "zed"],
    &["bash", "zsh", "fish"],
    &["cypress", "playwright", "selenium"],
    &["terraform", "pulumi"],
    &["aws", "gcp", "azure"],
    &["react", "vue", "svelte", "angular"],
    &["github", "gitlab", "bitbucket", "jenkins", "circleci"],
    &["debian", "ubuntu", "alpine", "fedora"],
    &["tokio", "async-std", "smol"],
];

/// Every claim on which two texts disagree, as `(this one's, that one's)`: rival
/// alternatives first, then rival values.
#[cfg_attr(not(feature = "internals"), expect(dead_code, reason = "reached by the tests, benches or fuzz targets only"))]
pub fn differing_claims(a: &str, b: &str) -> Vec<(String, String)> {
    let mut claims = rival_alternatives(a, b);
    for claim in rival_values(a, b) {
        if !claims.iter().any(|(x, y)| *x == claim.0 || *y == claim.1) {
            claims.push(claim);
        }
    }
    claims
}

/// Different members of one group of alternatives: one side names a member the other does not,
/// and the other names a different one.
pub fn rival_alternatives(a: &str, b: &str) -> Vec<(String, String)> {
    let (ta, tb) = (tokens(a), tokens(b));
    let wa: BTreeSet<&str> = ta.iter().map(String::as_str).collect();
    let wb: BTreeSet<&str> = tb.iter().map(String::as_str).collect();
    let mut claims = Vec::new();
    for group in ALTERNATIVES {
        let pa: Vec<&str> = group.iter().copied().filter(|w| wa.contains(*w)).collect();
        let pb: Vec<&str> = group.iter().copied().filter(|w| wb.contains(*w)).collect();
        if let (Some(x), Some(y)) = (
            pa.iter().find(|w| !pb.contains(w)),
            pb.iter().find(|w| !pa.contains(w)),
        ) {
            claims.push((x.to_string(), y.to_string()));
        }
    }
    claims
}

/// Values only one side has, in a place the other side fills with a value of its own.
pub fn rival_values(a: &str, b: &str) -> Vec<(String, String)> {
    let (ta, tb) = (tokens(a), tokens(b));
    let wa: BTreeSet<String> = ta.iter().map(|t| canonical(t)).collect();
    let wb: BTreeSet<String> = tb.iter().map(|t| canonical(t)).collect();
    let mut claims: Vec<(String, String)> = Vec::new();
    for (i, x) in ta.iter().enumerate() {
        let Some(kind) = value_kind(x) else { continue };
        if wb.contains(&canonical(x)) || claims.iter().any(|(c, _)| c == x) {
            continue;
        }
        let rival = tb.iter().enumerate().find(|(j, y)| {
            value_kind(y) == Some(kind)
                && !wa.contains(&canonical(y))
                && (matches!(kind, ValueKind::Setting(_)) || shares_neighbour(&ta, i, &tb, *j))
        });
        if let Some((_, y)) = rival {
            if !claims.iter().any(|(_, c)| c == y) {
                claims.push((x.clone(), y.clone()));
            }
        }
    }
    claims
}

/// Words that turn a statement around.
const NEGATIONS: &[&str] = &["not", "no", "never", "without", "don't", "dont", "avoid"];

/// The same one-line description with one or two words swapped for others ("The default
/// branch is main" / "… is develop"), or turned around by a negation ("Commit the lockfile" /
/// "Do not commit the lockfile"): one statement, two answers.
#[cfg_attr(not(feature = "internals"), expect(dead_code, reason = "reached by the tests, benches or fuzz targets only"))]
pub fn swapped_words(a: &str, b: &str) -> Option<(String, String)> {
    let (ta, tb) = (tokens(a), tokens(b));
    let prefix = ta.iter().zip(&tb).take_while(|(x, y)| x == y).count();
    let suffix = ta[prefix..]
        .iter()
        .rev()
        .zip(tb[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (da, db) = (
        &ta[prefix..ta.len() - suffix],
        &tb[prefix..tb.len() - suffix],
    );
    let shared = prefix + suffix;
    let negated = |d: &[String]| d.iter().any(|w| NEGATIONS.contains(&w.as_str()));
    let content = |d: &[String]| d.iter().any(|w| !terms(w).is_empty());
    let stems = |d: &[String]| -> BTreeSet<String> { d.iter().flat_map(|w| terms(w)).collect() };
    let short = |d: &[String]| d.len() <= 2;
    let swapped =
        !da.is_empty() && !db.is_empty() && content(da) && content(db) && stems(da) != stems(db);
    let turned = negated(da) != negated(db);
    (shared >= 2 && short(da) && short(db) && (swapped || turned))
        .then(|| (da.join(" "), db.join(" ")))
}

/// Words that say one side moved away from what the other states ("we moved to npm
/// workspaces", "no longer", "replaced by"): one side saying so and the other not makes two
/// memories that read alike two answers, not one. Plain negations and "instead" are left out:
/// a rule is often said both ways ("run the tests before pushing" / "never push untested",
/// "use X instead of Y").
const MOVED_ON: &[&str] = &[
    "longer", "migrated", "moved", "switched", "replaced", "deprecated", "dropped", "retired",
    "abandoned", "superseded",
];

/// How a claim reads for the side that did not move on.
const STILL_SO: &str = "still so";

/// What keeps two memories that read alike from being merged into one (DESIGN §14: a pair with
/// any rival claim is never offered as a merge): a value each has and the other lacks, of one
/// kind (numbers — counts written as words and durations in any unit made comparable —
/// versions, places, settings), or one side saying it moved away from something the other does
/// not. `None` when nothing tells them apart and a merge loses nothing.
#[cfg_attr(not(feature = "internals"), expect(dead_code, reason = "reached by the tests, benches or fuzz targets only"))]
pub fn unmergeable(a: &str, b: &str) -> Option<(String, String)> {
    let (va, vb) = (values(a), values(b));
    for (x, kind) in &va {
        if vb.iter().any(|(y, _)| y == x) {
            continue;
        }
        if let Some((y, _)) = vb
            .iter()
            .find(|(y, k)| k == kind && !va.iter().any(|(z, _)| z == y))
        {
            return Some((x.clone(), y.clone()));
        }
    }
    // The words as the text says them ("no longer", "migrated"), against "still so".
    let moved = |t: &[String]| {
        let i = t.iter().position(|w| MOVED_ON.contains(&w.as_str()))?;
        Some(match (t[i].as_str(), i.checked_sub(1).map(|p| t[p].as_str())) {
            ("longer", Some(before @ ("no" | "not"))) => format!("{before} longer"),
            (word, _) => word.to_string(),
        })
    };
    let (ta, tb) = (tokens(a), tokens(b));
    match (moved(&ta), moved(&tb)) {
        (Some(x), None) => Some((x, STILL_SO.to_string())),
        (None, Some(y)) => Some((STILL_SO.to_string(), y)),
        _ => None,
    }
}

/// Seconds in a unit of time, by the words that name it.
fn seconds_in(unit: &str) -> Option<u64> {
    let unit = unit.strip_suffix('s').unwrap_or(unit);
    Some(match unit {
        "second" | "sec" => 1,
        "minute" | "min" => 60,
        "hour" | "hr" => 3_600,
        "day" => 86_400,
        "week" | "wk" => 604_800,
        "month" => 2_592_000,
        "year" | "yr" => 31_536_000,
        _ => return None,
    })
}

/// The values of `text` as compared for a merge: numbers written as words become digits, a
/// number followed by a unit of time becomes its duration in seconds (`14 days` and
/// `two weeks` are one value), every other value as `value_kind` sees it.
fn values(text: &str) -> Vec<(String, ValueKind)> {
    let words: Vec<String> = tokens(text)
        .into_iter()
        .map(|t| match NUMBER_WORDS.iter().position(|w| *w == t) {
            Some(i) => NUMBER_VALUES[i].to_string(),
            None => t,
        })
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let duration = w
            .parse::<u64>()
            .ok()
            .zip(words.get(i + 1).and_then(|u| seconds_in(u)));
        if let Some((n, unit)) = duration {
            out.push((format!("{}s", n * unit), ValueKind::Number));
            i += 2;
            continue;
        }
        if let Some(kind) = value_kind(w) {
            out.push((canonical(w), kind));
        }
        i += 1;
    }
    out
}

/// A value as compared: placeholder brackets dropped (`<item>` and `item` are one path).
fn canonical(token: &str) -> String {
    token.replace(['<', '>', '{', '}', '*'], "")
}

/// Lowercased words with surrounding punctuation trimmed; inner `.`, `/`, `:`, `-`, `_`, `=`
/// kept so versions, paths, hosts and assignments stay whole. A word that ended in `/` is a
/// directory: it keeps one trailing `/` so it reads as a place.
fn tokens(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            let t = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '_');
            let dir = t.ends_with('/') && t.len() > 1;
            let t = t.trim_end_matches('/').to_lowercase();
            if dir && !t.is_empty() {
                format!("{t}/")
            } else {
                t
            }
        })
        .filter(|w| !w.is_empty())
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    /// An integer or a version, with an optional unit glued on (`30s`, `8g`, `3.11`).
    Number,
    /// A path, file name, host or URL.
    Place,
    /// `KEY=value`: rival with another value for the same key (the key is hashed in).
    Setting(u64),
}

/// Counts written as words are numbers too ("two approvals" vs "one approval").
const NUMBER_WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "twelve", "twenty", "thirty", "hundred",
];
/// The digits of each of `NUMBER_WORDS`.
const NUMBER_VALUES: &[&str] = &[
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "12", "20", "30", "100",
];

fn value_kind(token: &str) -> Option<ValueKind> {
    if NUMBER_WORDS.contains(&token) {
        return Some(ValueKind::Number);
    }
    if let Some((key, value)) = token.split_once('=') {
        if !key.is_empty() && !value.is_empty() {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            key.hash(&mut h);
            return Some(ValueKind::Setting(h.finish()));
        }
    }
    let digits = token.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 {
        let rest = &token[digits..];
        let version = rest.starts_with('.')
            && rest
                .split('.')
                .skip(1)
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        let unit = rest.len() <= 2 && rest.chars().all(|c| c.is_ascii_alphabetic());
        return (version || unit).then_some(ValueKind::Number);
    }
    let place = token.contains('/')
        || token.split_once('.').is_some_and(|(head, tail)| {
            !head.is_empty()
                && !tail.is_empty()
                && tail.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
                && tail.chars().any(|c| c.is_ascii_alphabetic())
        });
    place.then_some(ValueKind::Place)
}

/// The word before or after `ta[i]` is the word before or after `tb[j]` (and is a word, not
/// another value), so the two values fill the same slot.
fn shares_neighbour(ta: &[String], i: usize, tb: &[String], j: usize) -> bool {
    let around = |t: &[String], k: usize| -> [Option<String>; 2] {
        let word = |w: &String| (value_kind(w).is_none() && w.len() > 1).then(|| w.clone());
        [
            k.checked_sub(1).and_then(|p| t.get(p)).and_then(word),
            t.get(k + 1).and_then(word),
        ]
    };
    let [before_a, after_a] = around(ta, i);
    let [before_b, after_b] = around(tb, j);
    (before_a.is_some() && before_a == before_b) || (after_a.is_some() && after_a == after_b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn different_alternatives_and_versions_are_claims_shared_ones_are_not() {
        assert_eq!(
            differing_claims("Install with pnpm install", "Install with npm install"),
            pairs(&[("pnpm", "npm")])
        );
        assert_eq!(
            differing_claims("Node 20.11 is required", "Node 18.2 is required"),
            pairs(&[("20.11", "18.2")])
        );
        assert!(differing_claims("use pnpm, not npm", "pnpm and npm both work").is_empty());
        assert!(differing_claims("tests run in CI", "lint runs in CI").is_empty());
    }

    #[test]
    fn one_description_with_a_word_swapped_is_two_answers_to_one_question() {
        assert_eq!(
            swapped_words(
                "The default branch is main",
                "The default branch is develop"
            ),
            Some(("main".to_string(), "develop".to_string()))
        );
        assert_eq!(
            swapped_words("Deploys use Helm", "Deploys use Kustomize"),
            Some(("helm".to_string(), "kustomize".to_string()))
        );
        // A paraphrase is not a swap; nor is a different inflection of one word.
        assert_eq!(
            swapped_words("Keep replies brief", "The person wants concise answers"),
            None
        );
        assert_eq!(swapped_words("Tests use mocks", "Tests used mocks"), None);
        assert_eq!(
            swapped_words("Commit the lockfile", "Do not commit the lockfile"),
            Some((String::new(), "do not".to_string()))
        );
        assert_eq!(
            swapped_words(
                "CI runs Gradle with the daemon",
                "CI runs Gradle without the daemon"
            ),
            Some(("with".to_string(), "without".to_string()))
        );
    }

    #[test]
    fn values_in_the_same_slot_disagree_values_in_different_slots_do_not() {
        assert_eq!(
            differing_claims(
                "The API listens on port 8080.",
                "The API listens on port 3000."
            ),
            pairs(&[("8080", "3000")])
        );
        assert_eq!(
            differing_claims(
                "Edit config/app.toml to change it",
                "Edit settings/app.toml to change it"
            ),
            pairs(&[("config/app.toml", "settings/app.toml")])
        );
        // Two facts about one chart, not two answers to one question.
        assert!(differing_claims(
            "helm upgrade --install api charts/api deploys it",
            "Pass -f charts/api/values-prod.yaml for production"
        )
        .is_empty());
        assert_eq!(
            differing_claims(
                "Add migrations under db/migrations/ first",
                "Add migrations under migrations/ first"
            ),
            pairs(&[("db/migrations/", "migrations/")])
        );
        assert_eq!(
            differing_claims(
                "Set LOG_FORMAT=json in production",
                "In production LOG_FORMAT=text is used"
            ),
            pairs(&[("log_format=json", "log_format=text")])
        );
        assert_eq!(
            differing_claims(
                "Merging requires two approving reviews",
                "Merging requires one approving review"
            ),
            pairs(&[("two", "one")])
        );
        // A value only one side states is an addition, not a disagreement.
        assert!(
            differing_claims("Keys expire after 3600 seconds", "Keys live in Redis").is_empty()
        );
    }

    /// A pair that reads as one statement is merged only when nothing holds it apart: numbers
    /// written as words and durations in other units are the same value; a rival value, or one
    /// side saying it moved away, is not.
    #[test]
    fn what_reads_alike_is_merged_only_when_no_value_or_move_holds_it_apart() {
        assert_eq!(unmergeable("Retry three times", "Retry 3 times"), None);
        assert_eq!(unmergeable("Logs are kept 14 days", "Logs are kept two weeks"), None);
        assert_eq!(
            unmergeable("The dev server listens on 5173", "Start the dev server; it serves 3000")
                .map(|c| c.0),
            Some("5173".to_string())
        );
        assert_eq!(
            unmergeable("Install with yarn", "We moved to npm workspaces"),
            Some(("still so".to_string(), "moved".to_string()))
        );
        assert_eq!(unmergeable("Use X instead of Y", "Prefer X over Y"), None);
        assert_eq!(unmergeable("Tests run with pytest", "pytest runs the tests"), None);
    }
}

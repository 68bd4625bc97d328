//! Two memories written in one sentence shape with a word swapped besides the value: "The
//! *orders* service listens on port *8081*" / "The *inventory* service listens on port
//! *8082*". The swapped word names another subject, so the rival value is no disagreement.
//! Also the names a memory states that a plain word list misses: words written with a capital
//! inside a sentence (tools, teams, products) and words in backticks.
//!
//! Also two headlines (descriptions) that read alike but for one qualifier each, "*EU* uploads
//! bucket" / "*US* uploads bucket": two subjects.
//!
//! Owns: aligning two texts word by word (longest common subsequence) and reading the gaps
//! where each side has a word of its own; a headline's one swapped qualifier; reading a
//! memory's names.
//! Deliberately does not: know what a value or a tool is (the caller says which words are
//! values) or decide a verdict.

use std::collections::BTreeSet;

use ambry_rank::rank::tokenize::{is_stop_word, stem};

use super::lexicon::split;

/// The longest texts aligned word by word; longer ones are not one sentence shape anyway.
const ALIGN_MAX_WORDS: usize = 120;

/// The words a text's sentence shape is read from: its words and values, not its function
/// words.
pub fn shape_of(text: &str) -> Vec<String> {
    split(text)
        .into_iter()
        .map(|w| w.text)
        .filter(|w| !is_stop_word(w))
        .collect()
}

/// The places where two texts in one sentence shape (as `shape_of` reads them) differ: for
/// each, the words only the first has there and the words only the second has there. Empty
/// unless the rest reads alike (at least half the longer text's words in common).
pub fn gaps(wa: &[String], wb: &[String]) -> Vec<(Vec<String>, Vec<String>)> {
    if wa.is_empty() || wb.is_empty() || wa.len() > ALIGN_MAX_WORDS || wb.len() > ALIGN_MAX_WORDS {
        return Vec::new();
    }
    let (n, m) = (wa.len(), wb.len());
    let lcs = lcs_table(wa, wb);
    let common = usize::from(lcs[0][0]);
    if common < 3 || 2 * common < n.max(m) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let (mut gap_a, mut gap_b): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    loop {
        let aligned = i < n && j < m && wa[i] == wb[j];
        if aligned || (i == n && j == m) {
            if !gap_a.is_empty() || !gap_b.is_empty() {
                out.push((std::mem::take(&mut gap_a), std::mem::take(&mut gap_b)));
            }
            if i == n && j == m {
                return out;
            }
            i += 1;
            j += 1;
        } else if j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            gap_a.push(wa[i].clone());
            i += 1;
        } else {
            gap_b.push(wb[j].clone());
            j += 1;
        }
    }
}

/// A pair of words, one from each text, standing in one place of one sentence shape, that
/// are not values (`is_value` says which words are) and name something (`names_subject` says
/// which may: the caller passes the words of each memory's description, where its subject is
/// named) — "The *orders* service …" / "The *inventory* service …".
pub fn swapped_subject(
    a: &[String],
    b: &[String],
    is_value: &dyn Fn(&str) -> bool,
    names_subject: &dyn Fn(&str, &str) -> bool,
) -> Option<(String, String)> {
    let content = |w: &String| {
        !is_stop_word(w) && w.chars().all(|c| c.is_alphabetic() || c == '_') && !is_value(w)
    };
    gaps(a, b).into_iter().find_map(|(ga, gb)| {
        let x = ga.iter().find(|w| content(w))?;
        let y = gb.iter().find(|w| content(w))?;
        // Each side's own word, not the same word inflected otherwise.
        (stem(x) != stem(y) && names_subject(x, y)).then(|| (x.clone(), y.clone()))
    })
}

/// Prepositions after which a headline names what it is about ("Timezone *of* server logs",
/// "Slack channel *for* incidents"); "in", "on" and "at" as often bring the claim itself ("in
/// `db/migrations`", "at 09:30").
const QUALIFYING: &[&str] = &["of", "for"];

/// The words of a memory's headline (its description) as `headline_swap` compares them:
/// lowercase, articles dropped.
pub fn headline_of(line: &str) -> Vec<String> {
    split(line)
        .into_iter()
        .map(|w| w.text)
        .filter(|w| !matches!(w.as_str(), "the" | "a" | "an"))
        .collect()
}

/// Two headlines that read alike but for one qualifier each ("*EU* uploads bucket" / "*US*
/// uploads bucket", "Node version of *the marketing site*" / "… of *the dashboard*"): each
/// names its own subject, so the memories are two facts, whatever their bodies say. The
/// swapped words must qualify what both share — a shared word follows them, or "of" or "for"
/// comes before them — so "Staging *host*" / "Staging *environment*" (one subject, two words
/// for it) is not a swap. No swapped word may hold a digit, and `plain` says which other words
/// may name a subject (the caller leaves out values, rival tools, generic words and
/// negations: "The API runs *3* replicas" / "… *6* replicas" is one subject).
pub fn headline_swap(
    a: &[String],
    b: &[String],
    plain: &dyn Fn(&str) -> bool,
) -> Option<(String, String)> {
    const MOST: usize = 2;
    // "US" in a headline is the country, not the pronoun.
    let all = |g: &[String]| {
        g.iter().all(|w| {
            (w == "us" || !is_stop_word(w)) && !w.chars().any(|c| c.is_ascii_digit()) && plain(w)
        })
    };
    let stems = |words: &[String]| words.iter().map(|w| stem(w)).collect::<Vec<_>>();
    let found = gaps_with_common(&stems(a), &stems(b), 1)?;
    let [(start, end)] = found.as_slice() else {
        return None;
    };
    // One gap: the words before it and after it are aligned one to one, so `b`'s gap is where
    // `a`'s is, and the words as written (the lexicon knows "aws", not its stem) are these.
    let (start, end) = (*start, *end);
    let end_b = b.len() - (a.len() - end);
    let (ga, gb) = (&a[start..end], &b[start..end_b]);
    if ga.is_empty() || gb.is_empty() || ga.len() > MOST || gb.len() > MOST {
        return None;
    }
    if !all(ga) || !all(gb) {
        return None;
    }
    // One word the start of the other ("data" / "database") is one subject said twice.
    let (x, y) = (ga.join(" "), gb.join(" "));
    if x.starts_with(&y) || y.starts_with(&x) {
        return None;
    }
    let followed = end < a.len();
    let qualified = start
        .checked_sub(1)
        .is_some_and(|k| QUALIFYING.contains(&a[k].as_str()));
    (followed || qualified).then_some((x, y))
}

/// The longest-common-subsequence lengths of every pair of suffixes of `wa` and `wb`.
fn lcs_table(wa: &[String], wb: &[String]) -> Vec<Vec<u16>> {
    let (n, m) = (wa.len(), wb.len());
    let mut lcs = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if wa[i] == wb[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    lcs
}

/// `gaps` for short texts: where each gap starts and ends in `wa` (empty on `wa`'s side when
/// only `wb` has words there); `None` unless at least `least` words (and about half the longer
/// text) are in common.
fn gaps_with_common(wa: &[String], wb: &[String], least: usize) -> Option<Vec<(usize, usize)>> {
    let (n, m) = (wa.len(), wb.len());
    if n == 0 || m == 0 || n > ALIGN_MAX_WORDS || m > ALIGN_MAX_WORDS {
        return None;
    }
    let lcs = lcs_table(wa, wb);
    let common = usize::from(lcs[0][0]);
    if common < least || 2 * common < n.max(m).saturating_sub(2) {
        return None;
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut in_gap = false;
    let mut start = 0;
    loop {
        let aligned = i < n && j < m && wa[i] == wb[j];
        if aligned || (i == n && j == m) {
            if in_gap {
                out.push((start, i));
                in_gap = false;
            }
            if i == n && j == m {
                return Some(out);
            }
            i += 1;
            j += 1;
            start = i;
        } else if j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            in_gap = true;
            i += 1;
        } else {
            in_gap = true;
            j += 1;
        }
    }
}

/// The names a text states: words written with a capital inside a sentence ("managed with
/// Flyway", "the Identity team") and words in backticks, lowercase and stemmed.
pub fn names(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut sentence_start = true;
    for raw in text.split_whitespace() {
        let in_ticks = raw.contains('`');
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let capital = word.chars().next().is_some_and(char::is_uppercase)
            && word.chars().any(char::is_lowercase);
        if (capital && !sentence_start) || (in_ticks && !word.is_empty()) {
            let lower = word.to_lowercase();
            if !is_stop_word(&lower) {
                out.insert(stem(&lower));
            }
        }
        sentence_start = raw.ends_with(['.', '!', '?', ':', ';']);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(w: &str) -> bool {
        w.chars().any(|c| c.is_ascii_digit())
    }

    fn any(_: &str, _: &str) -> bool {
        true
    }

    #[test]
    fn a_subject_swapped_beside_a_value_is_found() {
        assert_eq!(
            swapped_subject(
                &shape_of("The orders service listens on port 8081."),
                &shape_of("The inventory service listens on port 8082."),
                &digits,
                &any
            ),
            Some(("orders".to_string(), "inventory".to_string()))
        );
        // Only the value differs: one subject.
        assert_eq!(
            swapped_subject(
                &shape_of("The API listens on port 8080."),
                &shape_of("The API listens on port 3000."),
                &digits,
                &any
            ),
            None
        );
        // Not one sentence shape.
        assert_eq!(
            swapped_subject(
                &shape_of("CI fails when line coverage drops below 90%."),
                &shape_of("A minimum of 75% line coverage is enforced in CI."),
                &digits,
                &any
            ),
            None
        );
    }

    #[test]
    fn a_headline_qualified_otherwise_names_another_subject() {
        let plain = |_: &str| true;
        let swap = |a: &str, b: &str| headline_swap(&headline_of(a), &headline_of(b), &plain);
        assert!(swap("EU uploads bucket", "US uploads bucket").is_some());
        assert!(swap(
            "Node version of the marketing site",
            "Node version of the dashboard"
        )
        .is_some());
        assert!(swap("Running unit tests", "Running integration tests").is_some());
        // One subject, two words for what is said of it; a word and its longer form.
        assert_eq!(swap("Staging host", "Staging environment"), None);
        assert_eq!(swap("Data access", "Database access"), None);
        // Not one shape, or more than one place apart.
        assert_eq!(swap("Sprint length", "Iteration cadence"), None);
        assert_eq!(swap("Frontend tests", "Test runner"), None);
        assert_eq!(swap("API port", "API port"), None);
    }

    #[test]
    fn names_are_capitalised_words_inside_a_sentence_and_words_in_backticks() {
        let n = names("Schema migrations are managed with Flyway. Run `cargo db`.");
        assert!(
            n.contains("flyway") && n.contains("cargo") && n.contains("db"),
            "{n:?}"
        );
        assert!(!n.contains("schema") && !n.contains("run"));
    }
}

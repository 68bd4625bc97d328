//! The review inbox's pair judgements (DESIGN §14) on the labelled set in `tests/review_set/`:
//! 307 pairs of memories — paraphrased duplicates, near-misses that are not duplicates, real
//! conflicts, compatible neighbours — in a dev half (`dev/`, 250 pairs, the only one looked at
//! while tuning `lifecycle::pairs`) and a frozen test half (`test/`, 57 pairs). Two earlier test
//! halves fell short once measured; each was then looked at and moved into dev, and a fresh
//! test half written before the next tuning pass, so the test half is never one that was tuned
//! on.
//!
//! Measures duplicates and conflicts (precision, recall) at the shipped thresholds on words
//! only and with the real model's embeddings fused in, prints both, and gates each half with
//! floors just under what was measured (duplicates never under precision 0.9 / recall 0.8).
//! Needs `AMBRY_TEST_MODELS`; fails saying what to run without it.

use std::collections::BTreeMap;

use ambry_core::embed::{cosine, embedded_text, shared_embedder, TextEmbedder};
use ambry_core::lifecycle::pairs::{judge, Side, Verdict};
use ambry_core::memory::naming::validate_name;
use serde::Deserialize;

use crate::support::model_paths;

const LABELS: [&str; 4] = ["duplicates", "near_misses", "conflicts", "compatible"];

#[derive(Deserialize)]
struct PairFile {
    pair: Vec<Pair>,
}

/// Each side is `[name, description, body]`.
#[derive(Deserialize, Clone)]
struct Pair {
    a: [String; 3],
    b: [String; 3],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Half {
    Dev,
    Test,
}

/// Every labelled pair with its label and half.
fn labelled() -> Vec<(&'static str, Half, Pair)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/review_set");
    let mut all = Vec::new();
    for (half, sub) in [(Half::Dev, "dev"), (Half::Test, "test")] {
        for label in LABELS {
            let path = dir.join(sub).join(format!("{label}.toml"));
            let text = std::fs::read_to_string(&path).unwrap();
            let file: PairFile =
                toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            all.extend(file.pair.into_iter().map(|p| (label, half, p)));
        }
    }
    all
}

/// Precision and recall of one verdict kind.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    tp: u32,
    fp: u32,
    fn_: u32,
}

impl Tally {
    fn add(&mut self, predicted: bool, labelled: bool) {
        match (predicted, labelled) {
            (true, true) => self.tp += 1,
            (true, false) => self.fp += 1,
            (false, true) => self.fn_ += 1,
            (false, false) => {}
        }
    }
    fn precision(&self) -> f64 {
        if self.tp + self.fp == 0 {
            return 1.0;
        }
        f64::from(self.tp) / f64::from(self.tp + self.fp)
    }
    fn recall(&self) -> f64 {
        f64::from(self.tp) / f64::from((self.tp + self.fn_).max(1))
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Scores {
    duplicates: Tally,
    conflicts: Tally,
}

/// A mode's scores, the half, and floors for duplicates P, R and conflicts P, R.
type Floor<'a> = (&'a str, &'a BTreeMap<Half, Scores>, Half, [f64; 4]);

#[test]
fn the_set_is_big_varied_valid_and_split() {
    let set = labelled();
    assert!(set.len() >= 150, "{} pairs", set.len());
    let mut per: BTreeMap<(Half, &str), usize> = BTreeMap::new();
    for (label, half, p) in &set {
        *per.entry((*half, *label)).or_default() += 1;
        for side in [&p.a, &p.b] {
            validate_name(&side[0]).unwrap_or_else(|e| panic!("{}: {e}", side[0]));
            assert!(!side[1].is_empty() && !side[2].is_empty(), "{}", side[0]);
        }
        assert_ne!(p.a[0], p.b[0]);
    }
    for label in LABELS {
        let total: usize = [Half::Dev, Half::Test]
            .iter()
            .map(|h| per.get(&(*h, label)).copied().unwrap_or(0))
            .sum();
        assert!(total >= 25, "{label}: {total} pairs");
        for half in [Half::Dev, Half::Test] {
            assert!(
                per.get(&(half, label)).copied().unwrap_or(0) >= 10,
                "{label} in {half:?}: {per:?}"
            );
        }
    }
}

#[test]
fn duplicates_and_conflicts_are_found_at_the_shipped_thresholds_on_both_halves() {
    let set = labelled();
    let paths = model_paths();
    let embedder = shared_embedder(&paths).unwrap();
    let mut embedder = embedder.lock().unwrap();
    // What a sidecar holds: the embedding of name, description and body.
    let texts: Vec<String> = set
        .iter()
        .flat_map(|(_, _, p)| [&p.a, &p.b])
        .map(|s| embedded_text(&s[0], &s[1], &s[2]))
        .collect();
    let vectors = embedder.embed(&texts).unwrap();

    let mut tokens: BTreeMap<Half, Scores> = BTreeMap::new();
    let mut fused: BTreeMap<Half, Scores> = BTreeMap::new();
    let mut dev_misses = Vec::new();
    for (i, (label, half, p)) in set.iter().enumerate() {
        let (a, b) = (Side::new(&p.a[1], &p.a[2]), Side::new(&p.b[1], &p.b[2]));
        let c = f64::from(cosine(&vectors[2 * i], &vectors[2 * i + 1]));
        for (scores, cos) in [(&mut tokens, None), (&mut fused, Some(c))] {
            let judged = judge(&a, &b, cos);
            let s = scores.entry(*half).or_default();
            let dup = judged.verdict == Some(Verdict::Duplicate);
            let conflict = matches!(judged.verdict, Some(Verdict::Conflict(_)));
            s.duplicates.add(dup, *label == "duplicates");
            s.conflicts.add(conflict, *label == "conflicts");
            let expected = match *label {
                "duplicates" => Some("duplicate"),
                "conflicts" => Some("conflict"),
                _ => None,
            };
            let got = match &judged.verdict {
                Some(Verdict::Duplicate) => Some("duplicate"),
                Some(Verdict::Conflict(_)) => Some("conflict"),
                None => None,
            };
            // Only the dev half's mistakes are ever printed: the test half stays unseen.
            if cos.is_some() && *half == Half::Dev && got != expected {
                dev_misses.push(format!(
                    "  {label}: {} | {} → {got:?} (similarity {:.2}, words {:.2}, cosine {c:.2}, {:?})",
                    p.a[0], p.b[0], judged.similarity, judged.token_similarity, judged.verdict
                ));
            }
        }
    }
    println!(
        "review set, dev misses with embeddings:\n{}",
        dev_misses.join("\n")
    );
    for (mode, table) in [("words only", &tokens), ("with embeddings", &fused)] {
        for (half, s) in table {
            println!(
                "{mode:<16} {half:?}: duplicates P {:.3} R {:.3} | conflicts P {:.3} R {:.3}",
                s.duplicates.precision(),
                s.duplicates.recall(),
                s.conflicts.precision(),
                s.conflicts.recall()
            );
        }
    }
    // Floors just under what was measured; with embeddings (the shipped mode whenever the model
    // is there) the duplicate floors stay above the promise: precision 0.9, recall 0.8.
    // Measured (dev 250 pairs / test 57): with embeddings dev duplicates P 0.963 R 0.929,
    // conflicts P 0.982 R 0.900; test duplicates P 0.938 R 1.000, conflicts P 1.000 R 0.733.
    // Words only: dev 0.962 / 0.893, 0.949 / 0.933; test 1.000 / 0.667, 1.000 / 0.733.
    let floors: [Floor<'_>; 4] = [
        (
            "with embeddings",
            &fused,
            Half::Dev,
            [0.95, 0.92, 0.97, 0.88],
        ),
        (
            "with embeddings",
            &fused,
            Half::Test,
            [0.93, 0.95, 0.95, 0.70],
        ),
        ("words only", &tokens, Half::Dev, [0.95, 0.88, 0.93, 0.92]),
        ("words only", &tokens, Half::Test, [0.95, 0.65, 0.95, 0.70]),
    ];
    for (mode, table, half, [dp, dr, cp, cr]) in floors {
        let s = table[&half];
        let got = [
            s.duplicates.precision(),
            s.duplicates.recall(),
            s.conflicts.precision(),
            s.conflicts.recall(),
        ];
        for (what, value, floor) in [
            ("duplicates precision", got[0], dp),
            ("duplicates recall", got[1], dr),
            ("conflicts precision", got[2], cp),
            ("conflicts recall", got[3], cr),
        ] {
            assert!(
                value >= floor,
                "{mode}, {half:?} half: {what} {value:.3} < {floor}"
            );
        }
    }
}

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
//! The independent set (`tests/review_set_independent/`, 1200 pairs written by writers who
//! never saw the rules) has three dev halves (`dev/`, `dev2/`, `dev3/`) and three frozen test
//! halves (`test/`, `test2/`, `test3/`, each written before the tuning it measures); only the
//! dev halves' mistakes are ever printed, and `REVIEW_EVAL_DUMP=path` writes their figures
//! per pair for tuning.
//! Needs `AMBRY_TEST_MODELS`; fails saying what to run without it.

use std::collections::BTreeMap;

use ambry_lifecycle::lifecycle::pairs::{judge, Side, Verdict};
use ambry_rank::embed::{cosine, embedded_text, shared_embedder, TextEmbedder};
use ambry_store::memory::naming::validate_name;
use serde::Deserialize;

use crate::support::model_paths;

const LABELS: [&str; 4] = ["duplicates", "near_misses", "conflicts", "compatible"];

#[derive(Deserialize)]
struct PairFile {
    pair: Vec<Pair>,
}

/// Each side is `[name, description, body]`; `kind` says what the pair tests (the independent
/// set: tools, values, polarity, migration, subject, paraphrase, length, numbers, units, …).
#[derive(Deserialize, Clone)]
struct Pair {
    a: [String; 3],
    b: [String; 3],
    #[serde(default)]
    kind: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Half {
    Dev,
    /// A second dev half, written later by a writer who never saw the rules (the independent
    /// set only): measured before any tuning on it, then tuned on with `Dev`.
    Dev2,
    Test,
    /// A second frozen test half, written by a fourth writer after the tuning on `Dev2` was
    /// done: never looked at, never tuned on.
    Test2,
    /// A third pair of halves: four more writers (one per label) who never saw the rules wrote
    /// 100 pairs each, split alternately within each kind (its 1st, 3rd, … pair to `Dev3`, its
    /// 2nd, 4th, … to `Test3`) before either was read; `Test3` is measured, never looked at.
    Dev3,
    Test3,
    /// A fourth frozen test half (200 pairs by four more writers), written after the tuning on
    /// `Dev3` was done: measured once, never looked at, never tuned on.
    Test4,
}

/// Every labelled pair of `tests/review_set/` with its label and half.
fn labelled() -> Vec<(&'static str, Half, Pair)> {
    labelled_in("tests/review_set")
}

/// Every labelled pair of the set in `set` (under the crate) with its label and half.
fn labelled_in(set: &str) -> Vec<(&'static str, Half, Pair)> {
    let dir = crate::support::manifest_dir().join(set);
    let mut all = Vec::new();
    for (half, sub) in [
        (Half::Dev, "dev"),
        (Half::Dev2, "dev2"),
        (Half::Test, "test"),
        (Half::Test2, "test2"),
        (Half::Dev3, "dev3"),
        (Half::Test3, "test3"),
        (Half::Test4, "test4"),
    ] {
        // The first set has one dev and one test half.
        if !dir.join(sub).is_dir() && !matches!(half, Half::Dev | Half::Test) {
            continue;
        }
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

/// The vectors of both sides of every pair, in order (`2i`, `2i + 1`), as a sidecar holds them:
/// the embedding of name, description and body, by the real model.
fn embedded(set: &[(&'static str, Half, Pair)]) -> Vec<Vec<f32>> {
    let embedder = shared_embedder(&model_paths()).unwrap();
    let mut embedder = embedder.lock().unwrap();
    let texts: Vec<String> = set
        .iter()
        .flat_map(|(_, _, p)| [&p.a, &p.b])
        .map(|s| embedded_text(&s[0], &s[1], &s[2]))
        .collect();
    embedder.embed(&texts).unwrap()
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
    let vectors = embedded(&set);

    let mut tokens: BTreeMap<Half, Scores> = BTreeMap::new();
    let mut fused: BTreeMap<Half, Scores> = BTreeMap::new();
    let mut dev_misses = Vec::new();
    for (i, (label, half, p)) in set.iter().enumerate() {
        let (a, b) = (
            Side::named(&p.a[0], &p.a[1], &p.a[2]),
            Side::named(&p.b[0], &p.b[1], &p.b[2]),
        );
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
                Some(Verdict::Uncertain(_)) => Some("asked"),
                None => None,
            };
            // Only the dev half's mistakes are ever printed: the test half stays unseen.
            if cos.is_some() && *half == Half::Dev && got != expected {
                dev_misses.push(format!(
                    "  {label}: {} | {} → {got:?} (similarity {:.2}, words {:.2}, cosine {c:.2}, {:?}, apart {:?})",
                    p.a[0],
                    p.b[0],
                    judged.similarity,
                    judged.token_similarity,
                    judged.verdict,
                    judged.claims.as_ref().and_then(|c| c.apart.clone())
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
    // Floors just under what was measured. Before claims (string differences and thresholds
    // tuned on this set): with embeddings dev duplicates P 0.963 R 0.929, conflicts P 0.982
    // R 0.900; test duplicates P 0.938 R 1.000, conflicts P 1.000 R 0.733. Words only: dev
    // 0.962 / 0.893, 0.949 / 0.933; test 1.000 / 0.667, 1.000 / 0.733.
    // Judged on claims (`lifecycle::rival`), this set's duplicates lose recall: a pair that
    // reads alike but where one side negates, says it moved on, or names something the other
    // never mentions is asked about ("duplicate or conflict?") instead of offered as a merge,
    // and a rule said both ways ("do not edit" / "regenerate after editing") can read as a
    // negation. With embeddings dev duplicates P 0.944 R 0.607, conflicts P 0.821 R 0.917;
    // test duplicates P 0.889 R 0.533, conflicts P 0.909 R 0.667. Words only: dev 0.927 /
    // 0.607, 0.806 / 0.900; test 0.857 / 0.400, 0.900 / 0.600.
    // After tuning on the independent set's second dev half (headlines qualified otherwise,
    // members left behind, more of the lexicon and of values): dev with embeddings duplicates
    // P 0.943 R 0.595, conflicts P 0.797 R 0.917 (a conflict whose descriptions read as two
    // subjects, "Linting …" / "Formatting …"), words only 0.926 / 0.595, 0.783 / 0.900; the
    // test half unchanged.
    // After tuning on the independent set's three dev halves (names read as headlines, one
    // meaning to the model, a tool both sides refuse, a verb's object, sizes in either unit):
    // dev with embeddings duplicates P 0.946 R 0.631, conflicts P 0.844 R 0.900 (a conflict
    // found for a wrong reason, "Pass --no-daemon in *CI*", no longer is); test 0.900 / 0.600,
    // 0.909 / 0.667. Words only: dev 0.929 / 0.619, 0.841 / 0.883; test 0.875 / 0.467, 0.900 /
    // 0.600.
    let floors: [Floor<'_>; 4] = [
        (
            "with embeddings",
            &fused,
            Half::Dev,
            [0.94, 0.62, 0.84, 0.89],
        ),
        (
            "with embeddings",
            &fused,
            Half::Test,
            [0.89, 0.59, 0.90, 0.66],
        ),
        ("words only", &tokens, Half::Dev, [0.92, 0.61, 0.83, 0.88]),
        ("words only", &tokens, Half::Test, [0.87, 0.46, 0.89, 0.59]),
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

/// The independent set in `tests/review_set_independent/`: 400 pairs written by two people who
/// never saw the rules, `lifecycle::pairs` or the set above (50 per label and half; `dev/` for
/// tuning, `test/` frozen and only ever measured as totals), each pair with the kind it tests.
/// Measured as the rules stand before any tuning on it, per label and per kind, with the
/// model: the worst mistake an inbox can make, a conflict offered as a merge, is counted on its
/// own. Gated at what was measured, so the figures can only rise; DESIGN §14 asks for more
/// (duplicates P ≥ 0.9 R ≥ 0.8, conflicts P ≥ 0.85 R ≥ 0.7, ≤ 1 in 50 conflicts merged).
#[test]
fn the_independent_set_is_measured_per_kind() {
    let set = labelled_in("tests/review_set_independent");
    assert_eq!(set.len(), 1400);
    let vectors = embedded(&set);
    let mut scores: BTreeMap<(&str, Half), Scores> = BTreeMap::new();
    // (half, label, kind) → (pairs, judged as labelled)
    let mut per_kind: BTreeMap<(Half, &str, String), (u32, u32)> = BTreeMap::new();
    let mut merged_conflicts: BTreeMap<Half, u32> = BTreeMap::new();
    // (half, label) → pairs asked about ("same subject — duplicate or conflict?").
    let mut asked: BTreeMap<(Half, &str), u32> = BTreeMap::new();
    let mut dev_misses = Vec::new();
    // (half, label, kind, judged as) → pairs: counts only, for either half.
    let mut confusion: BTreeMap<(Half, &str, String, &str), u32> = BTreeMap::new();
    // For tuning by hand: every dev pair's figures as tab-separated rows (never the test half's).
    let mut dump = Vec::new();
    for (i, (label, half, p)) in set.iter().enumerate() {
        let (a, b) = (
            Side::named(&p.a[0], &p.a[1], &p.a[2]),
            Side::named(&p.b[0], &p.b[1], &p.b[2]),
        );
        let c = f64::from(cosine(&vectors[2 * i], &vectors[2 * i + 1]));
        for (mode, cos) in [("words only", None), ("with embeddings", Some(c))] {
            let verdict = judge(&a, &b, cos).verdict;
            let dup = verdict == Some(Verdict::Duplicate);
            let conflict = matches!(verdict, Some(Verdict::Conflict(_)));
            let s = scores.entry((mode, *half)).or_default();
            s.duplicates.add(dup, *label == "duplicates");
            s.conflicts.add(conflict, *label == "conflicts");
            if cos.is_some() {
                let right = match *label {
                    "duplicates" => dup,
                    "conflicts" => conflict,
                    _ => verdict.is_none(),
                };
                let kind = p.kind.clone().unwrap_or_default();
                let e = per_kind.entry((*half, label, kind)).or_default();
                e.0 += 1;
                e.1 += u32::from(right);
                let judged_as = match &verdict {
                    Some(Verdict::Duplicate) => "duplicate",
                    Some(Verdict::Conflict(_)) => "conflict",
                    Some(Verdict::Uncertain(_)) => "asked",
                    None => "neither",
                };
                *confusion
                    .entry((*half, label, p.kind.clone().unwrap_or_default(), judged_as))
                    .or_default() += 1;
                if matches!(*half, Half::Dev | Half::Dev2 | Half::Dev3) {
                    let j = judge(&a, &b, cos);
                    let cmp = j.claims.clone().unwrap_or_default();
                    dump.push(format!(
                        "{half:?}\t{label}\t{}\t{}\t{}\t{:.3}\t{:.3}\t{c:.3}\t{}\t{}\t{}\t{}\t{}\t{}\t{:?}",
                        p.kind.as_deref().unwrap_or(""),
                        p.a[0],
                        p.b[0],
                        j.similarity,
                        j.token_similarity,
                        j.claims.is_some(),
                        cmp.apart.is_some(),
                        cmp.rivals.len(),
                        cmp.unsure.len(),
                        cmp.same_claims,
                        judged_as,
                        cmp.rivals,
                    ));
                }
                if *label == "conflicts" && dup {
                    *merged_conflicts.entry(*half).or_default() += 1;
                }
                if matches!(verdict, Some(Verdict::Uncertain(_))) {
                    *asked.entry((*half, label)).or_default() += 1;
                }
                // Only the dev half's mistakes are ever printed: the test half stays unseen.
                if !right && matches!(*half, Half::Dev | Half::Dev2 | Half::Dev3) {
                    let j = judge(&a, &b, cos);
                    dev_misses.push(format!(
                        "  {half:?} {label}/{}: {} | {} → {:?} (similarity {:.2}, words {:.2}, cosine {c:.2})",
                        p.kind.as_deref().unwrap_or(""),
                        p.a[0],
                        p.b[0],
                        j.verdict,
                        j.similarity,
                        j.token_similarity
                    ));
                    if std::env::var_os("REVIEW_EVAL_CLAIMS").is_some() {
                        dev_misses.push(format!("      {:?}", j.claims));
                    }
                }
            }
        }
    }
    if let Some(path) = std::env::var_os("REVIEW_EVAL_DUMP") {
        std::fs::write(path, dump.join("\n")).unwrap();
    }
    println!(
        "independent set, dev misses with embeddings:\n{}",
        dev_misses.join("\n")
    );
    for ((mode, half), s) in &scores {
        println!(
            "independent {mode:<16} {half:?}: duplicates P {:.3} R {:.3} | conflicts P {:.3} R {:.3}",
            s.duplicates.precision(),
            s.duplicates.recall(),
            s.conflicts.precision(),
            s.conflicts.recall()
        );
    }
    for ((half, label, kind), (n, right)) in &per_kind {
        println!(
            "independent with embeddings {half:?} {label}/{kind}: {right}/{n} judged as labelled"
        );
    }
    for ((half, label, kind, judged_as), n) in &confusion {
        println!("independent with embeddings {half:?} {label}/{kind} judged {judged_as}: {n}");
    }
    println!("conflicts offered as a merge (with embeddings): {merged_conflicts:?}");
    // What judging costs: reading each memory once (its terms, and the rival tools it names,
    // for nominating pairs), reading its claims (once, for a memory in a candidate pair), then
    // judging a pair (as the review does for each candidate pair).
    let started = std::time::Instant::now();
    let sides: Vec<(Side, Side)> = set
        .iter()
        .map(|(_, _, p)| {
            (
                Side::named(&p.a[0], &p.a[1], &p.a[2]),
                Side::named(&p.b[0], &p.b[1], &p.b[2]),
            )
        })
        .collect();
    for (a, b) in &sides {
        std::hint::black_box((
            ambry_lifecycle::lifecycle::rival::tools_named(a.text()),
            ambry_lifecycle::lifecycle::rival::tools_named(b.text()),
        ));
    }
    let read = started.elapsed();
    let started = std::time::Instant::now();
    for (a, b) in &sides {
        std::hint::black_box((a.claims(), b.claims()));
    }
    let claims_read = started.elapsed();
    let started = std::time::Instant::now();
    for (a, b) in &sides {
        std::hint::black_box(judge(a, b, Some(0.5)));
    }
    let judged = started.elapsed();
    let per_memory = |d: std::time::Duration| d.as_secs_f64() * 1e6 / (2 * sides.len()) as f64;
    println!(
        "cost: {:.1} µs to read a memory, {:.1} µs to read its claims, {:.1} µs to judge a pair",
        per_memory(read),
        per_memory(claims_read),
        judged.as_secs_f64() * 1e6 / sides.len() as f64
    );
    // The same work as judged on string differences before claims: terms read once, then per
    // pair the Jaccard and the string comparisons of `lifecycle::claims`.
    use ambry_lifecycle::lifecycle::claims;
    let started = std::time::Instant::now();
    let terms: Vec<_> = set
        .iter()
        .map(|(_, _, p)| {
            let t = |s: &[String; 3]| -> std::collections::BTreeSet<String> {
                ambry_rank::rank::tokenize::terms(&format!("{}\n{}", s[1], s[2]))
                    .into_iter()
                    .collect()
            };
            (t(&p.a), t(&p.b))
        })
        .collect();
    let read_before = started.elapsed();
    let started = std::time::Instant::now();
    for ((_, _, p), (ta, tb)) in set.iter().zip(&terms) {
        let (a, b) = (
            format!("{}\n{}", p.a[1], p.a[2]),
            format!("{}\n{}", p.b[1], p.b[2]),
        );
        std::hint::black_box((
            ambry_lifecycle::lifecycle::pairs::jaccard(ta, tb),
            claims::rival_alternatives(&a, &b),
            claims::rival_values(&a, &b),
            claims::swapped_words(&p.a[1], &p.b[1]),
            claims::unmergeable(&a, &b),
        ));
    }
    let judged_before = started.elapsed();
    println!(
        "cost before claims: {:.1} µs to read a memory, {:.1} µs to judge a pair",
        read_before.as_secs_f64() * 1e6 / (2 * set.len()) as f64,
        judged_before.as_secs_f64() * 1e6 / set.len() as f64
    );
    println!("asked, duplicate or conflict? (with embeddings): {asked:?}");
    // At most, per half: conflicts offered as a merge, and near misses on another subject
    // judged a conflict (DESIGN §14 asks ≤ 1 in 50 and ≤ 1 in 20).
    for (half, most_merged, most_flagged) in [
        (Half::Dev, 0, 0),
        (Half::Dev2, 0, 3),
        (Half::Test, 0, 4),
        (Half::Test2, 0, 5),
        (Half::Dev3, 1, 3),
        (Half::Test3, 3, 3),
        (Half::Test4, 0, 6),
    ] {
        let merged = merged_conflicts.get(&half).copied().unwrap_or(0);
        assert!(
            merged <= most_merged,
            "{half:?}: {merged} conflicts offered as a merge (at most {most_merged})"
        );
        let flagged = confusion
            .get(&(half, "near_misses", "subject".to_string(), "conflict"))
            .copied()
            .unwrap_or(0);
        assert!(
            flagged <= most_flagged,
            "{half:?}: {flagged} near misses judged a conflict (at most {most_flagged})"
        );
    }
    // Measured before any tuning on this set (the rules as tuned on the set above):
    //                    duplicates P / R    conflicts P / R    conflicts offered as a merge
    // with model, dev    0.630 / 0.680       0.075 / 0.060      16 of 50
    // with model, test   0.322 / 0.560       0.213 / 0.200      27 of 50
    // words only, dev    0.446 / 0.500       0.122 / 0.120
    // words only, test   0.231 / 0.420       0.167 / 0.160
    // Per kind (with the model, test): conflicts migration 0/9, polarity 1/10, tools 2/15,
    // values 7/16; near misses on another subject judged neither 13/50; duplicates numbers
    // 2/12, units 6/11, length 7/12, paraphrase 13/15.
    // Then a pair that reads as one statement but holds a rival value or says it moved away
    // from the other is asked about ("same subject — duplicate or conflict?"), never offered as
    // a merge: with the model, test half, conflicts offered as a merge 27 → 18 of 50 (9 asked),
    // duplicates P 0.322 → 0.338, R 0.560 → 0.500 (3 asked); dev 16 → 11, P 0.630 → 0.727,
    // R 0.680 → 0.640. The set above is unchanged.
    // Then judged on claims (`lifecycle::rival`: tools by category from a lexicon kept as
    // data, values normalised, polarity, subject), tuned on the dev half only:
    //                    duplicates P / R    conflicts P / R    conflicts offered as a merge
    // with model, dev    0.727 → 0.927 / 0.640 → 0.760   0.075 → 0.882 / 0.060 → 0.900   11 → 0
    // with model, test   0.338 → 0.725 / 0.500 → 0.580   0.213 → 0.595 / 0.200 → 0.500   18 → 0
    // words only, dev    0.535 → 0.947 / 0.460 → 0.720   0.122 → 0.857 / 0.120 → 0.840
    // words only, test   0.222 → 0.587 / 0.360 → 0.540   0.167 → 0.585 / 0.160 → 0.480
    // Near misses on another subject judged a conflict, with the model: dev 5 of 50, test 11
    // of 50. On the test half the judge asks ("duplicate or conflict?") about 15 of the 50
    // conflicts rather than calling them: rival tools outside the lexicon and negations it
    // does not read.
    // Then a second dev half (`dev2/`, 200 pairs by a third writer who never saw the rules),
    // measured before any tuning on it: with the model duplicates P 0.800 R 0.240, conflicts
    // P 0.758 R 0.500, one conflict offered as a merge; words only 0.750 / 0.180, 0.706 /
    // 0.480. Tuned on both dev halves: a headline qualified otherwise names another subject
    // ("*EU* uploads bucket" / "*US* uploads bucket"), a member one side uses and the other
    // says was left behind is a conflict however each spells it, more tool categories,
    // "half an hour", a fraction as a share, ":3000" as a port:
    //                    duplicates P / R                conflicts P / R
    // with model, dev    0.927 → 0.949 / 0.760 → 0.740   0.882 → 0.920 / 0.900 → 0.920
    // with model, dev2   0.800 → 1.000 / 0.240 → 0.280   0.758 → 0.829 / 0.500 → 0.680
    // with model, test   0.725 → 0.718 / 0.580 → 0.560   0.595 → 0.640 / 0.500 → 0.640
    // words only, test   0.587 → 0.578 / 0.540 → 0.520   0.585 → 0.633 / 0.480 → 0.620
    // Conflicts offered as a merge: 0 on every half (dev2 had 1). A rule calling a pair with
    // nothing apart a duplicate from a lower similarity (0.45) raised dev2's duplicate recall
    // to 0.480 but took the test half's duplicate precision to 0.583 (refinements read as
    // restatements); it was removed, so the test half informed that one decision.
    // Then a second frozen test half (`test2/`, 200 pairs by a fourth writer, written after
    // this tuning and never looked at), measured once: with the model duplicates P 0.941 R
    // 0.320, conflicts P 0.673 R 0.700, no conflict offered as a merge; words only 0.824 /
    // 0.280, 0.646 / 0.620. Its duplicates are mostly left unjudged (paraphrases and long
    // versions the claims cannot tie together), rarely wrong.
    // Then, tuned on the two dev halves only: the same values however each writes them ("15
    // minutes" / "900 seconds", "1 GiB" / "1024 MiB"), nothing apart or unsure, are a
    // duplicate from a fused similarity of 0.40 (words only 0.2) whatever else one side names
    // (`pairs::SAME_VALUES_AT`). Dev duplicates R 0.740 → 0.780 (P 0.949 → 0.951), dev2
    // 0.280 → 0.360 (P 1.000), no other label changed; then measured once on the frozen halves:
    //                    duplicates P / R                conflicts
    // with model, test   0.718 → 0.690 / 0.560 → 0.580   unchanged
    // with model, test2  0.941 → 0.944 / 0.320 → 0.340   unchanged
    // words only, test   0.578 → 0.574 / 0.520 → 0.540   unchanged
    // words only, test2  0.824 → 0.833 / 0.280 → 0.300   unchanged
    // (test: one duplicate more found, two pairs of other labels taken for duplicates). Kept,
    // as chosen on dev.
    // Then a third pair of halves (`dev3/`, `test3/`, 400 pairs by four more writers, one per
    // label, split within each kind before either was read), measured before any tuning on it:
    // with the model dev3 duplicates P 0.889 R 0.308, conflicts P 0.544 R 0.596; test3 0.913 /
    // 0.438, 0.587 / 0.562, 2 of 48 conflicts offered as a merge, 11 of 50 near misses judged a
    // conflict (test 11, test2 11). Tuned on the three dev halves only: a memory's name read
    // as a headline (a qualifier the other never says names another subject:
    // "access-token-ttl" / "refresh-token-ttl"); one meaning to the model (cosine ≥ 0.70) with
    // nothing apart, rival or unsure is a duplicate, and asked about from 0.74 when a value is
    // unsure; a tool both sides refuse is no rival, and one said not to be there ("Pest is not
    // installed") is refused; only the first word after a negation and a tool are what it is
    // about ("avoid wasting a *CI* cycle" says nothing against CI); a negation word that is a
    // member ("*forbidden*") is not refused; "migration" in a memory that tells of a move is
    // not the database task; sizes in decimal and binary units, "16.0" and "16", a number on
    // a key naming its unit (`retention_in_days = 7`); ten more tool categories. Then the
    // frozen halves measured once:
    //                    duplicates P / R                conflicts P / R
    // with model, test   0.690 → 0.696 / 0.580 → 0.640   0.640 → 0.791 / 0.640 → 0.680
    // with model, test2  0.944 → 1.000 / 0.340 → 0.400   0.673 → 0.786 / 0.700 → 0.660
    // with model, test3  0.913 → 0.885 / 0.438 → 0.479   0.587 → 0.750 / 0.562 → 0.562
    // words only, test   0.574 → 0.620 / 0.540 → 0.620   0.633 → 0.786 / 0.620 → 0.660
    // words only, test2  0.833 → 0.882 / 0.300 → 0.300   0.646 → 0.744 / 0.620 → 0.580
    // words only, test3  0.933 → 0.875 / 0.292 → 0.292   0.564 → 0.733 / 0.458 → 0.458
    // Near misses judged a conflict: test 11 → 4, test2 11 → 5, test3 11 → 3 (of 50).
    // Conflicts offered as a merge: test 0, test2 0, test3 2 → 3 of 48 (worse by one).
    // Then a fourth frozen half (`test4/`, 200 pairs by four more writers, written after this
    // tuning and never looked at), measured once with the rules before and after it:
    //                    duplicates P / R                conflicts P / R
    // with model, test4  0.957 → 0.931 / 0.440 → 0.540   0.578 → 0.700 / 0.520 → 0.560
    // words only, test4  1.000 → 0.957 / 0.340 → 0.440   0.568 → 0.676 / 0.420 → 0.460
    // Near misses judged a conflict 8 → 6 of 50 (a duplicate 1 → 2); no conflict offered as
    // a merge before or after.
    // The floors sit just under these.
    for ((mode, half), [dp, dr, cp, cr]) in INDEPENDENT_FLOORS {
        let s = scores[&(*mode, *half)];
        for (what, value, floor) in [
            ("duplicates precision", s.duplicates.precision(), dp),
            ("duplicates recall", s.duplicates.recall(), dr),
            ("conflicts precision", s.conflicts.precision(), cp),
            ("conflicts recall", s.conflicts.recall(), cr),
        ] {
            assert!(
                value >= *floor,
                "independent, {mode}, {half:?}: {what} {value:.3} < {floor}"
            );
        }
    }
}

/// Floors just under what is measured on the independent set (duplicates P, R; conflicts P,
/// R), per mode and half.
const INDEPENDENT_FLOORS: &[((&str, Half), [f64; 4])] = &[
    (("with embeddings", Half::Dev), [0.93, 0.85, 0.97, 0.93]),
    (("with embeddings", Half::Dev2), [0.99, 0.49, 0.85, 0.71]),
    (("with embeddings", Half::Test), [0.69, 0.63, 0.79, 0.67]),
    (("with embeddings", Half::Test2), [0.99, 0.39, 0.78, 0.65]),
    (("with embeddings", Half::Dev3), [0.95, 0.42, 0.79, 0.69]),
    (("with embeddings", Half::Test3), [0.88, 0.47, 0.74, 0.56]),
    (("with embeddings", Half::Test4), [0.93, 0.53, 0.70, 0.55]),
    (("words only", Half::Dev), [0.97, 0.77, 0.97, 0.85]),
    (("words only", Half::Dev2), [0.99, 0.23, 0.82, 0.65]),
    (("words only", Half::Test), [0.61, 0.61, 0.78, 0.65]),
    (("words only", Half::Test2), [0.88, 0.29, 0.74, 0.57]),
    (("words only", Half::Dev3), [0.93, 0.28, 0.81, 0.67]),
    (("words only", Half::Test3), [0.87, 0.29, 0.73, 0.45]),
    (("words only", Half::Test4), [0.95, 0.43, 0.67, 0.45]),
];

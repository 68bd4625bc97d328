//! Which pairs of memories the review judges: every pair that could reach the same-subject
//! threshold, found without judging all n²/2 of them. Judging every pair took about three
//! minutes of CPU at ten thousand memories, and the app counts the inbox after every change.
//!
//! Owns: two exact filters and their union. The first finds the pairs whose words overlap
//! enough, by prefix filtering over an inverted index of terms, rarest first. The second finds
//! the pairs whose vectors are close enough, with one matrix product per block of memories.
//! Also the order to judge them in (closest first) and the bound on how many are kept.
//! Deliberately does not: judge a pair. `pairs::judge` judges every candidate, so the inbox is
//! exactly what judging every pair gives (up to `CANDIDATES_KEPT` and the inbox's own limit);
//! these filters only leave out pairs that cannot reach the threshold. It reads no files and
//! embeds nothing.
//!
//! Why the union is enough: a pair without two comparable vectors is judged on words alone and
//! needs a Jaccard of at least `SAME_SUBJECT_AT_TOKENS`. A pair with vectors needs
//! `EMBEDDING_WEIGHT·cos + (1 − EMBEDDING_WEIGHT)·jaccard ≥ SAME_SUBJECT_AT`. If its Jaccard is
//! below `SAME_SUBJECT_AT_TOKENS`, that takes a cosine of at least [`cosine_floor`] (0.533).
//! So every pair that can reach the threshold either overlaps in words by
//! `SAME_SUBJECT_AT_TOKENS` or has vectors at least that close.

use std::collections::{BTreeSet, HashMap};

use ndarray::{s, Array2};

use super::pairs::{EMBEDDING_WEIGHT, SAME_SUBJECT_AT, SAME_SUBJECT_AT_TOKENS};

/// Leaves room for the matrix product's rounding, which differs from `embed::cosine`'s in the
/// last bits: a pair this close to the floor is judged rather than left out.
const ROUNDING_ROOM: f32 = 1e-3;

/// Rows of the vector matrix multiplied at once: bounds the product held in memory (a block
/// times every later memory) at a few megabytes for ten thousand memories.
const BLOCK_ROWS: usize = 128;

/// The cosine a pair with vectors needs when its words overlap less than
/// `SAME_SUBJECT_AT_TOKENS`, to reach `SAME_SUBJECT_AT`.
pub fn cosine_floor() -> f64 {
    (SAME_SUBJECT_AT - (1.0 - EMBEDDING_WEIGHT) * SAME_SUBJECT_AT_TOKENS) / EMBEDDING_WEIGHT
}

/// A pair of memories `(i, j)`, `i < j`, and how close they look before judging: the fused
/// similarity the filters saw, or a lower bound of it.
pub type Candidate = (usize, usize, f64);

/// At most this many candidates are kept, the closest: far more than an inbox lists (see
/// `PAIR_FINDINGS_MAX`), and few enough to hold. A store of near-identical memories makes
/// nearly every pair a candidate: fifty million at ten thousand memories, 1.2 GB as a list.
pub const CANDIDATES_KEPT: usize = 50_000;

/// The pairs that can reach the same-subject threshold (the closest `CANDIDATES_KEPT` of them),
/// in ascending order of `(i, j)`; `terms[k]` and `vectors[k]` describe the same memory k.
pub fn candidate_pairs(
    terms: &[&BTreeSet<String>],
    vectors: &[Option<Vec<f32>>],
) -> Vec<Candidate> {
    let words = WordIndex::new(terms, SAME_SUBJECT_AT_TOKENS);
    let unit = UnitVectors::of(vectors);
    let floor = cosine_floor() as f32 - ROUNDING_ROOM;
    let mut pairs = Closest::keeping(CANDIDATES_KEPT);
    // A cosine that is no number: judged whatever it looks like.
    for (i, j) in unit.broken_pairs() {
        pairs.push((i, j, f64::INFINITY));
    }
    let mut scan = words.scan();
    for start in (0..terms.len()).step_by(BLOCK_ROWS) {
        let end = (start + BLOCK_ROWS).min(terms.len());
        let block = unit.block(start, end);
        // Close in meaning, whatever the words (which can only add).
        for (i, j, c) in block.pairs_at_least(&unit, floor) {
            pairs.push((i, j, EMBEDDING_WEIGHT * f64::from(c)));
        }
        for i in start..end {
            scan.later_pairs(i, |j, jaccard| {
                // A pair with vectors needs the fused similarity too: with vectors that say
                // little alike, sharing a fifth of the words is far from enough.
                let (closeness, at) = match block.cosine(&unit, i, j) {
                    Some(c) => (
                        EMBEDDING_WEIGHT * f64::from(c) + (1.0 - EMBEDDING_WEIGHT) * jaccard,
                        SAME_SUBJECT_AT - f64::from(ROUNDING_ROOM),
                    ),
                    None => (jaccard, SAME_SUBJECT_AT_TOKENS),
                };
                if closeness >= at {
                    pairs.push((i, j, closeness));
                }
            });
        }
    }
    pairs.in_order()
}

/// The closest candidates pushed, at most `keep` of them (ties kept by position, so the same
/// store always gives the same inbox).
struct Closest {
    keep: usize,
    pairs: Vec<Candidate>,
}

impl Closest {
    fn keeping(keep: usize) -> Closest {
        Closest {
            keep,
            pairs: Vec::new(),
        }
    }

    fn push(&mut self, candidate: Candidate) {
        self.pairs.push(candidate);
        if self.pairs.len() >= 2 * self.keep {
            self.prune();
        }
    }

    fn prune(&mut self) {
        if self.pairs.len() > self.keep {
            self.pairs.select_nth_unstable_by(self.keep, closer);
            self.pairs.truncate(self.keep);
        }
    }

    /// The kept candidates in ascending order of `(i, j)`, each pair once.
    fn in_order(mut self) -> Vec<Candidate> {
        self.prune();
        let mut pairs = self.pairs;
        pairs.sort_unstable_by_key(|&(i, j, _)| (i, j));
        // Found by both filters: the closer look counts.
        pairs.dedup_by(|later, kept| {
            let same = (later.0, later.1) == (kept.0, kept.1);
            if same {
                kept.2 = kept.2.max(later.2);
            }
            same
        });
        pairs
    }
}

/// Closer first; ties in ascending order of `(i, j)`.
fn closer(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    b.2.total_cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1)))
}

/// `candidates` closest first (ties in ascending order of `(i, j)`): the order to judge them in
/// when only so many findings are wanted.
pub fn closest_first(mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    candidates.sort_by(closer);
    candidates
}

/// The memories' terms as ids, and an inverted index of each one's prefix, for the pairs whose
/// Jaccard is at least `at`, exactly (the same ratio `pairs::jaccard` computes).
///
/// Prefix filtering: with the terms of each memory in one global order, rarest first, two sets
/// sharing at least `o` terms share one among the first `len − o + 1` terms of each (the
/// rarest term they share comes no later than that in either). A Jaccard of `at` needs
/// `o ≥ at·len` for either set's length, so only those prefixes are indexed, and the common
/// words, the long posting lists, mostly stay out of them.
struct WordIndex {
    at: f64,
    /// Each memory's term ids.
    sets: Vec<Vec<u32>>,
    prefixes: Vec<Vec<u32>>,
    /// Per term id: the memories whose prefix holds it, ascending.
    postings: Vec<Vec<u32>>,
}

impl WordIndex {
    fn new(terms: &[&BTreeSet<String>], at: f64) -> WordIndex {
        let mut ids: HashMap<&str, u32> = HashMap::new();
        let mut frequency: Vec<u32> = Vec::new();
        let sets: Vec<Vec<u32>> = terms
            .iter()
            .map(|set| {
                set.iter()
                    .map(|term| {
                        let id = *ids.entry(term.as_str()).or_insert_with(|| {
                            frequency.push(0);
                            (frequency.len() - 1) as u32
                        });
                        frequency[id as usize] += 1;
                        id
                    })
                    .collect()
            })
            .collect();
        let mut postings: Vec<Vec<u32>> = vec![Vec::new(); frequency.len()];
        let mut prefixes: Vec<Vec<u32>> = Vec::with_capacity(sets.len());
        for (k, set) in sets.iter().enumerate() {
            let mut by_rarity = set.clone();
            by_rarity.sort_unstable_by_key(|&id| (frequency[id as usize], id));
            // The least overlap any pair reaching `at` has with this set, rounded down so the
            // prefix is never too short.
            let least = ((at * set.len() as f64).floor() as usize).max(1);
            by_rarity.truncate((set.len() + 1).saturating_sub(least));
            for &id in &by_rarity {
                postings[id as usize].push(k as u32);
            }
            prefixes.push(by_rarity);
        }
        WordIndex {
            at,
            sets,
            prefixes,
            postings,
        }
    }

    fn scan(&self) -> WordScan<'_> {
        WordScan {
            index: self,
            marked: vec![false; self.postings.len()],
            last_seen_by: vec![usize::MAX; self.sets.len()],
        }
    }
}

/// A pass over a [`WordIndex`], memory by memory, with the scratch that pass reuses.
struct WordScan<'a> {
    index: &'a WordIndex,
    /// The terms of the memory being scanned, by id (its overlap with another is a count of
    /// lookups, without a merge's unpredictable branches).
    marked: Vec<bool>,
    /// The memory that last met each memory, so a pair sharing several prefix terms is counted
    /// once.
    last_seen_by: Vec<usize>,
}

impl WordScan<'_> {
    /// Calls `found(j, jaccard)` for every later memory `j` whose Jaccard with `i` reaches the
    /// index's threshold.
    fn later_pairs(&mut self, i: usize, mut found: impl FnMut(usize, f64)) {
        let index = self.index;
        let mine = &index.sets[i];
        for &id in mine {
            self.marked[id as usize] = true;
        }
        for &id in &index.prefixes[i] {
            let list = &index.postings[id as usize];
            let later = list.partition_point(|&k| k as usize <= i);
            for &j in &list[later..] {
                let j = j as usize;
                if self.last_seen_by[j] == i {
                    continue;
                }
                self.last_seen_by[j] = i;
                let theirs = &index.sets[j];
                let shared = theirs
                    .iter()
                    .filter(|&&id| self.marked[id as usize])
                    .count();
                // As `pairs::jaccard`: shared over union, in f64.
                let union = mine.len() + theirs.len() - shared;
                let jaccard = if union == 0 {
                    0.0
                } else {
                    shared as f64 / union as f64
                };
                if jaccard >= index.at {
                    found(j, jaccard);
                }
            }
        }
        for &id in mine {
            self.marked[id as usize] = false;
        }
    }
}

/// What one memory's vector is, as the cosine sees it.
#[derive(Debug, Clone, Copy)]
enum VectorOf {
    /// No vector: the pair is judged on words.
    Missing,
    /// A value that is no finite number: its cosine is none, which the judge must see.
    NotANumber,
    /// All zeros: its cosine is 0 with anything.
    Zero,
    /// Scaled to unit length, this row of this length group.
    Row { group: usize, row: usize },
}

/// The memories' vectors scaled to unit length, grouped by length, for cosines in bulk.
struct UnitVectors {
    /// Per memory.
    kinds: Vec<VectorOf>,
    /// Per length group: which memory each row is (ascending), and the rows.
    groups: Vec<(Vec<usize>, Array2<f32>)>,
}

impl UnitVectors {
    fn of(vectors: &[Option<Vec<f32>>]) -> UnitVectors {
        let mut by_length: HashMap<usize, (Vec<usize>, Vec<f32>)> = HashMap::new();
        let mut kinds = vec![VectorOf::Missing; vectors.len()];
        for (k, v) in vectors.iter().enumerate() {
            let Some(v) = v else { continue };
            if v.iter().any(|x| !x.is_finite()) {
                kinds[k] = VectorOf::NotANumber;
                continue;
            }
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                let (rows, values) = by_length.entry(v.len()).or_default();
                rows.push(k);
                values.extend(v.iter().map(|x| x / norm));
            } else {
                kinds[k] = VectorOf::Zero;
            }
        }
        let mut groups = Vec::new();
        for (dims, (rows, values)) in by_length {
            for (row, &k) in rows.iter().enumerate() {
                kinds[k] = VectorOf::Row {
                    group: groups.len(),
                    row,
                };
            }
            let matrix = Array2::from_shape_vec((rows.len(), dims), values)
                .expect("one row of `dims` values per vector kept");
            groups.push((rows, matrix));
        }
        UnitVectors { kinds, groups }
    }

    /// Every pair with a vector that is no number: its cosine is none, which the judge must see.
    fn broken_pairs(&self) -> Vec<(usize, usize)> {
        let n = self.kinds.len();
        (0..n)
            .filter(|&k| matches!(self.kinds[k], VectorOf::NotANumber))
            .flat_map(|k| {
                (0..n)
                    .filter(move |&o| o != k)
                    .map(move |o| (k.min(o), k.max(o)))
            })
            .collect()
    }

    /// The cosines of memories `start..end` with every later memory of their length group:
    /// one matrix product per group.
    fn block(&self, start: usize, end: usize) -> CosineBlock {
        let products = self
            .groups
            .iter()
            .enumerate()
            .filter_map(|(g, (rows, matrix))| {
                let first = rows.partition_point(|&k| k < start);
                let past = rows.partition_point(|&k| k < end);
                (first < past).then(|| {
                    let block = matrix.slice(s![first..past, ..]);
                    let later = matrix.slice(s![first.., ..]);
                    (g, first, block.dot(&later.t()))
                })
            })
            .collect();
        CosineBlock { products }
    }
}

/// The cosines of one block of memories with the memories after them (see
/// [`UnitVectors::block`]): per length group, its first row in the block and the product.
struct CosineBlock {
    products: Vec<(usize, usize, Array2<f32>)>,
}

impl CosineBlock {
    /// The cosine the judge would get for memory `i` of this block and a later memory `j` (to
    /// rounding), as `embed::cosine` gives it: 0 for vectors of different lengths or a zero
    /// vector; `None` when either has no vector, or one that is no number.
    fn cosine(&self, unit: &UnitVectors, i: usize, j: usize) -> Option<f32> {
        match (unit.kinds[i], unit.kinds[j]) {
            (VectorOf::Missing | VectorOf::NotANumber, _)
            | (_, VectorOf::Missing | VectorOf::NotANumber) => None,
            (VectorOf::Row { group: g, row: a }, VectorOf::Row { group: h, row: b }) if g == h => {
                let (_, first, product) = self.products.iter().find(|(p, _, _)| *p == g)?;
                Some(product[[a - first, b - first]])
            }
            _ => Some(0.0),
        }
    }

    /// The pairs of the block, as memory indices, whose cosine is at least `floor`.
    fn pairs_at_least(&self, unit: &UnitVectors, floor: f32) -> Vec<(usize, usize, f32)> {
        let mut pairs = Vec::new();
        for (g, first, product) in &self.products {
            let rows = &unit.groups[*g].0;
            for (offset, cosines) in product.rows().into_iter().enumerate() {
                for (later, &c) in cosines.iter().enumerate().skip(offset + 1) {
                    if c >= floor {
                        // Rows ascend with the memories: the pair is already (smaller, larger).
                        pairs.push((rows[first + offset], rows[first + later], c));
                    }
                }
            }
        }
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::pairs::{judge, Side};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Memories from a small vocabulary (so word overlaps cover the whole range) with vectors
    /// mixed from a few directions (so cosines do too), some without a vector, one of another
    /// length, one zero and one not finite.
    fn memories(n: usize, seed: u64) -> (Vec<Side>, Vec<Option<Vec<f32>>>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let words: Vec<String> = (0..40).map(|w| format!("word{w}")).collect();
        let directions: Vec<Vec<f32>> = (0..4)
            .map(|_| (0..16).map(|_| rng.random_range(-1.0..1.0)).collect())
            .collect();
        let mut sides = Vec::new();
        let mut vectors = Vec::new();
        for k in 0..n {
            let topic = rng.random_range(0..4usize);
            let count = rng.random_range(1..12usize);
            let text: Vec<&str> = (0..count)
                .map(|_| words[(topic * 8 + rng.random_range(0..16usize)) % 40].as_str())
                .collect();
            sides.push(Side::new("", &text.join(" ")));
            let vector = match k % 23 {
                0 => None,
                5 => Some(vec![0.5; 8]),
                7 => Some(vec![0.0; 16]),
                11 if k == 11 => Some(vec![f32::NAN; 16]),
                _ => Some(
                    directions[topic]
                        .iter()
                        .map(|x| x + rng.random_range(-0.6..0.6))
                        .collect(),
                ),
            };
            vectors.push(vector);
        }
        (sides, vectors)
    }

    /// Every pair whose judged similarity reaches the same-subject threshold (or is no number)
    /// is a candidate: the inbox found by candidates is the inbox of all pairs.
    #[test]
    fn every_pair_that_reaches_the_threshold_is_a_candidate() {
        for seed in 0..6 {
            let (sides, vectors) = memories(300, seed);
            let terms: Vec<&BTreeSet<String>> = sides.iter().map(Side::terms).collect();
            let candidates: BTreeSet<(usize, usize)> = candidate_pairs(&terms, &vectors)
                .into_iter()
                .map(|(i, j, _)| (i, j))
                .collect();
            let (mut reaching, mut below_with_vectors) = (0, 0);
            for i in 0..sides.len() {
                for j in i + 1..sides.len() {
                    let cosine = match (&vectors[i], &vectors[j]) {
                        (Some(x), Some(y)) => Some(f64::from(ambry_rank::embed::cosine(x, y))),
                        _ => None,
                    };
                    let judged = judge(&sides[i], &sides[j], cosine);
                    let at = if cosine.is_some() {
                        SAME_SUBJECT_AT
                    } else {
                        SAME_SUBJECT_AT_TOKENS
                    };
                    // The judge's own test, so a similarity that is no number reaches too.
                    let reaches = judged.similarity >= at || judged.similarity.is_nan();
                    if reaches {
                        reaching += 1;
                        assert!(
                            candidates.contains(&(i, j)),
                            "seed {seed}: ({i}, {j}) reaches {at} ({judged:?}) but is no candidate"
                        );
                    } else if cosine.is_some() && judged.token_similarity < SAME_SUBJECT_AT_TOKENS {
                        below_with_vectors += 1;
                    }
                }
            }
            // The data covers both sides of the threshold, and the filters leave most pairs out.
            assert!(
                reaching > 100,
                "seed {seed}: only {reaching} pairs reach the threshold"
            );
            assert!(
                below_with_vectors > 1000,
                "seed {seed}: {below_with_vectors}"
            );
            assert!(
                candidates.len() < sides.len() * (sides.len() - 1) / 4,
                "seed {seed}: {} candidates",
                candidates.len()
            );
        }
    }

    #[test]
    fn the_word_index_finds_exactly_the_pairs_at_the_jaccard() {
        let (sides, _) = memories(200, 9);
        let terms: Vec<&BTreeSet<String>> = sides.iter().map(Side::terms).collect();
        for at in [0.2, 0.3, 0.5, 0.7] {
            let index = WordIndex::new(&terms, at);
            let mut scan = index.scan();
            let mut found = BTreeSet::new();
            for i in 0..terms.len() {
                scan.later_pairs(i, |j, _| {
                    found.insert((i, j));
                });
            }
            let expected: BTreeSet<(usize, usize)> = (0..terms.len())
                .flat_map(|i| (i + 1..terms.len()).map(move |j| (i, j)))
                .filter(|&(i, j)| crate::lifecycle::pairs::jaccard(terms[i], terms[j]) >= at)
                .collect();
            assert!(!expected.is_empty(), "at {at}");
            let missing: Vec<_> = expected.difference(&found).collect();
            let extra: Vec<_> = found.difference(&expected).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "at {at}: missing {missing:?}, extra {extra:?}"
            );
        }
    }

    #[test]
    fn the_cosine_floor_is_where_a_pair_below_the_word_threshold_can_reach_the_subject() {
        let floor = cosine_floor();
        let at_floor = EMBEDDING_WEIGHT * floor + (1.0 - EMBEDDING_WEIGHT) * SAME_SUBJECT_AT_TOKENS;
        assert!((at_floor - SAME_SUBJECT_AT).abs() < 1e-12);
        assert!((floor - 0.5333).abs() < 1e-3, "{floor}");
    }

    #[test]
    fn candidates_are_judged_closest_first() {
        let candidates = vec![
            (0, 1, 0.3),
            (0, 2, 0.9),
            (1, 2, 0.5),
            (1, 3, 0.9),
            (2, 3, f64::INFINITY),
        ];
        let order: Vec<_> = closest_first(candidates)
            .into_iter()
            .map(|(i, j, _)| (i, j))
            .collect();
        assert_eq!(order, [(2, 3), (0, 2), (1, 3), (1, 2), (0, 1)]);
    }

    #[test]
    fn past_its_limit_a_list_of_candidates_keeps_the_closest() {
        let mut kept = Closest::keeping(3);
        for k in 0..20usize {
            // Closeness rises and falls; (5, 6) and (6, 7) tie with (4, 5) at the top.
            let closeness = if (4..=6).contains(&k) {
                0.9
            } else {
                (k % 7) as f64 / 10.0
            };
            kept.push((k, k + 1, closeness));
        }
        kept.push((4, 5, 0.2)); // found again by the other filter, less close
        assert_eq!(kept.in_order(), [(4, 5, 0.9), (5, 6, 0.9), (6, 7, 0.9)]);
    }
}

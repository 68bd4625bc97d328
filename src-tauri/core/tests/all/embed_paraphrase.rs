//! An independent semantic check: queries that share no word with the memory they target.
//! bm25 cannot answer these by construction; the embedding model must. Needs the assets
//! (`AMBRY_TEST_MODELS`, set by `make test`); fails saying what to run when they are absent.

use std::collections::HashSet;

use ambry_rank::embed::{reindex, semantic_scores, shared_embedder, VectorCache};

use crate::support;
use support::model_paths;
use support::paraphrase_set::{MEMORIES, QUERIES};

const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "how", "who", "why", "does", "our", "are", "too", "one", "new",
    "from", "into", "after", "when", "what", "more", "ever", "is", "in", "of", "a", "an", "to",
    "we", "do", "at", "on", "by",
];

/// Content-word stems (a 5-letter prefix stands in for a stemmer, erring on the strict side).
fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(|w| w.to_lowercase())
        .filter(|w| w.len() > 2 && !STOP_WORDS.contains(&w.as_str()))
        .map(|w| w.chars().take(5).collect())
        .collect()
}

#[test]
fn the_fixture_really_shares_no_words() {
    let mut overlaps = Vec::new();
    for (query, target) in QUERIES {
        let (name, description, body) = MEMORIES
            .iter()
            .find(|m| m.0 == *target)
            .expect("target exists");
        let doc = words(&format!("{name} {description} {body}"));
        let shared: Vec<_> = words(query).intersection(&doc).cloned().collect();
        if !shared.is_empty() {
            overlaps.push(format!("{query:?} shares {shared:?} with {target}"));
        }
    }
    assert!(overlaps.is_empty(), "{overlaps:#?}");
}

#[test]
fn semantic_ranking_finds_memories_with_no_shared_words() {
    let paths = model_paths();
    let dir = tempfile::tempdir().unwrap();
    let docs = support::memories(dir.path(), MEMORIES);
    let embedder = shared_embedder(&paths).unwrap();
    let mut embedder = embedder.lock().unwrap();
    reindex(&docs, &mut *embedder, &mut |_| {}).unwrap();
    let mut cache = VectorCache::new();

    let (mut hit1, mut hit3, mut rr) = (0usize, 0usize, 0f64);
    let mut misses = Vec::new();
    for (query, target) in QUERIES {
        let scores = semantic_scores(query, &docs, &mut *embedder, &mut cache).unwrap();
        let mut order: Vec<usize> = (0..docs.len()).collect();
        order.sort_by(|&a, &b| {
            scores[b]
                .unwrap_or(0.0)
                .total_cmp(&scores[a].unwrap_or(0.0))
        });
        let rank = order.iter().position(|&i| docs[i].name == *target).unwrap() + 1;
        hit1 += usize::from(rank == 1);
        hit3 += usize::from(rank <= 3);
        rr += 1.0 / rank as f64;
        if rank > 3 {
            misses.push(format!(
                "{query:?} → {target} at rank {rank} (top: {})",
                docs[order[0]].name
            ));
        }
    }
    let n = QUERIES.len() as f64;
    let (h1, h3, mrr) = (hit1 as f64 / n, hit3 as f64 / n, rr / n);
    println!("paraphrase set (semantic only): Hit@1 {h1:.2}  Hit@3 {h3:.2}  MRR {mrr:.2}");
    assert!(
        h3 >= 0.80,
        "paraphrase Hit@3 {h3:.2} < 0.80; misses: {misses:#?}"
    );
    assert!(
        mrr >= 0.70,
        "paraphrase MRR {mrr:.2} < 0.70; misses: {misses:#?}"
    );
}

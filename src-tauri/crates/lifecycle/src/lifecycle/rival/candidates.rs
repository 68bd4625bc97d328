//! The pairs a review judges for rival tools even when their words and vectors are far apart:
//! "CI runs on GitHub Actions" and "Our pipeline is CircleCI" share almost no words, and the
//! embedding model sees them as little alike, yet one of them is out of date.
//!
//! Owns: an index of which memories use which member of each rival category, and the pairs
//! that use different members of one (bounded, so a store where hundreds of memories name
//! `npm` and hundreds `yarn` does not judge every cross pair).
//! Deliberately does not: judge them (`pairs::judge` still asks for a shared subject and a
//! floor of similarity) or find the pairs close in words or meaning (`candidates` does).

use std::collections::{BTreeMap, BTreeSet};

use super::Tools;

/// At most this many pairs are nominated for rival tools: each is judged (microseconds), so
/// this bounds the review's added cost whatever the store holds.
pub const RIVAL_PAIRS_MAX: usize = 20_000;

/// Pairs `(i, j)`, `i < j`, that name different members of one rival category (`tools[k]`:
/// what `tools_named` reads from memory k), in ascending order, at most `RIVAL_PAIRS_MAX`.
pub fn rival_tool_pairs(tools: &[Tools]) -> Vec<(usize, usize)> {
    // category → member → memories using it
    let mut index: BTreeMap<usize, BTreeMap<&str, Vec<usize>>> = BTreeMap::new();
    for (k, named) in tools.iter().enumerate() {
        for (category, members) in named {
            for m in members {
                index
                    .entry(*category)
                    .or_default()
                    .entry(m)
                    .or_default()
                    .push(k);
            }
        }
    }
    let mut pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
    'all: for members in index.values() {
        let groups: Vec<&Vec<usize>> = members.values().collect();
        for (g, first) in groups.iter().enumerate() {
            for second in &groups[g + 1..] {
                for &i in first.iter() {
                    for &j in second.iter() {
                        if i != j {
                            pairs.insert((i.min(j), i.max(j)));
                            if pairs.len() >= RIVAL_PAIRS_MAX {
                                break 'all;
                            }
                        }
                    }
                }
            }
        }
    }
    pairs.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memories_using_different_members_of_one_category_are_paired() {
        let texts = [
            "CI runs on GitHub Actions.",
            "Our CI pipeline is CircleCI.",
            "Install with pnpm.",
            "CI runs on GitHub Actions; see the workflows.",
        ];
        let tools: Vec<Tools> = texts.iter().map(|t| super::super::tools_named(t)).collect();
        assert_eq!(rival_tool_pairs(&tools), [(0, 1), (1, 3)]);
    }
}

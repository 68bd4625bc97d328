//! Building the corpus of a fresh process whose scopes are unchanged straight from the postings
//! stored in `index.sqlite`, without building a term list per document.
//!
//! Owns: shadowing and ordering the loaded documents as `Corpus::build` would, and renumbering
//! each scope's stored postings to that order.
//! Deliberately does not: read the disk or the database (see `persisted`), decide when a corpus
//! can be assembled (the cache does: only while every scope is as loaded), or build from terms
//! per document (`Corpus::build`).

use std::sync::Arc;

use super::scope::ScopeSnapshot;
use crate::rank::corpus::{shadowed, sort_for_ties, Corpus, DocTerms};

/// One document of a loaded snapshot, located by its snapshot and entry, for shadowing and
/// ordering without copying it.
struct Located<'a> {
    snapshot: usize,
    entry: u32,
    doc: &'a Arc<DocTerms>,
}

impl std::borrow::Borrow<DocTerms> for Located<'_> {
    fn borrow(&self) -> &DocTerms {
        self.doc
    }
}

/// The corpus of snapshots as loaded (postings, no terms per document): the documents shadowed
/// and ordered as `Corpus::build` would, each scope's postings renumbered to that order.
pub(super) fn assemble(snapshots: &[&ScopeSnapshot], shadow: bool) -> Corpus {
    let mut located: Vec<Located<'_>> = Vec::new();
    for (s, snapshot) in snapshots.iter().enumerate() {
        for (i, e) in snapshot.entries.iter().enumerate() {
            if let Some(doc) = &e.doc {
                located.push(Located {
                    snapshot: s,
                    entry: i as u32,
                    doc,
                });
            }
        }
    }
    if shadow {
        located = shadowed(located);
    }
    sort_for_ties(&mut located);
    let mut position: Vec<Vec<u32>> = snapshots
        .iter()
        .map(|s| vec![u32::MAX; s.entries.len()])
        .collect();
    for (i, l) in located.iter().enumerate() {
        position[l.snapshot][l.entry as usize] = i as u32;
    }
    // The loaded documents themselves (they carry no terms), shared with the snapshots.
    let docs = located.iter().map(|l| l.doc.clone()).collect();
    let postings = snapshots
        .iter()
        .zip(&position)
        .flat_map(|(snapshot, position)| {
            snapshot
                .postings
                .iter()
                .flat_map(|p| p.iter())
                .map(move |(term, list)| {
                    let list = list
                        .iter()
                        .filter_map(|&(entry, tf)| {
                            Some((
                                *position.get(entry as usize).filter(|p| **p != u32::MAX)?,
                                tf,
                            ))
                        })
                        .collect();
                    (term.clone(), list)
                })
        });
    Corpus::from_postings(docs, postings)
}

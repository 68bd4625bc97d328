//! One scope's snapshot: what the cache keeps of a memory directory.
//!
//! Owns: `ScopeSnapshot` (each file's stamp and terms, or the postings as loaded), `Entry`, and
//! turning loaded postings back into terms per document.
//! Deliberately does not: refresh from the disk (`mod.rs`), build a corpus (`assemble`) or store
//! a snapshot (`persisted`); those three use this file, which uses none of them.

use std::collections::HashSet;
use std::sync::Arc;

use crate::rank::corpus::DocTerms;

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Entry {
    pub(super) file_name: String,
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
    /// `None` for a file that does not parse: remembered so it is not re-read every call.
    /// Shared, because every refresh carries each unchanged entry over: a long-lived cache
    /// (the compose service) would otherwise copy every term of every memory on every call.
    pub(super) doc: Option<Arc<DocTerms>>,
}

/// Each term of a scope with the entries that have it: (entry index, weighted frequency).
pub(super) type ScopePostings = Vec<(Arc<str>, Vec<(u32, f32)>)>;

#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ScopeSnapshot {
    /// Sorted by file name.
    pub(super) entries: Vec<Entry>,
    /// Set while the snapshot is as loaded from `index.sqlite`: the entries' terms are here and
    /// every `doc.terms` is empty. A change to the scope turns it back into terms per document
    /// (`with_terms_per_document`) before re-reading what changed.
    pub(super) postings: Option<Arc<ScopePostings>>,
}

impl ScopeSnapshot {
    /// Whether the terms are in `postings` (as loaded), which an empty scope trivially is.
    pub(super) fn terms_in_postings(&self) -> bool {
        self.postings.is_some() || self.entries.is_empty()
    }

    /// This snapshot with every entry's terms in its own `DocTerms` (inverting the postings of
    /// a loaded snapshot, each word taken from `words`), ready to have entries replaced.
    pub(super) fn with_terms_per_document(&self, words: &mut HashSet<Arc<str>>) -> ScopeSnapshot {
        let Some(postings) = &self.postings else {
            return self.clone();
        };
        let mut terms: Vec<Vec<(Arc<str>, f32)>> = vec![Vec::new(); self.entries.len()];
        // Terms are stored in order, so each document's list comes out sorted, as `from_memory`
        // makes it.
        for (term, list) in postings.iter() {
            let term = shared_word(words, term);
            for &(entry, tf) in list {
                terms[entry as usize].push((term.clone(), tf));
            }
        }
        let entries = self
            .entries
            .iter()
            .zip(terms)
            .map(|(e, terms)| Entry {
                doc: e.doc.as_ref().map(|d| {
                    Arc::new(DocTerms {
                        terms,
                        ..d.without_terms()
                    })
                }),
                ..e.clone()
            })
            .collect();
        ScopeSnapshot {
            entries,
            postings: None,
        }
    }
}

/// The copy of `word` in `words`, added if it is not there yet.
pub(super) fn shared_word(words: &mut HashSet<Arc<str>>, word: &Arc<str>) -> Arc<str> {
    match words.get(word.as_ref()) {
        Some(shared) => shared.clone(),
        None => {
            words.insert(word.clone());
            word.clone()
        }
    }
}

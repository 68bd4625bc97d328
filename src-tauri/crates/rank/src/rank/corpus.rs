//! The ranking corpus: every memory of the covered scopes as weighted index terms.
//!
//! Owns: turning a memory into a `DocTerms` (headline fields weighted over the body), the
//! interned-term corpus the scorers read (built from documents, or assembled from postings a
//! snapshot kept), and project-over-user shadowing.
//! Deliberately does not: read the disk (see `snapshot`) or score.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::tokenize::terms;
use ambry_store::memory::{Enforce, Memory, Retiring, Scope};

/// How much a headline occurrence (name parts, type, description, tags) counts against a body
/// occurrence (DESIGN §4; the eval sweep in the `rank` module notes found 2–4 equivalent).
pub const HEADLINE_WEIGHT: f32 = 3.0;

/// One memory reduced to what ranking needs.
#[derive(Debug, Clone, PartialEq)]
pub struct DocTerms {
    pub scope: Scope,
    pub name: String,
    pub kind: String,
    pub description: String,
    pub path: PathBuf,
    pub body_bytes: u64,
    /// Whether the memory is retired, as its file said when it was read: a search marks its
    /// hits from here instead of reading their files again.
    pub retiring: Retiring,
    /// The memory's rule (DESIGN §16), so a tool call is checked against every rule in scope
    /// without reading a memory file.
    pub rule: Option<Arc<Enforce>>,
    /// The memory's `when` phrases (DESIGN §5), as `memory::when::bounded` reads them: their
    /// words are terms of a field of their own (see `rank::when`), and each has its own vector.
    pub when: Arc<[String]>,
    /// Weighted length: headline terms × HEADLINE_WEIGHT + body terms (the `when` field is
    /// scored apart and does not count).
    pub length: f32,
    /// (term, weighted frequency), one entry per distinct term. Terms are shared strings so a
    /// snapshot and the corpus built from it hold one copy of each word. Empty in a document a
    /// snapshot loaded from `index.sqlite` (its scope's postings hold the terms); a corpus reads
    /// terms from its postings only.
    pub terms: Vec<(Arc<str>, f32)>,
}

impl DocTerms {
    pub fn from_memory(memory: &Memory) -> DocTerms {
        let headline = format!(
            "{} {} {} {}",
            memory.name.replace('-', " "),
            memory.kind.replace('-', " "),
            memory.description,
            memory.tags.join(" ")
        );
        let mut weights: HashMap<String, f32> = HashMap::new();
        let mut length = 0.0;
        for t in terms(&headline) {
            *weights.entry(t).or_default() += HEADLINE_WEIGHT;
            length += HEADLINE_WEIGHT;
        }
        for t in terms(&memory.body) {
            *weights.entry(t).or_default() += 1.0;
            length += 1.0;
        }
        super::when_terms::add_terms(&memory.lifecycle.when, &mut weights);
        let mut terms: Vec<(Arc<str>, f32)> = weights
            .into_iter()
            .map(|(t, w)| (Arc::from(t), w))
            .collect();
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        DocTerms {
            scope: memory.scope,
            name: memory.name.clone(),
            kind: memory.kind.clone(),
            description: memory.description.clone(),
            path: memory.path.clone(),
            body_bytes: memory.body.len() as u64,
            retiring: memory.retiring(),
            rule: memory.lifecycle.enforce.clone().map(Arc::new),
            when: memory.lifecycle.when.clone().into(),
            length,
            terms,
        }
    }

    /// The same document without its terms.
    pub fn without_terms(&self) -> DocTerms {
        DocTerms {
            scope: self.scope,
            name: self.name.clone(),
            kind: self.kind.clone(),
            description: self.description.clone(),
            path: self.path.clone(),
            body_bytes: self.body_bytes,
            retiring: self.retiring.clone(),
            rule: self.rule.clone(),
            when: self.when.clone(),
            length: self.length,
            terms: Vec::new(),
        }
    }
}

/// A searchable set of documents with an inverted index.
#[derive(Debug, Default)]
pub struct Corpus {
    /// Shared with the snapshots they came from: building or assembling a corpus copies no
    /// memory's terms or fields. Their `terms` may be empty (see `DocTerms::terms`).
    pub docs: Vec<Arc<DocTerms>>,
    term_ids: HashMap<Arc<str>, u32>,
    /// postings[term_id] = [(doc index, weighted tf)]
    postings: Vec<Vec<(u32, f32)>>,
    pub average_length: f32,
}

impl Corpus {
    /// Builds the corpus of one agent's view: a project memory shadows a user memory of the
    /// same name.
    pub fn build(docs: impl IntoIterator<Item = impl Into<Arc<DocTerms>>>) -> Corpus {
        Corpus::index(shadowed(docs.into_iter().map(Into::into).collect()))
    }

    /// Builds a corpus where every memory stands on its own: memories of many projects (and
    /// the user memories they would shadow) searched at once.
    pub fn build_unshadowed(docs: impl IntoIterator<Item = impl Into<Arc<DocTerms>>>) -> Corpus {
        Corpus::index(docs.into_iter().map(Into::into).collect())
    }

    fn index(mut all: Vec<Arc<DocTerms>>) -> Corpus {
        sort_for_ties(&mut all);
        let mut corpus = Corpus::default();
        // Documents are visited in corpus order, so each term's postings come out in document
        // order (what `posted` searches).
        for (i, doc) in all.iter().enumerate() {
            for (term, tf) in &doc.terms {
                let id = corpus.term_id(term);
                corpus.postings[id as usize].push((i as u32, *tf));
            }
        }
        corpus.average_length = average_length(&all);
        corpus.docs = all;
        corpus
    }

    /// A corpus from documents already shadowed and ordered with `sort_for_ties`, and each
    /// term's postings over them, in any order: the same corpus `index` builds from those
    /// documents with their terms (each term's postings sorted into document order here).
    pub(crate) fn from_postings(
        docs: Vec<Arc<DocTerms>>,
        postings: impl IntoIterator<Item = (Arc<str>, Vec<(u32, f32)>)>,
    ) -> Corpus {
        let mut corpus = Corpus::default();
        for (term, list) in postings {
            if list.is_empty() {
                continue;
            }
            match corpus.term_ids.get(&term) {
                Some(&id) => corpus.postings[id as usize].extend(list),
                None => {
                    corpus.term_ids.insert(term, corpus.postings.len() as u32);
                    corpus.postings.push(list);
                }
            }
        }
        // A scope's postings follow its file names and a term's lists from several scopes are
        // appended one after another; `posted` binary-searches them, so they must be in
        // document order as `index` makes them. A document is listed once per term, so the
        // unstable sort has no ties to reorder.
        for list in &mut corpus.postings {
            if !list.is_sorted_by_key(|p| p.0) {
                list.sort_unstable_by_key(|p| p.0);
            }
        }
        corpus.average_length = average_length(&docs);
        corpus.docs = docs;
        corpus
    }

    fn term_id(&mut self, term: &Arc<str>) -> u32 {
        if let Some(id) = self.term_ids.get(term) {
            return *id;
        }
        let id = self.postings.len() as u32;
        self.term_ids.insert(term.clone(), id);
        self.postings.push(Vec::new());
        id
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Every term with its postings, in term order: two corpora are the same when these and
    /// their documents are.
    #[cfg(test)]
    pub(crate) fn postings_by_term(&self) -> std::collections::BTreeMap<String, Vec<(u32, f32)>> {
        self.term_ids
            .iter()
            .map(|(t, id)| (t.to_string(), self.postings[*id as usize].clone()))
            .collect()
    }

    /// The documents without their terms (which a corpus keeps in its postings alone, whether or
    /// not its documents still have them): two corpora are the same when these and
    /// `postings_by_term` are.
    #[cfg(test)]
    pub(crate) fn documents_without_terms(&self) -> Vec<DocTerms> {
        self.docs.iter().map(|d| d.without_terms()).collect()
    }

    /// Documents containing `term`, with weighted frequencies, in document order.
    pub fn postings(&self, term: &str) -> &[(u32, f32)] {
        self.term_ids
            .get(term)
            .map_or(&[], |id| self.postings[*id as usize].as_slice())
    }

    /// Whether `postings` (one term's, from `postings`) include document `doc`: a binary search,
    /// since every corpus, indexed or assembled, lists each term's documents in document order.
    pub fn posted(postings: &[(u32, f32)], doc: u32) -> bool {
        postings.binary_search_by_key(&doc, |(d, _)| *d).is_ok()
    }
}

/// Drops every document a document of the same name in a scope of higher precedence shadows:
/// project over team over user (`Scope`'s order).
pub(crate) fn shadowed<D: std::borrow::Borrow<DocTerms>>(mut all: Vec<D>) -> Vec<D> {
    let mut top: HashMap<String, Scope> = HashMap::new();
    for d in all.iter().map(|d| d.borrow()) {
        let best = top.entry(d.name.clone()).or_insert(d.scope);
        *best = (*best).max(d.scope);
    }
    all.retain(|d| top.get(&d.borrow().name) == Some(&d.borrow().scope));
    all
}

/// The corpus order, which is also how ties rank: scope, then name, then where the file is
/// (which project). Stable, so equal keys keep the order the snapshots listed them in.
pub(crate) fn sort_for_ties<D: std::borrow::Borrow<DocTerms>>(all: &mut [D]) {
    all.sort_by(|a, b| {
        let (a, b) = (a.borrow(), b.borrow());
        a.scope
            .cmp(&b.scope)
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.path.cmp(&b.path))
    });
}

/// Mean weighted length, summed in corpus order (so a corpus assembled from postings gets the
/// very same float as one indexed from documents).
fn average_length(docs: &[Arc<DocTerms>]) -> f32 {
    let total: f32 = docs.iter().fold(0.0, |sum, d| sum + d.length);
    if docs.is_empty() {
        1.0
    } else {
        (total / docs.len() as f32).max(1.0)
    }
}

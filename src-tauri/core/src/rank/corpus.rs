//! The ranking corpus: every memory of the covered scopes as weighted index terms.
//!
//! Owns: turning a memory into a `DocTerms` (headline fields weighted over the body), the
//! interned-term corpus the scorers read, and project-over-user shadowing.
//! Deliberately does not: read the disk (see `snapshot`) or score.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::tokenize::terms;
use crate::memory::{Memory, Scope};

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
    /// Weighted length: headline terms × HEADLINE_WEIGHT + body terms.
    pub length: f32,
    /// (term, weighted frequency), one entry per distinct term. Terms are shared strings so a
    /// snapshot loaded from disk and the corpus built from it hold one copy of each word.
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
        let mut terms: Vec<(Arc<str>, f32)> = weights.into_iter().map(|(t, w)| (Arc::from(t), w)).collect();
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        DocTerms {
            scope: memory.scope,
            name: memory.name.clone(),
            kind: memory.kind.clone(),
            description: memory.description.clone(),
            path: memory.path.clone(),
            body_bytes: memory.body.len() as u64,
            length,
            terms,
        }
    }
}

/// A searchable set of documents with an inverted index.
#[derive(Debug, Default)]
pub struct Corpus {
    /// Shared with the snapshots they came from: building a corpus copies no memory's terms.
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
        let mut all: Vec<Arc<DocTerms>> = docs.into_iter().map(Into::into).collect();
        let project_names: std::collections::HashSet<String> =
            all.iter().filter(|d| d.scope == Scope::Project).map(|d| d.name.clone()).collect();
        all.retain(|d| d.scope == Scope::Project || !project_names.contains(&d.name));
        Corpus::index(all)
    }

    /// Builds a corpus where every memory stands on its own: memories of many projects (and
    /// the user memories they would shadow) searched at once.
    pub fn build_unshadowed(docs: impl IntoIterator<Item = impl Into<Arc<DocTerms>>>) -> Corpus {
        Corpus::index(docs.into_iter().map(Into::into).collect())
    }

    fn index(mut all: Vec<Arc<DocTerms>>) -> Corpus {
        // Ties rank in this order: scope, then name, then where the file is (which project).
        all.sort_by(|a, b| a.scope.cmp(&b.scope).then_with(|| a.name.cmp(&b.name)).then_with(|| a.path.cmp(&b.path)));

        let mut corpus = Corpus::default();
        let mut total = 0.0;
        for (i, doc) in all.iter().enumerate() {
            total += doc.length;
            for (term, tf) in &doc.terms {
                let id = match corpus.term_ids.get(term) {
                    Some(id) => *id,
                    None => {
                        let id = corpus.postings.len() as u32;
                        corpus.term_ids.insert(term.clone(), id);
                        corpus.postings.push(Vec::new());
                        id
                    }
                };
                corpus.postings[id as usize].push((i as u32, *tf));
            }
        }
        corpus.average_length = if all.is_empty() { 1.0 } else { (total / all.len() as f32).max(1.0) };
        corpus.docs = all;
        corpus
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Documents containing `term`, with weighted frequencies, in document order.
    pub fn postings(&self, term: &str) -> &[(u32, f32)] {
        self.term_ids.get(term).map_or(&[], |id| self.postings[*id as usize].as_slice())
    }

    /// Whether `postings` (one term's, from `postings`) include document `doc`: a binary search,
    /// since `index` lists each term's documents in document order.
    pub fn posted(postings: &[(u32, f32)], doc: u32) -> bool {
        postings.binary_search_by_key(&doc, |(d, _)| *d).is_ok()
    }
}

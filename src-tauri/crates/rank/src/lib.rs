//! Ambry's ranker: which memories a prompt is about.
//!
//! Owns: tokenizing, stemming and synonyms, BM25 and the corpus snapshot (`rank`), the local
//! embedding model, its sidecars and reindex (`embed`), fusion and the gate.
//! Deliberately does not: write memories except through the store, read transcripts or decide
//! what an agent is given (composition does).

pub mod embed;
pub mod rank;

//! Vectors of what was said in sessions, for semantic recall (DESIGN §6, §7).
//!
//! Owns: cutting each user and assistant message into chunks that fit the model's window, the
//! stored form of a chunk's vector (unit length, quantized to one byte per dimension with one
//! scale), filling the vectors of messages that have none (only those: the indexer and the
//! watcher never embed, so they stay fast without the model), forgetting every vector when the
//! model changes, and the nearest chunks of each session to a query vector (max-sim).
//! Deliberately does not: load the model (callers hand in a `TextEmbedder`), index transcripts,
//! delete a file's vectors (`rows` and `vault` do, with its messages) or fuse with lexical
//! ranking (see `session_ranking`).

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};

use super::candidate_filter::CandidateFilter;
use super::store::index::SessionIndex;
use super::{RecallQuery, SessionError};
use ambry_rank::embed::{EmbedError, TextEmbedder};

/// `meta` key naming the model every stored vector was made by.
const MODEL_KEY: &str = "sessions.vector_model";
/// Words per chunk and between chunk starts: about 160–200 of the model's 256 tokens for prose,
/// so a chunk is rarely cut short by the tokenizer; the overlap keeps a sentence on a boundary
/// whole in one of the two.
const CHUNK_WORDS: usize = 120;
const CHUNK_STRIDE: usize = 100;
/// A very long message (a pasted log, a long plan) counts by its first chunks only.
const MAX_CHUNKS: usize = 12;
/// Messages embedded per transaction: a concurrent indexer waits at most this long.
const MESSAGES_PER_BATCH: usize = 32;

/// What a fill pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct VectorFill {
    /// Messages that got their vectors.
    pub messages: u64,
    pub chunks: u64,
    /// Messages still without vectors (the pass was bounded).
    pub remaining: u64,
}

/// One session's chunks nearest to a query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NearSession {
    pub file_id: i64,
    /// The best chunk's cosine.
    pub similarity: f32,
    /// Its best messages (id, cosine of their best chunk), best first.
    pub messages: Vec<(i64, f32)>,
}

/// The chunks of one message's text, in order (none for blank text).
pub fn chunks_of(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = 0;
    loop {
        let end = (start + CHUNK_WORDS).min(words.len());
        out.push(words[start..end].join(" "));
        if end == words.len() || out.len() == MAX_CHUNKS {
            return out;
        }
        start += CHUNK_STRIDE;
    }
}

/// Unit-length `v` as stored: its largest magnitude (f32, little-endian), then each dimension
/// as a signed byte of that scale. A quarter of the f32 size; cosines move by under 0.01.
pub(crate) fn encode(v: &[f32]) -> Vec<u8> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let unit: Vec<f32> = v
        .iter()
        .map(|x| if norm > 0.0 { x / norm } else { 0.0 })
        .collect();
    let scale = unit.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let mut out = Vec::with_capacity(4 + unit.len());
    out.extend_from_slice(&scale.to_le_bytes());
    for x in &unit {
        let q = if scale > 0.0 {
            (x / scale * 127.0).round()
        } else {
            0.0
        };
        out.push(q.clamp(-127.0, 127.0) as i8 as u8);
    }
    out
}

/// The cosine of a stored vector with a unit-length `query` (0 for a vector of another size).
pub(crate) fn similarity(stored: &[u8], query: &[f32]) -> f32 {
    if stored.len() != 4 + query.len() {
        return 0.0;
    }
    let scale = f32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
    let sum: f32 = stored[4..]
        .iter()
        .zip(query)
        .map(|(q, x)| f32::from(*q as i8) * x)
        .sum();
    sum * scale / 127.0
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// Why a fill pass stopped.
#[derive(Debug)]
pub enum FillError {
    Index(SessionError),
    Model(EmbedError),
}

impl From<SessionError> for FillError {
    fn from(e: SessionError) -> Self {
        FillError::Index(e)
    }
}

impl SessionIndex {
    /// Embeds the user and assistant messages that have no vector of `embedder`'s model yet,
    /// newest first, at most `limit` of them (`None`: all). Vectors of another model are
    /// dropped first. `progress` gets the running count after each batch.
    pub fn fill_vectors(
        &mut self,
        embedder: &mut dyn TextEmbedder,
        limit: Option<usize>,
        progress: &mut dyn FnMut(VectorFill),
    ) -> Result<VectorFill, FillError> {
        let model = embedder.model_id().to_string();
        self.forget_vectors_of_other_models(&model)?;
        let mut done = VectorFill::default();
        let mut left = limit.unwrap_or(usize::MAX);
        // Known when a batch comes back short: none are left, and counting them (a scan of
        // every message, as each batch is) is not needed — a recall fills before each search.
        let mut none_left = false;
        while left > 0 {
            let wanted = MESSAGES_PER_BATCH.min(left);
            let batch = self.unembedded(wanted).map_err(|e| self.sql(e))?;
            none_left = batch.len() < wanted;
            if batch.is_empty() {
                break;
            }
            let mut texts = Vec::new();
            let mut owners = Vec::new();
            for (id, file_id, text) in &batch {
                for (n, chunk) in chunks_of(text).into_iter().enumerate() {
                    texts.push(chunk);
                    owners.push((*id, *file_id, n as i64));
                }
            }
            let vectors = embedder.embed(&texts).map_err(FillError::Model)?;
            self.in_transaction(|index| -> rusqlite::Result<()> {
                let mut insert = index.conn.prepare_cached(
                    "INSERT OR REPLACE INTO session_vectors(message_id, chunk, file_id, vector) VALUES (?1, ?2, ?3, ?4)",
                )?;
                for ((id, file_id, n), v) in owners.iter().zip(&vectors) {
                    insert.execute(params![id, n, file_id, encode(v)])?;
                }
                // A message with no words gets an empty row so it is not picked up again.
                let mut blank = index.conn.prepare_cached(
                    "INSERT OR IGNORE INTO session_vectors(message_id, chunk, file_id, vector) VALUES (?1, -1, ?2, x'')",
                )?;
                for (id, file_id, text) in &batch {
                    if text.split_whitespace().next().is_none() {
                        blank.execute(params![id, file_id])?;
                    }
                }
                Ok(())
            })?;
            done.messages += batch.len() as u64;
            done.chunks += texts.len() as u64;
            left = left.saturating_sub(batch.len());
            progress(done);
        }
        done.remaining = if none_left {
            0
        } else {
            self.unembedded_count().map_err(|e| self.sql(e))?
        };
        Ok(done)
    }

    /// How many user and assistant messages have no vector yet.
    pub fn unembedded_count(&self) -> rusqlite::Result<u64> {
        self.conn.query_row(
            "SELECT count(*) FROM session_messages m WHERE m.role != 'tool'
               AND NOT EXISTS (SELECT 1 FROM session_vectors v WHERE v.message_id = m.id)",
            [],
            |r| r.get::<_, i64>(0).map(|n| n as u64),
        )
    }

    /// The model the stored vectors were made by, if any were.
    pub fn vector_model(&self) -> Result<Option<String>, SessionError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [MODEL_KEY], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.sql(e))
    }

    fn forget_vectors_of_other_models(&mut self, model: &str) -> Result<(), SessionError> {
        if self.vector_model()?.as_deref() == Some(model) {
            return Ok(());
        }
        self.in_transaction(|index| {
            index.conn.execute("DELETE FROM session_vectors", [])?;
            index.conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)",
                params![MODEL_KEY, model],
            )
        })?;
        Ok(())
    }

    /// Up to `limit` messages without vectors, newest first: (id, file id, text).
    fn unembedded(&self, limit: usize) -> rusqlite::Result<Vec<(i64, i64, String)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT m.id, m.file_id, m.text FROM session_messages m WHERE m.role != 'tool'
               AND NOT EXISTS (SELECT 1 FROM session_vectors v WHERE v.message_id = m.id)
             ORDER BY m.id DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect()
    }

    /// Each session's best cosine with `query` (made by `model`) over its chunks, best first,
    /// within `q`'s source and folder; nothing when the stored vectors are another model's.
    pub(crate) fn nearest_sessions(
        &self,
        query: &[f32],
        model: &str,
        q: &RecallQuery,
        per_session: usize,
    ) -> Result<Vec<NearSession>, SessionError> {
        if self.vector_model()?.as_deref() != Some(model) {
            return Ok(Vec::new());
        }
        let query = unit(query.to_vec());
        let filter = CandidateFilter::of(q);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT v.file_id, v.message_id, v.vector FROM session_vectors v
                 JOIN session_files f ON f.id = v.file_id
                 WHERE v.chunk >= 0 AND f.is_binary = 0 AND {}",
                CandidateFilter::SQL
            ))
            .map_err(|e| self.sql(e))?;
        let mut best: HashMap<i64, HashMap<i64, f32>> = HashMap::new();
        let mut rows = stmt
            .query(params![filter.source, filter.cwd, filter.below_cwd])
            .map_err(|e| self.sql(e))?;
        while let Some(r) = rows.next().map_err(|e| self.sql(e))? {
            let (file_id, message_id): (i64, i64) = (
                r.get(0).map_err(|e| self.sql(e))?,
                r.get(1).map_err(|e| self.sql(e))?,
            );
            let stored = r
                .get_ref(2)
                .map_err(|e| self.sql(e))?
                .as_blob()
                .unwrap_or_default();
            let s = similarity(stored, &query);
            let slot = best
                .entry(file_id)
                .or_default()
                .entry(message_id)
                .or_insert(f32::MIN);
            *slot = slot.max(s);
        }
        let mut out: Vec<NearSession> = best
            .into_iter()
            .map(|(file_id, messages)| {
                let mut messages: Vec<(i64, f32)> = messages.into_iter().collect();
                messages.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                messages.truncate(per_session);
                NearSession {
                    file_id,
                    similarity: messages[0].1,
                    messages,
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.similarity
                .total_cmp(&a.similarity)
                .then(b.file_id.cmp(&a.file_id))
        });
        Ok(out)
    }

    fn sql(&self, e: rusqlite::Error) -> SessionError {
        SessionError::from_sql(&self.path, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_into_overlapping_chunks_within_the_window() {
        assert!(chunks_of("  \n ").is_empty());
        assert_eq!(chunks_of("one short message"), vec!["one short message"]);
        let long: Vec<String> = (0..250).map(|i| format!("w{i}")).collect();
        let chunks = chunks_of(&long.join(" "));
        assert_eq!(chunks.len(), 3);
        assert!(chunks.iter().all(|c| c.split(' ').count() <= CHUNK_WORDS));
        assert!(
            chunks[1].starts_with("w100 ") && chunks[0].ends_with(" w119"),
            "overlap of {} words",
            CHUNK_WORDS - CHUNK_STRIDE
        );
        assert!(chunks[2].ends_with(" w249"), "the end is covered");
        let huge: Vec<&str> = std::iter::repeat_n("x", 100_000).collect();
        assert_eq!(chunks_of(&huge.join(" ")).len(), MAX_CHUNKS);
    }

    #[test]
    fn stored_vectors_keep_their_cosines() {
        let a: Vec<f32> = (0..384)
            .map(|i| ((i * 7 % 13) as f32 - 6.0) / 3.0)
            .collect();
        let b: Vec<f32> = (0..384)
            .map(|i| ((i * 5 % 11) as f32 - 5.0) / 2.0)
            .collect();
        let exact = ambry_rank::embed::cosine(&a, &b);
        let stored = encode(&a);
        assert_eq!(stored.len(), 4 + 384);
        assert!((similarity(&stored, &unit(b.clone())) - exact).abs() < 0.01);
        assert!((similarity(&stored, &unit(a.clone())) - 1.0).abs() < 0.01);
        assert_eq!(
            similarity(&stored, &[1.0, 0.0]),
            0.0,
            "another size scores nothing"
        );
        assert_eq!(similarity(&encode(&[0.0; 4]), &[0.5; 4]), 0.0);
    }
}

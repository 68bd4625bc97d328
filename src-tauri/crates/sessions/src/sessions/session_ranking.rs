//! Session recall (DESIGN §7): sessions ranked as sessions, by their best turns and by their
//! whole text, each shown with highlighted snippets of its best turns.
//!
//! Owns: gathering candidate sessions (those with matching messages, from message-level recall,
//! and, for a plain question, those whose whole text holds some of its words or, given the
//! question's vector, whose chunks lie nearest to it), scoring each from its best message, a
//! bm25 over its whole text, the share of the question's words it holds anywhere and its nearest
//! chunk's cosine, keeping sessions with a message that matches the whole query above the rest,
//! and choosing the turns shown for each (the nearest ones for a session found by meaning alone).
//! Deliberately does not: turn text into FTS5 queries or rank messages (see `recall`), index,
//! store or compare vectors (see `vectors`), or load the model (the workspace does).

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};

use super::candidate_filter::CandidateFilter;
use super::recall::{
    all_words, is_query_error, meaningful_words, render_snippet, uses_query_syntax, MessageMatch,
    RECALL_LIMIT_MAX, SNIPPET_TOKENS, TOOL_WEIGHT,
};
use super::store::index::SessionIndex;
use super::store::transcript::meta_from_row;
use super::{RecallHit, RecallQuery, RecallTurn, SessionError, SessionMeta, SnippetPart};

/// How a session's signals add up (each in [0, 1]). Tuned on the dev half of
/// `tests/session_eval` only.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SessionWeights {
    /// The session's bm25 over its whole text, relative to the best candidate's.
    pub whole_text: f64,
    /// Its best message's score from message-level recall.
    pub best_message: f64,
    /// The share of the question's meaningful words found anywhere in the session.
    pub coverage: f64,
    /// With the model: the session's nearest chunk's cosine with the question, above
    /// `semantic_floor` and relative to the best session's.
    pub semantic: f64,
    /// Cosines at or below this say nothing (unrelated text scores about this much).
    pub semantic_floor: f32,
    /// Sessions with a message matching the whole query stay above the rest even with the model.
    pub strict_first: bool,
}

pub const DEFAULT_WEIGHTS: SessionWeights = SessionWeights {
    whole_text: 0.5,
    best_message: 0.3,
    coverage: 0.2,
    // On the dev half: 1 → 0.897/0.827, 4 → 0.974/0.904, 8 → 0.987/0.916, 16 the same, 64
    // loses keyword questions whose words are spread over turns (floors 0.3 and 0.4 lower).
    semantic: 8.0,
    semantic_floor: 0.2,
    strict_first: true,
};

/// A question's vector, and the model that made it, for semantic recall.
#[derive(Debug, Clone, Copy)]
pub struct QueryVector<'a> {
    pub vector: &'a [f32],
    pub model: &'a str,
}

/// Matching messages looked at per wanted session (several often come from one session).
const MESSAGE_POOL_FACTOR: usize = 10;
const MIN_MESSAGE_POOL: usize = 100;
/// Sessions taken from the whole-text query per wanted session, before scoring.
const TEXT_POOL_FACTOR: usize = 5;
const MIN_TEXT_POOL: usize = 50;
/// Turns kept per session as snippets.
const TURNS_KEPT: usize = 3;

/// Sessions found by a question's words, before scoring: ranking by words and ranking with
/// meaning both start from it, so a recall that tries words first asks SQLite once.
#[derive(Clone)]
pub struct WordCandidates {
    query: RecallQuery,
    limit: usize,
    syntax: bool,
    text_query: Option<String>,
    candidates: Vec<Candidate>,
}

#[derive(Clone)]
struct Candidate {
    hit: RecallHit,
    /// For each of `hit.turns` from a matching message, in order: the message and the query
    /// that found it. Snippets are made only for the sessions returned, not every candidate.
    unsnipped: Vec<(i64, String)>,
    file_id: i64,
    best_message: f64,
    strict: bool,
    /// -bm25 of the whole text (higher is better); 0 when it does not match.
    whole_text: f64,
    coverage: f64,
    /// The nearest chunk's cosine and the session's best messages by cosine (with the model).
    similarity: f32,
    near_messages: Vec<(i64, f32)>,
}

impl SessionIndex {
    /// Sessions matching what a person typed, best first; `limit` counts sessions. Each carries
    /// its best turns; see [`RecallHit`].
    pub fn recall(&self, q: &RecallQuery) -> Result<Vec<RecallHit>, SessionError> {
        self.recall_weighted(q, DEFAULT_WEIGHTS)
    }

    /// [`SessionIndex::recall`] with other weights (for measuring them).
    pub fn recall_weighted(
        &self,
        q: &RecallQuery,
        weights: SessionWeights,
    ) -> Result<Vec<RecallHit>, SessionError> {
        self.recall_with(q, weights, None)
    }

    /// Session recall that also ranks by meaning when `semantic` holds the question's vector:
    /// sessions whose chunks lie nearest to it join the lexical candidates, and each session's
    /// nearest chunk's cosine adds to its score. Without it, exactly the lexical ranking.
    pub fn recall_with(
        &self,
        q: &RecallQuery,
        weights: SessionWeights,
        semantic: Option<QueryVector<'_>>,
    ) -> Result<Vec<RecallHit>, SessionError> {
        match self.word_candidates(q)? {
            Some(found) => self.ranked(found, weights, semantic),
            None => Ok(Vec::new()),
        }
    }

    /// The sessions the question's words find, with their signals by words, not yet scored;
    /// `None` for an empty question or limit.
    pub(super) fn word_candidates(
        &self,
        q: &RecallQuery,
    ) -> Result<Option<WordCandidates>, SessionError> {
        let text = q.text.trim();
        if text.is_empty() || q.limit == 0 {
            return Ok(None);
        }
        let limit = q.limit.min(RECALL_LIMIT_MAX);
        let pool = (limit * MESSAGE_POOL_FACTOR).clamp(MIN_MESSAGE_POOL, RECALL_LIMIT_MAX);
        let messages = self.matching_messages(&RecallQuery {
            limit: pool,
            ..q.clone()
        })?;
        let syntax = uses_query_syntax(text);
        let terms = meaningful_words(text);
        let any_term = (!terms.is_empty()).then(|| {
            terms
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(" OR ")
        });
        // What the whole text is matched against: a written query as it is, a question by any
        // of its meaningful words.
        let text_query = if syntax {
            Some(text.to_string())
        } else {
            any_term.clone()
        };
        let sql = |e| SessionError::from_sql(&self.path, e);

        let mut candidates: Vec<Candidate> = Vec::new();
        let mut by_path: HashMap<String, usize> = HashMap::new();
        for MessageMatch {
            hit: m,
            id,
            fts_query,
            file_id,
        } in messages
        {
            match by_path.get(&m.path) {
                Some(&i) => {
                    let c = &mut candidates[i];
                    c.hit.matching_turns += 1;
                    if c.hit.turns.len() < TURNS_KEPT {
                        c.hit.turns.push(turn_of(&m));
                        c.unsnipped.push((id, fts_query));
                    }
                }
                None => {
                    by_path.insert(m.path.clone(), candidates.len());
                    let turn = turn_of(&m);
                    candidates.push(Candidate {
                        best_message: m.score,
                        strict: !m.widened,
                        hit: RecallHit {
                            turns: vec![turn],
                            matching_turns: 1,
                            ..m
                        },
                        unsnipped: vec![(id, fts_query)],
                        file_id,
                        whole_text: 0.0,
                        coverage: 0.0,
                        similarity: 0.0,
                        near_messages: Vec::new(),
                    });
                }
            }
        }
        if let Some(query) = &text_query {
            let text_pool = (limit * TEXT_POOL_FACTOR).clamp(MIN_TEXT_POOL, RECALL_LIMIT_MAX);
            let whole = match self.whole_text_search(query, q, text_pool) {
                Err(e) if is_query_error(&e) => Vec::new(),
                other => other.map_err(sql)?,
            };
            for (hit, file_id, score) in whole {
                match by_path.get(&hit.path) {
                    Some(&i) => candidates[i].whole_text = score,
                    // A written query finds sessions through their messages only: a phrase
                    // split over two turns is no match.
                    None if syntax => {}
                    None => {
                        by_path.insert(hit.path.clone(), candidates.len());
                        candidates.push(Candidate {
                            hit,
                            unsnipped: Vec::new(),
                            file_id,
                            best_message: 0.0,
                            strict: false,
                            whole_text: score,
                            coverage: 0.0,
                            similarity: 0.0,
                            near_messages: Vec::new(),
                        });
                    }
                }
            }
            for c in candidates
                .iter_mut()
                .filter(|c| c.whole_text == 0.0 && c.best_message > 0.0)
            {
                c.whole_text = self
                    .whole_text_score(query, c.file_id)
                    .or_else(|e| if is_query_error(&e) { Ok(0.0) } else { Err(e) })
                    .map_err(sql)?;
            }
        }
        if terms.len() > 1 {
            let ids: Vec<i64> = candidates.iter().map(|c| c.file_id).collect();
            let held = self
                .terms_held("session_doc_fts", &terms, &ids)
                .map_err(sql)?;
            for c in candidates.iter_mut() {
                c.coverage = held[&c.file_id] as f64 / terms.len() as f64;
            }
        } else {
            candidates.iter_mut().for_each(|c| c.coverage = 1.0);
        }
        Ok(Some(WordCandidates {
            query: q.clone(),
            limit,
            syntax,
            text_query,
            candidates,
        }))
    }

    /// Scores and orders the sessions found by words, adding those nearest to `semantic`'s
    /// vector and each one's nearness when given, and picks each session's turns shown.
    pub(super) fn ranked(
        &self,
        found: WordCandidates,
        weights: SessionWeights,
        semantic: Option<QueryVector<'_>>,
    ) -> Result<Vec<RecallHit>, SessionError> {
        let WordCandidates {
            query,
            limit,
            syntax,
            text_query,
            mut candidates,
        } = found;
        let q = &query;
        let text = q.text.trim();
        let sql = |e| SessionError::from_sql(&self.path, e);
        // A written query (phrases, OR, prefixes) asks for words, not meaning.
        let semantic = semantic.filter(|_| !syntax);
        if let Some(query) = semantic {
            let near = self.nearest_sessions(query.vector, query.model, q, TURNS_KEPT)?;
            let by_file: HashMap<i64, usize> = candidates
                .iter()
                .enumerate()
                .map(|(i, c)| (c.file_id, i))
                .collect();
            let pool = (limit * TEXT_POOL_FACTOR).max(MIN_TEXT_POOL);
            for (rank, n) in near.into_iter().enumerate() {
                match by_file.get(&n.file_id) {
                    Some(&i) => {
                        candidates[i].similarity = n.similarity;
                        candidates[i].near_messages = n.messages;
                    }
                    // A session no nearer than unrelated text is no candidate.
                    None if rank < pool && n.similarity > weights.semantic_floor => {
                        let Some(hit) = self.hit_of_file(n.file_id).map_err(sql)? else {
                            continue;
                        };
                        candidates.push(Candidate {
                            hit,
                            unsnipped: Vec::new(),
                            file_id: n.file_id,
                            best_message: 0.0,
                            strict: false,
                            whole_text: 0.0,
                            coverage: 0.0,
                            similarity: n.similarity,
                            near_messages: n.messages,
                        });
                    }
                    None => {}
                }
            }
        }
        let best_similarity = candidates
            .iter()
            .map(|c| c.similarity)
            .fold(weights.semantic_floor, f32::max);
        let semantic_share = |c: &Candidate| {
            if best_similarity <= weights.semantic_floor {
                return 0.0;
            }
            f64::from(
                ((c.similarity - weights.semantic_floor)
                    / (best_similarity - weights.semantic_floor))
                    .clamp(0.0, 1.0),
            )
        };
        // Without the model every session is as strict as message-level recall said; with it,
        // only when strict sessions are to stay on top.
        let tiered = semantic.is_none() || weights.strict_first;

        let best_text = candidates
            .iter()
            .map(|c| c.whole_text)
            .fold(f64::MIN_POSITIVE, f64::max);
        let mut scored: Vec<(f64, Candidate)> = candidates
            .into_iter()
            .map(|c| {
                let s = weights.whole_text * (c.whole_text / best_text).clamp(0.0, 1.0)
                    + weights.best_message * c.best_message
                    + weights.coverage * c.coverage
                    + weights.semantic * semantic_share(&c);
                (s, c)
            })
            .collect();
        // Strict sessions first (stable on the signals within each tier); ties keep recall order.
        scored.sort_by(|a, b| {
            (b.1.strict && tiered)
                .cmp(&(a.1.strict && tiered))
                .then(b.0.total_cmp(&a.0))
        });
        scored.truncate(limit);

        let shown_query = text_query.unwrap_or_else(|| all_words(text));
        let scores: Vec<f64> = scored.iter().map(|(s, _)| *s).collect();
        let strict: Vec<bool> = scored.iter().map(|(_, c)| c.strict && tiered).collect();
        let mut out = Vec::with_capacity(scored.len());
        for ((_, mut c), score) in scored.into_iter().zip(tiered_scores(&scores, &strict)) {
            for (turn, (id, fts_query)) in c.hit.turns.iter_mut().zip(&c.unsnipped) {
                (turn.snippet, turn.snippet_parts) =
                    self.snippet_of(fts_query, *id).map_err(sql)?;
            }
            if c.hit.turns.is_empty() && !c.near_messages.is_empty() && c.whole_text == 0.0 {
                // Found by meaning alone: its nearest turns, without highlights.
                let ids: Vec<i64> = c.near_messages.iter().map(|(id, _)| *id).collect();
                c.hit.turns = self.turns_by_id(&ids).map_err(sql)?;
                c.hit.matching_turns = c.hit.turns.len() as u64;
            }
            if c.hit.turns.is_empty() {
                c.hit.turns = self.best_turns(&shown_query, c.file_id).map_err(sql)?;
                c.hit.matching_turns = 0;
            }
            if let Some(first) = c.hit.turns.first() {
                c.hit.ts = first.ts.clone();
                c.hit.role = first.role.clone();
                c.hit.snippet = first.snippet.clone();
                c.hit.snippet_parts = first.snippet_parts.clone();
            }
            c.hit.widened = !c.strict;
            c.hit.score = score;
            out.push(c.hit);
        }
        Ok(out)
    }

    /// A session's recall entry with no turns yet, by file id.
    fn hit_of_file(&self, file_id: i64) -> rusqlite::Result<Option<RecallHit>> {
        self.conn
            .prepare_cached(
                "SELECT session_id, source, path, cwd, coalesce(agent_title, first_prompt), model, first_ts, last_ts, messages,
                        strftime('%Y-%m-%dT%H:%M:%SZ', source_removed_at, 'unixepoch')
                 FROM session_files WHERE id = ?1",
            )?
            .query_row([file_id], |r| meta_from_row(r, 0).map(empty_hit))
            .optional()
    }

    /// Messages as turns, in the order given, their text's start as the snippet.
    fn turns_by_id(&self, ids: &[i64]) -> rusqlite::Result<Vec<RecallTurn>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT role, ts, text FROM session_messages WHERE id = ?1")?;
        let mut turns = Vec::new();
        for id in ids {
            let turn = stmt
                .query_row([id], |r| {
                    let text: String = r.get(2)?;
                    let words: Vec<&str> = text.split_whitespace().collect();
                    let mut snippet = words[..words.len().min(SNIPPET_TOKENS as usize)].join(" ");
                    if words.len() > SNIPPET_TOKENS as usize {
                        snippet.push('…');
                    }
                    Ok(RecallTurn {
                        role: r.get(0)?,
                        ts: r.get(1)?,
                        snippet_parts: vec![SnippetPart {
                            text: snippet.clone(),
                            hit: false,
                        }],
                        snippet,
                    })
                })
                .optional()?;
            turns.extend(turn);
        }
        Ok(turns)
    }

    /// Sessions whose whole text matches `fts_query`, best bm25 first, with their metadata.
    fn whole_text_search(
        &self,
        fts_query: &str,
        q: &RecallQuery,
        limit: usize,
    ) -> rusqlite::Result<Vec<(RecallHit, i64, f64)>> {
        let filter = CandidateFilter::of(q);
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT f.id, bm25(session_doc_fts) AS score,
                    f.session_id, f.source, f.path, f.cwd, coalesce(f.agent_title, f.first_prompt), f.model, f.first_ts, f.last_ts, f.messages,
                    strftime('%Y-%m-%dT%H:%M:%SZ', f.source_removed_at, 'unixepoch')
             FROM session_doc_fts
             JOIN session_files f ON f.id = session_doc_fts.rowid
             WHERE session_doc_fts MATCH ?4 AND {}
             ORDER BY score, f.id DESC
             LIMIT ?5",
            CandidateFilter::SQL
        ))?;
        let rows = stmt.query_map(
            params![
                filter.source,
                filter.cwd,
                filter.below_cwd,
                fts_query,
                limit as i64
            ],
            |r| {
                let hit = empty_hit(meta_from_row(r, 2)?);
                Ok((hit, r.get::<_, i64>(0)?, -r.get::<_, f64>(1)?))
            },
        )?;
        rows.collect()
    }

    /// One session's whole-text bm25 for `fts_query` (higher is better; 0 when it does not match).
    fn whole_text_score(&self, fts_query: &str, file_id: i64) -> rusqlite::Result<f64> {
        let score: Option<f64> = self
            .conn
            .prepare_cached("SELECT bm25(session_doc_fts) FROM session_doc_fts WHERE session_doc_fts MATCH ?1 AND rowid = ?2")?
            .query_row(params![fts_query, file_id], |r| r.get(0))
            .optional()?;
        Ok(score.map_or(0.0, |s| -s))
    }

    /// A session's best turns for `fts_query`, when no single message of it was among the
    /// message-level hits (its words are spread over several turns).
    fn best_turns(&self, fts_query: &str, file_id: i64) -> rusqlite::Result<Vec<RecallTurn>> {
        let (lo, hi): (Option<i64>, Option<i64>) = self
            .conn
            .prepare_cached("SELECT min(id), max(id) FROM session_messages WHERE file_id = ?1")?
            .query_row([file_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return Ok(Vec::new());
        };
        // The rowid range lets FTS5 skip to this file's messages instead of every match.
        let mut stmt = self.conn.prepare_cached(
            "SELECT m.role, m.ts, snippet(session_fts, 0, char(2), char(3), '…', ?5)
             FROM session_fts JOIN session_messages m ON m.id = session_fts.rowid
             WHERE session_fts MATCH ?1 AND session_fts.rowid BETWEEN ?2 AND ?3 AND m.file_id = ?4
             ORDER BY bm25(session_fts) * (CASE m.role WHEN 'tool' THEN ?7 ELSE 1.0 END), m.id
             LIMIT ?6",
        )?;
        let rows = stmt.query_map(
            params![
                fts_query,
                lo,
                hi,
                file_id,
                SNIPPET_TOKENS,
                TURNS_KEPT as i64,
                TOOL_WEIGHT
            ],
            |r| {
                let (snippet, snippet_parts) = render_snippet(&r.get::<_, String>(2)?);
                Ok(RecallTurn {
                    role: r.get(0)?,
                    ts: r.get(1)?,
                    snippet,
                    snippet_parts,
                })
            },
        )?;
        rows.collect()
    }
}

/// A session found through its whole text or its vectors, before its turns are chosen.
fn empty_hit(meta: SessionMeta) -> RecallHit {
    RecallHit {
        session_id: meta.session_id,
        source: meta.source,
        title: meta.title,
        cwd: meta.cwd,
        ts: None,
        role: String::new(),
        snippet: String::new(),
        snippet_parts: Vec::new(),
        score: 0.0,
        widened: true,
        path: meta.path,
        source_removed_at: meta.source_removed_at,
        turns: Vec::new(),
        matching_turns: 0,
    }
}

fn turn_of(hit: &RecallHit) -> RecallTurn {
    RecallTurn {
        ts: hit.ts.clone(),
        role: hit.role.clone(),
        snippet: hit.snippet.clone(),
        snippet_parts: hit.snippet_parts.clone(),
    }
}

/// Scores in (0, 1], top 1.0, falling with rank: strict sessions in (0.5, 1] relative to the
/// best of them, the others below (the whole range when there is no strict one).
fn tiered_scores(raw: &[f64], strict: &[bool]) -> Vec<f64> {
    let has_strict = strict.iter().any(|s| *s);
    let best = |tier: bool| {
        raw.iter()
            .zip(strict)
            .filter(|(_, s)| **s == tier)
            .map(|(r, _)| *r)
            .fold(f64::MIN_POSITIVE, f64::max)
    };
    let (best_strict, best_rest) = (best(true), best(false));
    let mut previous = 1.0f64;
    raw.iter()
        .zip(strict)
        .map(|(r, s)| {
            let score = match (*s, has_strict) {
                (true, _) => 0.5 + 0.5 * (r / best_strict).clamp(0.0, 1.0),
                (false, true) => 0.5 * (r / best_rest).clamp(0.0, 1.0),
                (false, false) => (r / best_rest).clamp(0.0, 1.0),
            };
            // Clamped so that score order is rank order.
            let score = score.min(previous).max(f64::MIN_POSITIVE);
            previous = score;
            score
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_fall_with_rank_and_strict_sessions_stay_above_the_rest() {
        let scores = tiered_scores(&[0.9, 0.6, 1.2, 0.3], &[true, true, false, false]);
        assert_eq!(scores[0], 1.0);
        assert!(scores[1] > 0.5 && scores[1] < 1.0);
        assert!(scores[2] <= 0.5 && scores[3] < scores[2]);
        assert!(scores.windows(2).all(|w| w[0] >= w[1]));
        let only_widened = tiered_scores(&[0.4, 0.2], &[false, false]);
        assert_eq!(only_widened, vec![1.0, 0.5]);
    }
}

//! Message-level recall: ranked full-text search over the indexed messages, one hit per
//! message. Session recall (see `session_ranking`) builds on it for each session's best turns.
//!
//! Owns: turning what a person typed into FTS5 queries — the raw text first (so `OR`,
//! `"exact phrase"` and `prefix*` work), a sanitized all-words query only when FTS5 rejects the
//! syntax, and, for plain questions that match too little, a widened any-word query without
//! stop words — ranking by bm25 (tool messages at half weight), and the highlighted snippet.
//! Deliberately does not: index (see `index`) or decide whether to index first (the caller does).

use std::collections::{HashMap, HashSet};

use rusqlite::params;

use super::candidate_filter::CandidateFilter;
use super::store::index::SessionIndex;
use super::store::transcript::meta_from_row;
use super::{RecallHit, RecallQuery, SessionError, SnippetPart};
use ambry_rank::rank::tokenize::is_stop_word;

/// Snippet markers: control characters the indexer strips from text, so they cannot collide.
pub(super) const HIT_OPEN: char = '\u{2}';
const HIT_CLOSE: char = '\u{3}';
pub(super) const SNIPPET_TOKENS: i64 = 24;
/// Tool calls and results rank below what the person and the agent said.
pub(super) const TOOL_WEIGHT: f64 = 0.5;

/// Words that ask about the past rather than name a topic ("when did we last…", "have we ever…"):
/// meaningless in a question to the session index, though not in a memory's text, so they are
/// dropped here on top of the shared stop words.
const QUESTION_WORDS: &[&str] = &["ever", "last", "time"];

/// How many bm25 candidates per wanted result the widened query re-orders by matched words.
const CANDIDATE_FACTOR: usize = 5;
const MIN_CANDIDATES: usize = 50;

struct Raw {
    hit: RecallHit,
    id: i64,
    /// The FTS5 query that found it, for its snippet.
    fts_query: String,
    file_id: i64,
    bm25: f64,
    /// Distinct question words the message contains (widened hits only).
    matched_terms: usize,
}

/// The most hits one recall returns.
pub const RECALL_LIMIT_MAX: usize = 10_000;

impl SessionIndex {
    /// Matching messages, best first, one hit each (several may come from one session); `limit`
    /// counts messages. [`SessionIndex::recall`] ranks whole sessions instead.
    pub fn recall_messages(&self, q: &RecallQuery) -> Result<Vec<RecallHit>, SessionError> {
        self.matching_messages(q)?
            .into_iter()
            .map(|m| {
                let (snippet, snippet_parts) = self
                    .snippet_of(&m.fts_query, m.id)
                    .map_err(|e| SessionError::from_sql(&self.path, e))?;
                Ok(RecallHit {
                    snippet,
                    snippet_parts,
                    ..m.hit
                })
            })
            .collect()
    }

    /// [`SessionIndex::recall_messages`] without the snippets (the costly part of a match, and
    /// session recall shows only a few of the messages it looks at): each message's id and the
    /// query that found it instead, for [`SessionIndex::snippet_of`].
    pub(super) fn matching_messages(
        &self,
        q: &RecallQuery,
    ) -> Result<Vec<MessageMatch>, SessionError> {
        let text = q.text.trim();
        if text.is_empty() || q.limit == 0 {
            return Ok(Vec::new());
        }
        // Bounded so no caller's count overflows the arithmetic below or SQLite's signed LIMIT.
        let bounded = RecallQuery {
            limit: q.limit.min(RECALL_LIMIT_MAX),
            ..q.clone()
        };
        let q = &bounded;
        let strict = match self.search(text, q, q.limit) {
            Ok(hits) => Ok(hits),
            Err(e) if is_query_error(&e) => {
                let sanitized = all_words(text);
                if sanitized.is_empty() {
                    Ok(Vec::new())
                } else {
                    self.search(&sanitized, q, q.limit)
                }
            }
            Err(e) => Err(e),
        }
        .map_err(|e| SessionError::from_sql(&self.path, e))?;
        let mut widened = Vec::new();
        if strict.len() < q.limit && !uses_query_syntax(text) {
            widened = self
                .widened(text, q, &strict)
                .map_err(|e| SessionError::from_sql(&self.path, e))?;
        }
        Ok(scored(strict, widened))
    }

    /// Messages matching some of the question's meaningful words: those matching more of them
    /// first (a rare word alone should not beat two of the question's words together), bm25
    /// within the same count.
    fn widened(
        &self,
        text: &str,
        q: &RecallQuery,
        strict: &[Raw],
    ) -> Result<Vec<Raw>, rusqlite::Error> {
        let terms = meaningful_words(text);
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let any = terms
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(" OR ");
        let seen: HashSet<i64> = strict.iter().map(|r| r.id).collect();
        let wanted = q.limit - strict.len();
        let pool = (wanted * CANDIDATE_FACTOR).max(MIN_CANDIDATES) + seen.len();
        let mut candidates: Vec<Raw> = self
            .search(&any, q, pool)?
            .into_iter()
            .filter(|r| !seen.contains(&r.id))
            .collect();
        if terms.len() > 1 {
            let ids: Vec<i64> = candidates.iter().map(|c| c.id).collect();
            let held = self.terms_held("session_fts", &terms, &ids)?;
            for c in candidates.iter_mut() {
                c.matched_terms = held[&c.id];
            }
            // Stable: bm25 order survives within each count.
            candidates.sort_by_key(|c| std::cmp::Reverse(c.matched_terms));
        }
        candidates.truncate(wanted);
        Ok(candidates)
    }

    fn search(
        &self,
        fts_query: &str,
        q: &RecallQuery,
        limit: usize,
    ) -> Result<Vec<Raw>, rusqlite::Error> {
        let filter = CandidateFilter::of(q);
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT m.id, m.role, m.ts,
                    bm25(session_fts) * (CASE m.role WHEN 'tool' THEN ?5 ELSE 1.0 END) AS score,
                    f.session_id, f.source, f.path, f.cwd, coalesce(f.agent_title, f.first_prompt), f.model, f.first_ts, f.last_ts, f.messages,
                    strftime('%Y-%m-%dT%H:%M:%SZ', f.source_removed_at, 'unixepoch'), f.id
             FROM session_fts
             JOIN session_messages m ON m.id = session_fts.rowid
             JOIN session_files f ON f.id = m.file_id
             WHERE session_fts MATCH ?4 AND {}
             ORDER BY score, m.id DESC
             LIMIT ?6",
            CandidateFilter::SQL
        ))?;
        let rows = stmt.query_map(
            params![
                filter.source,
                filter.cwd,
                filter.below_cwd,
                fts_query,
                TOOL_WEIGHT,
                limit as i64
            ],
            |r| {
                let meta = meta_from_row(r, 4)?;
                Ok(Raw {
                    id: r.get(0)?,
                    file_id: r.get(14)?,
                    fts_query: fts_query.to_string(),
                    bm25: r.get(3)?,
                    matched_terms: 0,
                    hit: RecallHit {
                        session_id: meta.session_id,
                        source: meta.source,
                        title: meta.title,
                        cwd: meta.cwd,
                        ts: r.get(2)?,
                        role: r.get(1)?,
                        snippet: String::new(),
                        snippet_parts: Vec::new(),
                        score: 0.0,
                        widened: false,
                        path: meta.path,
                        source_removed_at: meta.source_removed_at,
                        turns: Vec::new(),
                        matching_turns: 1,
                    },
                })
            },
        )?;
        rows.collect()
    }
}

impl SessionIndex {
    /// How many of `terms` each of `ids` (rowids of `table`, an FTS5 table) holds: one query
    /// per term over the ids' rowid range, instead of one per term and id (a widened question
    /// of six words over 500 candidates asked SQLite 3,000 times).
    pub(super) fn terms_held(
        &self,
        table: &str,
        terms: &[String],
        ids: &[i64],
    ) -> Result<HashMap<i64, usize>, rusqlite::Error> {
        let mut held: HashMap<i64, usize> = ids.iter().map(|&id| (id, 0)).collect();
        let (Some(lo), Some(hi)) = (ids.iter().min(), ids.iter().max()) else {
            return Ok(held);
        };
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT rowid FROM {table} WHERE {table} MATCH ?1 AND rowid BETWEEN ?2 AND ?3"
        ))?;
        for t in terms {
            let rows =
                stmt.query_map(params![format!("\"{t}\""), lo, hi], |r| r.get::<_, i64>(0))?;
            for id in rows {
                if let Some(count) = held.get_mut(&id?) {
                    *count += 1;
                }
            }
        }
        Ok(held)
    }

    /// The highlighted snippet of message `id` for `fts_query` (a query that matches it).
    pub(super) fn snippet_of(
        &self,
        fts_query: &str,
        id: i64,
    ) -> Result<(String, Vec<SnippetPart>), rusqlite::Error> {
        let snip: String = self
            .conn
            .prepare_cached(
                "SELECT snippet(session_fts, 0, char(2), char(3), '…', ?3) FROM session_fts WHERE session_fts MATCH ?1 AND rowid = ?2",
            )?
            .query_row(params![fts_query, id, SNIPPET_TOKENS], |r| r.get(0))?;
        Ok(render_snippet(&snip))
    }
}

/// Scores in (0, 1], falling with rank: strict hits in (0.5, 1] by bm25 relative to the best;
/// widened hits below them, by the share of question words matched, then bm25. With no strict
/// hit, the widened ones take the whole range.
fn scored(strict: Vec<Raw>, widened: Vec<Raw>) -> Vec<MessageMatch> {
    let relative = |group: &[Raw]| {
        let best = group
            .iter()
            .map(|r| -r.bm25)
            .fold(f64::MIN_POSITIVE, f64::max);
        move |r: &Raw| (-r.bm25 / best).clamp(0.0, 1.0)
    };
    let strict_rel = relative(&strict);
    let mut out: Vec<MessageMatch> = strict
        .iter()
        .map(|r| {
            r.matched(RecallHit {
                score: 0.5 + 0.5 * strict_rel(r),
                widened: false,
                ..r.hit.clone()
            })
        })
        .collect();
    let (low, high) = if out.is_empty() {
        (0.0, 1.0)
    } else {
        (0.0, 0.5)
    };
    let most_terms = widened
        .iter()
        .map(|r| r.matched_terms)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let widened_rel = relative(&widened);
    let mut previous = high;
    for r in &widened {
        // Matched share dominates; bm25 breaks ties inside a share. Clamped so order = score order.
        let share = (r.matched_terms as f64 / most_terms).clamp(0.0, 1.0);
        let raw = low + (high - low) * (0.75 * share + 0.25 * widened_rel(r));
        let score = raw.min(previous).max(f64::MIN_POSITIVE);
        previous = score;
        out.push(r.matched(RecallHit {
            score,
            widened: true,
            ..r.hit.clone()
        }));
    }
    // The top hit is 1.0, as in memory search.
    if let Some(top) = out
        .first()
        .map(|m| m.hit.score)
        .filter(|s| *s > 0.0 && *s < 1.0)
    {
        out.iter_mut()
            .for_each(|m| m.hit.score = (m.hit.score / top).min(1.0));
    }
    out
}

impl Raw {
    fn matched(&self, hit: RecallHit) -> MessageMatch {
        MessageMatch {
            hit,
            id: self.id,
            fts_query: self.fts_query.clone(),
            file_id: self.file_id,
        }
    }
}

/// A matching message without its snippet yet: see [`SessionIndex::matching_messages`].
pub(super) struct MessageMatch {
    pub hit: RecallHit,
    pub id: i64,
    pub fts_query: String,
    /// The session's row in `session_files`.
    pub file_id: i64,
}

pub(super) fn render_snippet(raw: &str) -> (String, Vec<SnippetPart>) {
    let mut parts: Vec<SnippetPart> = Vec::new();
    let mut hit = false;
    let mut current = String::new();
    for c in raw.chars() {
        if c == HIT_OPEN || c == HIT_CLOSE {
            if !current.is_empty() {
                parts.push(SnippetPart {
                    text: std::mem::take(&mut current),
                    hit,
                });
            }
            hit = c == HIT_OPEN;
        } else {
            current.push(if c == '\n' || c == '\r' || c == '\t' {
                ' '
            } else {
                c
            });
        }
    }
    if !current.is_empty() {
        parts.push(SnippetPart { text: current, hit });
    }
    let text = parts
        .iter()
        .map(|p| {
            if p.hit {
                format!("[{}]", p.text)
            } else {
                p.text.clone()
            }
        })
        .collect();
    (text, parts)
}

pub(super) fn is_query_error(e: &rusqlite::Error) -> bool {
    let msg = e.to_string();
    msg.contains("fts5")
        || msg.contains("syntax error")
        || msg.contains("no such column")
        || msg.contains("unterminated")
        || msg.contains("unknown special query")
}

/// Explicit FTS5 syntax: the person wrote a query, not a question; do not second-guess it.
pub(super) fn uses_query_syntax(text: &str) -> bool {
    text.contains(['"', '*', '(', ')', '^'])
        || text
            .split_whitespace()
            .any(|w| matches!(w, "OR" | "AND" | "NOT" | "NEAR"))
        || text
            .split_whitespace()
            .any(|w| w.contains(':') && !w.ends_with(':'))
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Every word, each quoted: what the raw text meant, without its syntax.
pub(super) fn all_words(text: &str) -> String {
    words(text)
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The question's words without stop words, each once: what the widened query looks for.
pub(super) fn meaningful_words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(text)
        .filter(|w| {
            !is_stop_word(w)
                && !QUESTION_WORDS.contains(&w.as_str())
                && (w.chars().count() > 1 || w.chars().all(|c| c.is_numeric()))
        })
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_become_any_word_queries_without_stop_words() {
        assert_eq!(
            meaningful_words("When did we decide to drop the Redis cache? the cache!"),
            ["decide", "drop", "redis", "cache"]
        );
        assert_eq!(all_words("what's \"up"), "\"what\" \"s\" \"up\"");
        assert!(uses_query_syntax("\"exact phrase\""));
        assert!(uses_query_syntax("redis OR memcached"));
        assert!(uses_query_syntax("auth*"));
        assert!(!uses_query_syntax("why did the deploy fail?"));
        assert!(!uses_query_syntax("note: deploy"));
    }

    #[test]
    fn snippets_mark_hits_for_the_terminal_and_as_parts_for_the_app() {
        let (text, parts) = render_snippet("…drop the \u{2}Redis\u{3} cache\nnow");
        assert_eq!(text, "…drop the [Redis] cache now");
        assert_eq!(
            parts
                .iter()
                .filter(|p| p.hit)
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>(),
            vec!["Redis"]
        );
    }
}

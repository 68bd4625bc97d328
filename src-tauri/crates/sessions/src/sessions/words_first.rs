//! Recall by words first: session recall without the model, and whether ranking by meaning could
//! still change its answer enough to be worth loading the model (a fresh process pays ≈ 100 ms
//! for that load; the ranking by words takes a few).
//!
//! Owns: the rule that decides it, from the question and from what the words found — a written
//! query (meaning is never used for one), a session that holds every meaningful word of the
//! question (the person asks about what was said in those words), or a question naming an
//! identifier or a path that sessions hold (it asks for that exact thing) — and the reason given.
//! Deliberately does not: load the model or rank by meaning (the workspace and `session_ranking`
//! do), or change the ranking by words (`session_ranking` does it, exactly as without the model).

use rusqlite::params;

use super::candidate_filter::CandidateFilter;
use super::recall::{is_query_error, meaningful_words, uses_query_syntax};
use super::session_ranking::{QueryVector, WordCandidates, DEFAULT_WEIGHTS};
use super::store::index::SessionIndex;
use super::{RecallHit, RecallQuery, SessionError};

/// Why the model is not needed for a question: its answer by words is the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordsSuffice {
    /// Phrases, `OR`, prefixes: a written query asks for words, and meaning is not used for it.
    QuerySyntax,
    /// A message holds every word of the question, or one session holds all its meaningful ones
    /// (stop words aside): the person asks about what was said in those words.
    EveryWordSaid,
    /// The question names this identifier or path, and indexed sessions hold it.
    NamesIdentifier(String),
}

/// Recall by words, why it is the whole answer (or `None`), and what the words found.
pub struct WordsFirst {
    pub hits: Vec<RecallHit>,
    pub verdict: Option<WordsSuffice>,
    found: Option<WordCandidates>,
}

impl SessionIndex {
    /// Session recall by words (exactly [`SessionIndex::recall`]) and, when it is the whole
    /// answer, why (`None` when ranking by meaning could find or order sessions differently),
    /// keeping what the words found so that ranking with meaning
    /// ([`SessionIndex::recall_adding_meaning`]) does not search by words again.
    pub fn words_first(&self, q: &RecallQuery) -> Result<WordsFirst, SessionError> {
        let found = self.word_candidates(q)?;
        let hits = match &found {
            Some(found) => self.ranked(found.clone(), DEFAULT_WEIGHTS, None)?,
            None => Vec::new(),
        };
        let verdict = self.words_suffice(q, &hits)?;
        Ok(WordsFirst {
            hits,
            verdict,
            found,
        })
    }

    /// Exactly [`SessionIndex::recall_with`] with `semantic` and the default weights, from what
    /// [`SessionIndex::words_first`] found.
    pub fn recall_adding_meaning(
        &self,
        words: WordsFirst,
        semantic: QueryVector<'_>,
    ) -> Result<Vec<RecallHit>, SessionError> {
        match words.found {
            Some(found) => self.ranked(found, DEFAULT_WEIGHTS, Some(semantic)),
            None => Ok(Vec::new()),
        }
    }

    fn words_suffice(
        &self,
        q: &RecallQuery,
        hits: &[RecallHit],
    ) -> Result<Option<WordsSuffice>, SessionError> {
        let text = q.text.trim();
        let verdict = if text.is_empty() || hits.is_empty() {
            // Nothing found by words: meaning may find something.
            None
        } else if uses_query_syntax(text) {
            Some(WordsSuffice::QuerySyntax)
        } else if hits.iter().any(|h| !h.widened) || self.one_session_holds_all(text, q)? {
            Some(WordsSuffice::EveryWordSaid)
        } else {
            let mut named = None;
            for word in identifiers(text) {
                if self.holds_phrase(&word, q)? {
                    named = Some(WordsSuffice::NamesIdentifier(word));
                    break;
                }
            }
            named
        };
        Ok(verdict)
    }

    /// Whether one session within `q`'s source and folder holds every meaningful word of the
    /// question (its stop words aside: "why did the deploy fail" asks for deploy and fail).
    fn one_session_holds_all(&self, text: &str, q: &RecallQuery) -> Result<bool, SessionError> {
        let terms = meaningful_words(text);
        if terms.is_empty() {
            return Ok(false);
        }
        let all = terms
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(" AND ");
        self.exists(
            "SELECT 1 FROM session_doc_fts JOIN session_files f ON f.id = session_doc_fts.rowid
             WHERE session_doc_fts MATCH ?4 AND {} LIMIT 1",
            &all,
            q,
        )
    }

    /// Whether a session within `q`'s source and folder holds `word`'s tokens in a row.
    fn holds_phrase(&self, word: &str, q: &RecallQuery) -> Result<bool, SessionError> {
        let phrase = format!("\"{}\"", word.replace('"', ""));
        self.exists(
            "SELECT 1 FROM session_doc_fts JOIN session_files f ON f.id = session_doc_fts.rowid
             WHERE session_doc_fts MATCH ?4 AND {} LIMIT 1",
            &phrase,
            q,
        )
    }

    /// Whether `sql` (the candidate filter in its `{}`, the FTS5 query as ?4) finds a row.
    fn exists(&self, sql: &str, fts_query: &str, q: &RecallQuery) -> Result<bool, SessionError> {
        let filter = CandidateFilter::of(q);
        let found = self
            .conn
            .prepare_cached(&sql.replace("{}", CandidateFilter::SQL))
            .and_then(|mut stmt| {
                stmt.exists(params![
                    filter.source,
                    filter.cwd,
                    filter.below_cwd,
                    fts_query
                ])
            });
        match found {
            Err(e) if is_query_error(&e) => Ok(false),
            other => other.map_err(|e| SessionError::from_sql(&self.path, e)),
        }
    }
}

/// The question's words that look like code rather than prose: a path (`assets/js/app.js`), a
/// dotted or namespaced name (`phx.server`, `Foo::bar`), `snake_case`, `camelCase` and
/// `OOMKilled`, or letters
/// and digits together (`s3`, `utf8`). Hyphenated words (`non-ascii`) and a single slash
/// between words (`and/or`) are prose.
pub(super) fn identifiers(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '/' | '_' | '.' | '~'))
                .trim_end_matches('.')
        })
        .filter(|w| looks_like_code(w))
        .map(str::to_string)
        .collect()
}

fn looks_like_code(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    let inner = |sep: &[char]| {
        chars.windows(3).any(|w| {
            w[0].is_alphanumeric()
                && sep.contains(&w[1])
                && (w[2].is_alphanumeric() || w[2] == sep[0])
        })
    };
    let letters = chars.iter().any(|c| c.is_alphabetic());
    let digits = chars.iter().any(|c| c.is_ascii_digit());
    // `camelCase`, `OOMKilled`: a capital after the first letter, with lower case around it.
    let camel =
        chars.iter().skip(1).any(|c| c.is_uppercase()) && chars.iter().any(|c| c.is_lowercase());
    let path = word.contains('/')
        && letters
        && (word.starts_with(['/', '~', '.']) || word.matches('/').count() > 1 || inner(&['.']));
    word.contains("::") || path || inner(&['.']) || inner(&['_']) || camel || (letters && digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_told_from_prose() {
        assert_eq!(
            identifiers("why does mix phx.server fail in assets/js/app.js?"),
            ["phx.server", "assets/js/app.js"]
        );
        assert_eq!(
            identifiers("the OOMKilled pod, parse_args and Foo::bar on s3"),
            ["OOMKilled", "parse_args", "Foo::bar", "s3"]
        );
        assert!(identifiers("why did the non-ascii export fail? It did, and/or not.").is_empty());
        assert_eq!(
            identifiers("see ~/notes and src/main.rs"),
            ["~/notes", "src/main.rs"]
        );
        assert!(identifiers("why did the canary deploy get stuck at 10 percent?").is_empty());
    }
}

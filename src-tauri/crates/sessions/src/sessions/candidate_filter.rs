//! Which indexed sessions a recall looks at: the source and the folder a `RecallQuery` names, as
//! one SQL condition over `session_files f`, so that message-level recall, whole-text session
//! recall and the nearest-vector search all consider the same sessions.
//!
//! Owns: the condition (its parameters are always ?1 to ?3; a query using it numbers its own from
//! ?4) and turning the query's folder into them (the folder itself, or any folder below it).
//! Deliberately does not: match text or vectors, join, order or limit (each query does its own).

use super::store::index::escape_like;
use super::RecallQuery;

/// A `RecallQuery`'s source and folder, as the parameters of [`CandidateFilter::SQL`].
pub(super) struct CandidateFilter {
    /// ?1: only sessions of this source; every source when `None`.
    pub(super) source: Option<&'static str>,
    /// ?2: only sessions that ran in this folder (no trailing slash) or below it; all when `None`.
    pub(super) cwd: Option<String>,
    /// ?3: the LIKE pattern of every folder below `cwd`.
    pub(super) below_cwd: Option<String>,
}

impl CandidateFilter {
    /// The condition on `session_files f`, over parameters ?1 to ?3.
    pub(super) const SQL: &'static str =
        "(?1 IS NULL OR f.source = ?1) AND (?2 IS NULL OR f.cwd = ?2 OR f.cwd LIKE ?3 ESCAPE '\\')";

    pub(super) fn of(q: &RecallQuery) -> CandidateFilter {
        let cwd = q
            .cwd_prefix
            .as_ref()
            .map(|p| p.to_string_lossy().trim_end_matches('/').to_string());
        let below_cwd = cwd.as_ref().map(|c| format!("{}/%", escape_like(c)));
        CandidateFilter {
            source: q.source.map(|s| s.as_str()),
            cwd,
            below_cwd,
        }
    }
}

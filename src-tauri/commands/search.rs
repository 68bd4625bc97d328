//! The search overlay: the same ranker and strategy as `engram memory search`.

use std::time::Instant;

use engram_core::memory::{Scope, ScopeFilter};
use engram_core::rank::{self, SearchParams, Synonyms};
use serde::Serialize;
use tauri::AppHandle;

use crate::ipc_error::{IpcError, IpcResult};
use crate::state::off_main;

#[derive(Debug, Serialize)]
pub struct SearchRow {
    pub scope: Scope,
    /// The project slug for project-scope rows.
    pub project: Option<String>,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    pub score: f64,
}

#[derive(Debug, Serialize)]
pub struct SearchResults {
    /// Echoed so the UI can drop responses to queries it has moved past.
    pub seq: u64,
    pub rows: Vec<SearchRow>,
    /// The strategy that actually ran.
    pub strategy: engram_core::config::Strategy,
    pub note: Option<String>,
    /// Time spent in core, for the status line.
    pub micros: u128,
}

const MAX_ROWS: usize = 50;

/// Ranks user memories plus, when given, one project's (as an agent in that project sees them).
#[tauri::command]
pub async fn search_memories(app: AppHandle, query: String, project: Option<String>, seq: u64) -> IpcResult<SearchResults> {
    off_main(app, move |state| {
        let started = Instant::now();
        let config = state.config()?;
        let store = state.store(project.as_deref())?;
        let mut params = SearchParams::from_config(&config.retrieval);
        params.limit = Some(MAX_ROWS);
        let synonyms = Synonyms::new(&config.retrieval.synonyms);
        let semantic = state.semantic(&config);
        let ranking = {
            let mut cache = state.cache.lock().map_err(|_| IpcError::new("internal", "search cache unavailable"))?;
            rank::search(&store, &mut cache, ScopeFilter::All, &query, &params, &synonyms, semantic)?
        };
        let rows = ranking
            .hits
            .into_iter()
            .map(|h| SearchRow {
                project: (h.scope == Scope::Project).then(|| project.clone()).flatten(),
                scope: h.scope,
                name: h.name,
                kind: h.kind,
                description: h.description,
                score: h.score,
            })
            .collect();
        Ok(SearchResults { seq, rows, strategy: ranking.strategy, note: ranking.note, micros: started.elapsed().as_micros() })
    })
    .await
}

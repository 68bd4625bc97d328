//! The search overlay: the same ranker and strategy as `ambry memory search`, over every
//! memory (user and all projects), the user's alone, or one project as its agent sees it.

use std::time::Instant;

use ambry_core::ScopeFilter;
use ambry_core::{Coverage, SearchHit, SearchOptions};
use serde::{Deserialize, Serialize};
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[derive(Debug, Serialize)]
pub struct SearchResults {
    /// Echoed so the UI can drop responses to queries it has moved past.
    pub seq: u64,
    pub rows: Vec<SearchHit>,
    /// More memories match than `rows` holds (the overlay offers the next page).
    pub more: bool,
    /// The strategy that actually ran.
    pub strategy: ambry_core::Strategy,
    pub note: Option<String>,
    /// Time spent in core, for the status line.
    pub micros: u128,
}

/// Which memories the overlay ranks.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", content = "slug", rename_all = "snake_case")]
pub enum SearchIn {
    /// User memories and every known project's, each memory on its own (nothing shadowed).
    Everything,
    UserOnly,
    /// User memories plus this project's, as an agent working there sees them.
    Project(String),
}

/// A page of results when the overlay asks for none in particular.
const PAGE_ROWS: usize = 50;

#[tauri::command]
pub async fn search_memories(
    app: AppHandle,
    query: String,
    within: SearchIn,
    seq: u64,
    limit: Option<usize>,
) -> IpcResult<SearchResults> {
    let limit = limit.unwrap_or(PAGE_ROWS).max(1);
    off_main(app, move |ws| {
        let started = Instant::now();
        let options = SearchOptions {
            // One more than shown tells whether there is a next page.
            limit: Some(limit + 1),
            strategy: None,
            only_evident: true,
            today: Some(chrono::Utc::now().date_naive()),
        };
        let results = match &within {
            SearchIn::Everything => ws.search(&query, Coverage::Everything, &options)?,
            SearchIn::UserOnly => ws.search(
                &query,
                Coverage::Agent(&ws.place_of(None)?, ScopeFilter::User),
                &options,
            )?,
            SearchIn::Project(slug) => ws.search(
                &query,
                Coverage::Agent(&ws.place_of(Some(slug))?, ScopeFilter::All),
                &options,
            )?,
        };
        let mut rows = results.hits;
        let more = rows.len() > limit;
        rows.truncate(limit);
        Ok(SearchResults {
            seq,
            rows,
            more,
            strategy: results.strategy,
            note: results.note,
            micros: started.elapsed().as_micros(),
        })
    })
    .await
}

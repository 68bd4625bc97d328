//! The search overlay: the same ranker and strategy as `engram memory search`, over every
//! memory (user and all projects), the user's alone, or one project as its agent sees it.

use std::path::PathBuf;
use std::time::Instant;

use engram_core::memory::{Scope, ScopeFilter};
use engram_core::rank::{self, SearchParams, Shadowing, Synonyms};
use serde::{Deserialize, Serialize};
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::{off_main, AppState};

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
    /// What backs the hit (query words contained, similarity), independent of normalization.
    pub evidence: rank::Evidence,
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

/// Which memories the overlay ranks.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", content = "slug", rename_all = "snake_case")]
pub enum SearchIn {
    /// User memories and every known project's, each memory on its own (nothing shadowed).
    Everything,
    UserOnly,
    /// User memories plus this project's, as an agent working there sees them.
    Project(String),
}

const MAX_ROWS: usize = 50;

#[tauri::command]
pub async fn search_memories(app: AppHandle, query: String, within: SearchIn, seq: u64) -> IpcResult<SearchResults> {
    off_main(app, move |state| {
        let started = Instant::now();
        let config = state.config()?;
        let mut params = SearchParams::from_config(&config.retrieval);
        params.limit = Some(MAX_ROWS);
        let synonyms = Synonyms::new(&config.retrieval.synonyms);
        let (dirs, shadowing) = coverage(state, &within)?;
        let ranking = {
            let corpus = state.lock_cache().corpus_of(&dirs, shadowing)?;
            rank::rank_with_relevance(&corpus, &query, &params, &synonyms, state.semantic(&config))
        };
        let rows = ranking
            .ranking
            .hits
            .into_iter()
            .zip(ranking.evidence)
            .map(|(h, evidence)| SearchRow {
                evidence,
                project: if h.scope == Scope::Project { h.path.parent().and_then(|dir| project_slug(state, dir)) } else { None },
                scope: h.scope,
                name: h.name,
                kind: h.kind,
                description: h.description,
                score: h.score,
            })
            .collect();
        Ok(SearchResults { seq, rows, strategy: ranking.ranking.strategy, note: ranking.ranking.note, micros: started.elapsed().as_micros() })
    })
    .await
}

/// The memory directories to rank and whether a project's memory hides the user's namesake.
fn coverage(state: &AppState, within: &SearchIn) -> IpcResult<(Vec<(Scope, PathBuf)>, Shadowing)> {
    let user = (Scope::User, state.home.user_memory_dir());
    Ok(match within {
        SearchIn::UserOnly => (vec![user], Shadowing::ProjectOverUser),
        SearchIn::Project(slug) => {
            let store = state.store(Some(slug))?;
            let mut dirs = Vec::new();
            for scope in store.scopes(ScopeFilter::All) {
                dirs.push((scope, store.dir(scope)?));
            }
            (dirs, Shadowing::ProjectOverUser)
        }
        SearchIn::Everything => {
            let mut dirs = vec![user];
            for known in state.known_projects()? {
                dirs.push((Scope::Project, state.home.project_memory_dir(&known.slug)));
            }
            (dirs, Shadowing::None)
        }
    })
}

/// The slug of the project whose memory directory `dir` is (`projects/<slug>/memory`).
fn project_slug(state: &AppState, dir: &std::path::Path) -> Option<String> {
    let slug = dir.parent()?.file_name()?.to_str()?.to_string();
    (state.home.project_memory_dir(&slug) == dir).then_some(slug)
}

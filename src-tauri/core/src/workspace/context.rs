//! Composing an agent's context through the workspace (DESIGN §5): one call per hook event or
//! `compose --query`, the injection ledger read before and written after, in one place.
//!
//! Owns: turning a `ContextRequest` into the right moment (a context's start, or a turn of a
//! context the ledger knows; a session the ledger has not seen starts its context with that
//! turn; a resumed one is given only what of its start block changed), opening a new ledger
//! generation on compaction or clear, recording what a hook gave, the lasting conditions said
//! once per context (no model, a bad config: a hook composes with
//! the defaults rather than fail the turn), and the ledger's read API for other features.
//! Deliberately does not: rank or render (compose does) or read the clock (callers pass `now`).

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::place::Place;
use super::{ModelUnavailable, Workspace, WorkspaceError};
use ambry_compose::compose::hook::{ContextEvent, ContextRequest};
use ambry_compose::compose::{
    compose, Budgets, ComposeInput, Composition, Disagreements, SessionContext,
};
use ambry_compose::ledger::{Held, Injection, Ledger, LedgerSession};
use ambry_rank::rank::{Gate, Semantic};
use ambry_store::config::{Config, Strategy};
use ambry_store::memory::{Memory, Store};

impl Workspace {
    /// Composes for `request` in the project `cwd` belongs to; see [`Workspace::compose_context`].
    pub fn compose_at(
        &self,
        cwd: &Path,
        request: &ContextRequest,
        now: DateTime<Utc>,
    ) -> Result<Composition, WorkspaceError> {
        self.compose_context(&self.place_at(cwd), request, Gate::CALIBRATED, now)
    }

    /// The app's compose preview for a known project (or the user scope alone): never recorded.
    /// It shows what an agent's hook would get, so a config that does not load is composed
    /// around as the hook does (the defaults, the error among the conditions), not refused.
    pub fn compose_preview(
        &self,
        slug: Option<&str>,
        request: &ContextRequest,
        now: DateTime<Utc>,
    ) -> Result<Composition, WorkspaceError> {
        let place = self.place_of(slug)?;
        let mut request = request.clone();
        request.record = false;
        self.compose_moment(&place, &request, Gate::CALIBRATED, now, true)
    }

    /// Composes one moment of a context. A hook (`request.record`) never fails: a bad config is
    /// a condition said at the context's start, and the defaults are used; otherwise a bad
    /// config is the error.
    pub fn compose_context(
        &self,
        place: &Place,
        request: &ContextRequest,
        gate: Gate,
        now: DateTime<Utc>,
    ) -> Result<Composition, WorkspaceError> {
        self.compose_moment(place, request, gate, now, request.record)
    }

    /// `compose_context`; `as_hook`: a config that does not load means the defaults and a
    /// condition, as an agent's hook gets them, rather than the error.
    fn compose_moment(
        &self,
        place: &Place,
        request: &ContextRequest,
        gate: Gate,
        now: DateTime<Utc>,
        as_hook: bool,
    ) -> Result<Composition, WorkspaceError> {
        let store = place.store();
        let mut conditions = Vec::new();
        let config = match self.config() {
            Ok(config) => config,
            Err(e) if as_hook => {
                conditions.push(format!("{e}; using the defaults until it is fixed"));
                Config::default()
            }
            Err(e) => return Err(e.into()),
        };
        let budgets = Budgets::from_config(&config.compose);
        let mut notes = Vec::new();
        let agent = request.agent.as_deref().unwrap_or("ambry");
        let session = request.session_id.as_deref();
        // An agent's turn waits a fraction of a second for another writer; a busy ledger costs
        // the turn its tracking, never the turn itself.
        let ledger_wait = if request.record {
            ambry_compose::ledger::TURN_WAIT
        } else {
            ambry_compose::ledger::COMMAND_WAIT
        };
        let ledger_path = ambry_compose::ledger::ledger_path(&self.home);
        let mut ledger = match session.map(|_| Ledger::open_at(&ledger_path, ledger_wait)) {
            Some(Ok(ledger)) => Some(ledger),
            Some(Err(e)) => {
                notes.push(untracked(&e));
                None
            }
            None => None,
        };
        let ledger_note = |e: ambry_compose::ledger::LedgerError, notes: &mut Vec<String>| {
            notes.push(untracked(&e))
        };

        // Which moment, and which generation of the session's context.
        let mut generation = 0;
        let mut held = Held::default();
        let mut resumed = None;
        let start = match request.event {
            ContextEvent::PreCompact | ContextEvent::SessionStart => {
                if let (Some(id), Some(l), true) = (session, ledger.as_mut(), request.record) {
                    let fresh =
                        request.empties_context() || request.source.as_deref() != Some("resume");
                    let source = match request.event {
                        ContextEvent::PreCompact => "pre_compact",
                        _ => request.source.as_deref().unwrap_or("startup"),
                    };
                    match l.start_context(id, agent, source, fresh, now) {
                        Ok(g) => generation = g,
                        Err(e) => ledger_note(e, &mut notes),
                    }
                    // A resume continues a context whose client kept its start block.
                    if !fresh && generation > 0 {
                        match l.start_block(id, generation) {
                            Ok(block) => resumed = block,
                            Err(e) => ledger_note(e, &mut notes),
                        }
                    }
                }
                request.event == ContextEvent::SessionStart
            }
            ContextEvent::Turn => match (session, ledger.as_mut()) {
                (Some(id), Some(l)) => match l.held(id) {
                    Ok(h) if h.generation > 0 => {
                        generation = h.generation;
                        held = h;
                        false
                    }
                    Ok(_) => {
                        // No SessionStart seen for this session: this turn opens its context.
                        if request.record {
                            match l.start_context(id, agent, "first_turn", true, now) {
                                Ok(g) => generation = g,
                                Err(e) => ledger_note(e, &mut notes),
                            }
                        }
                        true
                    }
                    Err(e) => {
                        ledger_note(e, &mut notes);
                        true
                    }
                },
                _ => true,
            },
        };
        if request.event == ContextEvent::PreCompact {
            let mut c = self.empty_composition(store, budgets, gate, &config, notes);
            c.moment = "pre_compact".into();
            c.session = session.map(|id| SessionContext {
                id: id.to_string(),
                generation,
                recorded: request.record,
            });
            return Ok(c);
        }
        if start {
            if let (Strategy::Auto | Strategy::Semantic, Err(why)) =
                (config.retrieval.strategy, self.model_paths(&config).check())
            {
                conditions.push(format!(
                    "semantic ranking is off ({why}); prompts are ranked with bm25 (see `ambry doctor`)"
                ));
            }
        }
        let uses = match (start, ledger.as_ref()) {
            (true, Some(l)) => l.use_counts().unwrap_or_default(),
            _ => HashMap::new(),
        };
        let ranked = ambry_compose::compose::ranked_prompt(&request.prompt);
        let query = (request.event == ContextEvent::Turn).then_some(ranked.as_ref());
        // The turn's conversation: the exchange before the prompt, from the transcript's tail.
        let exchange = match (query, request.transcript.as_deref()) {
            (Some(_), Some(path)) => {
                ambry_sessions::sessions::last_exchange::last_exchange(path, &request.prompt)
                    .map(|e| (e.text(), e.user))
            }
            _ => None,
        };
        let retrieval = &config.retrieval;
        let scorer = match query {
            Some(_) => self.semantic_scorer(retrieval.strategy, &config),
            None => Err(ModelUnavailable::NoPrompt),
        };
        let semantic = match &scorer {
            Ok(scorer) => Semantic::Available(scorer.as_ref()),
            Err(why) => Semantic::Unavailable(why),
        };
        let known_conflicts = KnownConflicts {
            today: now.date_naive(),
            model_id: matches!(retrieval.strategy, Strategy::Auto | Strategy::Semantic)
                .then(|| self.model_paths(&config).model_id().to_string()),
            read: Default::default(),
            sides: &self.judged_sides,
        };
        let input = ComposeInput {
            start,
            resumed: resumed.as_ref(),
            query,
            conversation: exchange
                .as_ref()
                .map(|(text, asked)| ambry_rank::rank::conversation::Exchange { text, asked }),
            held: &held,
            gate,
            budgets,
            uses: &uses,
            today: Some(now.date_naive()),
            disagreements: &known_conflicts,
        };
        let mut composition = compose(store, &mut self.corpus_cache(), retrieval, &input, semantic);
        self.composed
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        composition.notes.splice(0..0, notes);
        if start && !conditions.is_empty() {
            // Said once: the model check above already names why the ranker fell back.
            composition
                .conditions
                .retain(|c| !c.starts_with("auto: using bm25"));
        }
        // The ranker's fallback note is a lasting condition too.
        for c in conditions.into_iter().rev() {
            if !composition.conditions.contains(&c) {
                composition.conditions.insert(0, c);
            }
        }
        if let (Some(id), true) = (session, request.record) {
            if let Some(l) = ledger.as_mut() {
                if generation > 0 {
                    if let Err(e) = l.record(id, agent, generation, &composition.given(), now) {
                        composition.notes.push(untracked(&e));
                    }
                    if let Some(block) = &composition.start_block {
                        if let Err(e) = l.record_start(id, agent, generation, block, now) {
                            composition.notes.push(untracked(&e));
                        }
                    }
                }
            }
        }
        composition.session = session.map(|id| SessionContext {
            id: id.to_string(),
            generation,
            recorded: request.record && generation > 0,
        });
        Ok(composition)
    }

    fn empty_composition(
        &self,
        store: &Store,
        budgets: Budgets,
        gate: Gate,
        config: &Config,
        notes: Vec<String>,
    ) -> Composition {
        Composition {
            moment: String::new(),
            sections: Vec::new(),
            selected: Vec::new(),
            cut: Vec::new(),
            disagreements: Vec::new(),
            below_gate_more: 0,
            gate,
            budgets,
            strategy: config.retrieval.strategy,
            notes,
            conditions: Vec::new(),
            project: store.project().map(|p| p.slug.clone()),
            session: None,
            start_block: None,
            bytes: 0,
            text: String::new(),
        }
    }

    /// The sessions the ledger has composed for, newest context first (at most `limit`): a
    /// later turn can be previewed for each, indexed transcript or not.
    pub fn ledger_sessions(&self, limit: usize) -> Result<Vec<LedgerSession>, WorkspaceError> {
        let path = ambry_compose::ledger::ledger_path(&self.home);
        if !path.exists() {
            return Ok(Vec::new());
        }
        Ok(Ledger::open_at(&path, ambry_compose::ledger::COMMAND_WAIT)?.sessions(limit)?)
    }

    /// What the ledger recorded: one session's injections, or every session's, optionally
    /// since a time (usage counts read this).
    pub fn injections(
        &self,
        session: Option<&str>,
        since: Option<DateTime<Utc>>,
    ) -> Result<Vec<Injection>, WorkspaceError> {
        let path = ambry_compose::ledger::ledger_path(&self.home);
        if !path.exists() {
            return Ok(Vec::new());
        }
        Ok(Ledger::open_at(&path, ambry_compose::ledger::COMMAND_WAIT)?
            .injections(session, since)?)
    }
}

/// The review inbox's conflict judgement, for compose (DESIGN §5 "Known disagreements"): the
/// same rules and quiet rules as the inbox, with the vectors of current sidecars — read, never
/// embedded on an agent's turn (a pair without both is judged on words, as the inbox does).
/// Each memory's sidecar is read once per composition, however many pairs it is in.
#[derive(Debug)]
struct KnownConflicts<'w> {
    today: chrono::NaiveDate,
    /// The workspace's sides of pairs, kept across turns.
    sides: &'w std::sync::Mutex<ambry_lifecycle::lifecycle::sides::SideCache>,
    /// The configured model, when the strategy uses one.
    model_id: Option<String>,
    /// The vectors read so far, by memory file.
    read: std::sync::Mutex<HashMap<std::path::PathBuf, Option<std::sync::Arc<Vec<f32>>>>>,
}

impl KnownConflicts<'_> {
    fn vector(&self, memory: &Memory, model_id: &str) -> Option<std::sync::Arc<Vec<f32>>> {
        let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        read.entry(memory.path.clone())
            .or_insert_with(|| current_vector(memory, model_id).map(std::sync::Arc::new))
            .clone()
    }
}

impl Disagreements for KnownConflicts<'_> {
    fn between(&self, a: &Memory, b: &Memory) -> Option<Vec<(String, String)>> {
        let cosine = self.model_id.as_deref().and_then(|id| {
            let (x, y) = (self.vector(a, id)?, self.vector(b, id)?);
            Some(f64::from(ambry_rank::embed::cosine(&x, &y)))
        });
        ambry_lifecycle::lifecycle::known_conflict(a, b, cosine, self.today, self.sides)
    }
}

/// `memory`'s vector from its sidecar, when the sidecar is of `model_id` and of its current text.
fn current_vector(memory: &Memory, model_id: &str) -> Option<Vec<f32>> {
    use ambry_rank::embed::{embedded_text, read_sidecar, sidecar_path, text_hash};
    let sidecar = read_sidecar(&sidecar_path(&memory.path))?;
    let text = embedded_text(&memory.name, &memory.description, &memory.body);
    (sidecar.header.model_id == model_id && sidecar.header.text_hash == text_hash(&text))
        .then_some(sidecar.vector)
}

/// The note for a turn whose ledger could not be used: what it costs.
fn untracked(e: &ambry_compose::ledger::LedgerError) -> String {
    match e {
        ambry_compose::ledger::LedgerError::Busy { .. } => {
            format!("{e}; skipped for this turn, so what it gives may be given again later")
        }
        _ => format!("{e}; this context's memory is not tracked"),
    }
}

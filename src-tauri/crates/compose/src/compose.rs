//! Prompt composition (DESIGN §5): what an agent gets of memory, and when — every byte earns
//! its place.
//!
//! Owns: the two moments of a context — its start (trust anchors and the memory map, once; a
//! resumed context that holds them gets only an anchor changed or emptied since) and
//! each turn (only the bodies that pass the relevance gate and that the context does not hold
//! yet, within `compose.turn_bytes`; relevant ones that do not fit go in as one line each) — the
//! 8,000-byte hard limit on any output, and reporting every decision (`selected`; `cut` with
//! `below_gate`, `already_in_context` or `budget`); and saying so where a body it gives
//! disagrees with another it gives or the context holds (a known conflict goes in marked on
//! both sides, never as two silent contradictions). A source that cannot be read is left out
//! with a note: composition never fails the turn.
//! Deliberately does not: read or write the injection ledger (callers pass what the context
//! holds and record what was selected), judge whether two memories disagree (callers pass the
//! review's judgement), resolve the project, load embeddings, or print.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ledger::{Form, Held, MemoryVersion, StartBlock};
use ambry_rank::rank::{self, CorpusCache, Gate, SearchParams, Semantic, Synonyms};
use ambry_store::config::{ComposeConfig, RetrievalConfig, Strategy};
use ambry_store::memory::{read_memory_file, Memory, Scope, ScopeFilter, Store};

pub mod cases;
mod fit;
pub mod hook;
mod map;
mod sections;
mod start_anchors;
use sections::{render, rendered_len, section, section_overhead, RELEVANT_HEADING};
pub use sections::{Section, SectionKind};

/// No output of a hook exceeds this, whatever the configuration says (Claude Code replaces one
/// over 10,000 characters with a preview; Codex cuts the middle out of one over ~2,500 tokens).
pub const HARD_LIMIT: usize = 8_000;
/// Below-gate memories reported per call (the ranker scores thousands at 10k memories).
const BELOW_GATE_REPORTED: usize = 20;
const WRAPPER: usize = "<ambry-memory>\n".len() + "</ambry-memory>\n".len();
const ALSO_HEADING: &str = "Also relevant (not shown; read with memory_get)";
/// Longest one-line mention of a memory that did not fit.
const MAX_LINE: usize = 200;
/// What of a prompt is ranked against: its head and its tail, this many bytes each. A prompt
/// with a pasted log or file says what it wants around the paste, and ranking cost grows with
/// the text (a 7 MB prompt took 3.5–4 s in-process).
pub const PROMPT_RANKED_BYTES: usize = 4 * 1024;

/// The text of `prompt` a turn ranks memories against: all of it when short, else its first and
/// last [`PROMPT_RANKED_BYTES`] (cut at character boundaries).
pub fn ranked_prompt(prompt: &str) -> std::borrow::Cow<'_, str> {
    if prompt.len() <= 2 * PROMPT_RANKED_BYTES {
        return std::borrow::Cow::Borrowed(prompt);
    }
    let head_end = prompt.floor_char_boundary(PROMPT_RANKED_BYTES);
    let tail_start = prompt.ceil_char_boundary(prompt.len() - PROMPT_RANKED_BYTES);
    std::borrow::Cow::Owned(format!(
        "{}\n{}",
        &prompt[..head_end],
        &prompt[tail_start..]
    ))
}

/// Whether two memories disagree, as the review inbox judges it (a known conflict), and on what
/// claims, as `(a's, b's)`. Passed in: judging pairs is the lifecycle's, above this layer.
pub trait Disagreements: std::fmt::Debug {
    fn between(&self, a: &Memory, b: &Memory) -> Option<Vec<(String, String)>>;
}

/// No judgement of pairs (a preview of retrieval tests, unit tests).
#[derive(Debug)]
pub struct NoDisagreements;

impl Disagreements for NoDisagreements {
    fn between(&self, _: &Memory, _: &Memory) -> Option<Vec<(String, String)>> {
        None
    }
}

/// What to compose.
#[derive(Debug, Clone)]
pub struct ComposeInput<'a> {
    /// A context begins: trust anchors and the memory map.
    pub start: bool,
    /// The start block the context already holds, when a `SessionStart` resumes a context that
    /// was given one: the client keeps that block in the conversation, so an anchor goes in
    /// again only when its text changed, and the map not again (new memories still come through
    /// each turn's gate).
    pub resumed: Option<&'a StartBlock>,
    /// A prompt: the gated bodies this context does not hold yet.
    pub query: Option<&'a str>,
    /// The conversation's last exchange before the prompt (DESIGN §5), ranked too when the
    /// prompt alone is unsure (`rank::conversation`); `None` when the agent named no transcript.
    pub conversation: Option<rank::conversation::Exchange<'a>>,
    /// What the context already holds (empty for a fresh one).
    pub held: &'a Held,
    pub gate: Gate,
    pub budgets: Budgets,
    /// How often each memory was given before: (scope, project slug or "", name) → count.
    pub uses: &'a HashMap<(Scope, String, String), u64>,
    /// The day of the turn: a memory whose `expires:` has come is not injected (superseded ones
    /// never are). `None`: only supersession is checked.
    pub today: Option<chrono::NaiveDate>,
    /// Which pairs of memories are known to disagree.
    pub disagreements: &'a dyn Disagreements,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Budgets {
    pub turn_bytes: usize,
    pub map_bytes: usize,
    pub hard_limit: usize,
}

impl Budgets {
    pub fn from_config(config: &ComposeConfig) -> Budgets {
        Budgets {
            turn_bytes: config.turn_bytes.min(HARD_LIMIT),
            map_bytes: config.map_bytes.min(HARD_LIMIT),
            hard_limit: HARD_LIMIT,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Selected {
    pub scope: Scope,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub score: f64,
    /// The gate's absolute evidence for it (see `rank::relevance`).
    pub strength: f32,
    pub bytes: usize,
    pub content_hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CutReason {
    BelowGate,
    AlreadyInContext,
    Budget,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cut {
    pub scope: Scope,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub score: f64,
    pub strength: f32,
    pub bytes: usize,
    pub reason: CutReason,
    /// A budget cut went in as one line (`name — description`) instead of its body.
    #[serde(default)]
    pub listed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

/// A body given that disagrees with another given with it, or held from earlier in the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    pub scope: Scope,
    pub name: String,
    pub other_scope: Scope,
    pub other_name: String,
    /// The claims on which they differ, as `(this one's, the other's)`.
    pub claims: Vec<(String, String)>,
    /// The other was given earlier in this context (else in the same block).
    pub other_held: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Composition {
    /// `new_context` (anchors and map, plus bodies when there is a prompt) or `turn`.
    pub moment: String,
    pub sections: Vec<Section>,
    pub selected: Vec<Selected>,
    pub cut: Vec<Cut>,
    /// Known conflicts among the bodies given and what the context holds, each marked in the
    /// text on the side(s) given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disagreements: Vec<Disagreement>,
    /// Below-gate memories not listed in `cut` (only the best few are).
    #[serde(default)]
    pub below_gate_more: usize,
    pub gate: Gate,
    pub budgets: Budgets,
    pub strategy: Strategy,
    /// Passing problems (a source that could not be read this time).
    pub notes: Vec<String>,
    /// Lasting conditions (no model, a bad config): said once per context, at its start.
    #[serde(default)]
    pub conditions: Vec<String>,
    pub project: Option<String>,
    /// The agent session this was composed for, and its context generation in the ledger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionContext>,
    /// At a context's start: what of a start block the context holds after this one (the
    /// caller records it, so a resume knows).
    #[serde(skip)]
    pub start_block: Option<StartBlock>,
    pub bytes: usize,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionContext {
    pub id: String,
    pub generation: u32,
    /// Whether what was given is recorded in the ledger (hooks) or only previewed.
    pub recorded: bool,
}

impl Composition {
    /// What the ledger records of this composition: every body given, every line listed.
    pub fn given(&self) -> Vec<(MemoryVersion, Form)> {
        let mut out: Vec<(MemoryVersion, Form)> = self
            .selected
            .iter()
            .map(|s| {
                (
                    MemoryVersion {
                        scope: s.scope,
                        project: s.project.clone(),
                        name: s.name.clone(),
                        content_hash: s.content_hash.clone(),
                    },
                    Form::Body,
                )
            })
            .collect();
        out.extend(self.cut.iter().filter(|c| c.listed).filter_map(|c| {
            Some((
                MemoryVersion {
                    scope: c.scope,
                    project: c.project.clone(),
                    name: c.name.clone(),
                    content_hash: c.content_hash.clone()?,
                },
                Form::Line,
            ))
        }));
        out
    }
}

/// The content hash the ledger keys a memory's version by: what an agent is given of it.
pub fn content_hash(memory: &Memory) -> String {
    let mut h = Sha256::new();
    for part in [
        memory.name.as_str(),
        memory.kind.as_str(),
        memory.description.as_str(),
        memory.body.as_str(),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    hex_prefix(&h.finalize())
}

/// The first 8 bytes of a digest, in hex: enough to tell versions apart.
pub(crate) fn hex_prefix(digest: &[u8]) -> String {
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Composes. Never fails: unreadable sources become notes.
pub fn compose(
    store: &Store,
    cache: &mut CorpusCache,
    retrieval: &RetrievalConfig,
    input: &ComposeInput<'_>,
    semantic: Semantic<'_>,
) -> Composition {
    let mut notes = Vec::new();
    let mut conditions = Vec::new();
    let budgets = input.budgets;
    let limit = budgets.hard_limit.min(HARD_LIMIT);
    let slug = store.project().map(|p| p.slug.clone());
    let mut sections: Vec<Section> = Vec::new();
    let mut start_block = None;

    if input.start {
        // Room kept for the map and for a first prompt's bodies; the anchors (the person's own
        // words) get the rest.
        let map_room = budgets.map_bytes.min(limit / 2);
        let body_reserve = if input.query.is_some() {
            budgets.turn_bytes.min(limit / 4)
        } else {
            0
        };
        let anchor_room = limit.saturating_sub(WRAPPER + map_room + body_reserve);
        let (anchors, holds) =
            start_anchors::sections(store, input.resumed, anchor_room, limit, &mut notes);
        sections.extend(anchors);
        start_block = Some(holds);
        let room = map_room.min(limit.saturating_sub(rendered_len(&sections) + body_reserve));
        let map_corpus = match input.resumed {
            Some(_) => None,
            None => Some(cache.corpus(store, ScopeFilter::All)),
        };
        match map_corpus {
            None => {}
            Some(Ok(corpus)) => {
                let newest = cache.newest_first(&corpus, map::newest_first);
                // Said once per context, in the map: the team memory this repository holds and
                // this person has not trusted yet (DESIGN §15). Its room is kept first: the
                // map's name index would otherwise take it.
                let waiting = map::team_waiting(store).filter(|w| w.len() + 1 < room / 2);
                let map_room = room - waiting.as_ref().map_or(0, |w| w.len() + 1);
                let mut body = map::render(&corpus, slug.as_deref(), input.uses, map_room, &newest);
                if let Some(waiting) = waiting.filter(|_| !body.is_empty()) {
                    body.push('\n');
                    body.push_str(&waiting);
                }
                if !body.is_empty() {
                    sections.push(section(
                        SectionKind::MemoryMap,
                        "Memory map",
                        body,
                        None,
                        None,
                    ));
                }
            }
            Some(Err(e)) => notes.push(format!("left out the memory map: {e}")),
        }
    }

    let mut selected = Vec::new();
    let mut cut = Vec::new();
    let mut disagreements = Vec::new();
    let mut below_gate_more = 0;
    let mut strategy = retrieval.strategy;
    if let (Some(query), true) = (input.query, retrieval.enabled) {
        let params = SearchParams::from_config(retrieval);
        let synonyms = Synonyms::new(&retrieval.synonyms);
        match cache.corpus(store, ScopeFilter::All) {
            Ok(corpus) => {
                let gated = rank::rank_for_gate_in(
                    &corpus,
                    query,
                    input.conversation,
                    &params,
                    &synonyms,
                    semantic,
                    input.gate,
                    BELOW_GATE_REPORTED,
                );
                let ranked = &gated.relevant;
                strategy = ranked.ranking.strategy;
                conditions.extend(ranked.ranking.note.clone());
                let used = rendered_len(&sections) + section_overhead(RELEVANT_HEADING);
                let budget = budgets
                    .turn_bytes
                    .min(limit.saturating_sub(used.max(WRAPPER)));
                let mut bodies = admit(ranked, slug.as_deref(), input, budget, &mut notes);
                disagreements = mark_disagreements(store, input, &mut bodies);
                selected = bodies.selected;
                cut = bodies.cut;
                below_gate_more = bodies.below_gate_more + gated.refused_more;
                sections.extend(bodies.sections);
            }
            Err(e) => notes.push(format!("left out ranked memories: {e}")),
        }
    }

    // The hard limit holds whatever went wrong in the arithmetic above: the last sections go.
    while rendered_len(&sections) > limit {
        let Some(last) = sections.pop() else { break };
        notes.push(format!(
            "left out {}: over the {limit}-byte limit",
            last.heading
        ));
        if let Some(name) = &last.name {
            if let Some(i) = selected.iter().position(|s: &Selected| &s.name == name) {
                let s = selected.remove(i);
                cut.push(Cut {
                    scope: s.scope,
                    name: s.name,
                    kind: s.kind,
                    score: s.score,
                    strength: s.strength,
                    bytes: s.bytes,
                    reason: CutReason::Budget,
                    listed: false,
                    content_hash: Some(s.content_hash),
                    project: s.project,
                });
            }
        }
        if last.kind == SectionKind::AlsoRelevant {
            cut.iter_mut().for_each(|c| c.listed = false);
        }
    }
    let text = render(&sections);
    Composition {
        moment: if input.start { "new_context" } else { "turn" }.to_string(),
        bytes: text.len(),
        sections,
        selected,
        cut,
        disagreements,
        below_gate_more,
        gate: input.gate,
        budgets,
        strategy,
        notes,
        conditions,
        project: slug,
        session: None,
        start_block,
        text,
    }
}

struct Admitted {
    sections: Vec<Section>,
    selected: Vec<Selected>,
    /// The memories behind `selected`, in its order.
    given: Vec<Memory>,
    cut: Vec<Cut>,
    below_gate_more: usize,
}

/// The gated bodies that fit `budget`, in rank order; the relevant ones that do not fit are
/// listed one line each while lines fit. Only memories that pass the gate are read.
fn admit(
    ranked: &rank::RelevantRanking,
    slug: Option<&str>,
    input: &ComposeInput<'_>,
    budget: usize,
    notes: &mut Vec<String>,
) -> Admitted {
    let mut out = Admitted {
        sections: Vec::new(),
        selected: Vec::new(),
        given: Vec::new(),
        cut: Vec::new(),
        below_gate_more: 0,
    };
    let mut used = 0usize;
    let mut unfit: Vec<(Cut, String)> = Vec::new();
    for (hit, evidence) in ranked.ranking.hits.iter().zip(&ranked.evidence) {
        let project = hit
            .scope
            .of_a_project()
            .then(|| slug.map(str::to_string))
            .flatten();
        let cut_of = |reason, bytes, hash: Option<String>| Cut {
            scope: hit.scope,
            name: hit.name.clone(),
            kind: hit.kind.clone(),
            score: hit.score,
            strength: evidence.strength,
            bytes,
            reason,
            listed: false,
            content_hash: hash,
            project: project.clone(),
        };
        if !evidence.gated {
            if out
                .cut
                .iter()
                .filter(|c| c.reason == CutReason::BelowGate)
                .count()
                < BELOW_GATE_REPORTED
            {
                out.cut
                    .push(cut_of(CutReason::BelowGate, hit.body_bytes as usize, None));
            } else {
                out.below_gate_more += 1;
            }
            continue;
        }
        let memory = match read_memory_file(hit.scope, &hit.path) {
            // Superseded or expired memories are never injected (DESIGN §14).
            Ok(Some(memory)) if memory.is_retired(input.today) => continue,
            Ok(Some(memory)) => memory,
            Ok(None) => continue, // removed since it was ranked
            Err(e) => {
                notes.push(format!("left out {}/{}: {e}", hit.scope, hit.name));
                continue;
            }
        };
        let version = MemoryVersion {
            scope: hit.scope,
            project: project.clone(),
            name: hit.name.clone(),
            content_hash: content_hash(&memory),
        };
        if input.held.has_body(&version) {
            out.cut.push(cut_of(
                CutReason::AlreadyInContext,
                memory.body.len(),
                Some(version.content_hash),
            ));
            continue;
        }
        // Tagged with where the memory lives (user, project, team): read beside a project, a
        // type tag (`[project]` on a user memory) would say the wrong thing.
        let heading = format!("{} [{}]", hit.name, hit.scope);
        let whole = section(
            SectionKind::Memory,
            &heading,
            memory.body.trim_end().to_string(),
            Some(hit.scope),
            Some(hit.name.clone()),
        );
        let body = if used + whole.bytes < budget {
            Some(whole)
        } else if out.selected.is_empty() && unfit.is_empty() {
            // The best memory alone is larger than a turn's budget: its head goes in, cut at a
            // line, rather than the one memory the prompt most needs never reaching the context.
            fit::cut_to(
                memory.body.trim_end(),
                budget.saturating_sub(section_overhead(&heading) + 1),
                &format!("{} (memory_get has the rest)", hit.name),
            )
            .filter(|b| b.len() >= 200)
            .map(|b| {
                notes.push(format!(
                    "{}/{} cut to {} of {} bytes to fit compose.turn_bytes",
                    hit.scope,
                    hit.name,
                    b.len(),
                    memory.body.len()
                ));
                section(
                    SectionKind::Memory,
                    &heading,
                    b,
                    Some(hit.scope),
                    Some(hit.name.clone()),
                )
            })
        } else {
            None
        };
        match body {
            Some(s) => {
                used += s.bytes + 1;
                out.selected.push(Selected {
                    scope: hit.scope,
                    name: hit.name.clone(),
                    kind: hit.kind.clone(),
                    score: hit.score,
                    strength: evidence.strength,
                    bytes: s.bytes,
                    content_hash: version.content_hash,
                    project,
                });
                out.sections.push(s);
                out.given.push(memory);
            }
            None => {
                let line = fit::bound_line(
                    &format!("- {} ({}) — {}", hit.name, hit.scope, memory.description),
                    MAX_LINE,
                );
                let listed_before = input.held.has_line(&version);
                let mut c = cut_of(
                    CutReason::Budget,
                    memory.body.len(),
                    Some(version.content_hash),
                );
                c.listed = listed_before; // its line is in the context already
                unfit.push((c, if listed_before { String::new() } else { line }));
            }
        }
    }
    // Lines for what did not fit, while they fit.
    let mut lines = String::new();
    let also = section_overhead(ALSO_HEADING);
    for (mut c, line) in unfit {
        if !line.is_empty() && used + also + lines.len() + line.len() < budget {
            lines.push_str(&line);
            lines.push('\n');
            c.listed = true;
        } else if !line.is_empty() {
            c.listed = false;
        } else {
            // Listed in an earlier turn: not repeated, and not recorded again.
            c.listed = false;
        }
        out.cut.push(c);
    }
    if !lines.is_empty() {
        out.sections.push(section(
            SectionKind::AlsoRelevant,
            ALSO_HEADING,
            lines.trim_end().to_string(),
            None,
            None,
        ));
    }
    out
}

/// Finds the known conflicts among the bodies `admitted` gives and between them and the bodies
/// the context holds, and marks each given side with a line naming the other and the claims
/// (DESIGN §5: a conflict the review knows never enters a context as two silent
/// contradictions). Reads the held memories only when a body is given.
fn mark_disagreements(
    store: &Store,
    input: &ComposeInput<'_>,
    admitted: &mut Admitted,
) -> Vec<Disagreement> {
    let given = &admitted.given;
    if given.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    let disagreement = |a: &Memory, b: &Memory, claims, other_held| Disagreement {
        scope: a.scope,
        name: a.name.clone(),
        other_scope: b.scope,
        other_name: b.name.clone(),
        claims,
        other_held,
    };
    for (i, a) in given.iter().enumerate() {
        for b in &given[i + 1..] {
            if let Some(claims) = input.disagreements.between(a, b) {
                let flipped = claims.iter().map(|(x, y)| (y.clone(), x.clone())).collect();
                found.push(disagreement(a, b, claims, false));
                found.push(disagreement(b, a, flipped, false));
            }
        }
    }
    let held: Vec<Memory> = input
        .held
        .items
        .iter()
        .filter(|(_, form)| *form == Form::Body)
        .filter(|(v, _)| {
            v.scope == Scope::User
                || v.project.as_deref() == store.project().map(|p| p.slug.as_str())
        })
        .filter(|(v, _)| !given.iter().any(|g| g.scope == v.scope && g.name == v.name))
        .filter_map(|(v, _)| store.get(Some(v.scope), &v.name).ok())
        .collect();
    for a in given {
        for b in &held {
            if let Some(claims) = input.disagreements.between(a, b) {
                found.push(disagreement(a, b, claims, true));
            }
        }
    }
    for d in &found {
        let Some(section) = admitted.sections.iter_mut().find(|s| {
            s.kind == SectionKind::Memory
                && s.scope == Some(d.scope)
                && s.name.as_deref() == Some(d.name.as_str())
        }) else {
            continue;
        };
        let claims: Vec<String> = d
            .claims
            .iter()
            .map(|(mine, theirs)| format!("{mine} here, {theirs} there"))
            .collect();
        let when = if d.other_held {
            ", given earlier in this conversation,"
        } else {
            ""
        };
        let note = format!(
            "> Known disagreement: `{}` ({}){when} says otherwise ({}). Ask the person which holds, or check before acting on either.",
            d.other_name,
            d.other_scope,
            claims.join("; ")
        );
        let body = format!("{note}\n{}", section.body);
        let heading = section.heading.clone();
        *section = self::section(
            section.kind,
            &heading,
            body,
            section.scope,
            section.name.clone(),
        );
        if let Some(s) = admitted
            .selected
            .iter_mut()
            .find(|s| s.scope == d.scope && s.name == d.name)
        {
            s.bytes = section.bytes;
        }
    }
    found
}

#[cfg(test)]
mod tests;

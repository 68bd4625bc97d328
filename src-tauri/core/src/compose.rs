//! Prompt composition (DESIGN §5): the memory block an agent gets for one turn.
//!
//! Owns: assembling trust anchors, both MEMORY.md indexes and the top-ranked bodies under the
//! shared `top_k` cap and a `max_bytes` that bounds the whole block, and reporting what each
//! section costs and what the caps cut. The budget goes to the trust anchors first (the person's
//! own words), then to ranked bodies (a quarter of what is left is held back for the indexes),
//! then to the indexes; a top entry too long for what is left goes in cut at a line boundary,
//! and every cut says so in the block. A source that cannot be read is left out with a note:
//! composition never fails the turn. How each source is trimmed to fit lives in `fit`.
//! Deliberately does not: resolve the project or load embeddings (callers pass the store and a
//! `Semantic`), or print.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::anchors;
use crate::config::{RetrievalConfig, Strategy};
use crate::memory::{read_memory_file, Scope, ScopeFilter, Store};
use crate::rank::{self, CorpusCache, Hit, SearchParams, Semantic, Synonyms};

pub mod cases;
mod fit;

/// What to compose for.
#[derive(Debug, Clone)]
pub struct ComposeRequest {
    pub query: String,
    pub top_k: usize,
    pub max_bytes: usize,
    /// The day the turn happens: a memory expired by then is not injected (superseded ones
    /// never are). `None`: only supersession is checked.
    pub today: Option<chrono::NaiveDate>,
}

impl ComposeRequest {
    pub fn new(query: impl Into<String>, retrieval: &RetrievalConfig) -> Self {
        ComposeRequest {
            query: query.into(),
            top_k: retrieval.top_k,
            max_bytes: retrieval.max_bytes,
            today: None,
        }
    }

    /// Applies per-call caps (`--top-k`, `--max-bytes`); `top_k` is at least 1.
    pub fn with_caps(mut self, top_k: Option<usize>, max_bytes: Option<usize>) -> Self {
        if let Some(k) = top_k {
            self.top_k = k.max(1);
        }
        if let Some(b) = max_bytes {
            self.max_bytes = b;
        }
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    UserPreferences,
    ProjectContext,
    UserIndex,
    ProjectIndex,
    Memory,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub kind: SectionKind,
    pub heading: String,
    pub bytes: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    // Already in `Composition::text`; a composition read back from JSON has it empty.
    #[serde(skip)]
    body: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Selected {
    pub scope: Scope,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub score: f64,
    pub bytes: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CutReason {
    TopK,
    MaxBytes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cut {
    pub scope: Scope,
    pub name: String,
    pub score: f64,
    pub bytes: usize,
    pub reason: CutReason,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Composition {
    pub sections: Vec<Section>,
    pub selected: Vec<Selected>,
    pub cut: Vec<Cut>,
    pub strategy: Strategy,
    pub notes: Vec<String>,
    pub project: Option<String>,
    pub bytes: usize,
    pub text: String,
}

/// Composes the block. Never fails: unreadable sources become notes.
pub fn compose(
    store: &Store,
    cache: &mut CorpusCache,
    retrieval: &RetrievalConfig,
    request: &ComposeRequest,
    semantic: Semantic<'_>,
) -> Composition {
    let mut notes = Vec::new();
    let mut anchor = |kind: SectionKind, heading: &str, path: Option<PathBuf>| -> Option<Section> {
        let path = path?;
        match anchors::read_for_agent(&path) {
            Ok(Some(text)) if !text.trim().is_empty() && !anchors::is_untouched_skeleton(&text) => {
                Some(section(
                    kind,
                    heading,
                    fit::anchor(&text, heading),
                    None,
                    None,
                ))
            }
            Ok(_) => None,
            Err(e) => {
                notes.push(format!("left out {heading}: {e}"));
                None
            }
        }
    };
    let user_anchor = anchor(
        SectionKind::UserPreferences,
        "User preferences",
        Some(anchors::user_anchor_path(store.home())),
    );
    let project_anchor = anchor(
        SectionKind::ProjectContext,
        "Project context",
        store.project().map(anchors::project_anchor_path),
    );

    let (hits, strategy) = if retrieval.enabled {
        let params = SearchParams::from_config(retrieval);
        let synonyms = Synonyms::new(&retrieval.synonyms);
        match rank::search(
            store,
            cache,
            ScopeFilter::All,
            &request.query,
            &params,
            &synonyms,
            semantic,
        ) {
            Ok(ranking) => {
                notes.extend(ranking.note);
                (ranking.hits, ranking.strategy)
            }
            Err(e) => {
                notes.push(format!("left out ranked memories: {e}"));
                (Vec::new(), retrieval.strategy)
            }
        }
    } else {
        (every_memory(store, request, &mut notes), retrieval.strategy)
    };

    let unlimited = !retrieval.enabled;
    let limit = if unlimited {
        usize::MAX
    } else {
        request.max_bytes
    };
    let mut fixed: Vec<Section> = Vec::new();
    for anchor in [user_anchor, project_anchor].into_iter().flatten() {
        let room =
            limit.saturating_sub(block_len(&fixed) + section_overhead(&anchor.heading, "##"));
        match fit::cut_to(&anchor.body, room, &anchor.heading) {
            Some(body) => fixed.push(section(anchor.kind, &anchor.heading, body, None, None)),
            None => notes.push(format!(
                "left out {}: larger than max_bytes",
                anchor.heading
            )),
        }
    }

    let mut indexes: Vec<(Scope, SectionKind, &str, String)> = Vec::new();
    for scope in [Scope::User, Scope::Project] {
        if scope == Scope::Project && store.project().is_none() {
            continue;
        }
        let (kind, heading) = match scope {
            Scope::User => (SectionKind::UserIndex, "User memory index"),
            Scope::Project => (SectionKind::ProjectIndex, "Project memory index"),
        };
        match store.index_text(scope) {
            Ok(Some(text)) if !text.trim().is_empty() => {
                indexes.push((scope, kind, heading, fit::index(&text)))
            }
            Ok(_) => {}
            Err(e) => notes.push(format!("left out {heading}: {e}")),
        }
    }
    let index_cost: usize = indexes
        .iter()
        .map(|(_, _, h, t)| section_overhead(h, "##") + t.len())
        .sum();
    let after_anchors = limit.saturating_sub(block_len(&fixed));
    let body_budget = after_anchors - index_cost.min(after_anchors / 4);
    let (chosen, cut) = admit(&hits, request, unlimited, body_budget, &mut notes);
    let bodies: Vec<Section> = chosen
        .iter()
        .map(|(hit, body)| {
            let heading = format!("{} [{}]", hit.name, hit.kind);
            section(
                SectionKind::Memory,
                &heading,
                body.clone(),
                Some(hit.scope),
                Some(hit.name.clone()),
            )
        })
        .collect();

    let mut room =
        limit.saturating_sub(block_len(&fixed) + bodies.iter().map(section_cost).sum::<usize>());
    let mut fitted_indexes = Vec::new();
    let count = indexes.len();
    for (i, (scope, kind, heading, text)) in indexes.into_iter().enumerate() {
        // Each index gets an even share of what is left; what one does not use passes on.
        let share = room / (count - i);
        let what = format!("the {}", heading.to_lowercase());
        match fit::cut_to(
            &text,
            share.saturating_sub(section_overhead(heading, "##")),
            &what,
        ) {
            Some(body) if share > section_overhead(heading, "##") => {
                let s = section(kind, heading, body, None, None);
                room = room.saturating_sub(section_cost(&s));
                fitted_indexes.push((scope, s));
            }
            _ => notes.push(format!("left out {heading}: no room under max_bytes")),
        }
    }

    let mut sections = fixed;
    for scope in [Scope::User, Scope::Project] {
        sections.extend(
            fitted_indexes
                .iter()
                .filter(|(s, _)| *s == scope)
                .map(|(_, section)| section.clone()),
        );
        sections.extend(bodies.iter().filter(|b| b.scope == Some(scope)).cloned());
    }
    // A selected memory's size is the size of its section in the block (heading included), so
    // the two lists a person compares show one number for one memory.
    let section_bytes = |h: &Hit| {
        sections
            .iter()
            .find(|s| {
                s.kind == SectionKind::Memory
                    && s.scope == Some(h.scope)
                    && s.name.as_deref() == Some(h.name.as_str())
            })
            .map_or(0, |s| s.bytes)
    };
    let selected = chosen
        .iter()
        .map(|(h, _)| Selected {
            scope: h.scope,
            name: h.name.clone(),
            kind: h.kind.clone(),
            score: h.score,
            bytes: section_bytes(h),
        })
        .collect();
    let text = render(&sections);
    Composition {
        bytes: text.len(),
        sections,
        selected,
        cut,
        strategy,
        notes,
        project: store.project().map(|p| p.slug.clone()),
        text,
    }
}

fn section(
    kind: SectionKind,
    heading: &str,
    body: String,
    scope: Option<Scope>,
    name: Option<String>,
) -> Section {
    let level = if kind == SectionKind::Memory {
        "###"
    } else {
        "##"
    };
    let bytes = level.len() + 1 + heading.len() + 1 + body.len();
    Section {
        kind,
        heading: heading.to_string(),
        bytes,
        scope,
        name,
        body,
    }
}

/// What a section adds to the rendered block besides its body: heading line and blank line.
fn section_overhead(heading: &str, level: &str) -> usize {
    level.len() + 1 + heading.len() + 1 + 2
}

fn section_cost(s: &Section) -> usize {
    let level = if s.kind == SectionKind::Memory {
        "###"
    } else {
        "##"
    };
    section_overhead(&s.heading, level) + s.body.trim_end_matches('\n').len()
}

/// Length of the rendered block of `sections` (the `<ambry-memory>` lines included).
fn block_len(sections: &[Section]) -> usize {
    const WRAPPER: usize = "<ambry-memory>\n".len() + "</ambry-memory>\n".len();
    WRAPPER + sections.iter().map(section_cost).sum::<usize>()
}

fn render(sections: &[Section]) -> String {
    if sections.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ambry-memory>\n");
    for s in sections {
        let level = if s.kind == SectionKind::Memory {
            "###"
        } else {
            "##"
        };
        out.push_str(&format!("{level} {}\n", s.heading));
        out.push_str(s.body.trim_end_matches('\n'));
        out.push_str("\n\n");
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out.push_str("\n</ambry-memory>\n");
    out
}

/// Applies `top_k` and the body budget together and reads bodies; a top entry longer than the
/// budget goes in cut at a line boundary (with a line saying so) when any of it fits.
/// Only bodies that can still be admitted are read: with a large store nearly every memory
/// matches something, and reading each one's file per turn would dominate the call. A cut
/// reports the body size the ranker saw (the same file, refreshed for this call).
fn admit(
    hits: &[Hit],
    request: &ComposeRequest,
    unlimited: bool,
    budget: usize,
    notes: &mut Vec<String>,
) -> (Vec<(Hit, String)>, Vec<Cut>) {
    let mut chosen: Vec<(Hit, String)> = Vec::new();
    let mut cut = Vec::new();
    let mut used = 0usize;
    let reason_for = |chosen: usize, used: usize, cost: usize| {
        if unlimited {
            None
        } else if chosen >= request.top_k {
            Some(CutReason::TopK)
        } else if used + cost > budget {
            Some(CutReason::MaxBytes)
        } else {
            None
        }
    };
    for hit in hits {
        let overhead = section_overhead(&format!("{} [{}]", hit.name, hit.kind), "###");
        let known = hit.body_bytes as usize;
        let may_cut_to_fit = chosen.is_empty() && !unlimited;
        if let Some(reason) =
            reason_for(chosen.len(), used, known + overhead).filter(|_| !may_cut_to_fit)
        {
            cut.push(Cut {
                scope: hit.scope,
                name: hit.name.clone(),
                score: hit.score,
                bytes: known,
                reason,
            });
            continue;
        }
        let body = match read_memory_file(hit.scope, &hit.path) {
            Ok(Some(memory)) if memory.is_retired(request.today) => continue, // DESIGN §14
            Ok(Some(memory)) => memory.body,
            Ok(None) => continue, // removed since it was ranked
            Err(e) => {
                notes.push(format!("left out {}/{}: {e}", hit.scope, hit.name));
                continue;
            }
        };
        let cost = body.len() + overhead;
        match reason_for(chosen.len(), used, cost) {
            Some(CutReason::MaxBytes) if may_cut_to_fit => {
                match fit::cut_to(&body, budget.saturating_sub(overhead), &hit.name) {
                    Some(shortened) => {
                        notes.push(format!(
                            "{}/{} cut to {} of {} bytes to fit max_bytes",
                            hit.scope,
                            hit.name,
                            shortened.len(),
                            body.len()
                        ));
                        used += shortened.len() + overhead;
                        chosen.push((hit.clone(), shortened));
                    }
                    None => cut.push(Cut {
                        scope: hit.scope,
                        name: hit.name.clone(),
                        score: hit.score,
                        bytes: body.len(),
                        reason: CutReason::MaxBytes,
                    }),
                }
            }
            Some(reason) => cut.push(Cut {
                scope: hit.scope,
                name: hit.name.clone(),
                score: hit.score,
                bytes: body.len(),
                reason,
            }),
            None => {
                used += cost;
                chosen.push((hit.clone(), body));
            }
        }
    }
    (chosen, cut)
}

/// With retrieval off, every memory (project shadowing user), ordered by scope and name.
fn every_memory(store: &Store, request: &ComposeRequest, notes: &mut Vec<String>) -> Vec<Hit> {
    let files = match store.list(ScopeFilter::All) {
        Ok(files) => files,
        Err(e) => {
            notes.push(format!("left out memories: {e}"));
            return Vec::new();
        }
    };
    let project_names: std::collections::HashSet<&str> = files
        .iter()
        .filter(|f| f.scope == Scope::Project)
        .map(|f| f.name.as_str())
        .collect();
    files
        .iter()
        .filter(|f| f.scope == Scope::Project || !project_names.contains(f.name.as_str()))
        .filter_map(|f| f.parsed.as_ref().ok())
        .filter(|m| !m.is_retired(request.today)) // DESIGN §14
        .map(|m| Hit {
            scope: m.scope,
            name: m.name.clone(),
            kind: m.kind.clone(),
            description: m.description.clone(),
            score: 1.0,
            path: m.path.clone(),
            body_bytes: m.body.len() as u64,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryDraft;
    use crate::project::Project;
    use crate::AmbryHome;

    fn setup() -> (tempfile::TempDir, Store) {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".ambry")).unwrap();
        let project = Project {
            slug: "repo-00000000".into(),
            root: repo,
            remote: None,
        };
        let store = Store::new(AmbryHome::new(tmp.path().join("home")), Some(project));
        (tmp, store)
    }

    fn save(store: &Store, scope: Scope, name: &str, description: &str, body: &str) {
        let draft = MemoryDraft {
            name: name.into(),
            kind: "project".into(),
            description: description.into(),
            body: body.into(),
            tags: vec![],
        };
        store
            .save(scope, draft, "2026-01-01T00:00:00Z".parse().unwrap())
            .unwrap();
    }

    fn compose_for(store: &Store, query: &str, top_k: usize, max_bytes: usize) -> Composition {
        let retrieval = RetrievalConfig {
            strategy: Strategy::Bm25,
            ..Default::default()
        };
        let request = ComposeRequest {
            query: query.into(),
            top_k,
            max_bytes,
            today: None,
        };
        compose(
            store,
            &mut CorpusCache::in_memory(),
            &retrieval,
            &request,
            Semantic::Unavailable("off".into()),
        )
    }

    #[test]
    fn only_admitted_memories_are_read_and_cuts_carry_their_ranked_size() {
        let tmp = tempfile::tempdir().unwrap();
        let kept = tmp.path().join("kept.md");
        std::fs::write(&kept, "---\nname: kept\ntype: note\ndescription: d\ncreated: 2026-01-01T00:00:00Z\n---\nbody\n").unwrap();
        let hit = |name: &str, path: PathBuf, body_bytes: u64| Hit {
            scope: Scope::User,
            name: name.into(),
            kind: "note".into(),
            description: String::new(),
            score: 1.0,
            path,
            body_bytes,
        };
        // The cut memories' files do not exist: reading them would drop them from the cut list.
        let hits = [
            hit("kept", kept, 5),
            hit("second", tmp.path().join("gone.md"), 40),
            hit("third", tmp.path().join("gone2.md"), 7),
        ];
        let request = ComposeRequest {
            query: String::new(),
            top_k: 1,
            max_bytes: 1000,
            today: None,
        };
        let mut notes = Vec::new();
        let (chosen, cut) = admit(&hits, &request, false, 1000, &mut notes);
        assert_eq!(chosen.len(), 1);
        assert_eq!(chosen[0].1, "body\n");
        let cut: Vec<(&str, usize, CutReason)> = cut
            .iter()
            .map(|c| (c.name.as_str(), c.bytes, c.reason))
            .collect();
        assert_eq!(
            cut,
            vec![
                ("second", 40, CutReason::TopK),
                ("third", 7, CutReason::TopK)
            ]
        );
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn block_has_the_design_layout_in_order() {
        let (_tmp, store) = setup();
        std::fs::create_dir_all(store.home().root()).unwrap();
        std::fs::write(store.home().user_anchor(), "Prefer tabs.\n").unwrap();
        std::fs::write(
            store.project().unwrap().root.join(".ambry/AMBRY.md"),
            "Ledger service.\n",
        )
        .unwrap();
        save(
            &store,
            Scope::User,
            "deploy-steps",
            "How to deploy",
            "Run make deploy.",
        );
        save(
            &store,
            Scope::Project,
            "db-migrations",
            "Database migrations",
            "Use sqlx migrate; deploy after.",
        );
        let c = compose_for(&store, "how do I deploy?", 10, 24_000);
        let t = &c.text;
        let order = [
            "<ambry-memory>",
            "## User preferences\nPrefer tabs.",
            "## Project context\nLedger service.",
            "## User memory index\n### project\n",
            "### deploy-steps [project]\nRun make deploy.",
            "## Project memory index",
            "### db-migrations [project]",
            "</ambry-memory>",
        ];
        let mut at = 0;
        for piece in order {
            let found = t[at..]
                .find(piece)
                .unwrap_or_else(|| panic!("`{piece}` missing or out of order in:\n{t}"));
            at += found + piece.len();
        }
        assert_eq!(c.selected.len(), 2);
        // Each selected memory's size is its section's size: one number for one memory.
        for m in &c.selected {
            let section = c
                .sections
                .iter()
                .find(|s| s.name.as_deref() == Some(m.name.as_str()))
                .unwrap();
            assert_eq!(m.bytes, section.bytes, "{}", m.name);
        }
        assert_eq!(c.bytes, t.len());
        let section_bytes: usize = c.sections.iter().map(|s| s.bytes).sum();
        assert!(section_bytes <= t.len());
    }

    #[test]
    fn empty_sections_are_left_out_and_nothing_gives_an_empty_block() {
        let (_tmp, store) = setup();
        let c = compose_for(&store, "anything", 10, 24_000);
        assert_eq!(c.text, "");
        save(&store, Scope::User, "only-one", "A note", "body");
        let c = compose_for(&store, "unrelated words", 10, 24_000);
        assert!(!c.text.contains("User preferences"));
        assert!(!c.text.contains("Project memory index"));
        assert!(c.text.contains("## User memory index"));
        assert!(c.selected.is_empty());
    }

    #[test]
    fn caps_apply_together_and_a_long_top_entry_goes_in_cut_to_fit() {
        let (_tmp, store) = setup();
        save(
            &store,
            Scope::User,
            "huge-cache",
            "cache cache cache",
            &"cache cache cache\n".repeat(700),
        );
        save(
            &store,
            Scope::User,
            "small-cache",
            "cache notes",
            "cache tip",
        );
        save(&store, Scope::User, "tiny-cache", "cache", "cache");
        let c = compose_for(&store, "cache", 10, 1000);
        assert!(c.text.len() <= 1000, "{}", c.text.len());
        assert_eq!(
            c.selected[0].name, "huge-cache",
            "top entry admitted, cut to fit"
        );
        assert!(c.selected[0].bytes < 1000);
        assert!(
            c.text
                .contains("more lines of huge-cache cut to fit max_bytes"),
            "{}",
            c.text
        );
        assert!(
            c.notes.iter().any(|n| n.contains("huge-cache cut to")),
            "{:?}",
            c.notes
        );
        assert!(c.cut.iter().all(|x| x.reason == CutReason::MaxBytes));
        let c = compose_for(&store, "cache", 1, 1_000_000);
        assert_eq!(c.selected.len(), 1);
        assert_eq!(c.cut.len(), 2);
        assert!(c.cut.iter().all(|x| x.reason == CutReason::TopK));
    }

    #[test]
    fn the_block_is_lean_indexes_nested_no_generated_comment_no_doubled_heading() {
        let (_tmp, store) = setup();
        std::fs::create_dir_all(store.home().root()).unwrap();
        std::fs::write(
            store.home().user_anchor(),
            "# User preferences\n\n## Style\nShort answers.\n",
        )
        .unwrap();
        save(
            &store,
            Scope::User,
            "deploy-steps",
            "How to deploy",
            "Run make deploy.",
        );
        save(
            &store,
            Scope::Project,
            "db-migrations",
            "Database migrations",
            "Use sqlx migrate.",
        );
        let c = compose_for(&store, "deploy", 10, 24_000);
        let t = &c.text;
        assert!(!t.contains("<!--"), "{t}");
        assert!(!t.contains("# Memory index"), "{t}");
        assert_eq!(
            t.matches("User preferences").count(),
            1,
            "anchor title repeated: {t}"
        );
        assert!(
            t.contains("## User preferences\n#### Style\nShort answers."),
            "{t}"
        );
        assert!(t.contains("## Project memory index\n### project\n\n- [db-migrations](db-migrations.md) — Database migrations"), "{t}");
        // Every heading nests under the block's own `##` sections.
        assert!(
            t.lines().filter(|l| l.starts_with("# ")).count() == 0,
            "{t}"
        );
    }

    #[test]
    fn the_whole_block_respects_max_bytes_even_with_a_huge_description() {
        let (_tmp, store) = setup();
        save(
            &store,
            Scope::User,
            "a-note",
            "deploy notes",
            "Run make deploy.",
        );
        // A hand-written file whose description is 1 MB; the next save puts it in MEMORY.md.
        let dir = store.dir(Scope::User).unwrap();
        let huge = "word ".repeat(200_000);
        std::fs::write(dir.join("huge.md"), format!("---\nname: huge\ntype: note\ndescription: {huge}\ncreated: 2026-01-01T00:00:00Z\n---\nbody\n")).unwrap();
        for i in 0..50 {
            save(
                &store,
                Scope::User,
                &format!("filler-{i}"),
                "unrelated filler entry for the index",
                "nothing",
            );
        }
        let c = compose_for(&store, "deploy", 10, 2_000);
        assert!(c.text.len() <= 2_000, "{} bytes", c.text.len());
        assert_eq!(c.bytes, c.text.len());
        assert!(
            c.text.contains("### a-note [project]\nRun make deploy."),
            "{}",
            c.text
        );
        assert!(
            c.text.contains("cut to fit max_bytes]"),
            "the block says what was cut: {}",
            c.text
        );
        assert!(
            c.text.lines().all(|l| l.len() <= fit::MAX_INDEX_LINE),
            "an index line is unbounded"
        );
    }

    #[test]
    fn an_index_larger_than_a_memory_file_is_cut_to_fit_not_left_out() {
        let (_tmp, store) = setup();
        save(
            &store,
            Scope::User,
            "a-note",
            "deploy notes",
            "Run make deploy.",
        );
        // The index of a scope with thousands of memories: past a memory file's read bound.
        let dir = store.dir(Scope::User).unwrap();
        let lines: String = (0..6000).map(|i| format!("- [entry-{i}](entry-{i}.md) — what entry {i} is about, in a line of about a hundred bytes\n")).collect();
        assert!(lines.len() as u64 > crate::memory::validate::MEMORY_FILE_MAX);
        std::fs::write(
            dir.join("MEMORY.md"),
            format!("# Memory index\n\n## project\n\n{lines}"),
        )
        .unwrap();
        let c = compose_for(&store, "deploy", 10, 8_000);
        assert!(
            c.text
                .contains("## User memory index\n### project\n\n- [entry-0](entry-0.md)"),
            "{}",
            c.text
        );
        assert!(c.text.contains("cut to fit max_bytes]"), "{}", c.text);
        assert!(
            !c.notes.iter().any(|n| n.contains("User memory index")),
            "{:?}",
            c.notes
        );
        assert!(c.text.len() <= 8_000);
        assert!(
            store
                .index_drift(Scope::User)
                .unwrap()
                .iter()
                .any(|d| d.contains("entry-5999")),
            "the doctor reads it too"
        );
    }

    #[test]
    fn an_unreadable_anchor_is_a_note_not_a_failure() {
        let (_tmp, store) = setup();
        std::fs::create_dir_all(store.home().user_anchor()).unwrap(); // a directory: unreadable as text
        save(&store, Scope::User, "a-note", "deploy", "deploy");
        let c = compose_for(&store, "deploy", 10, 24_000);
        assert!(
            c.notes.iter().any(|n| n.contains("User preferences")),
            "{:?}",
            c.notes
        );
        assert!(c.text.contains("### a-note"));
    }

    #[test]
    fn retrieval_disabled_injects_every_body() {
        let (_tmp, store) = setup();
        save(&store, Scope::User, "a-one", "first", "alpha");
        save(&store, Scope::User, "b-two", "second", "beta");
        let retrieval = RetrievalConfig {
            enabled: false,
            top_k: 1,
            ..Default::default()
        };
        let request = ComposeRequest {
            query: "nothing matches".into(),
            top_k: 1,
            max_bytes: 1,
            today: None,
        };
        let c = compose(
            &store,
            &mut CorpusCache::in_memory(),
            &retrieval,
            &request,
            Semantic::Unavailable("off".into()),
        );
        assert_eq!(c.selected.len(), 2);
        assert!(c.cut.is_empty());
    }
}

//! The block's sections as the model reads them: `Section` and its kind, one made from a heading
//! and a body (its bytes counted as rendered), the `<ambry-memory>` block rendered from them, and
//! the fair split of a room among sources that each need some of it.
//! Deliberately does not: choose what goes in (see `compose`) or cut a body to fit (see `fit`).

use serde::{Deserialize, Serialize};

use ambry_store::memory::Scope;

/// The heading the bodies of a new context sit under.
pub(super) const RELEVANT_HEADING: &str = "Relevant memory";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    UserPreferences,
    ProjectContext,
    MemoryMap,
    Memory,
    AlsoRelevant,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub kind: SectionKind,
    pub heading: String,
    /// What the section adds to the block (its heading line included).
    pub bytes: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    // Already in `Composition::text`; a composition read back from JSON has it empty.
    #[serde(skip)]
    pub(crate) body: String,
}

fn level(kind: SectionKind) -> &'static str {
    match kind {
        SectionKind::Memory | SectionKind::AlsoRelevant => "###",
        _ => "##",
    }
}

pub(super) fn section(
    kind: SectionKind,
    heading: &str,
    body: String,
    scope: Option<Scope>,
    name: Option<String>,
) -> Section {
    let body = body.trim_end_matches('\n').to_string();
    let bytes = level(kind).len() + 1 + heading.len() + 1 + body.len() + 1;
    Section {
        kind,
        heading: heading.to_string(),
        bytes,
        scope,
        name,
        body,
    }
}

/// `room` split among sources needing `needs` bytes: each gets what it needs when all fit; else
/// every source needing less than an equal share keeps what it needs, and the others share the
/// rest equally (max-min fairness).
pub(super) fn fair_shares(needs: &[usize], room: usize) -> Vec<usize> {
    let mut shares = vec![0; needs.len()];
    let mut open: Vec<usize> = (0..needs.len()).collect();
    let mut left = room;
    while !open.is_empty() {
        let equal = left / open.len();
        let (fits, rest): (Vec<usize>, Vec<usize>) = open.iter().partition(|&&i| needs[i] <= equal);
        if fits.is_empty() {
            for i in rest {
                shares[i] = equal;
            }
            break;
        }
        for i in fits {
            shares[i] = needs[i];
            left -= needs[i];
        }
        open = rest;
    }
    shares
}

/// A `## heading` line plus the blank line that separates sections.
pub(super) fn section_overhead(heading: &str) -> usize {
    "### ".len() + heading.len() + 2
}

/// Length of the rendered block of `sections`.
pub(super) fn rendered_len(sections: &[Section]) -> usize {
    render(sections).len()
}

pub(super) fn render(sections: &[Section]) -> String {
    if sections.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ambry-memory>\n");
    // A turn's additions need no heading of their own (it would repeat every turn); a new
    // context's bodies sit under one, after the anchors and the map.
    let mut in_relevant = !sections
        .iter()
        .any(|s| !matches!(s.kind, SectionKind::Memory | SectionKind::AlsoRelevant));
    for s in sections {
        let nested = matches!(s.kind, SectionKind::Memory | SectionKind::AlsoRelevant);
        if nested && !in_relevant {
            out.push_str(&format!("## {RELEVANT_HEADING}\n"));
            in_relevant = true;
        }
        out.push_str(&format!("{} {}\n", level(s.kind), s.heading));
        out.push_str(&s.body);
        out.push_str("\n\n");
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out.push_str("\n</ambry-memory>\n");
    out
}

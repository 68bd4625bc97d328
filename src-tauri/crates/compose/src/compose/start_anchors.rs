//! The trust anchors of a context's start block (DESIGN §5): both read first and given their
//! fair share of the room, and for a resumed context that holds them, only an anchor whose
//! text changed since (headed so the model knows which copy is current) or that was emptied
//! (said to no longer apply).
//! Owns: reading USER.md and the project's AMBRY.md for the block, their sections, and what of
//! them the context holds afterwards (`StartBlock`, a hash of each anchor's text as given).
//! Deliberately does not: render the memory map or read the ledger (callers pass what the
//! context holds).

use sha2::{Digest, Sha256};

use super::sections::{fair_shares, section, section_overhead, Section, SectionKind};
use super::{fit, hex_prefix};
use crate::ledger::StartBlock;
use ambry_store::anchors;
use ambry_store::memory::Store;

/// What a resumed context is told of an anchor emptied since it was given.
const WITHDRAWN_ANCHOR: &str =
    "None now: what this conversation was given earlier under this heading no longer applies.";

/// What a start block's anchor is known by: a hash of its text as given.
fn text_hash(text: &str) -> String {
    hex_prefix(&Sha256::digest(text.as_bytes()))
}

/// The hash of the anchor of `kind` a start block holds.
fn held(block: &mut StartBlock, kind: SectionKind) -> &mut Option<String> {
    match kind {
        SectionKind::UserPreferences => &mut block.user_anchor,
        _ => &mut block.project_anchor,
    }
}

/// The anchors' sections within `anchor_room` (of the `limit`-byte block), and what of them
/// the context holds afterwards. `resumed`: what it held before.
pub(super) fn sections(
    store: &Store,
    resumed: Option<&StartBlock>,
    anchor_room: usize,
    limit: usize,
    notes: &mut Vec<String>,
) -> (Vec<Section>, StartBlock) {
    let mut sections = Vec::new();
    // Both anchors are read first, so a long USER.md cannot take the room of the project's
    // AMBRY.md (the team's word on the repository): each gets what it needs when both fit,
    // else the shorter keeps up to half and the longer is cut to the rest.
    let mut anchors_read: Vec<(SectionKind, &str, String)> = Vec::new();
    // Anchors read and found empty (or never written), as against unreadable.
    let mut emptied: Vec<(SectionKind, &str)> = Vec::new();
    for (kind, heading, path) in [
        (
            SectionKind::UserPreferences,
            "User preferences",
            Some(anchors::user_anchor_path(store.home())),
        ),
        (
            SectionKind::ProjectContext,
            "Project context",
            store.project().map(anchors::project_anchor_path),
        ),
    ] {
        let Some(path) = path else { continue };
        match anchors::read_for_agent(&path) {
            Ok(Some(text)) if !text.trim().is_empty() && !anchors::is_untouched_skeleton(&text) => {
                anchors_read.push((kind, heading, fit::anchor(&text, heading)));
            }
            Ok(_) => emptied.push((kind, heading)),
            Err(e) => notes.push(format!("left out {heading}: {e}")),
        }
    }
    // A resumed context holds the start block it was given: an anchor goes again only when
    // its text (known by its whole text, whatever room a block gave it) changed, under a
    // heading that says which copy is current; one emptied since is said to no longer apply,
    // as its earlier copy is still in the conversation.
    let mut holds = resumed.cloned().unwrap_or_default();
    let changed = |heading: &str| format!("{heading} (changed since this session began)");
    let mut given: Vec<(SectionKind, String, String, Option<String>)> = Vec::new();
    for (kind, heading, body) in anchors_read {
        let hash = Some(text_hash(&body));
        match resumed {
            Some(_) if *held(&mut holds, kind) == hash => {}
            Some(_) => given.push((kind, changed(heading), body, hash)),
            None => given.push((kind, heading.to_string(), body, hash)),
        }
    }
    for (kind, heading) in emptied {
        if resumed.is_some() && held(&mut holds, kind).is_some() {
            given.push((kind, changed(heading), WITHDRAWN_ANCHOR.to_string(), None));
        }
    }
    let needs: Vec<usize> = given
        .iter()
        .map(|(_, heading, body, _)| body.len() + section_overhead(heading))
        .collect();
    let shares = fair_shares(&needs, anchor_room);
    for ((kind, heading, body, hash), share) in given.into_iter().zip(shares) {
        match fit::cut_to(
            &body,
            share.saturating_sub(section_overhead(&heading)),
            &heading,
        ) {
            Some(body) => {
                *held(&mut holds, kind) = hash;
                sections.push(section(kind, &heading, body, None, None));
            }
            None => notes.push(format!(
                "left out {heading}: its share of the {anchor_room} bytes the trust anchors \
                 may take is {share} (the rest of the {limit}-byte limit is kept for the \
                 memory map and this turn's memories)"
            )),
        }
    }
    (sections, holds)
}

//! Subagent and compaction runs under the session they belong to (DESIGN §7: "Subagent and
//! compaction runs belong to their parent session").
//!
//! Owns: `group_runs`, which folds a list of sessions so each Claude Code subagent file
//! (`<parent>/subagents/agent-*.jsonl`, indexed as `<parent id>/<agent stem>`) appears under
//! its parent, and tells a compaction run (its prompt is Claude Code's summary request) from
//! other subagent work.
//! Deliberately does not: query the index (callers pass what `SessionIndex::sessions` listed)
//! or change how files are indexed.

use serde::Serialize;

use crate::sessions::{RecallHit, SessionMeta};

/// The opening of the prompt Claude Code sends to the run that compacts a conversation (seen in
/// real transcripts of Claude Code 2.x; a run whose title starts with it is a compaction).
pub(crate) const COMPACTION_PROMPT: &str =
    "Your task is to create a detailed summary of the conversation";

/// The title a compaction run is indexed under (its prompt is not the person's words, so it
/// never titles anything).
pub(crate) const COMPACTION_TITLE: &str = "Conversation summary";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    Subagent,
    Compaction,
}

/// A run that belongs to another session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionRun {
    #[serde(flatten)]
    pub session: SessionMeta,
    pub kind: RunKind,
}

/// A session with the runs that belong to it (newest activity of either sets its order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionGroup {
    #[serde(flatten)]
    pub session: SessionMeta,
    pub runs: Vec<SessionRun>,
}

/// The parent session id of a subagent run, if `session_id` names one.
pub fn parent_of(session_id: &str) -> Option<&str> {
    session_id
        .split_once('/')
        .map(|(parent, _)| parent)
        .filter(|p| !p.is_empty())
}

pub fn run_kind(session: &SessionMeta) -> RunKind {
    kind_of_title(session.title.as_deref())
}

fn kind_of_title(title: Option<&str>) -> RunKind {
    // Indexes written before compaction runs had their own title still hold the prompt.
    if title.is_some_and(|t| t == COMPACTION_TITLE || t.trim_start().starts_with(COMPACTION_PROMPT))
    {
        RunKind::Compaction
    } else {
        RunKind::Subagent
    }
}

/// Folds runs under their parents, keeping the order of `sessions` for the parents. A run whose
/// parent is not in the list stays on its own (its parent may be older than the list's limit).
pub fn group_runs(sessions: Vec<SessionMeta>) -> Vec<SessionGroup> {
    let ids: std::collections::HashSet<String> =
        sessions.iter().map(|s| s.session_id.clone()).collect();
    let mut groups: Vec<SessionGroup> = Vec::new();
    let mut runs: Vec<(String, SessionRun)> = Vec::new();
    for s in sessions {
        match parent_of(&s.session_id)
            .filter(|p| ids.contains(*p))
            .map(str::to_string)
        {
            Some(parent) => {
                let kind = run_kind(&s);
                runs.push((parent, SessionRun { session: s, kind }));
            }
            None => groups.push(SessionGroup {
                session: s,
                runs: Vec::new(),
            }),
        }
    }
    for (parent, run) in runs {
        if let Some(g) = groups.iter_mut().find(|g| g.session.session_id == parent) {
            g.runs.push(run);
        }
    }
    groups
}

/// A recalled session with the matching runs that belong to it, or a run whose parent did not
/// match (`run_of` names the parent, so it is still shown as part of that conversation).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecallGroup {
    #[serde(flatten)]
    pub hit: RecallHit,
    pub runs: Vec<RecallRun>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_of: Option<RunOf>,
}

/// A matching run under its recalled parent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecallRun {
    #[serde(flatten)]
    pub hit: RecallHit,
    pub kind: RunKind,
}

/// The parent of a run listed on its own.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunOf {
    pub parent: String,
    pub kind: RunKind,
}

/// Folds recalled runs under their recalled parent, keeping the rank order of the parents: a
/// conversation compacted four times is one result, not four. Several runs of one parent whose
/// parent did not match become one result too: the best run, with the others under it.
pub fn group_recall_runs(hits: Vec<RecallHit>) -> Vec<RecallGroup> {
    let mut groups: Vec<RecallGroup> = Vec::new();
    for hit in hits {
        let Some(parent) = parent_of(&hit.session_id).map(str::to_string) else {
            // A parent ranked below one of its runs takes the run's place: the best turn
            // anywhere in a conversation sets its rank.
            match groups.iter().position(|g| {
                g.run_of
                    .as_ref()
                    .is_some_and(|r| r.parent == hit.session_id)
            }) {
                Some(at) => {
                    let stand_in = std::mem::replace(
                        &mut groups[at],
                        RecallGroup {
                            hit,
                            runs: Vec::new(),
                            run_of: None,
                        },
                    );
                    let kind = stand_in.run_of.map_or(RunKind::Subagent, |r| r.kind);
                    groups[at].runs.push(RecallRun {
                        hit: stand_in.hit,
                        kind,
                    });
                    groups[at].runs.extend(stand_in.runs);
                }
                None => groups.push(RecallGroup {
                    hit,
                    runs: Vec::new(),
                    run_of: None,
                }),
            }
            continue;
        };
        let kind = kind_of_title(hit.title.as_deref());
        let home = groups.iter().position(|g| {
            g.hit.session_id == parent || g.run_of.as_ref().is_some_and(|r| r.parent == parent)
        });
        match home {
            Some(at) => groups[at].runs.push(RecallRun { hit, kind }),
            None => groups.push(RecallGroup {
                hit,
                runs: Vec::new(),
                run_of: Some(RunOf { parent, kind }),
            }),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::SourceKind;

    fn meta(id: &str, title: &str, messages: u64) -> SessionMeta {
        SessionMeta {
            session_id: id.into(),
            source: SourceKind::Claude,
            path: format!("/p/{id}.jsonl"),
            cwd: Some("/repo".into()),
            title: Some(title.into()),
            model: None,
            first_ts: None,
            last_ts: None,
            messages,
            source_removed_at: None,
        }
    }

    #[test]
    fn runs_fold_under_their_parent_and_compactions_are_named() {
        let grouped = group_runs(vec![
            meta(
                "s1/agent-a1",
                "Your task is to create a detailed summary of the conversation so far",
                2,
            ),
            meta("s1", "Fix the login redirect", 40),
            meta("s2", "Add a CSV export", 12),
            meta("s1/agent-b2", "Find every caller of refresh()", 6),
        ]);
        assert_eq!(
            grouped
                .iter()
                .map(|g| g.session.session_id.as_str())
                .collect::<Vec<_>>(),
            ["s1", "s2"]
        );
        let kinds: Vec<(&str, RunKind)> = grouped[0]
            .runs
            .iter()
            .map(|r| (r.session.session_id.as_str(), r.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("s1/agent-a1", RunKind::Compaction),
                ("s1/agent-b2", RunKind::Subagent)
            ]
        );
        assert!(grouped[1].runs.is_empty());
    }

    fn hit(id: &str, title: &str) -> RecallHit {
        RecallHit {
            session_id: id.into(),
            source: SourceKind::Claude,
            title: Some(title.into()),
            cwd: None,
            ts: None,
            role: "user".into(),
            snippet: String::new(),
            snippet_parts: Vec::new(),
            score: 1.0,
            widened: false,
            path: format!("/p/{id}.jsonl"),
            source_removed_at: None,
            turns: Vec::new(),
            matching_turns: 1,
        }
    }

    #[test]
    fn recalled_runs_are_one_result_with_their_conversation() {
        let summary = "Your task is to create a detailed summary of the conversation so far";
        let grouped = group_recall_runs(vec![
            hit("s1/agent-c1", summary),
            hit("s2", "Add a CSV export"),
            hit("s1/agent-c2", summary),
            hit("s1", "Fix the login redirect"),
            hit("s1/agent-x", "Find every caller"),
            hit("s3/agent-c9", summary),
            hit("s3/agent-c8", summary),
        ]);
        let ids: Vec<&str> = grouped.iter().map(|g| g.hit.session_id.as_str()).collect();
        // s1 takes the place of its best run; s3 did not match, its best run stands for it.
        assert_eq!(ids, ["s1", "s2", "s3/agent-c9"]);
        let runs: Vec<(&str, RunKind)> = grouped[0]
            .runs
            .iter()
            .map(|r| (r.hit.session_id.as_str(), r.kind))
            .collect();
        assert_eq!(
            runs,
            [
                ("s1/agent-c1", RunKind::Compaction),
                ("s1/agent-c2", RunKind::Compaction),
                ("s1/agent-x", RunKind::Subagent)
            ]
        );
        assert!(grouped[0].run_of.is_none());
        assert_eq!(
            grouped[2].run_of,
            Some(RunOf {
                parent: "s3".into(),
                kind: RunKind::Compaction
            })
        );
        assert_eq!(grouped[2].runs.len(), 1);
    }

    #[test]
    fn a_run_without_its_parent_in_the_list_stays_listed() {
        let grouped = group_runs(vec![meta("old/agent-x", "Look up the schema", 3)]);
        assert_eq!(grouped.len(), 1);
        assert_eq!(grouped[0].session.session_id, "old/agent-x");
    }
}

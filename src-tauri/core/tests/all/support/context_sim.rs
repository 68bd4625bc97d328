//! Context cost measured as sessions, not single turns (DESIGN §5): 30-turn agent sessions built
//! from the held-out queries, with a compaction halfway, replayed through a composer exactly as an
//! agent's hooks would call it. What a session costs is every byte its hooks printed; what it
//! gets right is how many turns had a memory they needed in the live context.
//!
//! Owns: building the sessions (deterministic, per half and project; conversation sessions add
//! generic follow-ups that refer back), following the live context from the hook outputs alone
//! (a body is in context from the turn its `### name [type]` heading was printed until the next
//! compaction; a memory is named once its body, a one-line mention or a map entry was), the
//! transcript a replay keeps for the hooks, the oracle (the trust anchors once per context plus
//! each needed body once per context) and the tallies.
//! Deliberately does not: compose (the caller's `Composer` does) or choose what to gate.

use std::collections::{BTreeSet, HashSet};

use super::eval_set::{Half, LoadedSet, SetMemory, SetQuery, PROJECTS};

/// Turns per session, and after how many of them the context is compacted.
pub const TURNS: usize = 30;
pub const COMPACT_AFTER: usize = 15;
/// Distinct prompts per session: each half of the session revisits some of them, and the second
/// half brings back five prompts of the first, which after the compaction need their memory again.
const DISTINCT: usize = 15;

/// The hard limit DESIGN §5 sets on one hook output.
pub const HARD_LIMIT: usize = 8_000;

pub struct SimSession {
    pub id: String,
    pub project: String,
    pub turns: Vec<SetQuery>,
    /// The turn before which the context is compacted.
    pub compact_at: usize,
}

/// The class of a turn that refers back to the one before it instead of saying what it needs.
pub const FOLLOW_UP: &str = "follow-up";

/// Prompts that refer back, as a person types them after an answer. Written once, generic, for
/// any project, before any was measured; each needs what the turn before it needed.
const FOLLOW_UPS: &[&str] = &[
    "ok, do the same for the other service",
    "can you apply that here too?",
    "let's pick that back up where we left off",
    "what was the catch with that again?",
    "and how do I check that it worked?",
    "same thing, but for the tests",
];

/// After which turns of a session (`sessions`' order) a follow-up comes; the one after the last
/// turn before the compaction comes first in the new context, as a person picks up after it.
const FOLLOWED: [usize; 6] = [2, 6, 11, 14, 19, 24];

/// What an agent's hook fires with.
pub enum Event<'a> {
    /// A new context: `source` is startup or compact.
    Start { source: &'a str },
    Turn {
        prompt: &'a str,
        /// The session's transcript so far (a Claude Code JSONL), when the replay keeps one.
        transcript: Option<&'a std::path::Path>,
    },
}

pub trait Composer {
    /// The hook's output (what enters the context) for `event` in `session`, working in `project`.
    fn hook(&mut self, session: &str, project: &str, event: Event<'_>) -> String;
}

/// Sessions of one half: per project, its queries in file order, 15 at a time, each group played
/// as turns g0..g9, g0..g4 | compaction | g5..g14, g10..g14.
pub fn sessions(queries: &[SetQuery], half: Half) -> Vec<SimSession> {
    let mut out = Vec::new();
    for project in PROJECTS {
        let pool: Vec<&SetQuery> = queries
            .iter()
            .filter(|q| q.half() == half && q.project() == project)
            .collect();
        for (i, group) in pool.chunks(DISTINCT).enumerate() {
            if group.len() < DISTINCT {
                continue;
            }
            let order = (0..10).chain(0..5).chain(5..15).chain(10..15);
            out.push(SimSession {
                id: format!("{}-{project}-{i}", half.label()),
                project: project.to_string(),
                turns: order.map(|k| group[k].clone()).collect(),
                compact_at: COMPACT_AFTER,
            });
        }
    }
    out
}

/// `sessions` with a follow-up (`FOLLOW_UPS`, in turn) after each of the `FOLLOWED` turns: 36
/// turns, the compaction before the follow-up of turn 14.
pub fn conversation_sessions(queries: &[SetQuery], half: Half) -> Vec<SimSession> {
    let mut said = 0;
    sessions(queries, half)
        .into_iter()
        .map(|s| {
            let mut turns = Vec::new();
            let mut compact_at = 0;
            for (t, q) in s.turns.iter().enumerate() {
                turns.push(q.clone());
                if FOLLOWED.contains(&t) {
                    if t + 1 == s.compact_at {
                        compact_at = turns.len();
                    }
                    turns.push(SetQuery {
                        q: FOLLOW_UPS[said % FOLLOW_UPS.len()].to_string(),
                        class: FOLLOW_UP.to_string(),
                        expect: q.expect.clone(),
                        project: q.project.clone(),
                    });
                    said += 1;
                }
            }
            SimSession {
                id: format!("{}-talk", s.id),
                project: s.project,
                turns,
                compact_at,
            }
        })
        .collect()
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Cost {
    pub sessions: usize,
    pub outputs: usize,
    pub bytes: usize,
    pub oracle_bytes: usize,
    pub turns: usize,
    /// Turns with a needed memory in the live context once the turn's hook ran.
    pub recalled: usize,
    /// Turns with a needed memory at least named in the live context: its body, a one-line
    /// mention (`- name (scope) — …`) or a map entry the agent could fetch it by.
    pub named: usize,
    /// Follow-up turns (`FOLLOW_UP`), and of them those with the needed memory in the live
    /// context, and named there.
    pub follow_ups: usize,
    pub follow_ups_recalled: usize,
    pub follow_ups_named: usize,
    pub lines: usize,
    /// Injected lines the live context already held.
    pub repeated_lines: usize,
    pub largest_output: usize,
    pub over_limit: usize,
    /// Bytes of the outputs that opened a context (anchors and map), and what the oracle paid
    /// for anchors there: the map is overhead the oracle does not have.
    pub start_bytes: usize,
    pub oracle_anchor_bytes: usize,
}

impl Cost {
    pub fn recall(&self) -> f64 {
        self.recalled as f64 / self.turns.max(1) as f64
    }
    pub fn follow_up_recall(&self) -> f64 {
        self.follow_ups_recalled as f64 / self.follow_ups.max(1) as f64
    }
    pub fn follow_up_named(&self) -> f64 {
        self.follow_ups_named as f64 / self.follow_ups.max(1) as f64
    }
    pub fn named_share(&self) -> f64 {
        self.named as f64 / self.turns.max(1) as f64
    }
    pub fn oracle_ratio(&self) -> f64 {
        self.bytes as f64 / self.oracle_bytes.max(1) as f64
    }
    /// Bytes against an oracle that also gives the same anchors and map once per context: what
    /// the bodies cost against each needed body once.
    pub fn ratio_with_map(&self) -> f64 {
        let oracle = self.oracle_bytes - self.oracle_anchor_bytes + self.start_bytes;
        self.bytes as f64 / oracle.max(1) as f64
    }
    pub fn repeat_share(&self) -> f64 {
        self.repeated_lines as f64 / self.lines.max(1) as f64
    }
    pub fn bytes_per_session(&self) -> usize {
        self.bytes / self.sessions.max(1)
    }
    pub fn row(&self, label: &str) -> String {
        format!(
            "{label:<28} {:>3} {:>9} {:>9} {:>6.2}x {:>6.2}x {:>6.3} {:>6.3} {:>6.3} {:>7} {:>4}",
            self.sessions,
            self.bytes_per_session(),
            self.oracle_bytes / self.sessions.max(1),
            self.oracle_ratio(),
            self.ratio_with_map(),
            self.recall(),
            self.named_share(),
            self.repeat_share(),
            self.largest_output,
            self.over_limit
        )
    }
    pub fn header() -> String {
        format!(
            "{:<28} {:>3} {:>9} {:>9} {:>7} {:>7} {:>6} {:>6} {:>6} {:>7} {:>4}",
            "setting",
            "n",
            "B/session",
            "oracle B",
            "ratio",
            "w/ map",
            "recall",
            "named",
            "repeat",
            "largest",
            ">8k"
        )
    }
}

/// The memory an agent working in `project` sees under `name` (project shadows user).
fn visible<'a>(memories: &'a [SetMemory], project: &str, name: &str) -> Option<&'a SetMemory> {
    memories
        .iter()
        .find(|m| m.name == name && m.project.as_deref() == Some(project))
        .or_else(|| {
            memories
                .iter()
                .find(|m| m.name == name && m.project.is_none())
        })
}

/// A memory's section as an oracle would inject it.
fn section_bytes(m: &SetMemory) -> usize {
    format!("### {} [{}]\n{}\n\n", m.name, m.kind, m.body.trim_end()).len()
}

/// The `### name [type]` headings of bodies in a hook output.
fn bodies_in(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .filter_map(|rest| rest.split_once(" ["))
        .map(|(name, _)| name.to_string())
        .filter(|name| {
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
        .collect()
}

/// The memories a hook output names: its bodies' headings (`### name [type]`, or a cut body's
/// `### name (…)`), its one-line entries (`- name (scope) — description`) and the names of the
/// memory map's name index (`user: a, b, c` under its `### … by name …` heading).
fn named_in(output: &str) -> Vec<String> {
    let is_name = |n: &str| {
        !n.is_empty()
            && n.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    let mut names = Vec::new();
    let mut in_index = false;
    for line in output.lines().map(str::trim) {
        if line.starts_with('#') {
            in_index = line.starts_with("### ") && line.contains(", by name");
        }
        if in_index {
            if let Some((_, list)) = ["user: ", "project: ", "team: "]
                .iter()
                .find_map(|label| line.strip_prefix(label).map(|l| (label, l)))
            {
                names.extend(list.split(", ").filter(|n| is_name(n)).map(str::to_string));
                continue;
            }
        }
        if let Some(n) = line
            .strip_prefix("### ")
            .or_else(|| line.strip_prefix("- "))
            .and_then(|rest| rest.split_once([' ', '\t']).map(|(n, _)| n))
            .filter(|n| is_name(n))
        {
            names.push(n.to_string());
        }
    }
    names
}

/// A transcript line of Claude Code's format.
fn transcript_line(kind: &str, text: &str) -> String {
    let line = serde_json::json!({
        "type": kind, "sessionId": "sim", "timestamp": "2026-06-01T00:00:00Z",
        "message": {"role": kind, "content": [{"type": "text", "text": text}]},
    });
    format!("{line}\n")
}

/// What the replayed agent answers: nothing of what the prompt was about (a real reply would
/// say more; the replay does not invent it).
const REPLY: &str = "Done. Anything else?";

/// Replays `sessions` through `composer`. `anchor_bytes` is what the trust anchors cost an oracle
/// once per context (wrapper included). With `transcripts`, each session keeps a transcript
/// there (its prompts and a reply to each) and every turn's hook is given it.
pub fn simulate(
    set: &LoadedSet,
    memories: &[SetMemory],
    sessions: &[SimSession],
    anchor_bytes: usize,
    composer: &mut dyn Composer,
) -> Cost {
    simulate_with(set, memories, sessions, anchor_bytes, composer, None)
}

/// [`simulate`], with transcripts kept in `transcripts` when given.
pub fn simulate_with(
    set: &LoadedSet,
    memories: &[SetMemory],
    sessions: &[SimSession],
    anchor_bytes: usize,
    composer: &mut dyn Composer,
    transcripts: Option<&std::path::Path>,
) -> Cost {
    use std::io::Write;
    let _ = set;
    let mut cost = Cost::default();
    for session in sessions {
        let transcript = transcripts.map(|dir| dir.join(format!("{}.jsonl", session.id)));
        if let Some(path) = &transcript {
            std::fs::write(path, "").unwrap();
        }
        cost.sessions += 1;
        let mut live_bodies: HashSet<String> = HashSet::new();
        let mut live_named: HashSet<String> = HashSet::new();
        let mut live_lines: HashSet<String> = HashSet::new();
        let mut oracle_held: BTreeSet<String> = BTreeSet::new();
        let take = |output: String,
                    cost: &mut Cost,
                    live_bodies: &mut HashSet<String>,
                    live_named: &mut HashSet<String>,
                    live_lines: &mut HashSet<String>| {
            cost.outputs += 1;
            cost.bytes += output.len();
            cost.largest_output = cost.largest_output.max(output.len());
            cost.over_limit += usize::from(output.len() > HARD_LIMIT);
            for line in output.lines().map(str::trim) {
                if line.is_empty() || line == "<ambry-memory>" || line == "</ambry-memory>" {
                    continue;
                }
                cost.lines += 1;
                if !live_lines.insert(line.to_string()) {
                    cost.repeated_lines += 1;
                }
            }
            live_bodies.extend(bodies_in(&output));
            live_named.extend(named_in(&output));
        };
        for (t, query) in session.turns.iter().enumerate() {
            if t == 0 || t == session.compact_at {
                live_bodies.clear();
                live_named.clear();
                live_lines.clear();
                oracle_held.clear();
                cost.oracle_bytes += anchor_bytes;
                cost.oracle_anchor_bytes += anchor_bytes;
                let source = if t == 0 { "startup" } else { "compact" };
                let out = composer.hook(&session.id, &session.project, Event::Start { source });
                cost.start_bytes += out.len();
                take(
                    out,
                    &mut cost,
                    &mut live_bodies,
                    &mut live_named,
                    &mut live_lines,
                );
            }
            let out = composer.hook(
                &session.id,
                &session.project,
                Event::Turn {
                    prompt: &query.q,
                    transcript: transcript.as_deref(),
                },
            );
            if let Some(path) = &transcript {
                let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
                file.write_all(transcript_line("user", &query.q).as_bytes())
                    .unwrap();
                file.write_all(transcript_line("assistant", REPLY).as_bytes())
                    .unwrap();
            }
            take(
                out,
                &mut cost,
                &mut live_bodies,
                &mut live_named,
                &mut live_lines,
            );
            cost.turns += 1;
            cost.recalled += usize::from(query.expect.iter().any(|n| live_bodies.contains(n)));
            let recalled = query.expect.iter().any(|n| live_bodies.contains(n));
            let named = query
                .expect
                .iter()
                .any(|n| live_bodies.contains(n) || live_named.contains(n));
            cost.named += usize::from(named);
            if query.class == FOLLOW_UP {
                cost.follow_ups += 1;
                cost.follow_ups_recalled += usize::from(recalled);
                cost.follow_ups_named += usize::from(named);
            }
            if !query.expect.iter().any(|n| oracle_held.contains(n)) {
                let needed = &query.expect[0];
                if let Some(m) = visible(memories, &session.project, needed) {
                    cost.oracle_bytes += section_bytes(m);
                }
                oracle_held.insert(needed.clone());
            }
        }
    }
    cost
}

pub const USER_ANCHOR: &str = "Answer briefly. Prefer small commits with a message that says why.\nNever push to main without a review.\n";
pub const PROJECT_ANCHOR: &str =
    "This repository is one of the team's services; run its tests before every commit.\n";

/// Writes the trust anchors every simulated context starts with; returns what they cost an
/// oracle per context.
pub fn write_anchors(set: &LoadedSet) -> usize {
    let any = set.stores.values().next().unwrap();
    std::fs::create_dir_all(any.home().root()).unwrap();
    std::fs::write(any.home().user_anchor(), USER_ANCHOR).unwrap();
    for store in set.stores.values() {
        let root = &store.project().unwrap().root;
        std::fs::create_dir_all(root.join(".ambry")).unwrap();
        std::fs::write(root.join(".ambry/AMBRY.md"), PROJECT_ANCHOR).unwrap();
    }
    format!(
        "<ambry-memory>\n## User preferences\n{}\n\n## Project context\n{}\n</ambry-memory>\n",
        USER_ANCHOR.trim_end(),
        PROJECT_ANCHOR.trim_end()
    )
    .len()
}

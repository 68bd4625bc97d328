//! A labelled set for session recall: 65 sessions over eight projects, written in the real
//! Claude Code, Codex and Ambry-native formats (via `session_fixture`'s writers), each stringing
//! one or two threads of work (`topics.txt`) together with everyday turns (`filler.txt`) as
//! `sessions.txt` lists; and questions (`questions.txt`) labelled with the threads that answer
//! them, so with the sessions holding those threads. Split by a hash of each question into a dev
//! half (the only one looked at while tuning) and a frozen test half.

#![allow(dead_code)] // each test binary uses its own subset

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::session_fixture::{self, Session};

pub const CLASSES: [&str; 5] = ["keyword", "paraphrase", "cross", "multi", "long"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Half {
    Dev,
    Test,
}

pub struct EvalSession {
    pub id: String,
    pub source: String,
    pub cwd: String,
    /// The threads of work it holds, in order.
    pub topics: Vec<String>,
    /// Alternating user / assistant turns.
    pub turns: Vec<String>,
}

pub struct Question {
    pub class: String,
    /// Any of these topics answers it (`a,b`), or only a session holding all of them (`a&b`).
    pub topics: Vec<String>,
    pub needs_all: bool,
    pub text: String,
}

impl Question {
    /// FNV-1a of the question: a split that never moves when questions are added or reordered.
    pub fn half(&self) -> Half {
        let mut h: u64 = 0xcbf29ce484222325;
        for b in self.text.as_bytes() {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x100000001b3);
        }
        if h.is_multiple_of(2) {
            Half::Dev
        } else {
            Half::Test
        }
    }

    /// The sessions that answer it.
    pub fn evidence<'a>(&self, sessions: &'a [EvalSession]) -> BTreeSet<&'a str> {
        sessions
            .iter()
            .filter(|s| {
                if self.needs_all {
                    self.topics.iter().all(|t| s.topics.contains(t))
                } else {
                    self.topics.iter().any(|t| s.topics.contains(t))
                }
            })
            .map(|s| s.id.as_str())
            .collect()
    }
}

fn set_dir() -> PathBuf {
    crate::support::manifest_dir().join("tests/session_eval")
}

fn content_lines(name: &str) -> Vec<String> {
    fs::read_to_string(set_dir().join(name))
        .unwrap()
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Each topic's turns, by name.
pub fn topics() -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in content_lines("topics.txt") {
        if let Some(name) = line.strip_prefix("@ ") {
            assert!(!out.contains_key(name), "topic {name} twice");
            out.insert(name.to_string(), Vec::new());
            current = Some(name.to_string());
        } else if let Some(turn) = line
            .strip_prefix("U: ")
            .or_else(|| line.strip_prefix("A: "))
        {
            let turns = out
                .get_mut(current.as_ref().expect("a turn before any topic"))
                .unwrap();
            let is_user = line.starts_with("U: ");
            assert_eq!(
                is_user,
                turns.len().is_multiple_of(2),
                "turns alternate, user first: {line}"
            );
            turns.push(turn.to_string());
        } else {
            assert!(line.is_empty(), "unexpected line in topics.txt: {line}");
        }
    }
    for (name, turns) in &out {
        assert!(
            turns.len() >= 2 && turns.len() % 2 == 0,
            "topic {name} has {} turns",
            turns.len()
        );
    }
    out
}

/// The everyday (user, assistant) pairs, in order.
pub fn filler() -> Vec<(String, String)> {
    let lines: Vec<String> = content_lines("filler.txt")
        .into_iter()
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .chunks(2)
        .map(|pair| {
            let user = pair[0]
                .strip_prefix("U: ")
                .expect("filler pairs start with U:");
            let agent = pair[1].strip_prefix("A: ").expect("then A:");
            (user.to_string(), agent.to_string())
        })
        .collect()
}

pub fn sessions() -> Vec<EvalSession> {
    let topics = topics();
    let filler = filler();
    let mut next_filler = 0usize;
    let mut out = Vec::new();
    for line in content_lines("sessions.txt")
        .into_iter()
        .filter(|l| !l.is_empty())
    {
        let (head, body) = line.split_once(" = ").expect("id source cwd = parts");
        let head: Vec<&str> = head.split_whitespace().collect();
        let mut session = EvalSession {
            id: head[0].to_string(),
            source: head[1].to_string(),
            cwd: head[2].to_string(),
            topics: Vec::new(),
            turns: Vec::new(),
        };
        for part in body.split_whitespace() {
            if part == "~" {
                let (u, a) = &filler[next_filler % filler.len()];
                next_filler += 1;
                session.turns.extend([u.clone(), a.clone()]);
            } else {
                let turns = topics
                    .get(part)
                    .unwrap_or_else(|| panic!("unknown topic {part} in {}", session.id));
                session.topics.push(part.to_string());
                session.turns.extend(turns.iter().cloned());
            }
        }
        out.push(session);
    }
    out
}

pub fn questions() -> Vec<Question> {
    content_lines("questions.txt")
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let parts: Vec<&str> = line.splitn(3, " | ").collect();
            assert_eq!(parts.len(), 3, "class | evidence | question: {line}");
            let needs_all = parts[1].contains('&');
            let topics = parts[1]
                .split(['&', ','])
                .map(|t| t.trim().to_string())
                .collect();
            Question {
                class: parts[0].to_string(),
                topics,
                needs_all,
                text: parts[2].to_string(),
            }
        })
        .collect()
}

/// Writes every session into the three roots in its source's real format.
pub fn write_all(
    sessions: &[EvalSession],
    claude_root: &Path,
    codex_root: &Path,
    ambry_root: &Path,
) {
    for (i, s) in sessions.iter().enumerate() {
        // The writers take the fixture's static shape; a test process writes each set once.
        let leak = |t: &str| -> &'static str { Box::leak(t.to_string().into_boxed_str()) };
        let turns: Vec<&'static str> = s.turns.iter().map(|t| leak(t)).collect();
        let fixture = Session {
            source: leak(&s.source),
            id: leak(&s.id),
            cwd: leak(&s.cwd),
            turns: Box::leak(turns.into_boxed_slice()),
        };
        let minute = i as u32;
        let text = match s.source.as_str() {
            "claude" => session_fixture::claude_lines(&fixture, minute),
            "codex" => session_fixture::codex_lines(&fixture, minute),
            _ => session_fixture::native_lines(&fixture, minute),
        };
        let path = session_fixture::path_of(&fixture, claude_root, codex_root, ambry_root);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

/// Recall@5 (any evidence session among the first five distinct sessions) and MRR (of the first
/// evidence session), summed over questions.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub n: usize,
    pub recall5: f64,
    pub rr: f64,
}

impl Tally {
    pub fn add(&mut self, ranked: &[String], evidence: &BTreeSet<&str>) {
        let rank = ranked.iter().position(|s| evidence.contains(s.as_str()));
        self.n += 1;
        if let Some(r) = rank {
            self.recall5 += f64::from(u8::from(r < 5));
            self.rr += 1.0 / (r as f64 + 1.0);
        }
    }
    pub fn recall_at_5(&self) -> f64 {
        self.recall5 / self.n.max(1) as f64
    }
    pub fn mrr(&self) -> f64 {
        self.rr / self.n.max(1) as f64
    }
}

/// Distinct sessions in order of first appearance.
pub fn distinct(ids: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    ids.into_iter()
        .filter(|id| seen.insert(id.clone()))
        .collect()
}

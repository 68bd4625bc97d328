//! The recent agent sessions the review reads (DESIGN §14, §16): per session, from the ledger,
//! when each memory of the view first reached its context as a body, and the session's
//! transcript from the index — what the "ignored" and "needs when" findings are judged on.
//!
//! Owns: which sessions are read (those given a memory of this view in the last 30 days, the
//! newest 20), and keeping their transcripts between reviews (the review is counted after
//! every memory change; a transcript is read again only when the index says it grew).
//! Deliberately does not: judge anything (the findings do), or fail the review: what cannot be
//! read is left out, the inbox is advice.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::Workspace;
use ambry_sessions::sessions::Transcript;
use ambry_store::memory::{Scope, Store};

/// How far back the review looks at the sessions agents held memories in.
const HELD_WITHIN_DAYS: i64 = 30;
/// Sessions read at most, newest first (each is a transcript read on every review).
const SESSIONS_READ: usize = 20;

/// What the session index says of a transcript's growth: its message count and last time.
type TranscriptStamp = (u64, Option<String>);

/// Transcripts the review read, with the stamp they were read at.
pub(super) type ReviewTranscripts = HashMap<String, (TranscriptStamp, Arc<Transcript>)>;

/// One recent session as the review reads it.
pub(super) struct HeldSession {
    pub(super) session_id: String,
    pub(super) agent: String,
    /// When each memory (scope, name) of the view first reached the context as a body.
    pub(super) given: HashMap<(Scope, String), DateTime<Utc>>,
    pub(super) transcript: Arc<Transcript>,
}

impl Workspace {
    /// The newest sessions given a memory of `store`'s view, with their transcripts.
    pub(super) fn held_sessions(&self, store: &Store, now: DateTime<Utc>) -> Vec<HeldSession> {
        let since = now - chrono::Duration::days(HELD_WITHIN_DAYS);
        let Ok(injections) = self.injections(None, Some(since)) else {
            return Vec::new();
        };
        let slug = store.project().map(|p| p.slug.as_str());
        // Per session: its agent, its latest injection, and when each memory first came.
        type Held = (
            String,
            DateTime<Utc>,
            HashMap<(Scope, String), DateTime<Utc>>,
        );
        let mut held: HashMap<String, Held> = HashMap::new();
        for i in injections
            .iter()
            .filter(|i| i.form == ambry_compose::ledger::Form::Body)
        {
            let in_view = match i.memory.scope {
                Scope::User => true,
                Scope::Team | Scope::Project => {
                    i.memory.project.as_deref() == slug && slug.is_some()
                }
            };
            if !in_view {
                continue;
            }
            let entry = held
                .entry(i.session_id.clone())
                .or_insert_with(|| (i.agent.clone(), i.at, HashMap::new()));
            entry.1 = entry.1.max(i.at);
            let first = entry
                .2
                .entry((i.memory.scope, i.memory.name.clone()))
                .or_insert(i.at);
            *first = (*first).min(i.at);
        }
        let mut sessions: Vec<_> = held.into_iter().collect();
        sessions.sort_by_key(|(_, (_, latest, _))| std::cmp::Reverse(*latest));
        sessions.truncate(SESSIONS_READ);
        let Ok(index) = self.session_index() else {
            return Vec::new();
        };
        let stamps: HashMap<String, TranscriptStamp> = index
            .sessions(None, usize::MAX >> 1)
            .unwrap_or_default()
            .into_iter()
            .map(|m| (m.session_id, (m.messages, m.last_ts)))
            .collect();
        let mut read = super::lock(&self.review_transcripts);
        // Kept: only this review's sessions, as they were read.
        read.retain(|id, (stamp, _)| {
            stamps.get(id) == Some(stamp) && sessions.iter().any(|(s, _)| s == id)
        });
        let mut out = Vec::new();
        for (session_id, (agent, _, given)) in sessions {
            let Some(stamp) = stamps.get(&session_id) else {
                continue;
            };
            let transcript = match read.get(&session_id) {
                Some((_, transcript)) => transcript.clone(),
                None => {
                    let Ok(transcript) = index.transcript(&session_id) else {
                        continue;
                    };
                    let transcript = Arc::new(transcript);
                    read.insert(session_id.clone(), (stamp.clone(), transcript.clone()));
                    transcript
                }
            };
            out.push(HeldSession {
                session_id,
                agent,
                given,
                transcript,
            });
        }
        out
    }
}

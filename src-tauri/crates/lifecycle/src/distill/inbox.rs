//! What distill keeps in `AMBRY_HOME/distill/` (data, not cache: it survives an index rebuild):
//! the pending proposals, the record of what each session had when it was distilled, and a log
//! of the decisions taken on proposals.
//!
//! Owns: the files' shapes, reading them (a damaged file is an error naming it, never silently
//! emptied), atomic writes under one lock on the directory, and the per-view "one distill at a
//! time" lock. Its directories are created 0700 and its files 0600, whatever the umask, like
//! every other file in the home (`storage::private`).
//! Deliberately does not: decide what to send or accept (the run and the actions do).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::DistillError;
use super::proposal::{Action, Proposal};
use ambry_store::home::AmbryHome;
use ambry_store::storage::{
    create_private_dir_all, open_private, write_atomic, LockFailure, ScopeLock, LOCK_WAIT,
};

const PROPOSALS: &str = "proposals.json";
const DISTILLED: &str = "distilled.json";
const DECISIONS: &str = "decisions.jsonl";

/// What a session held when it was last distilled: the turns sent so far and a hash of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distilled {
    /// How many turns (counted from the start of the transcript) have been sent.
    pub turns: usize,
    /// The bytes of those turns' text.
    pub bytes: u64,
    /// sha256 of those turns: a transcript replaced under the same id is sent again whole.
    pub hash: String,
    pub at: DateTime<Utc>,
}

/// One decision on a proposal, appended to `decisions.jsonl` (what measuring distill reads).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Decision {
    pub id: String,
    pub session_id: String,
    /// `accepted`, `edited` (accepted with the person's changes) or `rejected`.
    pub decision: String,
    pub name: String,
    pub at: DateTime<Utc>,
}

/// The hash a `Distilled` record keeps of the first turns of a transcript.
pub fn turns_hash<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    let mut h = Sha256::new();
    for t in texts {
        h.update(t.as_bytes());
        h.update([0]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The distill directory of one home.
pub struct Inbox {
    dir: PathBuf,
}

/// Held while a distill of one view runs; released on drop.
pub struct RunLock {
    _lock: ScopeLock,
}

impl Inbox {
    pub fn new(home: &AmbryHome) -> Inbox {
        Inbox {
            dir: home.root().join("distill"),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn prepare(&self) -> Result<(), DistillError> {
        create_private_dir_all(&self.dir).map_err(|e| DistillError::io("create", &self.dir, e))
    }

    fn lock(&self) -> Result<ScopeLock, DistillError> {
        self.prepare()?;
        ScopeLock::acquire_within(&self.dir, LOCK_WAIT).map_err(|e| lock_error(&self.dir, e))
    }

    /// One distill at a time per view (`key`: the project's slug, or `user`); a second is
    /// refused at once rather than queued, so two runs never pay for the same session.
    pub fn run_lock(&self, key: &str) -> Result<RunLock, DistillError> {
        let dir = self.dir.join("running").join(key);
        create_private_dir_all(&dir).map_err(|e| DistillError::io("create", &dir, e))?;
        match ScopeLock::acquire_within(&dir, Duration::ZERO) {
            Ok(lock) => Ok(RunLock { _lock: lock }),
            Err(LockFailure::TimedOut { .. }) => Err(DistillError::Busy {
                scope: key.to_string(),
            }),
            Err(LockFailure::Io(e)) => Err(DistillError::io("lock", &dir, e)),
        }
    }

    fn read<T: DeserializeOwned + Default>(&self, file: &str) -> Result<T, DistillError> {
        let path = self.dir.join(file);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| DistillError::Damaged {
                path: path.display().to_string(),
                reason: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
            Err(e) => Err(DistillError::io("read", &path, e)),
        }
    }

    fn write<T: Serialize>(&self, file: &str, value: &T) -> Result<(), DistillError> {
        let text = serde_json::to_string_pretty(value).expect("plain data serializes");
        write_atomic(&self.dir, file, text.as_bytes())
            .map_err(|e| DistillError::io("write", &self.dir.join(file), e))
    }

    /// Every pending proposal, oldest first.
    pub fn proposals(&self) -> Result<Vec<Proposal>, DistillError> {
        self.read(PROPOSALS)
    }

    /// What each session had when last distilled.
    pub fn distilled(&self) -> Result<BTreeMap<String, Distilled>, DistillError> {
        self.read(DISTILLED)
    }

    /// Adds one call's proposals (an id already pending is kept once) and records what the
    /// session has had sent: both under the lock, so a crash leaves either both or neither.
    pub fn commit_call(
        &self,
        proposals: &[Proposal],
        session_id: &str,
        record: Distilled,
    ) -> Result<usize, DistillError> {
        let _lock = self.lock()?;
        let mut pending = self.proposals()?;
        let before = pending.len();
        for p in proposals {
            if !pending.iter().any(|q| q.id == p.id) {
                pending.push(p.clone());
            }
        }
        let added = pending.len() - before;
        // Proposals first: a crash between the two writes re-sends the chunk, never loses it.
        self.write(PROPOSALS, &pending)?;
        let mut distilled = self.distilled()?;
        distilled.insert(session_id.to_string(), record);
        self.write(DISTILLED, &distilled)?;
        Ok(added)
    }

    /// Adds proposals made without a session (`memory distill --annotate`), under the lock:
    /// one whose id is pending already, or that says when a memory is needed while another
    /// proposal for that memory waits, is left out. Returns the ones added.
    pub fn add_proposals(&self, proposals: &[Proposal]) -> Result<Vec<Proposal>, DistillError> {
        let _lock = self.lock()?;
        let mut pending = self.proposals()?;
        let mut added = Vec::new();
        for p in proposals {
            let same_target = |q: &Proposal| {
                p.action == Action::When
                    && q.action == Action::When
                    && q.scope == p.scope
                    && q.target == p.target
                    && q.project.as_ref().map(|x| &x.slug) == p.project.as_ref().map(|x| &x.slug)
            };
            if !pending.iter().any(|q| q.id == p.id || same_target(q)) {
                pending.push(p.clone());
                added.push(p.clone());
            }
        }
        if !added.is_empty() {
            self.write(PROPOSALS, &pending)?;
        }
        Ok(added)
    }

    /// The pending proposal `id`.
    pub fn get(&self, id: &str) -> Result<Proposal, DistillError> {
        self.proposals()?
            .into_iter()
            .find(|p| p.id == id)
            .ok_or_else(|| DistillError::UnknownProposal { id: id.to_string() })
    }

    /// Takes `id` out of the pending list and logs the decision.
    pub fn decide(&self, decision: Decision) -> Result<(), DistillError> {
        let _lock = self.lock()?;
        let mut pending = self.proposals()?;
        let before = pending.len();
        pending.retain(|p| p.id != decision.id);
        if pending.len() == before {
            return Err(DistillError::UnknownProposal { id: decision.id });
        }
        self.write(PROPOSALS, &pending)?;
        let path = self.dir.join(DECISIONS);
        let mut file = open_private(&path, true).map_err(|e| DistillError::io("open", &path, e))?;
        let line = serde_json::to_string(&decision).expect("plain data serializes");
        writeln!(file, "{line}").map_err(|e| DistillError::io("append to", &path, e))
    }
}

fn lock_error(dir: &Path, e: LockFailure) -> DistillError {
    match e {
        LockFailure::TimedOut { holder } => DistillError::Busy {
            scope: format!(
                "{} (held by {})",
                dir.display(),
                holder.unwrap_or_else(|| "another process".into())
            ),
        },
        LockFailure::Io(e) => DistillError::io("lock", dir, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_of_one_view_is_refused_while_the_first_holds_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::new(&AmbryHome::new(dir.path()));
        let first = inbox.run_lock("user").unwrap();
        assert!(matches!(
            inbox.run_lock("user"),
            Err(DistillError::Busy { .. })
        ));
        assert!(inbox.run_lock("other-1234abcd").is_ok());
        drop(first);
        assert!(inbox.run_lock("user").is_ok());
    }

    #[test]
    fn a_damaged_proposals_file_is_an_error_not_an_empty_inbox() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::new(&AmbryHome::new(dir.path()));
        std::fs::create_dir_all(inbox.dir()).unwrap();
        std::fs::write(inbox.dir().join(PROPOSALS), "{not json").unwrap();
        assert!(matches!(
            inbox.proposals(),
            Err(DistillError::Damaged { .. })
        ));
    }
}

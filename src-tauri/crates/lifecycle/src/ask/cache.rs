//! The verdicts the person's agent gave on pairs, kept in `AMBRY_HOME/distill/verdicts.json`
//! (data, not cache of anything Ambry can recompute: each one was paid for), keyed by the pair's
//! content hash, so a pair whose memories are unchanged is never sent twice and a changed memory
//! leaves its pairs without a verdict until they are asked about again.
//!
//! Owns: the key of a pair (both memories' description and body, in either order), the file's
//! shape, reading it (a damaged file is an error naming it, never silently emptied) and adding
//! verdicts atomically under the distill directory's lock (a crash leaves the old file or the
//! new one, never half of either), and the bound on how many it keeps.
//! Deliberately does not: decide what to ask (the run does) or show anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::verdict::AgentVerdict;
use crate::distill::DistillError;
use crate::lifecycle::Subject;
use ambry_store::home::AmbryHome;
use ambry_store::storage::{create_private_dir_all, write_atomic, ScopeLock, LOCK_WAIT};

const VERDICTS: &str = "verdicts.json";

/// Most verdicts kept; past it the oldest go (a pair asked about again costs one more call).
pub const MAX_VERDICTS: usize = 10_000;

/// The content hash of one side: its description and body as the agent read them.
fn side_hash(s: &Subject) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(s.description.as_bytes());
    h.update([0]);
    h.update(s.body.as_bytes());
    h.finalize().into()
}

/// The key of a pair: both memories' contents, in either order (a verdict on a pair does not
/// depend on which one the review lists first). Any change to either text is another key.
pub fn pair_key(a: &Subject, b: &Subject) -> String {
    let (x, y) = (side_hash(a), side_hash(b));
    let (first, second) = if x <= y { (x, y) } else { (y, x) };
    let mut h = Sha256::new();
    h.update(first);
    h.update(second);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// One kept verdict, with the names the pair had when it was asked (for a person reading the
/// file; the key alone decides a match).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    pub names: [String; 2],
    #[serde(flatten)]
    pub verdict: AgentVerdict,
}

/// The verdicts file of one home.
pub struct Verdicts {
    dir: PathBuf,
}

impl Verdicts {
    pub fn new(home: &AmbryHome) -> Verdicts {
        Verdicts {
            dir: home.root().join("distill"),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(VERDICTS)
    }

    /// Every kept verdict by pair key (no file yet: none).
    pub fn read(&self) -> Result<BTreeMap<String, Kept>, DistillError> {
        read_from(&self.path())
    }

    /// Adds `verdicts` (a key already kept takes the newer verdict), keeping at most
    /// `MAX_VERDICTS`, the newest. Under the directory's lock, re-read first: two runs at once
    /// both keep what they were told.
    pub fn add(&self, verdicts: Vec<(String, Kept)>) -> Result<(), DistillError> {
        if verdicts.is_empty() {
            return Ok(());
        }
        create_private_dir_all(&self.dir).map_err(|e| DistillError::io("create", &self.dir, e))?;
        let _lock = ScopeLock::acquire_within(&self.dir, LOCK_WAIT).map_err(|e| match e {
            ambry_store::storage::LockFailure::TimedOut { holder } => DistillError::Busy {
                scope: format!(
                    "{} (held by {})",
                    self.dir.display(),
                    holder.unwrap_or_else(|| "another process".into())
                ),
            },
            ambry_store::storage::LockFailure::Io(e) => DistillError::io("lock", &self.dir, e),
        })?;
        let mut kept = self.read()?;
        kept.extend(verdicts);
        if kept.len() > MAX_VERDICTS {
            let mut by_age: Vec<(chrono::DateTime<chrono::Utc>, String)> = kept
                .iter()
                .map(|(k, v)| (v.verdict.at, k.clone()))
                .collect();
            by_age.sort();
            for (_, key) in by_age.iter().take(kept.len() - MAX_VERDICTS) {
                kept.remove(key);
            }
        }
        let text = serde_json::to_string_pretty(&kept).expect("plain data serializes");
        write_atomic(&self.dir, VERDICTS, text.as_bytes())
            .map_err(|e| DistillError::io("write", &self.path(), e))
    }
}

fn read_from(path: &Path) -> Result<BTreeMap<String, Kept>, DistillError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| DistillError::Damaged {
            path: path.display().to_string(),
            reason: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(DistillError::io("read", path, e)),
    }
}

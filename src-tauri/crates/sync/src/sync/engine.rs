//! One sync, start to end (DESIGN §15): export the home into the sync repository and commit
//! it, fetch, merge file by file, record the conflicts and archive what lost, apply the merged
//! tree to the home through the store, push.
//!
//! Owns: the order of those steps, which is what makes an interrupted sync harmless: nothing
//! in the home changes before the merge commit exists and `applying.json` names it; the
//! branch moves to the merge only after that; applying is idempotent and is finished first
//! by the next sync; a push that finds the remote moved on merges again; what a sync did (or
//! why it failed) is recorded for `sync status`. One sync per home at a time.
//! Deliberately does not: read the configuration or the clock (the façade passes the remote
//! and `now`), know the rules of a merge (see `merge`) or keep the conflicts (see `conflicts`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::apply::{apply, archive_losers, changed_paths};
use super::conflicts::{conflict_record, record_conflicts};
use super::export::export;
use super::inspect::Refused;
use super::merge::{merge, Sides};
use super::repo::{Pushed, Repo, Tree, BRANCH, TRACKING};
use super::state::{
    lock_sync_dir, read_applying, read_state, write_applying, write_state, Applying, LastError,
    SyncConflict,
};
use super::SyncError;
use ambry_store::home::AmbryHome;

/// How many times a sync merges again when the remote moved on during it.
const PUSH_ATTEMPTS: usize = 3;

/// What one sync did (or, in a dry run, would do).
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    pub remote: String,
    pub dry_run: bool,
    /// Paths the remote got from this machine.
    pub sent: Vec<String>,
    /// Paths of this home written or removed with what came in.
    pub received: Vec<String>,
    pub conflicts: Vec<SyncConflict>,
    /// Files from the remote that were not taken.
    pub refused: Vec<Refused>,
    /// Files of this home not sent (a secret, too large).
    pub withheld: Vec<Refused>,
    /// Changed here while the sync ran: they go out next time.
    pub changed_here: Vec<String>,
    pub pushed: bool,
}

/// The remote as given, refused when git would read it as an option or it cannot be one line
/// of config.
pub fn check_remote(remote: &str) -> Result<(), SyncError> {
    let invalid = |reason: &str| SyncError::InvalidRemote {
        remote: ambry_store::error::quoted(remote),
        reason: reason.into(),
    };
    if remote.trim().is_empty() {
        return Err(invalid("it is empty"));
    }
    if remote.starts_with('-') {
        return Err(invalid("it starts with `-`"));
    }
    if remote.chars().any(char::is_control) {
        return Err(invalid("it contains a control character"));
    }
    Ok(())
}

/// Syncs the home with `remote`; the outcome (or the error) is recorded for `sync status`
/// unless it is a dry run.
pub fn sync(
    home: &AmbryHome,
    remote: &str,
    now: DateTime<Utc>,
    dry_run: bool,
) -> Result<SyncReport, SyncError> {
    check_remote(remote)?;
    let dir = home.sync_dir();
    ambry_store::storage::create_private_dir_all(&dir)
        .map_err(|e| SyncError::io("create", &dir, e))?;
    let _lock = lock_sync_dir(&dir)?;
    let result = run(home, remote, now, dry_run);
    if !dry_run {
        record_outcome(home, remote, now, &result);
    }
    result
}

/// What `sync status` shows of this sync: when, its error, the files refused and held back,
/// ahead/behind. The state only describes: failing to write it does not fail the sync.
fn record_outcome(
    home: &AmbryHome,
    remote: &str,
    now: DateTime<Utc>,
    result: &Result<SyncReport, SyncError>,
) {
    let dir = home.sync_dir();
    let mut state = read_state(&dir);
    state.remote = Some(remote.to_string());
    state.last_attempt = Some(now);
    match result {
        Ok(report) => {
            state.last_sync = Some(now);
            state.last_error = None;
            state.withheld = report.withheld.clone();
            // A refusal stays listed until that path arrives clean or a newer one replaces it.
            let settled = |path: &String| {
                report.received.contains(path) || report.refused.iter().any(|n| n.path == *path)
            };
            state.refused.retain(|r| !settled(&r.path));
            state.refused.extend(report.refused.iter().cloned());
        }
        Err(e) => {
            let report = ambry_store::error::ErrorReport::of(e);
            state.last_error = Some(LastError {
                code: report.code,
                message: report.message,
                at: now,
            });
        }
    }
    if let Some(repo) = Repo::existing(&dir.join("repo")) {
        if let (Some(head), Some(tracking)) = (repo.resolve(BRANCH), repo.resolve(TRACKING)) {
            if let Ok((ahead, behind)) = repo.ahead_behind(&head, &tracking) {
                state.ahead = ahead;
                state.behind = behind;
            }
        }
    }
    let _ = write_state(&dir, &state);
}

fn run(
    home: &AmbryHome,
    remote: &str,
    now: DateTime<Utc>,
    dry_run: bool,
) -> Result<SyncReport, SyncError> {
    let dir = home.sync_dir();
    let repo = Repo::open_or_init(&dir.join("repo"))?;
    if repo.remote_url().as_deref() != Some(remote) {
        repo.set_remote(remote)?;
    }
    let mut report = SyncReport {
        remote: remote.to_string(),
        dry_run,
        sent: Vec::new(),
        received: Vec::new(),
        conflicts: Vec::new(),
        refused: Vec::new(),
        withheld: Vec::new(),
        changed_here: Vec::new(),
        pushed: false,
    };
    if !dry_run {
        finish_interrupted(home, &repo, now, &mut report)?;
    }
    for _ in 0..PUSH_ATTEMPTS {
        let head = repo.resolve(BRANCH);
        let head_tree = repo.tree_of(head.as_deref())?;
        let exported = export(home, &repo, &head_tree)?;
        report.withheld = exported.withheld.clone();
        let ours = exported.tree;
        let local = if ours == head_tree && head.is_some() {
            head.clone()
        } else if ours.is_empty() && head.is_none() {
            None
        } else {
            let tree = repo.write_tree(&ours)?;
            let parents: Vec<&str> = head.iter().map(String::as_str).collect();
            let commit = repo.commit(&tree, &parents, "Memories changed on this machine")?;
            if !dry_run {
                repo.set_branch(&commit)?;
            }
            Some(commit)
        };
        let Some(theirs_head) = repo.fetch(remote)? else {
            // An empty remote: this machine's memories are its first commit.
            if let Some(local) = &local {
                report.sent = ours.keys().cloned().collect();
                if !dry_run {
                    match repo.push(remote, local)? {
                        Pushed::Done => report.pushed = true,
                        Pushed::Behind => continue,
                    }
                }
            }
            return Ok(report);
        };
        let base = match &local {
            Some(local) => repo.merge_base(local, &theirs_head)?,
            None => None,
        };
        if base.as_deref() == Some(theirs_head.as_str()) {
            // Nothing new over there: send what is new here.
            let local = local.expect("a merge base implies a local commit");
            if local != theirs_head {
                let theirs = repo.tree_of(Some(&theirs_head))?;
                report.sent = changed_paths(&theirs, &ours)
                    .into_iter()
                    .map(|(p, _)| p)
                    .collect();
                if !dry_run {
                    match repo.push(remote, &local)? {
                        Pushed::Done => report.pushed = true,
                        Pushed::Behind => continue,
                    }
                }
            }
            return Ok(report);
        }
        let base_tree = repo.tree_of(base.as_deref())?;
        let theirs = repo.tree_of(Some(&theirs_head))?;
        let mut blobs = repo.read_blobs(Sides::differing(&base_tree, &ours, &theirs).iter())?;
        let mut made: HashMap<String, Vec<u8>> = HashMap::new();
        let merged = merge(
            &Sides {
                base: &base_tree,
                ours: &ours,
                theirs: &theirs,
                blobs: &blobs,
            },
            &mut |bytes| {
                let hash = repo.hash_bytes(bytes)?;
                made.insert(hash.clone(), bytes.to_vec());
                Ok(hash)
            },
        )?;
        blobs.extend(made);
        let conflicts: Vec<SyncConflict> = merged
            .conflicts
            .iter()
            .map(|c| conflict_record(c, now))
            .collect();
        report.received = changed_paths(&ours, &merged.tree)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        report.sent = changed_paths(&theirs, &merged.tree)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        report.refused = merged.refused.clone();
        report.conflicts = conflicts.clone();
        if dry_run {
            return Ok(report);
        }
        let new_head = if merged.tree == theirs {
            theirs_head.clone()
        } else {
            let tree = repo.write_tree(&merged.tree)?;
            let mut parents: Vec<&str> = local.iter().map(String::as_str).collect();
            parents.push(&theirs_head);
            repo.commit(&tree, &parents, "Merge memories from another machine")?
        };
        // Recorded before the home changes: a sync killed after this point finds them again
        // (the same ids) when it merges anew.
        record_conflicts(home, &conflicts)?;
        archive_losers(home, &merged.losers, now)?;
        let applying = Applying {
            merge: new_head.clone(),
            local: local.clone().unwrap_or_default(),
        };
        write_applying(&dir, Some(&applying))?;
        repo.set_branch(&new_head)?;
        let applied = apply(home, &ours, &merged.tree, &blobs, now)?;
        write_applying(&dir, None)?;
        report.changed_here = applied.changed_here;
        report.refused.extend(applied.refused);
        if new_head == theirs_head {
            return Ok(report);
        }
        match repo.push(remote, &new_head)? {
            Pushed::Done => {
                report.pushed = true;
                return Ok(report);
            }
            Pushed::Behind => continue,
        }
    }
    Err(SyncError::RemoteRejected {
        remote: remote.to_string(),
        reason: format!(
            "it kept moving while this sync merged ({PUSH_ATTEMPTS} attempts); sync again"
        ),
    })
}

/// A sync killed while applying a merge: the branch is moved to it and its tree applied again
/// (idempotent: only files still as they were sent are written).
fn finish_interrupted(
    home: &AmbryHome,
    repo: &Repo,
    now: DateTime<Utc>,
    report: &mut SyncReport,
) -> Result<(), SyncError> {
    let dir = home.sync_dir();
    let Some(applying) = read_applying(&dir) else {
        return Ok(());
    };
    if repo.resolve(&applying.merge).is_none() {
        return write_applying(&dir, None);
    }
    repo.set_branch(&applying.merge)?;
    let sent: Tree = if applying.local.is_empty() {
        Tree::new()
    } else {
        repo.tree_of(Some(&applying.local))?
    };
    let merged = repo.tree_of(Some(&applying.merge))?;
    let hashes: Vec<String> = changed_paths(&sent, &merged)
        .iter()
        .flat_map(|(p, _)| [sent.get(p), merged.get(p)])
        .flatten()
        .map(|e| e.hash.clone())
        .collect();
    let blobs = repo.read_blobs(hashes.iter())?;
    let applied = apply(home, &sent, &merged, &blobs, now)?;
    report.received.extend(applied.written);
    report.received.extend(applied.removed);
    write_applying(&dir, None)
}

//! Several memories of one scope at once, as a person selects them in a list: forget them all
//! (each archived, so each is restorable) and undo that in one step.
//!
//! Owns: the all-or-nothing rule of a bulk forget (a selection that went stale — one of them
//! already gone — forgets none) and restoring a bulk forget's versions together.
//! Deliberately does not: decide what forgetting or restoring one memory means (the store and
//! [`Workspace::forget`] / [`Workspace::restore`] do; this only sequences them).

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_rank::embed::SavedWithVector;
use ambry_store::memory::{ForgetOutcome, Scope};

/// One memory a bulk forget archived: what a bulk restore brings back.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
pub struct ForgottenVersion {
    pub name: String,
    pub version: String,
}

impl Workspace {
    /// Forgets every memory in `names` (each archived first, in the order given). If one cannot
    /// be forgotten (it is already gone, or its name is invalid), those forgotten before it are
    /// restored and the error is returned: either all of them go or none.
    pub fn forget_many(
        &self,
        place: &Place,
        scope: Scope,
        names: &[String],
        now: DateTime<Utc>,
    ) -> Result<Vec<ForgetOutcome>, WorkspaceError> {
        let mut done: Vec<ForgetOutcome> = Vec::with_capacity(names.len());
        for name in names {
            if done.iter().any(|d| &d.name == name) {
                continue;
            }
            match self.forget(place, scope, name, now) {
                Ok(outcome) => done.push(outcome),
                Err(e) => {
                    for undo in done.iter().rev() {
                        // Best effort: the archived version is still there if this fails too.
                        let _ = self.restore(place, scope, &undo.name, &undo.version, now);
                    }
                    return Err(e);
                }
            }
        }
        Ok(done)
    }

    /// Restores what [`Workspace::forget_many`] archived (its Undo), each with its vector. Every
    /// version is tried; the first failure is returned after the others were restored.
    pub fn restore_many(
        &self,
        place: &Place,
        scope: Scope,
        versions: &[ForgottenVersion],
        now: DateTime<Utc>,
    ) -> Result<Vec<SavedWithVector>, WorkspaceError> {
        let mut restored = Vec::with_capacity(versions.len());
        let mut first_error = None;
        for v in versions {
            match self.restore(place, scope, &v.name, &v.version, now) {
                Ok(saved) => restored.push(saved),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(restored),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::LaunchEnv;
    use ambry_store::home::AmbryHome;
    use ambry_store::memory::MemoryDraft;

    fn draft(name: &str) -> MemoryDraft {
        MemoryDraft {
            name: name.into(),
            kind: "project".into(),
            description: format!("about {name}"),
            body: format!("{name} body\n"),
            tags: Vec::new(),
        }
    }

    fn names(ws: &Workspace, store: &Place) -> Vec<String> {
        let mut names: Vec<String> = ws
            .list(store, ambry_store::memory::ScopeFilter::User)
            .unwrap()
            .into_iter()
            .map(|r| r.name)
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_bulk_forget_archives_all_and_one_undo_restores_all_and_a_stale_selection_forgets_none() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("home"));
        let ws = Workspace::new(
            home,
            LaunchEnv::with_models_dir(tmp.path().join("no-models")),
        );
        let store = ws.place_of(None).unwrap();
        let now = DateTime::from_timestamp(1_780_000_000, 0).unwrap();
        for name in ["alpha", "beta", "gamma"] {
            ws.save(&store, Scope::User, draft(name), now).unwrap();
        }
        let before =
            std::fs::read_to_string(store.dir(Scope::User).unwrap().join("beta.md")).unwrap();

        let selection = vec!["alpha".to_string(), "beta".to_string()];
        let gone = ws
            .forget_many(&store, Scope::User, &selection, now)
            .unwrap();
        assert_eq!(gone.len(), 2);
        assert_eq!(names(&ws, &store), ["gamma"]);

        let versions: Vec<ForgottenVersion> = gone
            .iter()
            .map(|g| ForgottenVersion {
                name: g.name.clone(),
                version: g.version.clone(),
            })
            .collect();
        ws.restore_many(&store, Scope::User, &versions, now)
            .unwrap();
        assert_eq!(names(&ws, &store), ["alpha", "beta", "gamma"]);
        let after =
            std::fs::read_to_string(store.dir(Scope::User).unwrap().join("beta.md")).unwrap();
        assert_eq!(after, before, "the undo restored other bytes");

        // One of the selection is gone already: nothing is forgotten.
        let stale = vec![
            "alpha".to_string(),
            "deleted-meanwhile".to_string(),
            "gamma".to_string(),
        ];
        let err = ws
            .forget_many(&store, Scope::User, &stale, now)
            .unwrap_err();
        assert_eq!(
            ambry_store::error::ErrorCode::code(&err),
            "not_found",
            "{err}"
        );
        assert_eq!(names(&ws, &store), ["alpha", "beta", "gamma"]);
    }
}

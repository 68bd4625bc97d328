//! Saving what a memory is for (DESIGN §5): the `when` phrases whoever writes a memory gives
//! (an agent through `memory_save`, a person with `memory save --when` or the app's form) are
//! written in the same file write as the memory.
//!
//! Owns: the one façade write that sets them, with a memory's text or alone (the review's
//! "needs when" action).
//! Deliberately does not: bound or render the phrases (`memory::when` does) or rank with them.

use chrono::{DateTime, Utc};

use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_rank::embed::{self, SavedWithVector};
use ambry_store::memory::when::{value, WHEN_KEY};
use ambry_store::memory::{MemoryDraft, RuleEdit, Scope};

impl Workspace {
    /// [`Workspace::save_ruled`], also setting the memory's `when` phrases: `None` keeps what
    /// the file says, a list (even an empty one) replaces it. Too many, empty or long phrases
    /// are refused, naming the field.
    pub fn save_ruled_when(
        &self,
        place: &Place,
        scope: Scope,
        draft: MemoryDraft,
        rule: &RuleEdit,
        when: Option<&[String]>,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        let rendered = when.map(value);
        let keys = when_keys(rendered.as_deref());
        self.write_memory(store, |models| {
            Ok(embed::with_vector(
                store.save_ruled(scope, draft, &keys, rule, now)?,
                models,
            ))
        })
    }

    /// Say when a memory is needed (the review's "needs when" action): its `when` phrases
    /// replaced by `phrases`, everything else of it kept as it is.
    pub fn review_when(
        &self,
        place: &Place,
        scope: Scope,
        name: &str,
        phrases: &[String],
        now: DateTime<Utc>,
    ) -> Result<ambry_store::memory::Memory, WorkspaceError> {
        let memory = place.store().get(Some(scope), name)?;
        let saved = self.save_ruled_when(
            place,
            scope,
            MemoryDraft::from(&memory),
            &RuleEdit::Keep,
            Some(phrases),
            now,
        )?;
        Ok(saved.outcome.memory)
    }

    /// [`Workspace::create_ruled`] with the memory's `when` phrases, in the same write.
    pub fn create_ruled_when(
        &self,
        place: &Place,
        scope: Scope,
        draft: MemoryDraft,
        rule: &RuleEdit,
        when: Option<&[String]>,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        let rendered = when.map(value);
        let keys = when_keys(rendered.as_deref());
        self.write_memory(store, |models| {
            Ok(embed::with_vector(
                store.create_with_keys(scope, draft, &keys, rule, now)?,
                models,
            ))
        })
    }
}

/// The frontmatter key a write sets for `when` (none: the file's phrases are kept).
fn when_keys(rendered: Option<&str>) -> Vec<(&str, &str)> {
    rendered.map(|v| (WHEN_KEY, v)).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AmbryHome, LaunchEnv};
    use ambry_store::memory::Store;

    fn draft(body: &str) -> MemoryDraft {
        MemoryDraft {
            name: "db-pool".into(),
            kind: "project".into(),
            description: "Connection pool sizing".into(),
            body: body.into(),
            tags: vec![],
        }
    }

    #[test]
    fn phrases_are_written_with_the_memory_kept_by_a_save_without_them_and_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("home"));
        let ws = Workspace::new(
            home.clone(),
            LaunchEnv::with_models_dir(tmp.path().join("none")),
        );
        let store = Store::new(home, None);
        let place = Place::from(&store);
        let now = chrono::DateTime::from_timestamp(1_780_000_000, 0).unwrap();
        let when = vec![
            "bumping the DB pool size".to_string(),
            "a 429: too many connections".into(),
        ];
        let saved = ws
            .save_ruled_when(
                &place,
                Scope::User,
                draft("Max 20."),
                &RuleEdit::Keep,
                Some(&when),
                now,
            )
            .unwrap();
        assert_eq!(saved.outcome.memory.lifecycle.when, when);
        let text = std::fs::read_to_string(&saved.outcome.memory.path).unwrap();
        assert!(
            text.contains("when: [bumping the DB pool size, \"a 429: too many connections\"]\n"),
            "{text}"
        );
        // A save that says nothing of `when` keeps the phrases.
        let again = ws
            .save_ruled_when(
                &place,
                Scope::User,
                draft("Max 25."),
                &RuleEdit::Keep,
                None,
                now,
            )
            .unwrap();
        assert_eq!(again.outcome.memory.lifecycle.when, when);
        let nine: Vec<String> = (0..9).map(|i| format!("phrase {i}")).collect();
        let refused = ws
            .save_ruled_when(
                &place,
                Scope::User,
                draft("Max 30."),
                &RuleEdit::Keep,
                Some(&nine),
                now,
            )
            .unwrap_err();
        assert!(refused.to_string().contains("at most 8"), "{refused}");
        assert_eq!(
            store.get(Some(Scope::User), "db-pool").unwrap().body.trim(),
            "Max 25."
        );
        let created = ws
            .create_ruled_when(
                &place,
                Scope::User,
                MemoryDraft {
                    name: "new-one".into(),
                    ..draft("b")
                },
                &RuleEdit::Keep,
                Some(&when),
                now,
            )
            .unwrap();
        assert_eq!(created.outcome.memory.lifecycle.when, when);
        assert!(
            ws.create_ruled_when(
                &place,
                Scope::User,
                draft("b"),
                &RuleEdit::Keep,
                Some(&when),
                now
            )
            .is_err(),
            "a create of an existing name is refused"
        );
    }
}

//! `memory distill --annotate` through the workspace (DESIGN §5, §14): the person's own agent
//! proposes `when` phrases for the view's memories that do not say when they are needed, in one
//! run of the distill child; the proposals wait in the review like any distill proposal.
//!
//! Owns: reading the distill settings for it (`[distill] enabled`, the agent, its command and
//! the budget), the child's arguments, and one annotate of a view at a time.
//! Deliberately does not: choose memories, judge the answer or spawn
//! (`ambry_lifecycle::annotate` does), write a memory (an accept does), or read the clock.

use ambry_lifecycle::distill::child::OneCall;
use chrono::{DateTime, Utc};

use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_lifecycle::annotate::{self, AnnotateReport, AnnotateSetup};
use ambry_lifecycle::distill::{AgentRunner, ChildRunner, DistillError, Inbox, StopHandle};
use ambry_store::config::DistillAgent;

impl Workspace {
    /// Asks `agent` (default: `[distill] agent`) with `runner` for `when` phrases for `place`'s
    /// memories without them; a dry run shows the text and its size and sends nothing.
    pub fn distill_annotate_with(
        &self,
        place: &Place,
        agent: Option<DistillAgent>,
        dry_run: bool,
        now: DateTime<Utc>,
        runner: &dyn AgentRunner,
    ) -> Result<AnnotateReport, WorkspaceError> {
        let config = self.config()?.distill;
        if !config.enabled {
            return Err(DistillError::Disabled.into());
        }
        let agent = agent.unwrap_or(config.agent);
        let store = place.store();
        let inbox = Inbox::new(self.home());
        // Two runs at once would each pay for the same memories.
        let key = format!(
            "annotate-{}",
            store.project().map_or("user", |p| p.slug.as_str())
        );
        let _running = if dry_run {
            None
        } else {
            Some(inbox.run_lock(&key)?)
        };
        let setup = AnnotateSetup {
            call: OneCall {
                config: &config,
                agent,
                dry_run,
                extra_args: self.child_args(agent),
            },
            store,
            inbox: &inbox,
            now,
        };
        Ok(annotate::annotate(&setup, runner)?)
    }

    /// `distill_annotate_with` the person's own agent CLI as a child process, stopped (its
    /// whole process group killed) when a front end calls `stop`.
    pub fn distill_annotate(
        &self,
        place: &Place,
        agent: Option<DistillAgent>,
        dry_run: bool,
        now: DateTime<Utc>,
        stop: &StopHandle,
    ) -> Result<AnnotateReport, WorkspaceError> {
        let config = self.config()?.distill;
        if config.enabled {
            // Checked before the dry run: an offer to run what cannot start is no offer.
            self.agent_program(agent.unwrap_or(config.agent), &config)?;
        }
        let runner = ChildRunner { stop: stop.clone() };
        self.distill_annotate_with(place, agent, dry_run, now, &runner)
    }
}

//! Asking the person's own agent about the review's uncertain pairs (DESIGN §14, "Judging
//! pairs"), through the workspace: the view's review, then one run of the distill child over the
//! pairs it could not settle, its verdicts kept in the home.
//!
//! Owns: reading the distill settings for it (`[distill] enabled`, the agent, its command and
//! the budget) and the child's arguments, as a distill run does.
//! Deliberately does not: choose or judge pairs, spawn, or keep verdicts (`ambry_lifecycle::ask`
//! does), change a memory, or read the clock (callers pass `now`).

use ambry_lifecycle::distill::child::OneCall;
use chrono::{DateTime, Utc};

use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_lifecycle::ask::{self, AskReport, AskSetup, Verdicts};
use ambry_lifecycle::distill::{AgentRunner, ChildRunner, DistillError, StopHandle};
use ambry_store::config::DistillAgent;

impl Workspace {
    /// Asks `agent` (default: `[distill] agent`) with `runner` about the uncertain pairs of
    /// `place`'s review that have no verdict for their current texts; a dry run shows the text
    /// and its size and sends nothing.
    pub fn review_ask_with(
        &self,
        place: &Place,
        agent: Option<DistillAgent>,
        dry_run: bool,
        now: DateTime<Utc>,
        runner: &dyn AgentRunner,
    ) -> Result<AskReport, WorkspaceError> {
        let config = self.config()?.distill;
        if !config.enabled {
            return Err(DistillError::Disabled.into());
        }
        let agent = agent.unwrap_or(config.agent);
        let findings = self.review(place, now)?;
        let verdicts = Verdicts::new(self.home());
        let setup = AskSetup {
            call: OneCall {
                config: &config,
                agent,
                dry_run,
                extra_args: self.child_args(agent),
            },
            verdicts: &verdicts,
            now,
        };
        Ok(ask::ask(&setup, &findings, runner)?)
    }

    /// `review_ask_with` the person's own agent CLI as a child process, stopped (its whole
    /// process group killed) when a front end calls `stop`.
    pub fn review_ask(
        &self,
        place: &Place,
        agent: Option<DistillAgent>,
        dry_run: bool,
        now: DateTime<Utc>,
        stop: &StopHandle,
    ) -> Result<AskReport, WorkspaceError> {
        let runner = ChildRunner { stop: stop.clone() };
        self.review_ask_with(place, agent, dry_run, now, &runner)
    }
}

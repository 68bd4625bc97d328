//! Distill (DESIGN §14): the person's own agent CLI, run headless over chosen transcripts,
//! proposes new memories, updates, supersedes and duplicates as JSON; the proposals wait in the
//! review inbox until a person accepts or rejects each one.
//!
//! Owns: the prompt and the answer schema (`prompt`, `proposal`), planning a run within its
//! budget and never re-sending an unchanged session (`run`), the proposals and the record of
//! what was distilled in `AMBRY_HOME/distill/` (`inbox`), accept and reject (`actions`), and
//! the one edge that starts the agent's process (`child`).
//! Deliberately does not: select sessions or write vectors (the workspace does), read the
//! clock, or write any memory without a person's accept.

pub mod actions;
pub mod child;
mod error;
pub mod inbox;
pub mod prompt;
pub mod proposal;
pub mod run;

pub use actions::{accept, reject, AcceptError, Edits};
pub use child::AgentCall;
pub use child::{AgentRunner, ChildRunner, StopHandle, CHILD_MARKER};
pub(crate) use error::quoted;
pub use error::DistillError;
pub use inbox::Inbox;
pub use inbox::{Decision, Distilled};
pub use proposal::Proposal;
pub use proposal::{answer_schema, Action, SourceTurn};
pub use run::PlannedCall;
pub use run::{distill, DistillReport, RunSetup};

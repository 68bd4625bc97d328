//! The compose service: a long-lived process (the desktop app, or `ambry serve`) keeps the
//! embedding model loaded and the corpus and vector caches warm, and answers `ambry compose`
//! over a Unix socket in `AMBRY_HOME`, so an agent's turn does not pay for a model load.
//!
//! Owns: the versioned line protocol (`protocol`), the composer state shared by the service
//! and the in-process path (`service`), the socket rules (`socket`: one server per home, stale
//! sockets replaced, mode 0600), and the serving thread (`serving`).
//! Deliberately does not: decide when to fall back (the CLI composes in-process on any error),
//! install signal handlers, or read the environment.

mod error;
pub mod protocol;
mod recall_call;
mod serve_recall;
mod service;
mod serving;
mod socket;

pub use error::{Refusal, ServiceError};
pub use protocol::{Call, ComposeCall, Reply, Request, ServiceStatus, ToolCheckCall};
pub use recall_call::{RecallAnswer, RecallCall};
pub use service::ComposeService;
pub use serving::{spawn_compose_service, ServiceHandle};
pub use socket::call;

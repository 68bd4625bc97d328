//! Ambry's lifecycle: memories looked after over time.
//!
//! Owns: the review inbox — duplicates, conflicts, stale against the code (`lifecycle`) — and
//! proposals distilled from past sessions by the person's own agent (`distill`), which uses the
//! review's actions and never the other way round.
//! Deliberately does not: apply anything unreviewed, or compose an agent's context.

pub mod distill;
pub mod lifecycle;

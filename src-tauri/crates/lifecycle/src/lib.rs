//! Ambry's lifecycle: memories looked after over time.
//!
//! Owns: the review inbox — duplicates, conflicts, stale against the code (`lifecycle`) — and
//! proposals distilled from past sessions by the person's own agent (`distill`), which uses the
//! review's actions and never the other way round; and the person's agent as the judge of the
//! pairs the review cannot settle (`ask`), and as the writer of the `when` phrases memories
//! lack (`annotate`), both through distill's child.
//! Deliberately does not: apply anything unreviewed, or compose an agent's context.

pub mod annotate;
pub mod ask;
pub mod distill;
pub mod lifecycle;

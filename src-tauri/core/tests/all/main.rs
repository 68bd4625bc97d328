//! The core's integration tests, as one test binary: each file is a module (linking the core and
//! ONNX Runtime once instead of once per file). Shared helpers: `support`, `session_fixture`,
//! `session_eval`; data sets stay beside this folder (`tests/eval_set`, `tests/fixtures`, …).

mod session_eval;
mod session_fixture;
mod support;

mod agents_connect;
mod compose_service;
mod context_economy;
mod distill;
mod embed_eval;
mod embed_model;
mod embed_paraphrase;
mod eval;
mod eval_heldout;
mod model_lent_per_batch;
mod review_ask;
mod review_eval;
mod session_recall_eval;
mod session_vectors;
mod sessions;
mod sync;
mod transcript_lines;
mod transcript_secrets;
mod usage;
mod workspace;

//! What the CLI hands the ranker: parameters from config and flags, and the semantic scorer
//! (or why there is none).

use engram_core::config::Strategy;
use engram_core::rank::Semantic;

use crate::context::Context;

/// The semantic scorer for this process, or the reason it is unavailable.
pub fn semantic(_ctx: &Context, strategy: Strategy) -> Semantic<'static> {
    match strategy {
        Strategy::Keyword | Strategy::Bm25 => Semantic::Unavailable("not requested".into()),
        Strategy::Semantic | Strategy::Auto => Semantic::Unavailable("local embeddings are not set up yet".into()),
    }
}

//! What the CLI hands the ranker for semantic scoring: the local model when the strategy can
//! use it (loaded once per process), or the reason it is unavailable.

use engram_core::config::Strategy;
use engram_core::embed::{semantic_arg, EmbedError, ModelScorer};
use engram_core::rank::Semantic;

use crate::commands::embedding::model_paths;
use crate::context::Context;

/// `None` when the strategy does not use embeddings, so bm25 runs never pay for a model load.
pub struct SemanticSetup(Option<Result<ModelScorer, EmbedError>>, Option<String>);

impl SemanticSetup {
    pub fn load(ctx: &Context, strategy: Strategy) -> SemanticSetup {
        match strategy {
            Strategy::Keyword | Strategy::Bm25 => SemanticSetup(None, None),
            Strategy::Semantic | Strategy::Auto => match model_paths(ctx) {
                Ok(paths) => SemanticSetup(Some(ModelScorer::load(&paths)), None),
                Err(e) => SemanticSetup(None, Some(format!("{e:#}"))),
            },
        }
    }

    pub fn semantic(&self) -> Semantic<'_> {
        match (&self.0, &self.1) {
            (Some(scorer), _) => semantic_arg(scorer),
            (None, Some(why)) => Semantic::Unavailable(why.clone()),
            (None, None) => Semantic::Unavailable("not requested".into()),
        }
    }
}

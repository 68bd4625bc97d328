//! Which retrieval strategy a call really uses, and the health report `doctor` prints.
//!
//! Owns: resolving `auto` (semantic when the model loads, else bm25 with a one-line reason),
//! falling back from `semantic` to bm25 when the model fails, and `embed_checks`.
//! Deliberately does not: rank; the ranker asks this module and then scores.

use serde::Serialize;

use super::{shared_embedder, EmbedError, ModelPaths};
use ambry_store::config::Strategy;
use ambry_store::doctor::Check;
use ambry_store::error::ErrorCode;

/// A strategy the ranker can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EffectiveStrategy {
    Keyword,
    Bm25,
    Semantic,
}

/// The strategy to run and, when it differs from what was asked for, why (one line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StrategyChoice {
    pub strategy: EffectiveStrategy,
    pub note: Option<String>,
}

/// `model` is the outcome of loading the embedder (only consulted for `auto` and `semantic`).
pub fn resolve_strategy(configured: Strategy, model: Result<(), &EmbedError>) -> StrategyChoice {
    let plain = |strategy| StrategyChoice {
        strategy,
        note: None,
    };
    match (configured, model) {
        (Strategy::Keyword, _) => plain(EffectiveStrategy::Keyword),
        (Strategy::Bm25, _) => plain(EffectiveStrategy::Bm25),
        (Strategy::Semantic | Strategy::Auto, Ok(())) => plain(EffectiveStrategy::Semantic),
        (Strategy::Auto, Err(e)) => StrategyChoice {
            strategy: EffectiveStrategy::Bm25,
            note: Some(format!("using bm25 (semantic search unavailable: {e})")),
        },
        (Strategy::Semantic, Err(e)) => StrategyChoice {
            strategy: EffectiveStrategy::Bm25,
            note: Some(format!(
                "semantic search failed, used bm25 for this call: {e}"
            )),
        },
    }
}

/// What `doctor` reports about embeddings.
#[derive(Debug, Clone, Serialize)]
pub struct EmbedChecks {
    pub models_dir: String,
    pub runtime_path: String,
    pub runtime_found: bool,
    pub model_path: String,
    pub model_found: bool,
    /// `None` when the model loaded; otherwise the error code and message.
    pub load_error: Option<(String, String)>,
    pub configured: Strategy,
    pub resolves_to: EffectiveStrategy,
    pub why: String,
}

/// Looks for the assets, tries to load the model (≈ 0.4 s the first time in a process) and
/// says what `configured` resolves to.
pub fn embed_checks(paths: &ModelPaths, configured: Strategy) -> EmbedChecks {
    let runtime = paths.runtime();
    let model_dir = paths.model_dir();
    let runtime_found = runtime.is_file();
    let model_found = super::MODEL_FILES
        .iter()
        .all(|f| model_dir.join(f).is_file());
    let loaded = shared_embedder(paths).map(|_| ());
    let choice = resolve_strategy(configured, loaded.as_ref().map(|_| ()));
    let why = match (&choice.note, configured) {
        (Some(note), _) => note.clone(),
        (None, Strategy::Auto | Strategy::Semantic) => format!(
            "model {} loaded from {}",
            paths.model_id(),
            model_dir.display()
        ),
        (None, _) => format!("retrieval.strategy is {configured:?}").to_lowercase(),
    };
    EmbedChecks {
        models_dir: paths.models_dir().display().to_string(),
        runtime_path: runtime.display().to_string(),
        runtime_found,
        model_path: model_dir.display().to_string(),
        model_found,
        load_error: loaded.err().map(|e| (e.code().to_string(), e.to_string())),
        configured,
        resolves_to: choice.strategy,
        why,
    }
}

impl EmbedChecks {
    /// Doctor lines. Missing assets are warnings, not errors: everything works on bm25.
    pub fn to_checks(&self) -> Vec<Check> {
        let found = |ok: bool, what: &str, path: &str| {
            if ok {
                Check::ok("embeddings", format!("{what} found at {path}"))
            } else {
                Check::warn(
                    "embeddings",
                    format!(
                        "{what} missing at {path}; run `scripts/fetch-models.sh {}`",
                        self.models_dir
                    ),
                )
            }
        };
        let mut checks = vec![
            found(self.runtime_found, "ONNX Runtime", &self.runtime_path),
            found(self.model_found, "model", &self.model_path),
        ];
        let strategy = format!("{:?}", self.configured).to_lowercase();
        let resolves = format!("{:?}", self.resolves_to).to_lowercase();
        let line = format!("strategy {strategy} resolves to {resolves}: {}", self.why);
        let degraded = matches!(self.configured, Strategy::Auto | Strategy::Semantic)
            && self.resolves_to != EffectiveStrategy::Semantic;
        checks.push(if degraded {
            Check::warn("retrieval", line)
        } else {
            Check::ok("retrieval", line)
        });
        checks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing() -> EmbedError {
        EmbedError::RuntimeMissing {
            path: "/m/onnxruntime/x.so".into(),
            models_dir: "/m".into(),
        }
    }

    #[test]
    fn auto_is_semantic_when_the_model_loads_and_bm25_with_a_reason_when_not() {
        assert_eq!(
            resolve_strategy(Strategy::Auto, Ok(())),
            StrategyChoice {
                strategy: EffectiveStrategy::Semantic,
                note: None
            }
        );
        let err = missing();
        let choice = resolve_strategy(Strategy::Auto, Err(&err));
        assert_eq!(choice.strategy, EffectiveStrategy::Bm25);
        let note = choice.note.unwrap();
        assert!(
            note.contains("fetch-models.sh") && !note.contains('\n'),
            "{note}"
        );
    }

    #[test]
    fn semantic_falls_back_for_the_call_and_lexical_strategies_never_need_the_model() {
        let err = missing();
        let choice = resolve_strategy(Strategy::Semantic, Err(&err));
        assert_eq!(choice.strategy, EffectiveStrategy::Bm25);
        assert!(choice.note.unwrap().contains("used bm25"));
        assert_eq!(
            resolve_strategy(Strategy::Bm25, Err(&err)).strategy,
            EffectiveStrategy::Bm25
        );
        assert_eq!(
            resolve_strategy(Strategy::Keyword, Ok(())).strategy,
            EffectiveStrategy::Keyword
        );
    }

    #[test]
    fn checks_report_missing_assets_and_the_bm25_fallback() {
        let dir = tempfile::tempdir().unwrap();
        let checks = embed_checks(
            &ModelPaths::new(dir.path(), "all-MiniLM-L6-v2"),
            Strategy::Auto,
        );
        assert!(!checks.runtime_found && !checks.model_found);
        assert_eq!(checks.resolves_to, EffectiveStrategy::Bm25);
        assert_eq!(
            checks.load_error.as_ref().unwrap().0,
            "embedding_runtime_missing"
        );
        assert!(checks.why.contains("fetch-models.sh"));
        let lines = checks.to_checks();
        assert_eq!(lines.len(), 3);
        assert!(
            lines
                .iter()
                .all(|c| c.status == ambry_store::doctor::Status::Warn),
            "{lines:?}"
        );
        assert!(
            lines[2]
                .detail
                .starts_with("strategy auto resolves to bm25"),
            "{}",
            lines[2].detail
        );
    }
}

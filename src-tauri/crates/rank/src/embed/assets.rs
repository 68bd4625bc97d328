//! Where the embedding assets are expected on disk.
//!
//! Owns: the layout `<models_dir>/onnxruntime/libonnxruntime.so.1.24.4` and
//! `<models_dir>/<model>/{model.onnx, tokenizer files}`, and the check that they are present.
//! Deliberately does not: verify checksums (the fetch script does) or choose `models_dir`: the
//! default is `AMBRY_HOME/models`, and the CLI honours `AMBRY_MODELS_DIR` at its edge.

use std::path::{Path, PathBuf};

use super::EmbedError;
use ambry_store::home::AmbryHome;

/// The ONNX Runtime shared library, relative to the models directory.
pub const RUNTIME_FILE: &str = "onnxruntime/libonnxruntime.so.1.24.4";
/// Files of a model directory, in the order fastembed needs them.
pub const MODEL_FILES: [&str; 5] = [
    "model.onnx",
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
];
/// all-MiniLM-L6-v2 output size.
pub const MODEL_DIMENSION: usize = 384;

/// Where to find the runtime and one model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelPaths {
    models_dir: PathBuf,
    model_id: String,
}

impl ModelPaths {
    /// `model_id` is `retrieval.embedding_model` from the config, also the model's directory name.
    pub fn new(models_dir: impl Into<PathBuf>, model_id: impl Into<String>) -> Self {
        Self {
            models_dir: models_dir.into(),
            model_id: model_id.into(),
        }
    }

    /// The default location, `AMBRY_HOME/models`.
    pub fn in_home(home: &AmbryHome, model_id: impl Into<String>) -> Self {
        Self::new(home.models_dir(), model_id)
    }

    pub fn models_dir(&self) -> &Path {
        &self.models_dir
    }
    pub fn model_id(&self) -> &str {
        &self.model_id
    }
    pub fn runtime(&self) -> PathBuf {
        self.models_dir.join(RUNTIME_FILE)
    }
    pub fn model_dir(&self) -> PathBuf {
        self.models_dir.join(&self.model_id)
    }

    /// Ok when the runtime and every model file exist; otherwise the first missing one.
    pub fn check(&self) -> Result<(), EmbedError> {
        let runtime = self.runtime();
        if !runtime.is_file() {
            return Err(EmbedError::RuntimeMissing {
                path: runtime,
                models_dir: self.models_dir.clone(),
            });
        }
        for file in MODEL_FILES {
            let path = self.model_dir().join(file);
            if !path.is_file() {
                return Err(EmbedError::ModelMissing {
                    path,
                    models_dir: self.models_dir.clone(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ambry_store::error::ErrorCode;

    #[test]
    fn missing_runtime_is_reported_first_with_the_fetch_command() {
        let dir = tempfile::tempdir().unwrap();
        let paths = ModelPaths::new(dir.path(), "all-MiniLM-L6-v2");
        let err = paths.check().unwrap_err();
        assert_eq!(err.code(), "embedding_runtime_missing");
        let msg = err.to_string();
        assert!(msg.contains("libonnxruntime.so.1.24.4"), "{msg}");
        assert!(
            msg.contains(&format!("scripts/fetch-models.sh {}", dir.path().display())),
            "{msg}"
        );
    }

    #[test]
    fn missing_model_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let paths = ModelPaths::new(dir.path(), "all-MiniLM-L6-v2");
        std::fs::create_dir_all(paths.runtime().parent().unwrap()).unwrap();
        std::fs::write(paths.runtime(), b"x").unwrap();
        std::fs::create_dir_all(paths.model_dir()).unwrap();
        std::fs::write(paths.model_dir().join("model.onnx"), b"x").unwrap();
        let err = paths.check().unwrap_err();
        assert_eq!(err.code(), "embedding_model_missing");
        assert!(err.to_string().contains("tokenizer.json"), "{err}");
    }

    #[test]
    fn default_location_is_under_the_home() {
        let home = AmbryHome::new("/h");
        let paths = ModelPaths::in_home(&home, "all-MiniLM-L6-v2");
        assert_eq!(
            paths.runtime(),
            Path::new("/h/models/onnxruntime/libonnxruntime.so.1.24.4")
        );
        assert_eq!(paths.model_dir(), Path::new("/h/models/all-MiniLM-L6-v2"));
    }
}

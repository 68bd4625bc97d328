//! The composer behind `engram compose`, in-process or long-lived: the config, the ranking
//! corpus cache and the embedding model kept between calls.
//!
//! Owns: answering a compose call exactly as a fresh process would (same config file, same
//! project resolution, same caps, same model), reloading `config.toml` when its size, mtime or
//! inode changes, keeping the loaded model and its vector cache, and counting calls served.
//! Deliberately does not: touch sockets (`serving` does) or read the environment (the caller
//! passes the home and the models directory).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::protocol::{Call, ComposeCall, ErrorReply, Reply, Request, Response, ServiceStatus};
use crate::compose::{compose, ComposeRequest, Composition};
use crate::config::{Config, ConfigError, Strategy};
use crate::embed::{EmbedError, ModelPaths, ModelScorer};
use crate::memory::Store;
use crate::rank::{CorpusCache, Semantic};
use crate::{EngramHome, ErrorCode};

/// Identity of the config file as last read: `None` when it does not exist.
type ConfigStamp = Option<(u64, i64, i64, u64)>;

pub struct ComposeService {
    home: EngramHome,
    models_dir: PathBuf,
    config: Option<(ConfigStamp, Config)>,
    cache: CorpusCache,
    /// The last model asked for and its loaded scorer (whose vector cache stays warm).
    scorer: Option<(ModelPaths, ModelScorer)>,
    composed: u64,
}

impl ComposeService {
    /// Nothing is read until the first call; the corpus cache is also saved to `index.sqlite`
    /// so a later in-process call starts warm.
    pub fn new(home: EngramHome, models_dir: PathBuf) -> Self {
        let cache = CorpusCache::persistent(&home.index_db());
        ComposeService { home, models_dir, config: None, cache, scorer: None, composed: 0 }
    }

    pub fn home(&self) -> &EngramHome {
        &self.home
    }

    pub fn models_dir(&self) -> &Path {
        &self.models_dir
    }

    /// The block for one turn: `cwd` picks the project, `top_k`/`max_bytes` override the config.
    /// Fails only when `config.toml` is invalid (the in-process path reports the same error).
    pub fn compose(
        &mut self,
        cwd: &Path,
        query: &str,
        top_k: Option<usize>,
        max_bytes: Option<usize>,
    ) -> Result<Composition, ConfigError> {
        let retrieval = self.config()?.retrieval.clone();
        let request = ComposeRequest::new(query, &retrieval).with_caps(top_k, max_bytes);
        let store = Store::new(self.home.clone(), crate::project::resolve(cwd).ok());
        let paths = ModelPaths::new(&self.models_dir, retrieval.embedding_model.clone());
        let model = match retrieval.strategy {
            Strategy::Keyword | Strategy::Bm25 => None,
            Strategy::Semantic | Strategy::Auto => Some(loaded_scorer(&mut self.scorer, paths)),
        };
        // Worded as `embed::semantic_arg` words it, so a missing model reads the same everywhere.
        let semantic = match &model {
            Some(Ok(scorer)) => Semantic::Available(*scorer),
            Some(Err(e)) => Semantic::Unavailable(e.to_string()),
            None => Semantic::Unavailable("not requested".into()),
        };
        let composition = compose(&store, &mut self.cache, &retrieval, &request, semantic);
        self.composed += 1;
        Ok(composition)
    }

    /// Loads what the first call would (config, model, the user corpus and its vectors), so
    /// that call is as fast as the ones after it. Failures are left for that call to report.
    pub fn warm_up(&mut self) {
        let Ok(config) = self.config() else { return };
        let retrieval = config.retrieval.clone();
        let store = Store::new(self.home.clone(), None);
        let paths = ModelPaths::new(&self.models_dir, retrieval.embedding_model.clone());
        let semantic = match retrieval.strategy {
            Strategy::Keyword | Strategy::Bm25 => Semantic::Unavailable("not requested".into()),
            Strategy::Semantic | Strategy::Auto => match loaded_scorer(&mut self.scorer, paths) {
                Ok(scorer) => Semantic::Available(scorer),
                Err(e) => Semantic::Unavailable(e.to_string()),
            },
        };
        // An empty query still embeds once (warming the runtime) and reads every vector.
        let _ = compose(&store, &mut self.cache, &retrieval, &ComposeRequest::new("", &retrieval), semantic);
    }

    /// Answers one request line; never fails, never panics on bad input.
    pub fn respond(&mut self, line: &str) -> Response {
        match super::protocol::parse_request(line) {
            Ok(request) => self.handle(request),
            Err(e) => Response::new(Reply::Error(e)),
        }
    }

    pub fn handle(&mut self, request: Request) -> Response {
        match request.call {
            Call::Status => Response::new(Reply::Status(self.status())),
            Call::Compose(call) => self.handle_compose(call),
        }
    }

    pub fn status(&self) -> ServiceStatus {
        ServiceStatus {
            pid: std::process::id(),
            home: self.home.root().to_path_buf(),
            models_dir: self.models_dir.clone(),
            composed: self.composed,
            model_loaded: self.scorer.as_ref().map(|(paths, _)| paths.model_id().to_string()),
        }
    }

    fn handle_compose(&mut self, call: ComposeCall) -> Response {
        if call.home != self.home.root() {
            return Response::error(
                "home_mismatch",
                format!("this service serves {}, not {}", self.home.root().display(), call.home.display()),
            );
        }
        if call.models_dir != self.models_dir {
            return Response::error(
                "models_dir_mismatch",
                format!("this service uses models from {}, not {}", self.models_dir.display(), call.models_dir.display()),
            );
        }
        if !call.cwd.is_absolute() {
            return Response::error("relative_cwd", format!("cwd must be absolute, got {}", call.cwd.display()));
        }
        match self.compose(&call.cwd, &call.query, call.top_k, call.max_bytes) {
            Ok(composition) => Response::new(Reply::Composed(composition)),
            Err(e) => Response::new(Reply::Error(ErrorReply::new(e.code(), e.to_string()))),
        }
    }

    fn config(&mut self) -> Result<&Config, ConfigError> {
        let path = self.home.config_file();
        let stamp: ConfigStamp = std::fs::metadata(&path)
            .ok()
            .map(|m| (m.len(), m.mtime(), m.mtime_nsec(), m.ino()));
        let current = matches!(&self.config, Some((seen, _)) if *seen == stamp);
        if !current {
            // An invalid file is not cached: every call reports it until it is fixed.
            self.config = None;
            let config = Config::load(&path)?;
            self.config = Some((stamp, config));
        }
        Ok(&self.config.as_ref().expect("loaded above").1)
    }

}

/// The scorer for `paths`, loading it on first use; a failed load is retried next call (as a
/// fresh process would), so fetching the model needs no restart.
fn loaded_scorer(slot: &mut Option<(ModelPaths, ModelScorer)>, paths: ModelPaths) -> Result<&ModelScorer, EmbedError> {
    if !matches!(slot, Some((loaded, _)) if *loaded == paths) {
        *slot = None;
        let scorer = ModelScorer::load(&paths)?;
        *slot = Some((paths, scorer));
    }
    Ok(&slot.as_ref().expect("loaded above").1)
}

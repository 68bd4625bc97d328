//! The process-wide model lent out one batch at a time to long jobs.
//!
//! Owns: `ModelPerBatch`, a `TextEmbedder` that takes the shared model's lock for each `embed`
//! call only. A reindex of every memory or a fill of session vectors runs for minutes; holding
//! the lock that long would stall every search and compose of the process (the app's search box,
//! the compose service it hosts) until the job ended. Between batches they get the model.
//! Deliberately does not: batch (callers do, in `BATCH_SIZE` steps) or order waiters (a search
//! and the next batch race for the lock; either way the other waits one batch at most).

use std::sync::{Arc, Mutex};

use super::{EmbedError, TextEmbedder};

pub struct ModelPerBatch<E: TextEmbedder> {
    shared: Arc<Mutex<E>>,
    model_id: String,
    dimension: usize,
}

impl<E: TextEmbedder> ModelPerBatch<E> {
    pub fn new(shared: Arc<Mutex<E>>) -> Result<ModelPerBatch<E>, EmbedError> {
        let (model_id, dimension) = {
            let model = shared.lock().map_err(|_| crashed())?;
            (model.model_id().to_string(), model.dimension())
        };
        Ok(ModelPerBatch {
            shared,
            model_id,
            dimension,
        })
    }
}

fn crashed() -> EmbedError {
    EmbedError::Inference {
        reason: "the embedding model crashed earlier in this process".into(),
    }
}

impl<E: TextEmbedder> TextEmbedder for ModelPerBatch<E> {
    fn model_id(&self) -> &str {
        &self.model_id
    }
    fn dimension(&self) -> usize {
        self.dimension
    }
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.shared.lock().map_err(|_| crashed())?.embed(texts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts its calls and whether the lock was free when each began.
    struct Probe {
        calls: usize,
    }

    impl TextEmbedder for Probe {
        fn model_id(&self) -> &str {
            "probe"
        }
        fn dimension(&self) -> usize {
            2
        }
        fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.calls += 1;
            Ok(texts.iter().map(|_| vec![1.0, 0.0]).collect())
        }
    }

    #[test]
    fn the_model_is_free_for_others_between_batches_and_a_crashed_one_is_an_error() {
        let shared = Arc::new(Mutex::new(Probe { calls: 0 }));
        let mut lent = ModelPerBatch::new(shared.clone()).unwrap();
        assert_eq!((lent.model_id(), lent.dimension()), ("probe", 2));
        for _ in 0..3 {
            assert_eq!(lent.embed(&["a".into(), "b".into()]).unwrap().len(), 2);
            // What a search on another thread does between two batches.
            let other = shared.try_lock().expect("free between batches");
            drop(other);
        }
        assert_eq!(shared.lock().unwrap().calls, 3);

        let poisoner = shared.clone();
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.lock().unwrap();
            panic!("a model that crashed mid-batch");
        })
        .join();
        let err = lent.embed(&["c".into()]).unwrap_err();
        assert!(err.to_string().contains("crashed earlier"), "{err}");
    }
}

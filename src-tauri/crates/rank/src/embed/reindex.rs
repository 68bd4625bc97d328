//! Incremental reindex: bring every memory's `.vec` up to date with the current model.
//!
//! Owns: classifying each sidecar (current, missing, stale text, other model), embedding only
//! what must change in batches, writing each sidecar atomically (so an interrupted reindex
//! loses nothing and resumes where it stopped), progress, and the report.
//! Deliberately does not: list memories (callers pass what the store listed) or load the model.

use serde::Serialize;

use super::embedder::BATCH_SIZE;
use super::sidecar::{
    embedded_text, read_header, sidecar_path, text_hash, write_sidecar, TextHash,
};
use super::{EmbedError, TextEmbedder};
use ambry_store::memory::{Memory, MemoryFile};

/// One step of progress, sent after each batch: `done` of `total` memories needing a vector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReindexProgress {
    pub done: usize,
    pub total: usize,
}

/// What happened to one memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReindexOutcome {
    Created,
    Updated,
    UpToDate,
    Failed { reason: String },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReindexReport {
    pub model_id: String,
    pub created: usize,
    pub updated: usize,
    pub up_to_date: usize,
    /// `(memory path, reason)` for each memory whose vector could not be written.
    pub failed: Vec<(String, String)>,
    /// Model ids of sidecars that were replaced because they came from another model.
    pub previous_models: Vec<String>,
}

impl ReindexReport {
    /// True when sidecars of another model were found (and migrated, unless they failed).
    pub fn model_changed(&self) -> bool {
        !self.previous_models.is_empty()
    }
}

struct Pending<'a> {
    memory: &'a Memory,
    text: String,
    hash: TextHash,
    existed: bool,
}

/// Rewrites missing, stale and other-model sidecars of `docs`; leaves current ones untouched.
/// A batch that fails to embed marks its memories failed and the rest carry on.
pub fn reindex(
    docs: &[Memory],
    embedder: &mut dyn TextEmbedder,
    progress: &mut dyn FnMut(ReindexProgress),
) -> Result<ReindexReport, EmbedError> {
    let model_id = embedder.model_id().to_string();
    let dimension = embedder.dimension();
    let mut report = ReindexReport {
        model_id: model_id.clone(),
        ..Default::default()
    };
    let mut pending = Vec::new();
    for memory in docs {
        let text = embedded_text(&memory.name, &memory.description, &memory.body);
        let hash = text_hash(&text);
        let existed = match read_header(&sidecar_path(&memory.path)) {
            Some(h)
                if h.model_id == model_id && h.dimension == dimension && h.text_hash == hash =>
            {
                report.up_to_date += 1;
                continue;
            }
            Some(h) => {
                if h.model_id != model_id && !report.previous_models.contains(&h.model_id) {
                    report.previous_models.push(h.model_id);
                }
                true
            }
            None => sidecar_path(&memory.path).exists(),
        };
        pending.push(Pending {
            memory,
            text,
            hash,
            existed,
        });
    }

    let total = pending.len();
    progress(ReindexProgress { done: 0, total });
    let mut done = 0;
    for batch in pending.chunks(BATCH_SIZE) {
        let texts: Vec<String> = batch.iter().map(|p| p.text.clone()).collect();
        match embedder.embed(&texts) {
            Ok(vectors) => {
                for (item, vector) in batch.iter().zip(vectors) {
                    let path = sidecar_path(&item.memory.path);
                    match write_sidecar(&path, &model_id, item.hash, &vector) {
                        Ok(()) if item.existed => report.updated += 1,
                        Ok(()) => report.created += 1,
                        Err(e) => report
                            .failed
                            .push((item.memory.path.display().to_string(), e.to_string())),
                    }
                }
            }
            Err(e) => {
                for item in batch {
                    report
                        .failed
                        .push((item.memory.path.display().to_string(), e.to_string()));
                }
            }
        }
        done += batch.len();
        progress(ReindexProgress { done, total });
    }
    Ok(report)
}

/// Reindexes what the store listed; files that do not parse are reported as failed, not skipped.
pub fn reindex_files(
    files: Vec<MemoryFile>,
    embedder: &mut dyn TextEmbedder,
    progress: &mut dyn FnMut(ReindexProgress),
) -> Result<ReindexReport, EmbedError> {
    let mut unparsed = Vec::new();
    let docs: Vec<Memory> = files
        .into_iter()
        .filter_map(|f| match f.parsed {
            Ok(m) => Some(m),
            Err(reason) => {
                unparsed.push((
                    f.path.display().to_string(),
                    format!("not a valid memory file: {reason}"),
                ));
                None
            }
        })
        .collect();
    let mut report = reindex(&docs, embedder, progress)?;
    report.failed.extend(unparsed);
    Ok(report)
}

/// Embeds one memory and writes its sidecar (the save path). Skips the model when the sidecar
/// is already current; returns whether a vector was written.
pub fn write_vector(memory: &Memory, embedder: &mut dyn TextEmbedder) -> Result<bool, EmbedError> {
    let text = embedded_text(&memory.name, &memory.description, &memory.body);
    let hash = text_hash(&text);
    let path = sidecar_path(&memory.path);
    if matches!(read_header(&path), Some(h) if h.model_id == embedder.model_id() && h.dimension == embedder.dimension() && h.text_hash == hash)
    {
        return Ok(false);
    }
    let vector = embedder
        .embed(&[text])?
        .pop()
        .ok_or_else(|| EmbedError::Inference {
            reason: "model returned no vector".into(),
        })?;
    write_sidecar(&path, embedder.model_id(), hash, &vector)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{read_sidecar, write_sidecar};
    use ambry_store::memory::Scope;
    use std::path::Path;

    /// Deterministic stand-in: vector = [text length, calls so far]; can be told to fail.
    struct FakeEmbedder {
        id: String,
        calls: usize,
        embedded: usize,
        fail: bool,
    }
    impl FakeEmbedder {
        fn new(id: &str) -> Self {
            Self {
                id: id.into(),
                calls: 0,
                embedded: 0,
                fail: false,
            }
        }
    }
    impl TextEmbedder for FakeEmbedder {
        fn model_id(&self) -> &str {
            &self.id
        }
        fn dimension(&self) -> usize {
            2
        }
        fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
            if self.fail {
                return Err(EmbedError::Inference {
                    reason: "boom".into(),
                });
            }
            self.calls += 1;
            self.embedded += texts.len();
            Ok(texts
                .iter()
                .map(|t| vec![t.len() as f32, self.calls as f32])
                .collect())
        }
    }

    fn memory(dir: &Path, name: &str, body: &str) -> Memory {
        Memory::sketch(
            Scope::User,
            name,
            "note",
            format!("about {name}"),
            body,
            dir.join(format!("{name}.md")),
        )
    }

    fn run(docs: &[Memory], e: &mut FakeEmbedder) -> (ReindexReport, Vec<ReindexProgress>) {
        let mut seen = Vec::new();
        let report = reindex(docs, e, &mut |p| seen.push(p)).unwrap();
        (report, seen)
    }

    #[test]
    fn first_run_creates_then_second_run_is_a_no_op() {
        let dir = tempfile::tempdir().unwrap();
        let docs: Vec<_> = (0..40)
            .map(|i| memory(dir.path(), &format!("m{i}"), "body"))
            .collect();
        let mut e = FakeEmbedder::new("m1");
        let (report, seen) = run(&docs, &mut e);
        assert_eq!(
            (report.created, report.updated, report.up_to_date),
            (40, 0, 0)
        );
        assert!(report.failed.is_empty() && !report.model_changed());
        assert_eq!(seen.first(), Some(&ReindexProgress { done: 0, total: 40 }));
        assert_eq!(
            seen.last(),
            Some(&ReindexProgress {
                done: 40,
                total: 40
            })
        );
        assert_eq!(
            seen.len(),
            1 + 40_usize.div_ceil(BATCH_SIZE),
            "one event up front and one per batch of {BATCH_SIZE}"
        );
        for d in &docs {
            let s = read_sidecar(&d.path.with_extension("vec")).unwrap();
            assert_eq!(s.header.model_id, "m1");
        }
        let (again, _) = run(&docs, &mut e);
        assert_eq!((again.created, again.updated, again.up_to_date), (0, 0, 40));
        assert_eq!(e.embedded, 40, "a current sidecar must not be re-embedded");
    }

    #[test]
    fn stale_text_corrupt_and_other_model_sidecars_are_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let mut docs: Vec<_> = (0..4)
            .map(|i| memory(dir.path(), &format!("m{i}"), "body"))
            .collect();
        run(&docs, &mut FakeEmbedder::new("m1"));
        docs[0].body = "changed body".into();
        std::fs::write(docs[1].path.with_extension("vec"), b"EGVC garbage").unwrap();
        let h = crate::embed::text_hash(&crate::embed::embedded_text(
            &docs[2].name,
            &docs[2].description,
            &docs[2].body,
        ));
        write_sidecar(
            &docs[2].path.with_extension("vec"),
            "old-model",
            h,
            &[1.0, 2.0],
        )
        .unwrap();

        let mut e = FakeEmbedder::new("m1");
        let (report, _) = run(&docs, &mut e);
        assert_eq!(
            (report.created, report.updated, report.up_to_date),
            (0, 3, 1)
        );
        assert_eq!(report.previous_models, vec!["old-model".to_string()]);
        assert_eq!(e.embedded, 3);
        let s0 = read_sidecar(&docs[0].path.with_extension("vec")).unwrap();
        assert_eq!(
            s0.vector[0],
            crate::embed::embedded_text("m0", "about m0", "changed body").len() as f32
        );
        assert_eq!(
            read_sidecar(&docs[2].path.with_extension("vec"))
                .unwrap()
                .header
                .model_id,
            "m1"
        );
    }

    #[test]
    fn a_failing_model_reports_failures_and_keeps_existing_sidecars() {
        let dir = tempfile::tempdir().unwrap();
        let mut docs: Vec<_> = (0..3)
            .map(|i| memory(dir.path(), &format!("m{i}"), "body"))
            .collect();
        run(&docs, &mut FakeEmbedder::new("m1"));
        let before = std::fs::read(docs[0].path.with_extension("vec")).unwrap();
        docs[0].body = "new".into();
        let mut e = FakeEmbedder::new("m1");
        e.fail = true;
        let (report, _) = run(&docs, &mut e);
        assert_eq!(report.failed.len(), 1);
        assert!(report.failed[0].1.contains("boom"));
        assert_eq!(report.up_to_date, 2);
        assert_eq!(
            std::fs::read(docs[0].path.with_extension("vec")).unwrap(),
            before
        );
    }

    #[test]
    fn write_vector_writes_once_and_skips_when_current() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = memory(dir.path(), "solo", "body");
        let mut e = FakeEmbedder::new("m1");
        assert!(write_vector(&m, &mut e).unwrap());
        assert!(!write_vector(&m, &mut e).unwrap());
        m.description = "new description".into();
        assert!(write_vector(&m, &mut e).unwrap());
        assert_eq!(e.embedded, 2);
    }

    #[test]
    fn an_unwritable_directory_is_a_failure_not_an_abort() {
        let docs = vec![memory(
            Path::new("/nonexistent-dir-for-ambry-test"),
            "m",
            "b",
        )];
        let (report, _) = run(&docs, &mut FakeEmbedder::new("m1"));
        assert_eq!(report.failed.len(), 1);
        assert_eq!(report.created, 0);
    }
}

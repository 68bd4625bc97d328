//! Cosine similarity between a query and memories' sidecar vectors, for the ranker's semantic
//! slot.
//!
//! Owns: the vector cache (keyed by sidecar path, revalidated by mtime + size so a warm call
//! reads nothing unchanged; or, trusting a watcher, not revalidated until told a sidecar
//! changed or its directory's stamp moved, as every sidecar write through Ambry moves it),
//! ignoring sidecars of another model, and cosine scoring.
//! Deliberately does not: fuse with bm25 (the ranker's blend/rrf do) or choose a strategy.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use super::sidecar::{read_sidecar, sidecar_path};
use super::{EmbedError, TextEmbedder};
use crate::rank::DocTerms;
use ambry_store::memory::Memory;
use ambry_store::storage::DirStamp;

/// Sidecar vectors read so far, each remembered with the file's size and mtime.
#[derive(Debug, Default)]
pub struct VectorCache {
    /// Keyed by the memory file's path as bytes: a search looks up every memory, and hashing
    /// raw bytes is several times cheaper than hashing a `Path` (which re-parses components)
    /// and building the sidecar's path first (measured at 9k memories: ~8 ms of a warm search).
    entries: HashMap<Box<[u8]>, CachedVector>,
    /// Whether a watcher reports every sidecar change (see `trust_watcher`).
    trusting: bool,
    /// Counts every change to `entries`, so `aligned` knows whether it still holds.
    generation: u64,
    /// The vectors of the last documents scanned, in their order (trusting caches only).
    aligned: Option<Aligned>,
    /// Per directory of memories, its stamp when its sidecars were last vouched for (trusting
    /// caches only): every sidecar Ambry writes is renamed into place, which moves the stamp, so
    /// such a write is seen on the next call without waiting for the watcher.
    dirs: HashMap<PathBuf, DirStamp>,
    /// Directories whose stamp moved (or is too fresh to vouch) in this call: their cached
    /// sidecars are checked against the disk as an untrusting cache checks them.
    unvouched: HashSet<PathBuf>,
}

#[derive(Debug)]
struct CachedVector {
    /// Size and mtime of the sidecar; `None` when there was none.
    stamp: Option<(u64, SystemTime)>,
    /// `(model id, unit-length vector)`, or `None` when the file is missing or unreadable.
    vector: Option<(String, Arc<[f32]>)>,
}

/// A scan's documents and their vectors side by side: every keystroke of a search ranks the
/// same ten thousand documents, and a lookup per memory by path (hashing it, comparing it and
/// the model id, three allocations apart) cost more than the dot products themselves. Holds
/// while the very same documents come (a changed memory is a new `DocTerms`) and no entry
/// changed (`generation`).
#[derive(Debug)]
struct Aligned {
    docs: Vec<Arc<DocTerms>>,
    /// The distinct directories of `docs`.
    dirs: Vec<PathBuf>,
    model_id: String,
    generation: u64,
    vectors: Vec<Option<Arc<[f32]>>>,
}

impl VectorCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// From now on a sidecar read once (or found missing) is taken as current until
    /// `invalidate` names its memory: the caller promises a watcher reports every change.
    pub fn trust_watcher(&mut self) {
        self.trusting = true;
    }

    /// The sidecar of `memory_path` was written or removed.
    pub fn invalidate(&mut self, memory_path: &Path) {
        self.entries.remove(key(memory_path));
        self.generation += 1;
    }

    pub fn invalidate_all(&mut self) {
        self.entries.clear();
        self.dirs.clear();
        self.generation += 1;
    }

    /// A trusting cache's check of the directories `dirs`: one stat each. A directory whose
    /// stamp moved since it was vouched for (or that changed too recently to vouch for) has its
    /// sidecars checked against the disk in this call.
    fn vouch_for<'a>(&mut self, dirs: impl Iterator<Item = &'a Path>) {
        self.unvouched.clear();
        if !self.trusting {
            return;
        }
        for dir in dirs {
            let now = DirStamp::of(dir);
            if now.is_some() && self.dirs.get(dir) == now.as_ref() {
                continue;
            }
            self.unvouched.insert(dir.to_path_buf());
            match now.filter(DirStamp::settled) {
                Some(stamp) => self.dirs.insert(dir.to_path_buf(), stamp),
                None => self.dirs.remove(dir),
            };
        }
    }

    /// The vector of each of `docs` (as `vector` gives it), in their order. A cache trusting its
    /// watcher answers a repeat of the last documents from the previous answer.
    pub fn vectors_of(&mut self, docs: &[Arc<DocTerms>], model_id: &str) -> &[Option<Arc<[f32]>>] {
        // The very documents of the last scan (a changed memory is a new `DocTerms`): their
        // directories are known, so ten thousand paths are not taken apart again.
        let same_docs = self.aligned.as_ref().is_some_and(|a| {
            a.docs.len() == docs.len() && a.docs.iter().zip(docs).all(|(a, b)| Arc::ptr_eq(a, b))
        });
        let dirs = match &self.aligned {
            Some(a) if same_docs => a.dirs.clone(),
            _ => directories(docs),
        };
        self.vouch_for(dirs.iter().map(PathBuf::as_path));
        let holds = self.trusting
            && self.unvouched.is_empty()
            && same_docs
            && self
                .aligned
                .as_ref()
                .is_some_and(|a| a.generation == self.generation && a.model_id == model_id);
        if !holds {
            let vectors = docs
                .iter()
                .map(|d| self.shared_vector(&d.path, model_id))
                .collect();
            // Taken after the reads above, which count as changes themselves.
            let generation = self.generation;
            self.aligned = Some(Aligned {
                docs: docs.to_vec(),
                dirs,
                model_id: model_id.to_string(),
                generation,
                vectors,
            });
        }
        &self.aligned.as_ref().expect("set above").vectors
    }

    /// The unit-length vector of `memory_path`'s sidecar when it was written by `model_id`.
    pub fn vector(&mut self, memory_path: &Path, model_id: &str) -> Option<&[f32]> {
        self.vouch_for(memory_path.parent().into_iter());
        self.shared_vector(memory_path, model_id)?;
        match &self.entries.get(key(memory_path))?.vector {
            Some((_, v)) => Some(&**v),
            None => None,
        }
    }

    fn shared_vector(&mut self, memory_path: &Path, model_id: &str) -> Option<Arc<[f32]>> {
        let key = key(memory_path);
        let trusted = self.trusting
            && self.entries.contains_key(key)
            && (self.unvouched.is_empty()
                || !memory_path
                    .parent()
                    .is_some_and(|d| self.unvouched.contains(d)));
        if !trusted {
            let sidecar = sidecar_path(memory_path);
            let stamp = std::fs::metadata(&sidecar).ok().map(|meta| {
                (
                    meta.len(),
                    meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                )
            });
            let fresh = matches!(self.entries.get(key), Some(c) if c.stamp == stamp);
            if !fresh {
                let vector = stamp
                    .and_then(|_| read_sidecar(&sidecar))
                    .map(|s| (s.header.model_id, normalized(s.vector).into()));
                self.entries
                    .insert(key.into(), CachedVector { stamp, vector });
                self.generation += 1;
            }
        }
        match &self.entries.get(key)?.vector {
            Some((id, v)) if id == model_id => Some(v.clone()),
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The distinct directories `docs` live in, in the order first met. A corpus lists a directory's
/// memories together, so comparing each path's directory with the last one's (as bytes: taking a
/// `Path` apart component by component cost more than the dot products) finds them.
fn directories(docs: &[Arc<DocTerms>]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut last: &[u8] = &[];
    for doc in docs {
        let bytes = doc.path.as_os_str().as_encoded_bytes();
        let dir = match bytes.iter().rposition(|&b| b == b'/') {
            Some(at) => &bytes[..at],
            None => &[],
        };
        if dir == last && !dirs.is_empty() {
            continue;
        }
        last = dir;
        if let Some(parent) = doc.path.parent() {
            if !dirs.iter().any(|d| d == parent) {
                dirs.push(parent.to_path_buf());
            }
        }
    }
    dirs
}

fn key(memory_path: &Path) -> &[u8] {
    memory_path.as_os_str().as_encoded_bytes()
}

pub(crate) fn normalized(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// Cosine of two vectors, 0 when either is zero or their lengths differ.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// One score per memory, in order: the cosine of the query with the memory's vector, clamped
/// to ≥ 0, or `None` when the memory has no sidecar of this model (it contributes nothing).
pub fn semantic_scores(
    query: &str,
    docs: &[Memory],
    embedder: &mut dyn TextEmbedder,
    cache: &mut VectorCache,
) -> Result<Vec<Option<f32>>, EmbedError> {
    let query_vector = embedder
        .embed(&[query.to_string()])?
        .pop()
        .unwrap_or_default();
    let query_vector = normalized(query_vector);
    let model_id = embedder.model_id().to_string();
    Ok(docs
        .iter()
        .map(|m| {
            cache
                .vector(&m.path, &model_id)
                .map(|v| dot(v, &query_vector).max(0.0))
        })
        .collect())
}

pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    // Eight independent sums: a single running sum is one long dependency chain the compiler
    // may not reorder (float addition is not associative), so it cannot use SIMD lanes.
    let mut lanes = [0.0f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{text_hash, write_sidecar};
    use ambry_store::memory::Scope;

    struct AxisEmbedder;
    impl TextEmbedder for AxisEmbedder {
        fn model_id(&self) -> &str {
            "axis"
        }
        fn dimension(&self) -> usize {
            2
        }
        fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
            Ok(texts
                .iter()
                .map(|t| {
                    if t.contains("cat") {
                        vec![1.0, 0.0]
                    } else {
                        vec![0.0, 1.0]
                    }
                })
                .collect())
        }
    }

    fn memory(dir: &Path, name: &str) -> Memory {
        Memory::sketch(
            Scope::User,
            name,
            "note",
            String::new(),
            String::new(),
            dir.join(format!("{name}.md")),
        )
    }

    #[test]
    fn scores_follow_vectors_and_other_models_contribute_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let docs = vec![
            memory(dir.path(), "pets"),
            memory(dir.path(), "money"),
            memory(dir.path(), "old"),
            memory(dir.path(), "none"),
        ];
        write_sidecar(
            &dir.path().join("pets.vec"),
            "axis",
            text_hash("p"),
            &[3.0, 0.0],
        )
        .unwrap();
        write_sidecar(
            &dir.path().join("money.vec"),
            "axis",
            text_hash("m"),
            &[0.0, 2.0],
        )
        .unwrap();
        write_sidecar(
            &dir.path().join("old.vec"),
            "other-model",
            text_hash("o"),
            &[1.0, 0.0],
        )
        .unwrap();
        let mut cache = VectorCache::new();
        let scores = semantic_scores("a cat", &docs, &mut AxisEmbedder, &mut cache).unwrap();
        assert_eq!(scores, vec![Some(1.0), Some(0.0), None, None]);
    }

    #[test]
    fn cache_rereads_a_sidecar_only_when_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let md = dir.path().join("m.md");
        write_sidecar(
            &dir.path().join("m.vec"),
            "axis",
            text_hash("a"),
            &[1.0, 0.0],
        )
        .unwrap();
        let mut cache = VectorCache::new();
        assert_eq!(cache.vector(&md, "axis").unwrap(), &[1.0, 0.0]);
        // A rewrite with a different size is seen without any explicit invalidation.
        write_sidecar(
            &dir.path().join("m.vec"),
            "axis",
            text_hash("a"),
            &[0.0, 4.0, 0.0],
        )
        .unwrap();
        assert_eq!(cache.vector(&md, "axis").unwrap(), &[0.0, 1.0, 0.0]);
        std::fs::remove_file(dir.path().join("m.vec")).unwrap();
        assert!(cache.vector(&md, "axis").is_none());
        // And one that appears later, too.
        write_sidecar(
            &dir.path().join("m.vec"),
            "axis",
            text_hash("a"),
            &[3.0, 0.0],
        )
        .unwrap();
        assert_eq!(cache.vector(&md, "axis").unwrap(), &[1.0, 0.0]);
    }

    #[test]
    fn a_trusting_cache_sees_a_sidecar_written_through_ambry_and_a_hand_edit_when_told() {
        let dir = tempfile::tempdir().unwrap();
        let (md, vec) = (dir.path().join("m.md"), dir.path().join("m.vec"));
        // Puts the directory's stamp at one moment a second back, as if its last change were
        // long past (the same moment every time: a stamp that moved is a change).
        let past = SystemTime::now() - std::time::Duration::from_secs(1);
        let settle = || {
            std::fs::File::open(dir.path())
                .unwrap()
                .set_modified(past)
                .unwrap();
        };
        let mut cache = VectorCache::new();
        cache.trust_watcher();
        settle();
        assert!(cache.vector(&md, "axis").is_none());
        // Written through Ambry (renamed into place): the directory's stamp moves, seen at once.
        write_sidecar(&vec, "axis", text_hash("a"), &[1.0, 0.0]).unwrap();
        assert_eq!(cache.vector(&md, "axis").unwrap(), &[1.0, 0.0]);
        // Rewritten in place behind the cache's back, the directory settled: not looked for
        // until reported.
        settle();
        assert_eq!(cache.vector(&md, "axis").unwrap(), &[1.0, 0.0]);
        let other = dir.path().join("other.vec");
        write_sidecar(&other, "axis", text_hash("a"), &[0.0, 2.0, 0.0]).unwrap();
        std::fs::write(&vec, std::fs::read(&other).unwrap()).unwrap();
        std::fs::remove_file(&other).unwrap();
        settle();
        assert_eq!(cache.vector(&md, "axis").unwrap(), &[1.0, 0.0]);
        cache.invalidate(&md);
        assert_eq!(cache.vector(&md, "axis").unwrap(), &[0.0, 1.0, 0.0]);
        cache.invalidate_all();
        assert_eq!(cache.vector(&md, "axis").unwrap(), &[0.0, 1.0, 0.0]);
    }

    #[test]
    fn a_scan_of_the_same_documents_sees_every_reported_change_and_follows_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let docs: Vec<Arc<DocTerms>> = ["pets", "money"]
            .iter()
            .map(|n| Arc::new(DocTerms::from_memory(&memory(dir.path(), n))))
            .collect();
        let (pets, money) = (dir.path().join("pets.md"), dir.path().join("money.md"));
        write_sidecar(
            &dir.path().join("pets.vec"),
            "axis",
            text_hash("p"),
            &[3.0, 0.0],
        )
        .unwrap();
        let mut cache = VectorCache::new();
        cache.trust_watcher();
        let seen = |cache: &mut VectorCache, docs: &[Arc<DocTerms>]| -> Vec<Option<Vec<f32>>> {
            cache
                .vectors_of(docs, "axis")
                .iter()
                .map(|v| v.as_deref().map(<[f32]>::to_vec))
                .collect()
        };
        assert_eq!(seen(&mut cache, &docs), vec![Some(vec![1.0, 0.0]), None]);
        write_sidecar(
            &dir.path().join("money.vec"),
            "axis",
            text_hash("m"),
            &[0.0, 2.0],
        )
        .unwrap();
        assert_eq!(
            seen(&mut cache, &docs),
            vec![Some(vec![1.0, 0.0]), Some(vec![0.0, 1.0])],
            "written through Ambry (renamed into place): seen before any report"
        );
        cache.invalidate(&money);
        assert_eq!(
            seen(&mut cache, &docs),
            vec![Some(vec![1.0, 0.0]), Some(vec![0.0, 1.0])]
        );
        write_sidecar(
            &dir.path().join("pets.vec"),
            "axis",
            text_hash("p"),
            &[0.0, 5.0],
        )
        .unwrap();
        cache.invalidate(&pets);
        assert_eq!(
            seen(&mut cache, &docs),
            vec![Some(vec![0.0, 1.0]), Some(vec![0.0, 1.0])]
        );
        std::fs::remove_file(dir.path().join("money.vec")).unwrap();
        cache.invalidate_all();
        assert_eq!(seen(&mut cache, &docs), vec![Some(vec![0.0, 1.0]), None]);
        // Other documents, or the same in another order: their own vectors, in their order.
        let reversed: Vec<Arc<DocTerms>> = docs.iter().rev().cloned().collect();
        assert_eq!(
            seen(&mut cache, &reversed),
            vec![None, Some(vec![0.0, 1.0])]
        );
        assert_eq!(seen(&mut cache, &docs[..1]), vec![Some(vec![0.0, 1.0])]);
        // Another model's vectors are none of this one's.
        assert_eq!(
            cache
                .vectors_of(&docs, "other")
                .iter()
                .filter(|v| v.is_some())
                .count(),
            0
        );
    }

    #[test]
    fn a_scan_checks_each_directory_of_its_documents_once() {
        let doc = |path: &str| {
            let mut m = memory(Path::new("/"), "x");
            m.path = path.into();
            Arc::new(DocTerms::from_memory(&m))
        };
        let docs = [
            doc("/h/memory/a.md"),
            doc("/h/memory/b.md"),
            doc("/h/projects/p/memory/a.md"),
            doc("/h/memory/c.md"),
            doc("/h/memory-x/d.md"),
            doc("/top.md"),
        ];
        assert_eq!(
            directories(&docs),
            ["/h/memory", "/h/projects/p/memory", "/h/memory-x", "/"]
                .map(PathBuf::from)
                .to_vec()
        );
        assert!(directories(&[]).is_empty());
    }

    #[test]
    fn dot_agrees_with_the_plain_sum_at_every_length() {
        for len in [0, 1, 7, 8, 9, 16, 383, 384] {
            let a: Vec<f32> = (0..len)
                .map(|i| ((i * 7 % 13) as f32 - 6.0) / 10.0)
                .collect();
            let b: Vec<f32> = (0..len)
                .map(|i| ((i * 5 % 11) as f32 - 5.0) / 10.0)
                .collect();
            let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!(
                (dot(&a, &b) - plain).abs() < 1e-4,
                "length {len}: {} vs {plain}",
                dot(&a, &b)
            );
        }
        assert_eq!(
            dot(&[1.0, 2.0], &[1.0]),
            0.0,
            "mismatched lengths score nothing"
        );
    }

    #[test]
    fn cosine_handles_zero_and_mismatched_vectors() {
        assert_eq!(cosine(&[1.0, 0.0], &[2.0, 0.0]), 1.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }
}

//! Vectors of memories' `when` phrases (DESIGN §5): each phrase embedded once per process and
//! kept by its text, so a warm turn embeds only the query.
//!
//! Owns: the phrase vector cache (unit length, one model per cache), embedding the phrases it
//! lacks in one call, and each document's best phrase cosine to a query vector.
//! Deliberately does not: persist vectors (a new process embeds the phrases of the memories it
//! ranks once; the compose service keeps them), or fuse (see `rank::when`).

use std::collections::HashMap;
use std::sync::Arc;

use super::{dot, normalized, TextEmbedder};
use crate::rank::DocTerms;

/// How many phrase vectors a cache keeps before it starts over (edited and deleted memories'
/// phrases are never named again; this bounds what they hold: about 60 MB of vectors, ten
/// thousand memories of four phrases).
const MAX_CACHED: usize = 40_000;
/// How many phrases one call embeds at most: a cold cache over thousands of memories warms over
/// a few turns instead of holding one turn for a minute (a phrase not embedded yet counts as
/// none; its words still match through the `when` field's BM25).
const MAX_EMBEDDED_PER_CALL: usize = 128;

#[derive(Debug, Default)]
pub struct PhraseVectors {
    vectors: HashMap<String, Arc<[f32]>>,
}

impl PhraseVectors {
    /// The best cosine of each of `docs`' phrases to the unit vector `query`; embeds the
    /// phrases not seen yet with `embedder` first.
    pub fn best(
        &mut self,
        embedder: &mut dyn TextEmbedder,
        docs: &[Arc<DocTerms>],
        query: &[f32],
    ) -> Result<Vec<Option<f32>>, String> {
        let mut missing: Vec<String> = crate::rank::when::phrases_of(docs)
            .map(|(_, p)| p)
            .filter(|p| !self.vectors.contains_key(*p))
            .map(str::to_string)
            .collect();
        missing.sort_unstable();
        missing.dedup();
        missing.truncate(MAX_EMBEDDED_PER_CALL);
        if !missing.is_empty() {
            if self.vectors.len() + missing.len() > MAX_CACHED {
                self.vectors.clear();
            }
            let vectors = embedder.embed(&missing).map_err(|e| e.to_string())?;
            for (phrase, v) in missing.into_iter().zip(vectors) {
                self.vectors.insert(phrase, normalized(v).into());
            }
        }
        Ok(docs
            .iter()
            .map(|d| {
                d.when
                    .iter()
                    .filter_map(|p| self.vectors.get(p))
                    .map(|v| dot(v, query).max(0.0))
                    .reduce(f32::max)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::EmbedError;
    use ambry_store::memory::{Lifecycle, Memory, Scope};

    /// Embeds a text on the axis of its first letter and counts what it was asked for.
    #[derive(Default)]
    struct Letters {
        embedded: usize,
    }
    impl TextEmbedder for Letters {
        fn model_id(&self) -> &str {
            "letters"
        }
        fn dimension(&self) -> usize {
            26
        }
        fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.embedded += texts.len();
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = vec![0.0; 26];
                    v[(t.as_bytes()[0] - b'a') as usize] = 2.0;
                    v
                })
                .collect())
        }
    }

    fn doc(name: &str, when: &[&str]) -> Arc<DocTerms> {
        Arc::new(DocTerms::from_memory(&Memory {
            lifecycle: Lifecycle {
                when: when.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            },
            ..Memory::sketch(
                Scope::User,
                name,
                "project",
                "",
                "",
                format!("/m/{name}.md"),
            )
        }))
    }

    #[test]
    fn the_best_phrase_counts_and_each_phrase_is_embedded_once() {
        let docs = [
            doc("a", &["apple pie", "banana"]),
            doc("b", &[]),
            doc("c", &["banana"]),
        ];
        let mut query = vec![0.0; 26];
        query[1] = 1.0;
        let mut cache = PhraseVectors::default();
        let mut embedder = Letters::default();
        let best = cache.best(&mut embedder, &docs, &query).unwrap();
        assert_eq!(best, vec![Some(1.0), None, Some(1.0)]);
        assert_eq!(
            embedder.embedded, 2,
            "banana is embedded once for both memories"
        );
        cache.best(&mut embedder, &docs, &query).unwrap();
        assert_eq!(embedder.embedded, 2, "a warm call embeds nothing");
    }

    #[test]
    fn a_cold_cache_over_many_phrases_warms_over_several_calls() {
        let phrases: Vec<String> = (0..300).map(|i| format!("b{i}")).collect();
        let refs: Vec<&str> = phrases.iter().map(String::as_str).collect();
        let docs = [doc("many", &refs)];
        let mut query = vec![0.0; 26];
        query[1] = 1.0;
        let mut cache = PhraseVectors::default();
        let mut embedder = Letters::default();
        assert_eq!(
            cache.best(&mut embedder, &docs, &query).unwrap(),
            vec![Some(1.0)]
        );
        assert_eq!(embedder.embedded, MAX_EMBEDDED_PER_CALL);
        for _ in 0..3 {
            cache.best(&mut embedder, &docs, &query).unwrap();
        }
        assert_eq!(
            embedder.embedded, 300,
            "every phrase once, over a few calls"
        );
    }
}

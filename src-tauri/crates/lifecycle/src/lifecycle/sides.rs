//! The sides of pairs kept between judgements, so a long-lived process (the compose service,
//! the app) reads a memory's terms and claims once per text rather than once per pair per turn.
//!
//! Owns: keeping a `Side` per memory file while its description and body read the same, and a
//! bound on how many are kept.
//! Deliberately does not: judge (`pairs` does) or read files (callers pass the parsed memory).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use ambry_store::memory::Memory;

use super::pairs::Side;

/// Sides kept at most; past it the cache starts over (a store that large judges few of them
/// per turn, and re-reading one costs well under a millisecond).
const KEPT: usize = 4096;

#[derive(Debug, Default)]
pub struct SideCache {
    sides: HashMap<PathBuf, Kept>,
}

#[derive(Debug)]
struct Kept {
    description: String,
    body: String,
    side: Arc<Side>,
}

impl SideCache {
    /// `memory`'s side, read again only when its description or body changed.
    pub fn side(&mut self, memory: &Memory) -> Arc<Side> {
        if let Some(kept) = self.sides.get(&memory.path) {
            if kept.description == memory.description && kept.body == memory.body {
                return Arc::clone(&kept.side);
            }
        }
        if self.sides.len() >= KEPT {
            self.sides.clear();
        }
        let side = Arc::new(Side::of(memory));
        self.sides.insert(
            memory.path.clone(),
            Kept {
                description: memory.description.clone(),
                body: memory.body.clone(),
                side: Arc::clone(&side),
            },
        );
        side
    }

    pub fn len(&self) -> usize {
        self.sides.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sides.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(path: &str, body: &str) -> Memory {
        Memory::sketch(
            ambry_store::memory::Scope::Project,
            "m",
            "project",
            "Package manager",
            body,
            PathBuf::from(path),
        )
    }

    #[test]
    fn a_side_is_read_once_per_text_and_again_when_the_text_changes() {
        let mut cache = SideCache::default();
        let first = cache.side(&memory("/m/a.md", "Use pnpm."));
        let again = cache.side(&memory("/m/a.md", "Use pnpm."));
        assert!(Arc::ptr_eq(&first, &again), "the same text is read once");
        let changed = cache.side(&memory("/m/a.md", "Use yarn."));
        assert!(
            !Arc::ptr_eq(&first, &changed),
            "a changed body is read again"
        );
        assert!(changed.text().contains("yarn"));
        cache.side(&memory("/m/b.md", "Use pnpm."));
        assert_eq!(cache.len(), 2);
    }
}

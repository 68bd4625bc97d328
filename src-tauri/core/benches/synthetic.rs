//! Synthetic memory stores for benchmarks: realistic-looking developer notes from a fixed
//! vocabulary, deterministic for a given size.

use std::fs;
use std::path::Path;

use ambry_core::AmbryHome;
use ambry_rank::embed::{embedded_text, text_hash, write_sidecar};
use ambry_store::memory::{Scope, ScopeFilter, Store};
use ambry_store::project::Project;

const WORDS: &[&str] = &[
    "auth",
    "token",
    "refresh",
    "cache",
    "database",
    "migration",
    "deploy",
    "release",
    "rollback",
    "canary",
    "kubernetes",
    "pod",
    "helm",
    "terraform",
    "pipeline",
    "runner",
    "test",
    "fixture",
    "mock",
    "snapshot",
    "latency",
    "throughput",
    "queue",
    "kafka",
    "redis",
    "postgres",
    "index",
    "query",
    "schema",
    "column",
    "webhook",
    "signature",
    "retry",
    "timeout",
    "backoff",
    "logging",
    "metrics",
    "tracing",
    "alert",
    "oncall",
    "frontend",
    "bundle",
    "react",
    "component",
    "style",
    "lint",
    "format",
    "review",
    "branch",
    "commit",
    "merchant",
    "invoice",
    "refund",
    "settlement",
    "currency",
    "ledger",
    "payment",
    "dispute",
    "fraud",
    "limit",
    "config",
    "secret",
    "vault",
    "environment",
    "feature",
    "flag",
    "rollout",
    "version",
    "header",
    "pagination",
];

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
    fn word(&mut self) -> &'static str {
        WORDS[self.next() % WORDS.len()]
    }
}

/// Writes `n` memories (a tenth in project scope) straight to disk and regenerates the indexes.
pub fn build_store(root: &Path, n: usize) -> Store {
    fs::create_dir_all(root.join("repo")).unwrap();
    let project: Project = ambry_store::project::resolve(&root.join("repo")).unwrap();
    let home = AmbryHome::new(root.join("home"));
    let store = Store::new(home.clone(), Some(project));
    let mut rng = Lcg(42);
    for scope in [Scope::User, Scope::Project] {
        fs::create_dir_all(store.dir(scope).unwrap()).unwrap();
    }
    for i in 0..n {
        let scope = if i % 10 == 0 {
            Scope::Project
        } else {
            Scope::User
        };
        let name = format!("{}-{}-{i}", rng.word(), rng.word());
        let description: Vec<&str> = (0..8).map(|_| rng.word()).collect();
        let body: Vec<&str> = (0..120).map(|_| rng.word()).collect();
        let text = format!(
            "---\nname: {name}\ntype: project\ndescription: {}\ncreated: 2026-01-01T00:00:00Z\n---\n{}\n",
            description.join(" "),
            body.join(" ")
        );
        fs::write(store.dir(scope).unwrap().join(format!("{name}.md")), text).unwrap();
    }
    for scope in [Scope::User, Scope::Project] {
        store.reindex_scope(scope).unwrap();
    }
    store
}

/// Gives every memory of `store` a `.vec` sidecar of `model_id` holding a random vector (384
/// dimensions, deterministic): the semantic scan costs what it costs over real vectors, without
/// embedding every text first. The vectors carry no meaning: time with them, never judge ranking.
/// Each sidecar is current for its memory's text (the hash of what would be embedded), as after
/// `memory reindex`: a stale one would make every reader that checks (the review count) embed
/// the whole store again, which a real indexed home never does.
#[allow(dead_code)] // not every bench that includes this module uses it
pub fn write_random_sidecars(store: &Store, model_id: &str) {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    for file in store
        .list(ScopeFilter::All)
        .expect("list the generated store")
    {
        let vector: Vec<f32> = (0..384).map(|_| next()).collect();
        let sidecar = file.path.with_extension("vec");
        let memory = store
            .get(Some(file.scope), &file.name)
            .expect("read a generated memory");
        let text = embedded_text(&memory.name, &memory.description, &memory.body);
        write_sidecar(&sidecar, model_id, text_hash(&text), &vector).expect("write a sidecar");
    }
}

//! Bytes per section of the compose block on a seeded home: the held-out eval set's user scope
//! and ledger project (tests/eval_set), USER.md and AMBRY.md written as `ambry init` starts
//! them plus a few lines, composed with bm25 as a fresh context (anchors, map and the prompt's
//! gated bodies) for one prompt.
//!
//! `cargo run -p ambry-core --example compose_sections -- [TURN_BYTES]`

use ambry_compose::compose::{compose, Budgets, ComposeInput};
use ambry_core::AmbryHome;
use ambry_rank::rank::{CorpusCache, Semantic};
use ambry_store::config::{RetrievalConfig, Strategy};
use ambry_store::memory::{MemoryDraft, Scope, Store};
use ambry_store::project::Project;

#[derive(serde::Deserialize)]
struct Set {
    memory: Vec<MemoryDraft>,
}

fn main() {
    let turn_bytes: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(4_000);
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("ledger");
    std::fs::create_dir_all(repo.join(".ambry")).unwrap();
    let project = Project {
        slug: "ledger-0a1b2c3d".into(),
        root: repo.clone(),
        remote: None,
    };
    let home = AmbryHome::new(tmp.path().join("home"));
    std::fs::create_dir_all(home.root()).unwrap();
    std::fs::write(home.user_anchor(), "# User preferences\n\n## Style\n\nShort answers, no emoji.\n\n## Tools\n\nfish shell, Neovim, podman.\n").unwrap();
    std::fs::write(repo.join(".ambry/AMBRY.md"), "# Project context\n\nDouble-entry payments ledger in Rust (axum, sqlx, Postgres, Kafka).\n").unwrap();
    let store = Store::new(home, Some(project));
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/eval_set");
    let now = "2026-06-01T00:00:00Z".parse().unwrap();
    for (file, scope) in [("user", Scope::User), ("ledger", Scope::Project)] {
        let set: Set =
            toml::from_str(&std::fs::read_to_string(format!("{dir}/{file}.toml")).unwrap())
                .unwrap();
        for m in set.memory {
            store.save(scope, m, now).unwrap();
        }
    }
    let retrieval = RetrievalConfig {
        strategy: Strategy::Bm25,
        ..Default::default()
    };
    let held = Default::default();
    let uses = Default::default();
    let budgets = Budgets {
        turn_bytes,
        ..Budgets::from_config(&Default::default())
    };
    let c = compose(
        &store,
        &mut CorpusCache::in_memory(),
        &retrieval,
        &ComposeInput {
            start: true,
            resumed: None,
            query: Some("CI fails with no cached data for this query after I changed a sqlx query"),
            conversation: None,
            held: &held,
            gate: ambry_rank::rank::Gate::CALIBRATED,
            budgets,
            uses: &uses,
            today: None,
            disagreements: &ambry_compose::compose::NoDisagreements,
        },
        Semantic::Unavailable(&ambry_core::ModelUnavailable::NotRequested),
    );
    let mut per_kind: std::collections::BTreeMap<String, usize> = Default::default();
    for s in &c.sections {
        *per_kind.entry(format!("{:?}", s.kind)).or_default() += s.bytes;
    }
    for (kind, bytes) in per_kind {
        println!("{kind:<16} {bytes:>6}");
    }
    println!(
        "{:<16} {:>6}  ({} memories, {} cut, turn_bytes {turn_bytes})",
        "block",
        c.bytes,
        c.selected.len(),
        c.cut.len()
    );
}

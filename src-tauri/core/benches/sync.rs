//! Personal sync benchmarks (issue 35): a sync with nothing to do (target under 300 ms) and a
//! sync receiving 1000 changed memories (target under 10 s), on real git against a bare
//! repository on local disk, two homes as two machines. Numbers are reported; nothing is
//! asserted (the test `sync::speed` keeps loose bounds on every run).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use ambry_core::{AmbryHome, LaunchEnv, Workspace};
use ambry_store::memory::Scope;
use chrono::{TimeZone, Utc};
use criterion::{criterion_group, criterion_main, Criterion};

const MEMORIES: usize = 1000;

fn machine(root: &Path, name: &str) -> Workspace {
    let home = root.join(name);
    std::fs::create_dir_all(&home).unwrap();
    Workspace::new(
        AmbryHome::new(&home),
        LaunchEnv::with_models_dir(root.join("no-models")),
    )
}

/// Rewrites every memory of `ws` with `version` (as an editor would) and regenerates MEMORY.md.
fn change_all(ws: &Workspace, version: u64) {
    let dir = ws.home().user_memory_dir();
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..MEMORIES {
        let name = format!("note-{i:04}");
        std::fs::write(
            dir.join(format!("{name}.md")),
            format!("---\nname: {name}\ntype: reference\ndescription: Note {i}\ncreated: 2026-06-01T00:00:00Z\n---\nVersion {version} of note {i}.\n"),
        )
        .unwrap();
    }
    ambry_store::memory::Store::new(ws.home().clone(), None)
        .reindex_scope(Scope::User)
        .unwrap();
}

fn bench_sync(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let remote = tmp.path().join("remote.git");
    assert!(Command::new("git")
        .args(["init", "--quiet", "--bare"])
        .arg(&remote)
        .status()
        .unwrap()
        .success());
    let remote = remote.display().to_string();
    let (a, b) = (machine(tmp.path(), "a"), machine(tmp.path(), "b"));
    let now = Utc.timestamp_opt(1_780_000_000, 0).unwrap();
    change_all(&a, 0);
    a.sync_init(&remote, tmp.path(), now).unwrap();
    b.sync_init(&remote, tmp.path(), now).unwrap();

    let mut group = c.benchmark_group("sync");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("nothing to do (1000 memories)", |bench| {
        bench.iter(|| b.sync_now(now, false).unwrap())
    });
    let mut version = 0;
    group.bench_function("receive 1000 changed memories", |bench| {
        bench.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                version += 1;
                change_all(&a, version);
                a.sync_now(now, false).unwrap();
                let started = Instant::now();
                let report = b.sync_now(now, false).unwrap();
                total += started.elapsed();
                assert_eq!(report.received.len(), MEMORIES);
            }
            total
        })
    });
    group.bench_function("send 1000 changed memories", |bench| {
        bench.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                version += 1;
                change_all(&a, version);
                let started = Instant::now();
                a.sync_now(now, false).unwrap();
                total += started.elapsed();
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, bench_sync);
criterion_main!(benches);

//! A `PreToolUse` check (DESIGN §16) at 10k memories of which 100 carry rules: in a workspace
//! (warm, with and without a memory watcher vouching for the files), over the compose service's socket as `ambry compose --hook` asks it
//! (served), and in a fresh process reading the corpus snapshot from `index.sqlite` (the
//! in-process fallback). Each for a call no rule catches (the common case) and one a rule
//! denies. Numbers are reported in the issue notes; nothing is asserted.

use std::hint::black_box;
use std::time::Duration;

use ambry_compose::enforce::ToolCall;
use ambry_core::{call, spawn_compose_service, Call, Reply, Request, ToolCheckCall};
use ambry_core::{ToolCheck, Workspace};
use ambry_store::memory::Scope;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

mod synthetic;

const MEMORIES: usize = 10_000;
const RULES: usize = 100;

fn check(command: &str) -> ToolCheck {
    ToolCheck {
        call: ToolCall::from_hook("Bash", &serde_json::json!({ "command": command })),
        session_id: None,
        agent: Some("claude".into()),
        record: false,
    }
}

fn benches(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let store = synthetic::build_store(tmp.path(), MEMORIES);
    for i in 0..RULES {
        let scope = if i % 4 == 0 {
            Scope::Project
        } else {
            Scope::User
        };
        let text = format!(
            "---\nname: rule-{i}\ntype: feedback\ndescription: never run tool-{i} here\nenforce:\n  tool: Bash\n  match: '\\btool-{i} (install|run)\\b'\n  action: deny\n---\nUse the other tool instead of tool-{i}.\n"
        );
        std::fs::write(store.dir(scope).unwrap().join(format!("rule-{i}.md")), text).unwrap();
    }
    for scope in [Scope::User, Scope::Project] {
        store.reindex_scope(scope).unwrap();
    }
    let repo = tmp.path().join("repo");
    let home = store.home().clone();
    let ws = Workspace::with_models(home.clone(), tmp.path().join("no-models"));
    let now = chrono::Utc::now();
    let passes = check("cargo test --workspace");
    let denied = check("tool-42 install left-pad");
    assert_eq!(
        ws.check_tool_call(&repo, &denied, now).decision,
        ambry_compose::enforce::Decision::Deny
    );

    let mut group = c.benchmark_group(format!("pre_tool_use_{MEMORIES}"));
    group.sample_size(50);
    // Without a watcher every check stats the store's files for edits (a hook's own process).
    for (label, check) in [("no_rule_matches", &passes), ("denied", &denied)] {
        group.bench_function(BenchmarkId::new("workspace_checked", label), |b| {
            b.iter(|| black_box(ws.check_tool_call(&repo, check, now)))
        });
    }
    // As in `ambry serve` and the app, whose memory watcher reports every change.
    ws.trust_watcher();
    for (label, check) in [("no_rule_matches", &passes), ("denied", &denied)] {
        group.bench_function(BenchmarkId::new("workspace_watched", label), |b| {
            b.iter(|| black_box(ws.check_tool_call(&repo, check, now)))
        });
    }
    let service = spawn_compose_service(ws.clone()).unwrap();
    for (label, check) in [("no_rule_matches", &passes), ("denied", &denied)] {
        let request = Request::new(Call::CheckTool(ToolCheckCall {
            home: std::path::absolute(home.root()).unwrap(),
            cwd: std::path::absolute(&repo).unwrap(),
            check: check.clone(),
            now,
        }));
        group.bench_function(BenchmarkId::new("served", label), |b| {
            b.iter(|| {
                let reply = call(&home, &request, Duration::from_secs(5)).unwrap();
                assert!(matches!(reply, Reply::Checked(_)));
                black_box(reply)
            })
        });
    }
    drop(service);
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("fresh_process", "no_rule_matches"), |b| {
        b.iter(|| {
            let fresh = Workspace::with_models(home.clone(), tmp.path().join("no-models"));
            black_box(fresh.check_tool_call(&repo, &passes, now))
        })
    });
    group.finish();
}

criterion_group!(enforce_benches, benches);
criterion_main!(enforce_benches);

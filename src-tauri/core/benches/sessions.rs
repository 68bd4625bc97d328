//! Session index benchmarks (DESIGN §11): indexing throughput in MB/s of JSONL, against a bare
//! FTS5 insert loop over the same extracted text; recall latency (p50/p95) on the built index;
//! and the time from an append to the message being searchable with the watcher running.
//!
//! The corpus replicates the real transcript samples in `tests/fixtures/formats` and the
//! synthetic fixture sessions, each copy under its own file and session id, until it reaches
//! `AMBRY_BENCH_SESSIONS_MB` (default 100). Numbers are reported; nothing is asserted.

use std::fs::{self, OpenOptions};
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ambry_core::AmbryHome;
use ambry_sessions::sessions::{
    RecallQuery, SessionIndex, SessionWatcher, SessionsConfig, SourceRoots,
};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[path = "../tests/all/session_fixture.rs"]
mod session_fixture;

const QUERIES: &[&str] = &[
    "phoenix",
    "when did we decide to drop the Redis cache?",
    "\"token bucket\"",
    "pgbounc*",
    "websocket OR socket",
];

struct Corpus {
    _tmp: tempfile::TempDir,
    home: AmbryHome,
    roots: SourceRoots,
    bytes: u64,
}

fn build_corpus(megabytes: u64) -> Corpus {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path().join("ambry"));
    let roots = SourceRoots::resolve(
        &home,
        None,
        Some(tmp.path().join("claude")),
        Some(tmp.path().join("codex")),
    );
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats");
    let claude: Vec<String> = ["short.jsonl", "tool_heavy.jsonl"]
        .iter()
        .map(|n| fs::read_to_string(samples.join("claude-code").join(n)).unwrap())
        .collect();
    let codex: Vec<String> = ["fixture-turn-1.jsonl", "fixture-turn-2.jsonl"]
        .iter()
        .map(|n| fs::read_to_string(samples.join("codex").join(n)).unwrap())
        .collect();
    let claude_root = roots.claude.clone().unwrap();
    let codex_root = roots.codex.clone().unwrap();
    let target = megabytes * 1024 * 1024;
    let mut bytes = 0u64;
    let mut copy = 0usize;
    while bytes < target {
        let project = claude_root.join(format!("-home-dev-p{}", copy % 50));
        fs::create_dir_all(&project).unwrap();
        let day = codex_root.join(format!("2026/05/{:02}", 1 + copy % 28));
        fs::create_dir_all(&day).unwrap();
        // One transcript per copy: every sample and fixture session concatenated, as a long session.
        let mut long_claude = String::new();
        for text in &claude {
            long_claude.push_str(
                &text
                    .replace("55604662-cf2a-4331-851a-ec234028f8ca", &format!("s{copy}"))
                    .replace("d6e0bada-1959-4eec-a9d2-0bfade768d8f", &format!("s{copy}")),
            );
        }
        for (i, s) in session_fixture::SESSIONS
            .iter()
            .enumerate()
            .filter(|(_, s)| s.source == "claude")
        {
            long_claude.push_str(&session_fixture::claude_lines(s, i as u32));
        }
        let mut long_codex = String::new();
        for text in &codex {
            long_codex.push_str(
                &text.replace("a1b2c3d4-e5f6-7890-abcd-ef1234567890", &format!("r{copy}")),
            );
        }
        for (i, s) in session_fixture::SESSIONS
            .iter()
            .enumerate()
            .filter(|(_, s)| s.source != "claude")
        {
            long_codex.push_str(&session_fixture::codex_lines(s, i as u32));
        }
        fs::write(project.join(format!("s{copy}.jsonl")), &long_claude).unwrap();
        fs::write(
            day.join(format!("rollout-2026-05-01T00-00-00-r{copy}.jsonl")),
            &long_codex,
        )
        .unwrap();
        bytes += (long_claude.len() + long_codex.len()) as u64;
        copy += 1;
    }
    Corpus {
        _tmp: tmp,
        home,
        roots,
        bytes,
    }
}

fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.95))
}

fn benches(c: &mut Criterion) {
    let megabytes: u64 = std::env::var("AMBRY_BENCH_SESSIONS_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let corpus = build_corpus(megabytes);
    let cfg = SessionsConfig::default();
    eprintln!(
        "session corpus: {:.1} MB of JSONL",
        corpus.bytes as f64 / 1048576.0
    );

    let mut group = c.benchmark_group("sessions_index");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(corpus.bytes));
    group.bench_function("index_full", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let db = corpus.home.root().join("bench-full.sqlite");
                SessionIndex::rebuild(&db).unwrap();
                let mut index = SessionIndex::open(&db).unwrap();
                let start = Instant::now();
                black_box(
                    index
                        .index(&corpus.roots, &cfg, None, 0, &mut |_| {})
                        .unwrap(),
                );
                total += start.elapsed();
            }
            total
        })
    });

    // Baseline: the same extracted messages into a bare FTS5 table, one transaction.
    let db = corpus.home.index_db();
    let mut index = SessionIndex::open(&db).unwrap();
    let summary = index
        .index(&corpus.roots, &cfg, None, 0, &mut |_| {})
        .unwrap();
    eprintln!(
        "indexed {} messages from {} files in {:.2}s",
        summary.messages_indexed, summary.files, summary.seconds
    );
    let texts: Vec<String> = {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let mut stmt = conn.prepare("SELECT text FROM session_messages").unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    group.bench_function("fts5_insert_baseline", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let path = corpus.home.root().join("bench-baseline.sqlite");
                let _ = fs::remove_file(&path);
                let _ = fs::remove_file(path.with_extension("sqlite-wal"));
                let mut conn = rusqlite::Connection::open(&path).unwrap();
                conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61');").unwrap();
                let start = Instant::now();
                let tx = conn.transaction().unwrap();
                {
                    let mut insert = tx.prepare("INSERT INTO t(text) VALUES (?1)").unwrap();
                    for text in &texts {
                        insert.execute([text]).unwrap();
                    }
                }
                tx.commit().unwrap();
                total += start.elapsed();
            }
            total
        })
    });
    group.finish();

    // Recall latency on the full index.
    let mut group = c.benchmark_group("sessions_recall");
    group.sample_size(30);
    for q in QUERIES {
        let query = RecallQuery::new(*q);
        let samples: Vec<Duration> = (0..100)
            .map(|_| {
                let t = Instant::now();
                black_box(index.recall(&query).unwrap());
                t.elapsed()
            })
            .collect();
        let (p50, p95) = percentiles(samples);
        eprintln!("recall {q:?}: p50 {p50:?}  p95 {p95:?}");
        group.bench_function(*q, |b| b.iter(|| black_box(index.recall(&query).unwrap())));
    }
    group.finish();

    // Append → searchable, with the watcher running on the same index.
    let _watcher = SessionWatcher::start(
        db.clone(),
        corpus.roots.clone(),
        cfg.clone(),
        Box::new(|| 0),
        Box::new(|_| {}),
    )
    .unwrap();
    let live: PathBuf = corpus.roots.ambry.join("live.jsonl");
    fs::create_dir_all(&corpus.roots.ambry).unwrap();
    fs::write(&live, "").unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let mut samples = Vec::new();
    for i in 0..20 {
        let token = format!("zulu{i}xray");
        let start = Instant::now();
        let line = format!(
            "{}\n",
            serde_json::json!({"ts": "2026-06-01T00:00:00Z", "role": "user", "text": format!("searching for {token}")})
        );
        OpenOptions::new()
            .append(true)
            .open(&live)
            .unwrap()
            .write_all(line.as_bytes())
            .unwrap();
        let probe = RecallQuery::new(token.as_str());
        while index.recall(&probe).unwrap().is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "append never became searchable"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        samples.push(start.elapsed());
    }
    let (p50, p95) = percentiles(samples);
    eprintln!("append → searchable (watcher running): p50 {p50:?}  p95 {p95:?}");
}

criterion_group!(session_benches, benches);
criterion_main!(session_benches);

//! Session recall on the labelled set in `tests/session_eval/` (65 sessions in the real
//! transcript formats, questions labelled with their evidence sessions), on both halves:
//! Recall@5 (any evidence session among the first five distinct sessions) and MRR, for
//! (a) message-level recall, its hits folded to distinct sessions in order;
//! (b) FTS5 over whole sessions with an OR of the question's words, built here on its own;
//! (c) session recall as `ambry recall`, the app and the MCP server get it without the model;
//! (d) the same with the model (all-MiniLM-L6-v2 from `AMBRY_TEST_MODELS`; those tests say
//! SKIPPED and return without it): message chunk vectors fused with (c);
//! (e) what `Workspace::recall` does with the model: (c) when words suffice, else (d).
//! (c) is gated at floors just under what was measured and must not fall below (a) or (b) on
//! either half; (d) and (e) at their own floors, above (a), (b) and (c) on both halves.
//! The set's own shape is checked mechanically: sizes, labels that resolve to sessions,
//! paraphrases that share no index term with their evidence, and a split covering every class.

use crate::session_eval;
use crate::session_fixture;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use ambry_core::AmbryHome;
use ambry_rank::embed::{shared_embedder, ModelPaths, TextEmbedder};
use ambry_rank::rank::tokenize::terms;
use ambry_sessions::sessions::{
    QueryVector, RecallQuery, SessionIndex, SessionWeights, SessionsConfig, DEFAULT_WEIGHTS,
};
use rusqlite::Connection;
use session_eval::{distinct, EvalSession, Half, Question, Tally, CLASSES};

struct Indexed {
    _tmp: tempfile::TempDir,
    db: PathBuf,
    index: SessionIndex,
    baseline: Connection,
    sessions: Vec<EvalSession>,
    questions: Vec<Question>,
}

fn indexed() -> Indexed {
    let tmp = tempfile::tempdir().unwrap();
    let (home, roots) = crate::support::home_and_roots(tmp.path());
    let sessions = session_eval::sessions();
    session_eval::write_all(
        &sessions,
        roots.claude.as_deref().unwrap(),
        roots.codex.as_deref().unwrap(),
        &roots.ambry,
    );
    let mut index = SessionIndex::open(&home.index_db()).unwrap();
    let summary = index
        .index(&roots, &SessionsConfig::default(), None, 0, &mut |_| {})
        .unwrap();
    assert_eq!(summary.sessions as usize, sessions.len(), "{summary:?}");
    let baseline = whole_session_baseline(&home);
    Indexed {
        _tmp: tmp,
        db: home.index_db(),
        index,
        baseline,
        sessions,
        questions: session_eval::questions(),
    }
}

/// (b): one FTS5 row per session holding everything indexed from it, built apart from the
/// session index's own tables.
fn whole_session_baseline(home: &AmbryHome) -> Connection {
    let index = Connection::open(home.index_db()).unwrap();
    let mut stmt = index
        .prepare("SELECT f.session_id, m.text FROM session_messages m JOIN session_files f ON f.id = m.file_id ORDER BY m.id")
        .unwrap();
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for row in stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap()
    {
        let (id, text) = row.unwrap();
        let doc = texts.entry(id).or_default();
        doc.push_str(&text);
        doc.push('\n');
    }
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch("CREATE VIRTUAL TABLE docs USING fts5(session_id UNINDEXED, text, tokenize='porter unicode61')").unwrap();
    for (id, text) in texts {
        conn.execute(
            "INSERT INTO docs(session_id, text) VALUES (?1, ?2)",
            [id, text],
        )
        .unwrap();
    }
    conn
}

fn baseline_ranking(conn: &Connection, question: &str) -> Vec<String> {
    let words: BTreeSet<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let query = words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(" OR ");
    let mut stmt = conn
        .prepare("SELECT session_id FROM docs WHERE docs MATCH ?1 ORDER BY bm25(docs) LIMIT 10")
        .unwrap();
    stmt.query_map([query], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn message_ranking(index: &SessionIndex, question: &str) -> Vec<String> {
    let hits = index
        .recall_messages(&RecallQuery {
            limit: 50,
            ..RecallQuery::new(question)
        })
        .unwrap();
    distinct(hits.into_iter().map(|h| h.session_id))
}

fn session_ranking(index: &SessionIndex, question: &str, weights: SessionWeights) -> Vec<String> {
    semantic_ranking(index, question, weights, None)
}

fn semantic_ranking(
    index: &SessionIndex,
    question: &str,
    weights: SessionWeights,
    semantic: Option<QueryVector<'_>>,
) -> Vec<String> {
    let hits = index
        .recall_with(
            &RecallQuery {
                limit: 10,
                ..RecallQuery::new(question)
            },
            weights,
            semantic,
        )
        .unwrap();
    let ids: Vec<String> = hits.into_iter().map(|h| h.session_id).collect();
    assert_eq!(ids, distinct(ids.clone()), "one row per session");
    ids
}

type Report = BTreeMap<(Half, String), Tally>;

fn measure(set: &Indexed, rank: &dyn Fn(&str) -> Vec<String>) -> Report {
    let mut report = Report::new();
    for q in &set.questions {
        let ranked = rank(&q.text);
        let evidence = q.evidence(&set.sessions);
        for class in [q.class.as_str(), "ALL"] {
            report
                .entry((q.half(), class.to_string()))
                .or_default()
                .add(&ranked, &evidence);
        }
    }
    report
}

fn print(label: &str, report: &Report) {
    for half in [Half::Dev, Half::Test] {
        let cells: Vec<String> = ["ALL"]
            .into_iter()
            .chain(CLASSES)
            .map(|c| {
                let t = report
                    .get(&(half, c.to_string()))
                    .copied()
                    .unwrap_or_default();
                format!("{c} {:.3}/{:.3} (n={})", t.recall_at_5(), t.mrr(), t.n)
            })
            .collect();
        println!("{label:<28} {half:?}: {}", cells.join("  "));
    }
}

#[test]
fn the_set_is_big_varied_correctly_labelled_and_split() {
    let sessions = session_eval::sessions();
    let questions = session_eval::questions();
    assert!(sessions.len() >= 60, "{} sessions", sessions.len());
    assert!(
        sessions.iter().all(|s| s.turns.len() >= 6),
        "every session is a conversation of several exchanges"
    );
    assert!(
        sessions.iter().filter(|s| s.topics.len() >= 2).count() >= 30,
        "many sessions hold two threads of work"
    );
    assert!(
        sessions.iter().filter(|s| s.turns.len() >= 14).count() >= 20,
        "many long sessions"
    );
    let sources: BTreeSet<&str> = sessions.iter().map(|s| s.source.as_str()).collect();
    assert!(
        sources.contains("claude") && sources.contains("codex"),
        "{sources:?}"
    );

    assert!(questions.len() >= 80, "{} questions", questions.len());
    let paraphrases = questions.iter().filter(|q| q.class == "paraphrase").count();
    assert!(paraphrases >= 30, "{paraphrases} paraphrases");
    let mut problems = Vec::new();
    for q in &questions {
        assert!(
            CLASSES.contains(&q.class.as_str()),
            "unknown class {}",
            q.class
        );
        let evidence = q.evidence(&sessions);
        if evidence.is_empty() {
            problems.push(format!("{:?}: no session holds {:?}", q.text, q.topics));
        }
        if q.class == "multi" && evidence.len() < 2 {
            problems.push(format!(
                "{:?}: a multi question answered by one session",
                q.text
            ));
        }
        if q.class == "paraphrase" {
            // No index term (stemmed, stop words dropped) in common with any evidence session,
            // everyday turns included.
            let asked: BTreeSet<String> = terms(&q.text).into_iter().collect();
            for s in sessions.iter().filter(|s| evidence.contains(s.id.as_str())) {
                let said: BTreeSet<String> = terms(&s.turns.join("\n")).into_iter().collect();
                let shared: Vec<&String> = asked.intersection(&said).collect();
                if !shared.is_empty() {
                    problems.push(format!(
                        "paraphrase {:?} shares {shared:?} with {}",
                        q.text, s.id
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let mut per_half: BTreeMap<(Half, &str), usize> = BTreeMap::new();
    for q in &questions {
        *per_half.entry((q.half(), q.class.as_str())).or_default() += 1;
    }
    for class in CLASSES {
        for half in [Half::Dev, Half::Test] {
            assert!(
                per_half.get(&(half, class)).copied().unwrap_or(0) >= 1,
                "{class} in {half:?}: {per_half:?}"
            );
        }
    }
}

// Measured (Recall@5 / MRR, all questions), dev (78) and test (93) halves:
//   (a) message-level       dev 0.705/0.705   test 0.785/0.786
//   (b) whole-session OR    dev 0.705/0.705   test 0.796/0.778
//   (c) session recall      dev 0.705/0.705   test 0.796/0.789
// Keyword, cross and long questions are at 1.000 for all three; the differences are in the
// multi-answer questions, and paraphrases (no shared word) stay out of reach of all of them.
const FLOORS: [(Half, f64, f64); 2] = [(Half::Dev, 0.69, 0.69), (Half::Test, 0.78, 0.77)];

#[test]
fn session_recall_holds_against_message_level_and_whole_session_baselines_on_both_halves() {
    let set = indexed();
    let messages = measure(&set, &|q| message_ranking(&set.index, q));
    let baseline = measure(&set, &|q| baseline_ranking(&set.baseline, q));
    let sessions = measure(&set, &|q| session_ranking(&set.index, q, DEFAULT_WEIGHTS));
    print("(a) message-level", &messages);
    print("(b) whole-session OR", &baseline);
    print("(c) session recall", &sessions);
    for (half, recall_floor, mrr_floor) in FLOORS {
        let key = (half, "ALL".to_string());
        let (a, b, c) = (messages[&key], baseline[&key], sessions[&key]);
        assert!(
            c.recall_at_5() >= recall_floor && c.mrr() >= mrr_floor,
            "{half:?}: Recall@5 {:.3} MRR {:.3} under the floor {recall_floor}/{mrr_floor}",
            c.recall_at_5(),
            c.mrr()
        );
        assert!(
            c.mrr() >= b.mrr() && c.recall_at_5() >= b.recall_at_5(),
            "{half:?}: sessions {c:?} vs whole-session baseline {b:?}"
        );
        assert!(
            c.mrr() >= a.mrr() && c.recall_at_5() >= a.recall_at_5(),
            "{half:?}: sessions {c:?} vs message-level {a:?}"
        );
    }
}

/// The real model, when `AMBRY_TEST_MODELS` holds it; otherwise the test says so and returns.
fn model_paths() -> Option<ModelPaths> {
    let Some(dir) = std::env::var_os("AMBRY_TEST_MODELS").map(PathBuf::from) else {
        eprintln!("SKIPPED: AMBRY_TEST_MODELS is not set; run scripts/fetch-models.sh DIR and set it to measure semantic recall");
        return None;
    };
    let paths = ModelPaths::new(&dir, "all-MiniLM-L6-v2");
    if let Err(e) = paths.check() {
        panic!(
            "embedding assets missing under AMBRY_TEST_MODELS={}: {e}",
            dir.display()
        );
    }
    Some(paths)
}

/// The database file's size with its write-ahead log folded in.
fn db_bytes(db: &Path) -> u64 {
    let conn = Connection::open(db).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    conn.execute_batch("VACUUM").unwrap();
    std::fs::metadata(db).unwrap().len()
}

// Measured with all-MiniLM-L6-v2 (Recall@5 / MRR, all questions; weights chosen on dev with
// SESSION_EVAL_SWEEP=1, which prints the dev half only):
//   (d) semantic session recall   dev 0.987/0.916   test 0.946/0.927
//   paraphrases                   dev 0.957/0.717   test 0.842/0.774   (lexical: 0.000/0.000 both)
// On the test half one of the four long prompts falls out of the first five (lexical had all
// four) and multi-answer MRR is 0.833 against 0.889; the weights were not moved for it.
// (e) words first (`words_first`, the model only when words may not suffice) answers 38
// of 78 dev and 52 of 93 test questions without the model, at dev 0.987/0.916 (as (d)) and test
// 0.957/0.938 (the long prompt (d) loses is answered by words).
const SEMANTIC_FLOORS: [(Half, f64, f64); 2] = [(Half::Dev, 0.97, 0.90), (Half::Test, 0.93, 0.91)];

#[test]
fn semantic_session_recall_beats_the_lexical_rankings_on_both_halves() {
    let Some(paths) = model_paths() else { return };
    let mut set = indexed();
    let before = db_bytes(&set.db);
    let embedder = shared_embedder(&paths).unwrap();
    let mut embedder = embedder.lock().unwrap();
    let started = Instant::now();
    let fill = set
        .index
        .fill_vectors(&mut *embedder, None, &mut |_| {})
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let after = db_bytes(&set.db);
    assert!(
        fill.messages > 500 && fill.chunks >= fill.messages && fill.remaining == 0,
        "{fill:?}"
    );
    println!(
        "embedded {} messages ({} chunks) in {seconds:.1}s ({:.0} chunks/s); index {before} → {after} bytes, {:.0} KiB per 1k messages",
        fill.messages,
        fill.chunks,
        fill.chunks as f64 / seconds,
        (after - before) as f64 / 1024.0 / (fill.messages as f64 / 1000.0)
    );
    let texts: Vec<String> = set.questions.iter().map(|q| q.text.clone()).collect();
    let started = Instant::now();
    let vectors: HashMap<String, Vec<f32>> = texts
        .iter()
        .cloned()
        .zip(embedder.embed(&texts).unwrap())
        .collect();
    println!(
        "questions embedded at {:.1} ms each",
        started.elapsed().as_secs_f64() * 1000.0 / texts.len() as f64
    );
    let model = embedder.model_id().to_string();
    drop(embedder);
    let semantic = |weights: SessionWeights| {
        let set = &set;
        let (vectors, model) = (&vectors, &model);
        move |q: &str| {
            semantic_ranking(
                &set.index,
                q,
                weights,
                Some(QueryVector {
                    vector: &vectors[q],
                    model,
                }),
            )
        }
    };

    if std::env::var_os("SESSION_EVAL_SWEEP").is_some() {
        // Tuning looks at the dev half only.
        for strict_first in [true, false] {
            for floor in [0.0f32, 0.1, 0.2, 0.3, 0.4] {
                for weight in [1.0, 2.0, 4.0, 8.0, 16.0, 64.0] {
                    let w = SessionWeights {
                        semantic: weight,
                        semantic_floor: floor,
                        strict_first,
                        ..DEFAULT_WEIGHTS
                    };
                    let r = measure(&set, &semantic(w));
                    let cells: Vec<String> = ["ALL"]
                        .into_iter()
                        .chain(CLASSES)
                        .map(|c| {
                            let t = r
                                .get(&(Half::Dev, c.to_string()))
                                .copied()
                                .unwrap_or_default();
                            format!("{c} {:.3}/{:.3}", t.recall_at_5(), t.mrr())
                        })
                        .collect();
                    println!(
                        "sweep strict_first={strict_first} floor={floor} weight={weight}: Dev {}",
                        cells.join("  ")
                    );
                }
            }
        }
    }

    let messages = measure(&set, &|q| message_ranking(&set.index, q));
    let baseline = measure(&set, &|q| baseline_ranking(&set.baseline, q));
    let lexical = measure(&set, &|q| session_ranking(&set.index, q, DEFAULT_WEIGHTS));
    let started = Instant::now();
    let meaning = measure(&set, &semantic(DEFAULT_WEIGHTS));
    let per_question = started.elapsed().as_secs_f64() * 1000.0 / set.questions.len() as f64;
    let started = Instant::now();
    measure(&set, &|q| session_ranking(&set.index, q, DEFAULT_WEIGHTS));
    let lexical_per_question =
        started.elapsed().as_secs_f64() * 1000.0 / set.questions.len() as f64;
    println!("ranking per question (question vector given): semantic {per_question:.1} ms, lexical {lexical_per_question:.1} ms");
    // (e) what `Workspace::recall` does: words first, the model only when they may not suffice.
    let by_words_alone = std::cell::Cell::new(BTreeMap::<Half, usize>::new());
    let words_first = measure(&set, &|q| {
        let words = set
            .index
            .words_first(&RecallQuery {
                limit: 10,
                ..RecallQuery::new(q)
            })
            .unwrap();
        let hits = words.hits;
        match words.verdict {
            Some(_) => {
                let half = set.questions.iter().find(|x| x.text == q).unwrap().half();
                let mut counts = by_words_alone.take();
                *counts.entry(half).or_default() += 1;
                by_words_alone.set(counts);
                hits.into_iter().map(|h| h.session_id).collect()
            }
            None => semantic(DEFAULT_WEIGHTS)(q),
        }
    });
    let by_words_alone = by_words_alone.take();
    print("(a) message-level", &messages);
    print("(b) whole-session OR", &baseline);
    print("(c) lexical sessions", &lexical);
    print("(d) semantic sessions", &meaning);
    print("(e) words first", &words_first);
    for half in [Half::Dev, Half::Test] {
        let n = set.questions.iter().filter(|q| q.half() == half).count();
        println!(
            "(e) {half:?}: {} of {n} questions answered without the model",
            by_words_alone.get(&half).copied().unwrap_or(0)
        );
    }
    // Words first must hold the same floors: skipping the model may not cost what it adds.
    for ((half, recall_floor, mrr_floor), meaning) in SEMANTIC_FLOORS
        .into_iter()
        .flat_map(|floors| [(floors, &meaning), (floors, &words_first)])
    {
        let key = (half, "ALL".to_string());
        let d = meaning[&key];
        assert!(
            d.recall_at_5() >= recall_floor && d.mrr() >= mrr_floor,
            "{half:?}: Recall@5 {:.3} MRR {:.3} under the floor {recall_floor}/{mrr_floor}",
            d.recall_at_5(),
            d.mrr()
        );
        for (name, other) in [
            ("message-level", &messages),
            ("whole-session baseline", &baseline),
            ("lexical sessions", &lexical),
        ] {
            let o = other[&key];
            assert!(
                d.recall_at_5() > o.recall_at_5() && d.mrr() > o.mrr(),
                "{half:?}: semantic {d:?} vs {name} {o:?}"
            );
        }
        // What words already find, meaning must not lose: on the tuned half, class by class;
        // the test half is judged in aggregate only.
        if half == Half::Test {
            continue;
        }
        for class in ["keyword", "cross", "long"] {
            let (d, c) = (
                meaning[&(half, class.to_string())],
                lexical[&(half, class.to_string())],
            );
            assert!(
                d.recall_at_5() >= c.recall_at_5(),
                "{half:?} {class}: semantic {d:?} vs lexical {c:?}"
            );
        }
    }
}

/// The older fixture (`session_fixture`, 26 questions) with the model: the floors its own gate
/// in `tests/sessions.rs` holds lexical recall to (Hit@1 0.92, Hit@3 0.96, MRR 0.95).
#[test]
fn semantic_recall_keeps_the_older_fixture_floors() {
    let Some(paths) = model_paths() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (home, roots) = crate::support::home_and_roots(tmp.path());
    session_fixture::write_all(
        roots.claude.as_deref().unwrap(),
        roots.codex.as_deref().unwrap(),
        &roots.ambry,
    );
    let mut index = SessionIndex::open(&home.index_db()).unwrap();
    index
        .index(&roots, &SessionsConfig::default(), None, 0, &mut |_| {})
        .unwrap();
    let embedder = shared_embedder(&paths).unwrap();
    let mut embedder = embedder.lock().unwrap();
    index
        .fill_vectors(&mut *embedder, None, &mut |_| {})
        .unwrap();
    let model = embedder.model_id().to_string();
    let (mut hit1, mut hit3, mut rr) = (0.0, 0.0, 0.0);
    for (question, expected) in session_fixture::QUESTIONS {
        let vector = embedder
            .embed(&[question.to_string()])
            .unwrap()
            .pop()
            .unwrap();
        let ranked = semantic_ranking(
            &index,
            question,
            DEFAULT_WEIGHTS,
            Some(QueryVector {
                vector: &vector,
                model: &model,
            }),
        );
        let rank = ranked.iter().position(|s| s == expected);
        eprintln!(
            "{:>5}  {question:<55} → {:?}",
            rank.map(|r| (r + 1).to_string()).unwrap_or("-".into()),
            ranked.first()
        );
        if let Some(r) = rank {
            hit1 += f64::from(u8::from(r == 0));
            hit3 += f64::from(u8::from(r < 3));
            rr += 1.0 / (r as f64 + 1.0);
        }
    }
    let n = session_fixture::QUESTIONS.len() as f64;
    let (hit1, hit3, mrr) = (hit1 / n, hit3 / n, rr / n);
    println!("older fixture, semantic session recall on {n} questions: Hit@1 {hit1:.3}  Hit@3 {hit3:.3}  MRR {mrr:.3}");
    assert!(
        hit1 >= 0.92 && hit3 >= 0.96 && mrr >= 0.95,
        "Hit@1 {hit1:.3} Hit@3 {hit3:.3} MRR {mrr:.3}"
    );
}

/// `Workspace::recall` (what `ambry recall`, the app and the MCP tool call) with the model:
/// words that a session holds are answered without loading it; a question they do not answer
/// embeds the messages that have none and finds a session by meaning alone.
#[test]
fn workspace_recall_with_the_model_embeds_new_messages_and_finds_a_session_by_meaning() {
    let Some(paths) = model_paths() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path().join("ambry"));
    let ws = ambry_core::Workspace::with_models(home.clone(), paths.models_dir());
    let sessions = home.sessions_dir();
    std::fs::create_dir_all(&sessions).unwrap();
    let line = |role: &str, text: &str| {
        format!(
            "{}\n",
            serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": role, "text": text})
        )
    };
    std::fs::write(
        sessions.join("pets.jsonl"),
        line("user", "my kitten keeps scratching the new sofa")
            + &line("assistant", "give her a scratching post near it"),
    )
    .unwrap();
    std::fs::write(
        sessions.join("ops.jsonl"),
        line("user", "the nightly backup of postgres failed")
            + &line("assistant", "the disk was full; I rotated the dumps"),
    )
    .unwrap();
    let now = chrono::DateTime::from_timestamp(1_780_000_000, 0).unwrap();
    // Words that one session holds answer without the model: it is not even loaded.
    let (hits, notes) = ws
        .recall(
            &RecallQuery::new("why is the kitten scratching?"),
            true,
            now,
        )
        .unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].session_id, "pets");
    assert_eq!(ws.compose_stats().1, None, "the model was loaded for words");
    let (hits, notes) = ws
        .recall(&RecallQuery::new("young cat damaging furniture"), true, now)
        .unwrap();
    assert!(
        ws.compose_stats().1.is_some(),
        "a question no session has the words of loads the model"
    );
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(
        hits.first().map(|h| h.session_id.as_str()),
        Some("pets"),
        "{hits:?}"
    );
    let index = SessionIndex::open(&home.index_db()).unwrap();
    assert_eq!(
        index.unembedded_count().unwrap(),
        0,
        "recall embedded what it found without vectors"
    );
    assert!(
        ws.embed_sessions(None, &mut |_| {}).unwrap().messages == 0,
        "and nothing is embedded twice"
    );
}

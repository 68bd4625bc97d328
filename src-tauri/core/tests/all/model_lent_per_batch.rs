//! The process-wide model during a long reindex, with the real model (a process of its own:
//! ONNX Runtime is loaded from one path per process).

use crate::support;

use std::sync::mpsc::channel;
use std::time::Duration;

use ambry_core::{AmbryHome, Workspace};
use ambry_core::{Coverage, SearchOptions};
use ambry_rank::embed::BATCH_SIZE;
use ambry_store::config::Strategy;
use ambry_store::memory::{MemoryDraft, Scope};
use chrono::{TimeZone, Utc};

/// A reindex of thousands of memories takes minutes; the app's search box and the compose
/// service it hosts share its model and must be answered between its batches, not after it.
#[test]
fn a_search_during_a_reindex_is_answered_between_its_batches() {
    let models = support::model_paths();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let ws = Workspace::with_models(AmbryHome::new(&home), models.models_dir());
    let store = ws.place_of(None).unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap();
    for i in 0..4 * BATCH_SIZE {
        let draft = MemoryDraft {
            name: format!("note-{i}"),
            kind: "user".into(),
            description: format!("Note number {i} about looking after a young cat"),
            body: "Feed it often.".into(),
            tags: vec![],
        };
        ws.save(&store, Scope::User, draft, now).unwrap();
    }
    for entry in std::fs::read_dir(home.join("memory")).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "vec") {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }

    let (ask, asked) = channel::<()>();
    let (answer, answered) = channel();
    let searcher = {
        let ws = ws.clone();
        std::thread::spawn(move || {
            asked.recv().unwrap();
            let options = SearchOptions {
                strategy: Some(Strategy::Semantic),
                ..SearchOptions::default()
            };
            let result = ws
                .search("kitten", Coverage::Everything, &options)
                .map(|r| r.strategy);
            let _ = answer.send(result);
        })
    };
    let mut mid_reindex = None;
    let report = ws
        .reindex_embeddings(None, &mut |p| {
            if p.done > 0 && p.done < p.total && mid_reindex.is_none() {
                ask.send(()).unwrap();
                // Not a speed limit: a model held for the whole reindex never answers in here.
                mid_reindex = Some(answered.recv_timeout(Duration::from_secs(120)));
            }
        })
        .unwrap();
    searcher.join().unwrap();
    assert_eq!(
        report.created + report.updated,
        4 * BATCH_SIZE,
        "{report:?}"
    );
    let strategy = mid_reindex
        .expect("progress is reported between batches")
        .expect("the search was answered while the reindex was still running")
        .unwrap();
    assert_eq!(strategy, Strategy::Semantic, "the search used the model");
}

//! The workspace's model slot with the real model, in a test binary of its own (not in `all`):
//! ONNX Runtime can be loaded from one path per process, and this test loads it from a directory
//! it fills itself.

#[path = "all/support/mod.rs"]
mod support;

use std::path::Path;

use ambry_core::{AmbryHome, Workspace};
use ambry_core::{Coverage, SearchOptions};
use ambry_store::memory::{MemoryDraft, Scope};
use chrono::{TimeZone, Utc};

#[test]
fn a_missing_model_is_looked_for_again_on_the_next_call_without_a_restart() {
    let models = support::model_paths();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let later = tmp.path().join("models");
    let ws = Workspace::with_models(AmbryHome::new(&home), &later);
    ws.save(
        &ws.place_of(None).unwrap(),
        Scope::User,
        MemoryDraft {
            name: "kitten-care".into(),
            kind: "user".into(),
            description: "Looking after a young cat".into(),
            body: "Feed it often.".into(),
            tags: vec![],
        },
        Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap(),
    )
    .unwrap();
    let before = ws
        .search("cat", Coverage::Everything, &SearchOptions::default())
        .unwrap();
    assert_eq!(before.strategy, ambry_store::config::Strategy::Bm25);
    assert!(before.note.is_some());

    // The assets arrive (as scripts/fetch-models.sh would put them): the next call uses them.
    copy_dir(models.models_dir(), &later);
    let after = ws
        .search("cat", Coverage::Everything, &SearchOptions::default())
        .unwrap();
    assert_eq!(
        after.strategy,
        ambry_store::config::Strategy::Semantic,
        "{:?}",
        after.note
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

//! How long a sync takes (DESIGN §15 / issue 35: a sync with nothing to do under 300 ms, 1000
//! changed memories under 10 s against a local remote). Measured here on every test run (the
//! bounds asserted are loose, for an unoptimized build on a busy machine); the numbers print
//! with `--nocapture`.

use std::time::{Duration, Instant};

use super::*;

const CHANGED: usize = 1000;

/// Writes `count` memory files into the user scope directly (as an editor would) and
/// regenerates MEMORY.md once, so setting up does not dominate.
fn write_many(m: &Machine, count: usize, body: &str) {
    let dir = m.home.join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..count {
        let name = format!("note-{i:04}");
        std::fs::write(
            dir.join(format!("{name}.md")),
            format!(
                "---\nname: {name}\ntype: reference\ndescription: Note {i}\ncreated: 2026-06-01T00:00:00Z\n---\n{body} {i}\n"
            ),
        )
        .unwrap();
    }
    m.store().reindex_scope(Scope::User).unwrap();
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let out = f();
    (out, started.elapsed())
}

#[test]
fn a_thousand_changed_memories_and_a_sync_with_nothing_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let remote = bare_remote(tmp.path());
    let a = Machine::new(tmp.path(), "a");
    let b = Machine::new(tmp.path(), "b");
    a.save("deploy-steps", "Tag, build, roll out.", 1);
    a.init(&remote, 2);
    b.init(&remote, 3);

    write_many(&a, CHANGED, "First text of note");
    let (sent, send_time) = timed(|| a.sync(4));
    assert_eq!(sent.sent.len(), CHANGED);
    let (received, receive_time) = timed(|| b.sync(5));
    assert_eq!(received.received.len(), CHANGED);
    write_many(&a, CHANGED, "Second text of note");
    a.sync(6);
    let (updated, update_time) = timed(|| b.sync(7));
    assert_eq!(updated.received.len(), CHANGED);
    b.assert_index_matches();
    let (idle, idle_time) = timed(|| b.sync(8));
    assert!(idle.received.is_empty() && idle.sent.is_empty());
    for i in 0..CHANGED {
        std::fs::remove_file(a.home.join(format!("memory/note-{i:04}.md"))).unwrap();
    }
    a.sync(9);
    let (removed, remove_time) = timed(|| b.sync(10));
    assert_eq!(removed.received.len(), CHANGED);
    assert_eq!(b.files().len(), 1);
    b.assert_index_matches();
    eprintln!(
        "sync speed: {CHANGED} new sent {send_time:?}, received {receive_time:?}; {CHANGED} changed received {update_time:?}; {CHANGED} deleted received {remove_time:?}; nothing to do {idle_time:?}"
    );
    assert!(remove_time < Duration::from_secs(60), "{remove_time:?}");
    assert!(idle_time < Duration::from_secs(3), "{idle_time:?}");
    assert!(update_time < Duration::from_secs(60), "{update_time:?}");
}

//! The automatic sync of a long-lived front end: a local change is sent once changes settle,
//! without anyone running `ambry sync`, and the other machine receives it.

use std::time::Duration;

use super::*;

#[test]
fn a_local_change_is_sent_once_changes_settle() {
    let tmp = tempfile::tempdir().unwrap();
    let remote = bare_remote(tmp.path());
    let laptop = Machine::new(tmp.path(), "laptop");
    let desk = Machine::new(tmp.path(), "desk");
    laptop.init(&remote, 0);
    desk.init(&remote, 1);
    let (done, finished) = std::sync::mpsc::channel();
    let auto = laptop
        .ws
        .start_auto_sync(Duration::from_millis(50), move |outcome| {
            let _ = done.send(outcome.map(|r| r.sent));
        });
    laptop.save("editor", "Helix with the default keymap.", 2);
    auto.changed();
    // The signal is the sync's own outcome; the wait is only a bound on a hung sync.
    let sent = finished
        .recv_timeout(Duration::from_secs(60))
        .expect("an automatic sync ran")
        .expect("and succeeded");
    assert!(sent.iter().any(|p| p == "memory/editor.md"), "{sent:?}");
    drop(auto);
    desk.sync(3);
    assert_eq!(
        desk.body("editor").as_deref(),
        Some("Helix with the default keymap.")
    );
}

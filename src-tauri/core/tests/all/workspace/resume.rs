//! A resumed session through the workspace (DESIGN §5): the clients keep the start block of the
//! context they resume, so a resume gives an anchor again only when its text changed (or says
//! it no longer applies, when emptied) and the memory map not again; a compaction, a clear or a
//! session the ledger never saw gets the whole block.

use super::*;

use ambry_core::ContextRequest;
use ambry_rank::rank::Gate;

#[test]
fn a_resume_repeats_neither_the_unchanged_anchors_nor_the_map() {
    let (_tmp, ws, project, store) = in_a_repository();
    let user_anchor = ws.home().user_anchor();
    std::fs::create_dir_all(user_anchor.parent().unwrap()).unwrap();
    std::fs::write(&user_anchor, "# Me\n\nReply in British English.\n").unwrap();
    let project_anchor = project.join(".ambry").join("AMBRY.md");
    std::fs::create_dir_all(project_anchor.parent().unwrap()).unwrap();
    std::fs::write(&project_anchor, "# Repo\n\nThe API is in api/.\n").unwrap();
    ws.save(
        &store,
        Scope::User,
        draft("pool-size", "Database pool size", "The pool size is 20."),
        at(1),
    )
    .unwrap();
    let compose = |request: &ContextRequest, second: u32| {
        ws.compose_context(&store, request, Gate::CALIBRATED, at(second))
            .unwrap()
    };

    let first = compose(&session_start("s1", "startup"), 2);
    for part in [
        "British English",
        "The API is in api/",
        "Memory map",
        "pool-size",
    ] {
        assert!(
            first.text.contains(part),
            "{part} at the start: {}",
            first.text
        );
    }
    compose(&turn("s1", "what is the pool size"), 3);

    let resumed = compose(&session_start("s1", "resume"), 4);
    assert_eq!(
        resumed.text, "",
        "the context holds the start block already"
    );
    assert!(resumed.notes.is_empty(), "{:?}", resumed.notes);
    let again = compose(&session_start("s1", "resume"), 5);
    assert_eq!(again.text, "", "nor after a second resume");

    // The person changed their preferences between two runs: the new text, marked as current,
    // and nothing else.
    std::fs::write(&user_anchor, "# Me\n\nReply in American English.\n").unwrap();
    let changed = compose(&session_start("s1", "resume"), 6);
    assert!(
        changed
            .text
            .contains("User preferences (changed since this session began)")
            && changed.text.contains("American English"),
        "{}",
        changed.text
    );
    for part in ["The API is in api/", "Memory map", "pool-size"] {
        assert!(
            !changed.text.contains(part),
            "{part} again: {}",
            changed.text
        );
    }
    assert_eq!(compose(&session_start("s1", "resume"), 7).text, "");

    // Emptied since: the earlier copy is withdrawn once; written again, it is given again.
    std::fs::write(&user_anchor, "").unwrap();
    let emptied = compose(&session_start("s1", "resume"), 7);
    assert!(
        emptied
            .text
            .contains("User preferences (changed since this session began)")
            && emptied.text.contains("no longer applies")
            && !emptied.text.contains("English"),
        "{}",
        emptied.text
    );
    assert_eq!(compose(&session_start("s1", "resume"), 7).text, "");
    std::fs::write(&user_anchor, "# Me\n\nReply in American English.\n").unwrap();
    let again = compose(&session_start("s1", "resume"), 7);
    assert!(again.text.contains("American English"), "{}", again.text);

    // A compaction empties the context: everything again, as at a start.
    let compacted = compose(&session_start("s1", "compact"), 8);
    for part in ["American English", "The API is in api/", "Memory map"] {
        assert!(compacted.text.contains(part), "{part}: {}", compacted.text);
    }
    assert!(
        !compacted.text.contains("changed since"),
        "{}",
        compacted.text
    );
    // A session resumed that the ledger never started (connected since): the whole block.
    let unknown = compose(&session_start("s2", "resume"), 9);
    for part in ["American English", "The API is in api/", "Memory map"] {
        assert!(unknown.text.contains(part), "{part}: {}", unknown.text);
    }
    // A new session in the same home is a new context.
    let other = compose(&session_start("s3", "startup"), 10);
    assert!(other.text.contains("Memory map"), "{}", other.text);
}

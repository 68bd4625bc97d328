//! An agent's turn through the workspace when the ledger misbehaves: held by another process,
//! or damaged in the middle. The turn still gets its memory; what it costs is said in a note.

use super::*;

use ambry_rank::rank::Gate;

fn home_with_a_memory(tmp: &Path) -> (Arc<Workspace>, ambry_core::Place) {
    let ws = workspace(&tmp.join("home"), &tmp.join("no-models"));
    let store = ws.place_of(None).unwrap();
    ws.save(
        &store,
        Scope::User,
        draft(
            "pool-size",
            "Database pool size",
            "The database pool size is 20; raise it in config/db.toml.",
        ),
        at(1),
    )
    .unwrap();
    (ws, store)
}

/// A ledger whose write lock another process holds: the turn gets its memory at once, with a
/// note that it was not tracked — it used to wait 15 s and then give nothing.
#[test]
fn a_turn_with_a_held_ledger_gets_its_memory_and_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, store) = home_with_a_memory(tmp.path());
    ws.compose_context(&store, &turn("s0", "hello"), Gate::CALIBRATED, at(2))
        .unwrap();
    let holder = rusqlite::Connection::open(ws.home().root().join("ledger.sqlite")).unwrap();
    holder
        .execute_batch("BEGIN EXCLUSIVE; DELETE FROM contexts WHERE 0;")
        .unwrap();
    let composed = ws
        .compose_context(
            &store,
            &turn("s1", "what is the database pool size"),
            Gate::CALIBRATED,
            at(3),
        )
        .unwrap();
    assert!(
        composed.text.contains("pool size is 20"),
        "{}",
        composed.text
    );
    assert!(
        composed
            .notes
            .iter()
            .any(|n| n.contains("is busy") && n.contains("skipped for this turn")),
        "{:?}",
        composed.notes
    );
    holder.execute_batch("ROLLBACK").unwrap();
}

/// A ledger damaged in the middle is set aside on the turn that finds it: the next turn knows
/// what this one gave and does not give it again.
#[test]
fn after_a_damaged_ledger_the_next_turn_does_not_repeat_the_last() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, store) = home_with_a_memory(tmp.path());
    for i in 0..300 {
        let session = format!("old-{i}");
        ws.compose_context(
            &store,
            &turn(&session, "database pool size"),
            Gate::CALIBRATED,
            at(2),
        )
        .unwrap();
    }
    let path = ws.home().root().join("ledger.sqlite");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .unwrap();
    }
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 8 * 4096, "{}", bytes.len());
    for b in &mut bytes[4096..] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();

    let prompt = "what is the database pool size";
    let first = ws
        .compose_context(&store, &turn("s1", prompt), Gate::CALIBRATED, at(3))
        .unwrap();
    assert!(first.text.contains("pool size is 20"), "{}", first.text);
    let second = ws
        .compose_context(&store, &turn("s1", prompt), Gate::CALIBRATED, at(4))
        .unwrap();
    assert!(second.text.is_empty(), "given again: {}", second.text);
    assert!(ws.home().root().join("ledger.sqlite.corrupt-1").exists());
}

/// Hooks composing in their own processes (no service up yet: parallel sessions or subagents
/// starting at once) load the model one at a time per home: while one holds the home's hook
/// model lock, the others rank with words and say why; once it is gone, the next may load.
/// Each used to load ONNX Runtime itself (~250 MB and seconds of CPU each; 200 at once ran the
/// machine out of memory).
#[test]
fn one_hook_process_per_home_loads_the_model_and_the_others_rank_with_words() {
    use ambry_store::config::Strategy;
    let models = support::model_paths();
    let models_dir = models.model_dir().parent().unwrap().to_path_buf();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let hook = || {
        let ws = Workspace::with_models(AmbryHome::new(&home), &models_dir);
        ws.load_the_model_only_when_alone();
        ws
    };
    let first = hook();
    let store = first.place_of(None).unwrap();
    first
        .save(
            &store,
            Scope::User,
            draft("pool-size", "Database pool size", "The pool size is 20."),
            at(1),
        )
        .unwrap();
    let second = hook();
    let prompt = "what is the database pool size";

    let loaded = first
        .compose_context(&store, &turn("s1", prompt), Gate::CALIBRATED, at(2))
        .unwrap();
    assert_eq!(
        loaded.strategy,
        Strategy::Semantic,
        "{:?}",
        loaded.conditions
    );
    let words = second
        .compose_context(&store, &turn("s2", prompt), Gate::CALIBRATED, at(3))
        .unwrap();
    assert_eq!(words.strategy, Strategy::Bm25);
    assert!(
        words
            .conditions
            .iter()
            .any(|c| c.contains("another process of this home is loading the embedding model")),
        "{:?}",
        words.conditions
    );
    assert!(
        words.text.contains("pool size is 20"),
        "words still find it: {}",
        words.text
    );

    // A person's command is not a hook: it loads the model whatever hooks do.
    let person = Workspace::with_models(AmbryHome::new(&home), &models_dir);
    let theirs = person
        .compose_context(&store, &turn("s3", prompt), Gate::CALIBRATED, at(4))
        .unwrap();
    assert_eq!(theirs.strategy, Strategy::Semantic);

    drop(first);
    let next = second
        .compose_context(&store, &turn("s4", prompt), Gate::CALIBRATED, at(5))
        .unwrap();
    assert_eq!(
        next.strategy,
        Strategy::Semantic,
        "the lock is free again: {:?}",
        next.conditions
    );
}

/// Two memories the review lists as a conflict never reach a context as two silent
/// contradictions: given in one turn, each says it disagrees with the other and on what; given
/// after the other was given earlier in the context, it names that one.
#[test]
fn a_known_conflict_goes_in_marked_on_both_sides() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.place_of(None).unwrap();
    let port = |name: &str, port: u32, second: u32| {
        ws.save(
            &store,
            Scope::User,
            draft(
                name,
                "Port of the Phoenix dev server",
                &format!("The Phoenix dev server (mix phx.server) listens on port {port}."),
            ),
            at(second),
        )
        .unwrap();
    };
    port("dev-server-port", 8080, 1);
    port("phoenix-port", 3000, 2);
    let review = ws.review(&store, at(3)).unwrap();
    assert!(
        review
            .iter()
            .any(|f| matches!(f, ambry_lifecycle::lifecycle::Finding::Conflict { .. })),
        "the review knows the conflict: {review:#?}"
    );

    let prompt = "which port does the phoenix dev server listen on";
    let both = ws
        .compose_context(&store, &turn("s1", prompt), Gate::CALIBRATED, at(4))
        .unwrap();
    assert_eq!(both.selected.len(), 2, "{}", both.text);
    assert_eq!(both.disagreements.len(), 2, "{:?}", both.disagreements);
    assert_eq!(
        both.text.matches("> Known disagreement").count(),
        2,
        "{}",
        both.text
    );
    assert!(
        both.text
            .contains("`phoenix-port` (user) says otherwise (8080 here, 3000 there)"),
        "{}",
        both.text
    );
    assert!(
        both.text
            .contains("`dev-server-port` (user) says otherwise (3000 here, 8080 there)"),
        "{}",
        both.text
    );

    // One given earlier: the other, given later in the same context, names it.
    ws.save(
        &store,
        Scope::User,
        draft(
            "phoenix-port",
            "Port of the Phoenix dev server",
            "The Phoenix dev server (mix phx.server) listens on port 4000 now.",
        ),
        at(5),
    )
    .unwrap();
    let later = ws
        .compose_context(&store, &turn("s1", prompt), Gate::CALIBRATED, at(6))
        .unwrap();
    assert_eq!(later.selected.len(), 1, "{}", later.text);
    assert!(later.text.contains("`dev-server-port` (user), given earlier in this conversation, says otherwise (4000 here, 8080 there)"), "{}", later.text);

    // Kept as they are by the person: quiet in the inbox, and given unmarked.
    ws.review_keep(&store, Scope::User, "dev-server-port", at(7))
        .unwrap();
    ws.review_keep(&store, Scope::User, "phoenix-port", at(7))
        .unwrap();
    let kept = ws
        .compose_context(&store, &turn("s2", prompt), Gate::CALIBRATED, at(8))
        .unwrap();
    assert_eq!(kept.selected.len(), 2, "{}", kept.text);
    assert!(
        kept.disagreements.is_empty() && !kept.text.contains("Known disagreement"),
        "{}",
        kept.text
    );
}

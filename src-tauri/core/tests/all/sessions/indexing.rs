//! Indexing real transcript files: every line of the real samples, tool lines, every kind of
//! file change, vaulted files that come back, bad bytes, unreadable files, concurrent indexers
//! and sources limited or switched off.

use super::*;

#[test]
fn every_line_of_the_real_samples_is_indexed_or_deliberately_skipped() {
    let env = Env::new();
    let project = env.claude().join("-home-marco-projects-spotter");
    for name in ["short.jsonl", "tool_heavy.jsonl"] {
        write(
            &project.join(name),
            &fs::read_to_string(samples().join("claude-code").join(name)).unwrap(),
        );
    }
    for name in ["fixture-turn-1.jsonl", "fixture-turn-2.jsonl"] {
        let text = fs::read_to_string(samples().join("codex").join(name)).unwrap();
        write(
            &env.codex()
                .join("2026/05/12")
                .join(format!("rollout-2026-05-12T10-00-00-{name}")),
            &text,
        );
    }
    let s = env.index(&SessionsConfig::default());
    eprintln!("{s:#?}");
    assert_eq!(s.files, 4);
    assert_eq!(s.lines, 15 + 39 + 13 + 25);
    assert_eq!(s.malformed_lines, 0);
    let skipped: u64 = s.lines_skipped.values().sum();
    // short: 1 user prompt + 1 assistant text; tool_heavy: 2 user prompts, the `/mcp` the
    // person typed (kept as typed from its command echo) + 1 assistant text; codex: one user
    // and one assistant message per turn (1 + 2 turns).
    let indexed_lines = 2 + 4 + 2 + 4;
    assert_eq!(s.messages_indexed, indexed_lines);
    assert_eq!(
        skipped + indexed_lines,
        s.lines,
        "every line is accounted for: {:?}",
        s.lines_skipped
    );
    let k = |kind: &str| s.lines_skipped.get(kind).copied().unwrap_or(0);
    assert_eq!(k("progress"), 3 + 10);
    assert_eq!(k("file-history-snapshot"), 1 + 3);
    assert_eq!(k("system"), 2 + 2);
    assert_eq!(k("queue-operation"), 2);
    assert_eq!(k("tool_use"), 2 + 6);
    assert_eq!(k("tool_result"), 2 + 6);
    assert_eq!(k("thinking"), 1 + 1);
    assert_eq!(
        k("boilerplate"),
        1 + 1 + 2 + 3,
        "interruptions, command output, environment context"
    );
    assert_eq!(
        k("event_msg:token_count") + k("event_msg:task_started") + k("event_msg:task_complete"),
        6 + 3 + 3
    );
    assert_eq!(k("meta"), 1);
    assert_eq!(k("empty"), 1 + 1, "the blank \\n\\n assistant text");
    assert_eq!(k("session_meta"), 2);
    assert_eq!(k("turn_context"), 3);
    assert_eq!(k("developer"), 3);
    assert_eq!(k("reasoning"), 3);
    assert_eq!(k("event_msg:user_message"), 3);
    assert_eq!(k("event_msg:agent_message"), 3);

    let index = env.open();
    let sessions = index.sessions(None, 10).unwrap();
    assert_eq!(sessions.len(), 4);
    let short = sessions
        .iter()
        .find(|m| m.session_id == "55604662-cf2a-4331-851a-ec234028f8ca")
        .unwrap();
    assert_eq!(
        short.title.as_deref(),
        Some("mix phx.server doesnt seem to start")
    );
    assert_eq!(short.cwd.as_deref(), Some("/home/marco/projects/spotter"));
    assert_eq!(short.model.as_deref(), Some("claude-opus-4-6"));
    assert_eq!(short.first_ts.as_deref(), Some("2026-02-10T21:11:52.438Z"));
    let codex = sessions
        .iter()
        .find(|m| m.source == SourceKind::Codex && m.messages == 4)
        .unwrap();
    assert_eq!(
        codex.title.as_deref(),
        Some("Hello, Codex! Please explain what you do.")
    );
    assert_eq!(codex.model.as_deref(), Some("o4-mini"));
    assert_eq!(codex.cwd.as_deref(), Some("/home/user/project"));

    let hits = env.recall("phoenix");
    assert!(
        hits.iter()
            .any(|h| h.session_id == "d6e0bada-1959-4eec-a9d2-0bfade768d8f"),
        "{hits:#?}"
    );
    assert!(
        env.recall("environment_context").is_empty(),
        "injected context is not indexed"
    );
    assert!(env.recall("\"Request interrupted\"").is_empty());
}

#[test]
fn tool_lines_are_indexed_when_switched_on_and_a_setting_change_reindexes() {
    let env = Env::new();
    let path = env.claude().join("-p").join("tool_heavy.jsonl");
    write(
        &path,
        &fs::read_to_string(samples().join("claude-code/tool_heavy.jsonl")).unwrap(),
    );
    env.index(&SessionsConfig::default());
    assert_eq!(count(&env.open(), "JSONSerializer"), 0);
    let with_tools = SessionsConfig {
        include_tools: true,
        ..Default::default()
    };
    let s = env.index(&with_tools);
    assert_eq!(s.files_reindexed_whole, 1);
    let hits = env
        .open()
        .recall(&RecallQuery::new("JSONSerializer"))
        .unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h.role == "tool"));
}

#[test]
fn incremental_indexing_follows_every_kind_of_file_change() {
    let env = Env::new();
    let cfg = SessionsConfig::default();
    let path = env.ambry().join("s1.jsonl");
    write(
        &path,
        &format!(
            "{{\"session\":{{\"id\":\"s1\",\"title\":\"Ledger work\",\"cwd\":\"/w/ledger\"}}}}\n{}",
            line("user", "alpha kiwi")
        ),
    );
    let s = env.index(&cfg);
    assert_eq!((s.files_indexed, s.messages_indexed), (1, 1));

    // Unchanged: nothing read.
    let s = env.index(&cfg);
    assert_eq!((s.files_indexed, s.bytes_read), (0, 0));

    // Append: only the new bytes.
    let appended = line("assistant", "bravo mango");
    append(&path, &appended);
    let s = env.index(&cfg);
    assert_eq!(
        (s.messages_indexed, s.bytes_read),
        (1, appended.len() as u64)
    );
    assert_eq!(
        count(&env.open(), "kiwi"),
        1,
        "old messages are not duplicated"
    );
    assert_eq!(env.fts_rows("kiwi"), 1);

    // A torn last line waits for its newline.
    let torn = line("user", "charlie papaya");
    let (first, rest) = torn.split_at(20);
    append(&path, first);
    let s = env.index(&cfg);
    assert_eq!(s.messages_indexed, 0);
    assert_eq!(s.malformed_lines, 0);
    append(&path, rest);
    let s = env.index(&cfg);
    assert_eq!(s.messages_indexed, 1);
    assert_eq!(count(&env.open(), "papaya"), 1);

    // Malformed lines are counted and skipped; the next good line is still read.
    append(
        &path,
        &format!("{{not json\n[1,2]\n{}", line("user", "delta quince")),
    );
    let s = env.index(&cfg);
    assert_eq!((s.malformed_lines, s.messages_indexed), (2, 1));

    // Truncated: read again from the start; what was indexed from it before is kept in the
    // vault (the index may hold its only copy), not lost.
    write(&path, &line("user", "echo lemon"));
    let s = env.index(&cfg);
    assert_eq!(s.files_reindexed_whole, 1);
    assert_eq!(count(&env.open(), "kiwi"), 1, "kept from before the cut");
    assert_eq!(count(&env.open(), "lemon"), 1);
    assert_eq!(env.fts_rows("kiwi"), 1);
    let vaulted = env.open().vaulted().unwrap();
    assert_eq!(vaulted.len(), 1, "{vaulted:?}");
    assert!(vaulted[0].path.to_string_lossy().contains("#truncated-"));
    assert_eq!(
        env.index(&cfg).files_indexed,
        0,
        "the kept copy is not looked for on disk again"
    );
    // Pruned like any vaulted session (the rest of this test follows the one file).
    let pruned = env.open().prune_source_removed(None, NOW, false).unwrap();
    assert_eq!(pruned.removed.len(), 1);

    // Replaced by a longer file with a different start (same size class, new content).
    let replacement = format!(
        "{}{}",
        line("user", "foxtrot grape"),
        line("assistant", "golf melon and more words to be longer")
    );
    let tmp = env.ambry().join("s1.jsonl.tmp");
    fs::write(&tmp, &replacement).unwrap();
    fs::rename(&tmp, &path).unwrap();
    let s = env.index(&cfg);
    assert_eq!(s.files_reindexed_whole, 1);
    assert_eq!(count(&env.open(), "lemon"), 0);
    assert_eq!(count(&env.open(), "grape"), 1);

    // Rewritten in place, longer, with a different head: also noticed.
    let mut f = OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all(line("user", "hotel guava").as_bytes()).unwrap();
    f.write_all(line("assistant", "india fig").repeat(3).as_bytes())
        .unwrap();
    drop(f);
    let s = env.index(&cfg);
    assert_eq!(s.files_reindexed_whole, 1);
    assert_eq!(count(&env.open(), "grape"), 0);
    assert_eq!(count(&env.open(), "guava"), 1);
    assert_eq!(
        env.fts_rows("grape"),
        0,
        "the full-text entries went with the messages"
    );

    // Deleted: the vault keeps it searchable, marked with when its source disappeared.
    fs::remove_file(&path).unwrap();
    let s = env.index(&cfg);
    assert_eq!(s.files_removed, 1);
    assert_eq!(s.sessions, 1);
    assert_eq!(count(&env.open(), "guava"), 1);
    let vaulted = env.open().vaulted().unwrap();
    assert_eq!(vaulted.len(), 1);
    assert_eq!(vaulted[0].path, path);
    let marked_at = vaulted[0].source_removed_at;
    assert_eq!(marked_at, NOW, "dated by the caller's clock");
    assert_eq!(
        env.index_at(&cfg, NOW + 3_600).files_removed,
        0,
        "marked once, not again on every pass"
    );
    assert_eq!(
        env.open().vaulted().unwrap()[0].source_removed_at,
        NOW,
        "a later pass keeps the first date"
    );

    // Prune by age: too recent to go; then all of them.
    let mut index = env.open();
    let kept = index
        .prune_source_removed(Some(30), marked_at + 86_400, false)
        .unwrap();
    assert!(kept.removed.is_empty());
    let dry = index.prune_source_removed(None, marked_at, true).unwrap();
    assert_eq!(dry.removed.len(), 1);
    assert_eq!(count(&env.open(), "guava"), 1, "a dry run removes nothing");
    let pruned = index
        .prune_source_removed(Some(30), marked_at + 31 * 86_400, false)
        .unwrap();
    assert_eq!(pruned.removed.len(), 1);
    assert_eq!(count(&env.open(), "guava"), 0);
    assert_eq!(
        env.fts_rows("guava"),
        0,
        "the full-text entries went with the messages"
    );
}

#[test]
fn a_catch_up_skips_unchanged_files_and_reads_one_rewritten_to_the_same_size() {
    let env = Env::new();
    let cfg = SessionsConfig::default();
    let header = "{\"session\":{\"id\":\"s1\",\"title\":\"Same size\",\"cwd\":\"/w\"}}\n";
    let path = env.ambry().join("s1.jsonl");
    let other = env.ambry().join("s2.jsonl");
    write(&path, &format!("{header}{}", line("user", "alpha kiwi")));
    write(
        &other,
        &format!("{header}{}", line("user", "delta lime")).replace("s1", "s2"),
    );
    let s = env.index(&cfg);
    assert_eq!((s.files_indexed, s.messages_indexed), (2, 2));
    let s = env.index(&cfg);
    assert_eq!((s.files_indexed, s.bytes_read), (0, 0), "nothing changed");

    // Same length, same inode, other words, a later mtime: read again from the start.
    let file = OpenOptions::new().write(true).open(&path).unwrap();
    let before = file.metadata().unwrap().modified().unwrap();
    (&file)
        .write_all(format!("{header}{}", line("user", "omega pear")).as_bytes())
        .unwrap();
    file.set_modified(before + Duration::from_secs(5)).unwrap();
    drop(file);
    let s = env.index(&cfg);
    assert_eq!(s.files_indexed, 1, "only the rewritten file: {s:?}");
    assert_eq!(count(&env.open(), "omega"), 1);
    assert_eq!(count(&env.open(), "delta"), 1, "the unchanged file is kept");

    // The tool setting changed: every file is read again, unchanged or not.
    let with_tools = SessionsConfig {
        include_tools: !cfg.include_tools,
        ..SessionsConfig::default()
    };
    assert_eq!(env.index(&with_tools).files_indexed, 2);
}

#[test]
fn a_vaulted_file_that_comes_back_is_read_again_and_unmarked() {
    let env = Env::new();
    let cfg = SessionsConfig::default();
    let path = env.ambry().join("back.jsonl");
    fs::create_dir_all(env.ambry()).unwrap();
    fs::write(&path, line("user", "quokka papaya")).unwrap();
    env.index(&cfg);
    fs::remove_file(&path).unwrap();
    env.index(&cfg);
    assert_eq!(env.open().vaulted().unwrap().len(), 1);
    fs::write(
        &path,
        format!(
            "{}{}",
            line("user", "wombat kiwi"),
            line("assistant", "numbat lime")
        ),
    )
    .unwrap();
    env.index(&cfg);
    assert!(env.open().vaulted().unwrap().is_empty());
    assert_eq!(count(&env.open(), "kiwi"), 1);
    assert_eq!(
        count(&env.open(), "papaya"),
        0,
        "a replaced file is read again whole"
    );
}

#[test]
fn bad_bytes_cost_only_their_line_wherever_they_are() {
    let env = Env::new();
    write(&env.ambry().join("good.jsonl"), &line("user", "juliet"));
    // Invalid UTF-8 in the very first line (kept, that character lost), a NUL (a line that is not
    // JSON), then valid lines: the file is a transcript.
    let mut mixed =
        b"{\"ts\":\"2026-06-01T10:00:00Z\",\"role\":\"user\",\"text\":\"caf\xe9\"}\n".to_vec();
    mixed.extend_from_slice(b"{\"role\":\"user\",\"text\":\"nul\0here\"}\n");
    mixed.extend_from_slice(line("user", "kilo").as_bytes());
    mixed.extend_from_slice(line("assistant", "lima").as_bytes());
    fs::write(env.ambry().join("mixed.jsonl"), &mixed).unwrap();
    let mut bin = vec![0u8, 159, 146, 150, 0, 1, 2];
    bin.extend(std::iter::repeat_n(0xffu8, 5000));
    fs::write(env.ambry().join("blob.jsonl"), &bin).unwrap();
    fs::write(
        env.ambry().join("noise.jsonl"),
        "lorem ipsum\nnot json at all\n\n",
    )
    .unwrap();
    let s = env.index(&SessionsConfig::default());
    assert_eq!(s.messages_indexed, 4, "juliet, caf\u{fffd}, kilo and lima");
    assert_eq!(s.malformed_lines, 3);
    assert_eq!(count(&env.open(), "kilo"), 1);
    let mut named: Vec<(String, u64)> = s
        .problems
        .iter()
        .map(|p| {
            (
                p.path.file_name().unwrap().to_string_lossy().into_owned(),
                p.malformed_lines,
            )
        })
        .collect();
    named.sort();
    assert_eq!(
        named,
        vec![
            ("mixed.jsonl".to_string(), 1),
            ("noise.jsonl".to_string(), 2)
        ]
    );
    let s = env.index(&SessionsConfig::default());
    assert_eq!(
        (s.files_indexed, s.malformed_lines),
        (0, 0),
        "unchanged files are not re-read"
    );
    // doctor names the files with skipped lines.
    let checks = ambry_sessions::sessions::session_checks(&env.home.index_db());
    let warning = checks
        .iter()
        .map(|c| c.detail.clone())
        .find(|d| d.contains("malformed"))
        .expect("a doctor warning");
    assert!(
        warning.contains("mixed.jsonl") && warning.contains("noise.jsonl"),
        "{warning}"
    );
}

#[test]
fn an_unreadable_transcript_is_reported_and_the_rest_indexed() {
    let env = Env::new();
    write(&env.ambry().join("a.jsonl"), &line("user", "mike"));
    // A symlink to itself cannot be opened by anyone, root included (mode 000 would not stop root).
    let unreadable = env.ambry().join("b.jsonl");
    std::os::unix::fs::symlink(&unreadable, &unreadable).unwrap();
    let s = env.index(&SessionsConfig::default());
    assert_eq!(s.messages_indexed, 1);
    assert_eq!(count(&env.open(), "mike"), 1);
    assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
    assert_eq!(s.problems[0].path, unreadable);
    assert!(
        s.problems[0]
            .error
            .as_deref()
            .unwrap()
            .contains("symbolic links"),
        "{:?}",
        s.problems
    );
    fs::remove_file(&unreadable).unwrap();
    write(&unreadable, &line("user", "november"));
    let s = env.index(&SessionsConfig::default());
    assert_eq!(
        (s.messages_indexed, s.problems.len()),
        (1, 0),
        "readable now: indexed on the next run"
    );
}

#[test]
fn concurrent_indexers_never_store_a_message_twice() {
    let env = Env::new();
    for f in 0..40 {
        let text: String = (0..200)
            .map(|m| line("user", &format!("s{f} m{m} quebec")))
            .collect();
        write(&env.ambry().join(format!("s{f}.jsonl")), &text);
    }
    let (db, roots) = (env.home.index_db(), env.roots.clone());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (db, roots) = (db.clone(), roots.clone());
            std::thread::spawn(move || {
                let mut index = SessionIndex::open(&db).unwrap();
                index
                    .index(&roots, &SessionsConfig::default(), None, NOW, &mut |_| {})
                    .unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM session_messages", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 40 * 200);
    assert_eq!(env.fts_rows("quebec"), 40 * 200);
}

#[test]
fn sources_can_be_limited_and_switched_off() {
    let env = Env::new();
    env.fixture();
    let mut index = env.open();
    let mut seen = Vec::new();
    let s = index
        .index(
            &env.roots,
            &SessionsConfig::default(),
            Some(SourceKind::Codex),
            NOW,
            &mut |p| seen.push((p.source, p.done, p.total)),
        )
        .unwrap();
    assert!(s.files > 0);
    assert_eq!(seen.len() as u64, s.files, "progress once per file");
    assert!(seen
        .iter()
        .all(|(source, _, total)| *source == SourceKind::Codex && *total == s.files));
    assert_eq!(seen.last().map(|p| p.1), Some(s.files));
    assert!(index
        .sessions(None, 100)
        .unwrap()
        .iter()
        .all(|m| m.source == SourceKind::Codex));
    index
        .index(
            &env.roots,
            &SessionsConfig::default(),
            None,
            NOW,
            &mut |_| {},
        )
        .unwrap();
    let only_claude = SessionsConfig {
        sources: vec![SourceKind::Claude],
        ..Default::default()
    };
    let s = index
        .index(&env.roots, &only_claude, None, NOW, &mut |_| {})
        .unwrap();
    assert!(s.files_removed > 0);
    let all = index.sessions(None, 100).unwrap();
    assert!(!all.is_empty() && all.iter().all(|m| m.source == SourceKind::Claude));
}

//! Transcript lines at the edges: a bad byte inside a string, a last line without its newline,
//! a folder that cannot be read. What can be read is kept; nothing is dropped silently.

use ambry_core::AmbryHome;
use ambry_sessions::sessions::{RecallQuery, SessionIndex, SessionsConfig, SourceRoots};

fn line(role: &str, text: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": role, "text": text})
    )
}

#[test]
fn a_bad_byte_costs_one_character_and_a_last_line_without_newline_is_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path().join("ambry"));
    let roots = SourceRoots::resolve(&home, None, None, None);
    std::fs::create_dir_all(&roots.ambry).unwrap();
    let path = roots.ambry.join("s1.jsonl");
    let mut bytes = line("user", "the lagoon caf\u{e9} outage").into_bytes();
    // `é` is C3 A9: the lead byte alone is one bad sequence inside the string.
    let at = bytes.windows(2).position(|w| w == [0xC3, 0xA9]).unwrap();
    bytes.remove(at + 1);
    let last = line("assistant", "the marmot fix shipped");
    bytes.extend_from_slice(last.trim_end().as_bytes());
    std::fs::write(&path, &bytes).unwrap();

    let mut index = SessionIndex::open(&home.index_db()).unwrap();
    let s = index
        .index(
            &roots,
            &SessionsConfig::default(),
            None,
            1_780_000_000,
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(s.malformed_lines, 0, "{s:?}");
    assert_eq!(s.messages_indexed, 2, "{s:?}");
    for word in ["lagoon", "marmot"] {
        assert_eq!(
            index.recall(&RecallQuery::new(word)).unwrap().len(),
            1,
            "{word}"
        );
    }
    let sessions = index.sessions(None, 10).unwrap();
    assert_eq!(
        sessions[0].title.as_deref(),
        Some("the lagoon caf\u{fffd} outage"),
        "titled from the kept line"
    );

    // The newline written later reads as a blank line: nothing twice.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut f, b"\n").unwrap();
    let s = index
        .index(
            &roots,
            &SessionsConfig::default(),
            None,
            1_780_000_000,
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(s.messages_indexed, 0, "{s:?}");
    assert_eq!(index.recall(&RecallQuery::new("marmot")).unwrap().len(), 1);
}

/// A folder of transcripts that cannot be read is reported, and what the index holds from it
/// stays as it was (not marked gone). A link to itself stands for an unreadable folder: no
/// one can list it, root included (mode 000 would not stop root).
#[test]
fn a_folder_that_cannot_be_read_is_reported_and_its_sessions_are_not_marked_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let home = AmbryHome::new(tmp.path().join("ambry"));
    let roots = SourceRoots::resolve(&home, None, None, None);
    std::fs::create_dir_all(&roots.ambry).unwrap();
    std::fs::write(
        roots.ambry.join("s1.jsonl"),
        line("user", "the osprey migration"),
    )
    .unwrap();
    let mut index = SessionIndex::open(&home.index_db()).unwrap();
    let cfg = SessionsConfig::default();
    index
        .index(&roots, &cfg, None, 1_780_000_000, &mut |_| {})
        .unwrap();

    std::fs::rename(&roots.ambry, tmp.path().join("moved")).unwrap();
    std::os::unix::fs::symlink(&roots.ambry, &roots.ambry).unwrap();
    let s = index
        .index(&roots, &cfg, None, 1_780_000_100, &mut |_| {})
        .unwrap();
    assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
    assert_eq!(s.problems[0].path, roots.ambry);
    assert!(
        s.problems[0]
            .error
            .as_deref()
            .unwrap()
            .contains("cannot be read"),
        "{:?}",
        s.problems
    );
    assert_eq!(s.files_removed, 0, "not seen is not gone");
    assert!(index.vaulted().unwrap().is_empty());
    assert_eq!(index.recall(&RecallQuery::new("osprey")).unwrap().len(), 1);
}

//! The store's refusals and repairs on a real temp directory: things other programs (or a killed
//! writer) leave in a scope, and what the next operation does about them.

use std::fs;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::*;

fn now() -> DateTime<Utc> {
    "2026-06-01T10:00:00Z".parse().unwrap()
}

fn store() -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(AmbryHome::new(tmp.path().join("home")), None);
    (tmp, store)
}

fn draft(name: &str, body: &str) -> MemoryDraft {
    MemoryDraft {
        name: name.into(),
        kind: "user".into(),
        description: format!("about {name}"),
        body: body.into(),
        tags: vec![],
    }
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Runs `f` on another thread and fails the test if it has not returned within 5 s.
fn within_5s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(5))
        .expect("the call blocked")
}

#[test]
fn a_fifo_named_like_a_memory_never_blocks() {
    let (tmp, store) = store();
    store.save(Scope::User, draft("ok", "fine"), now()).unwrap();
    mkfifo(&store.dir(Scope::User).unwrap().join("x.md"));
    let home = tmp.path().join("home");
    let (list, get, save, forget) = within_5s(move || {
        let store = Store::new(AmbryHome::new(home), None);
        (
            store.list(ScopeFilter::User).unwrap(),
            store.get(Some(Scope::User), "x").unwrap_err(),
            store
                .save(Scope::User, draft("x", "new"), now())
                .unwrap_err(),
            store.forget(Scope::User, "x", now()).unwrap_err(),
        )
    });
    let x = list
        .iter()
        .find(|f| f.name == "x")
        .expect("the FIFO is listed with its error");
    assert!(
        x.parsed
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("named pipe"),
        "{:?}",
        x.parsed
    );
    // The advice given works: forgetting it is refused (it cannot be archived), moving it is not.
    let advice = get.to_string();
    assert!(
        advice.contains("mv ") && !advice.contains("forget"),
        "{advice}"
    );
    for err in [get, save, forget] {
        assert!(err.to_string().contains("named pipe"), "{err}");
    }
    // Other memories of the scope still save.
    store
        .save(Scope::User, draft("other", "text"), now())
        .unwrap();
}

#[test]
fn a_directory_named_like_a_memory_is_listed_and_got_with_the_same_reason() {
    let (_tmp, store) = store();
    store.save(Scope::User, draft("ok", "fine"), now()).unwrap();
    fs::create_dir(store.dir(Scope::User).unwrap().join("x.md")).unwrap();
    let listed = store.list(ScopeFilter::User).unwrap();
    let reason = listed
        .iter()
        .find(|f| f.name == "x")
        .unwrap()
        .parsed
        .clone()
        .unwrap_err()
        .to_string();
    assert!(reason.contains("a directory"), "{reason}");
    assert!(store
        .get(None, "x")
        .unwrap_err()
        .to_string()
        .contains("a directory"));
}

#[test]
fn a_symlink_to_an_endless_file_is_refused_within_a_bound() {
    let (_tmp, store) = store();
    store.save(Scope::User, draft("ok", "fine"), now()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", store.dir(Scope::User).unwrap().join("z.md")).unwrap();
    let err = store.get(Some(Scope::User), "z").unwrap_err().to_string();
    assert!(err.contains("is a link to /dev/zero"), "{err}");
    fs::write(
        store.dir(Scope::User).unwrap().join("huge.md"),
        vec![b'a'; (crate::memory::validate::MEMORY_FILE_MAX + 1) as usize],
    )
    .unwrap();
    let err = store
        .get(Some(Scope::User), "huge")
        .unwrap_err()
        .to_string();
    assert!(err.contains("limit"), "{err}");
}

/// A memory file that is a symbolic link is reported as one, as the anchors are: listed with
/// where it points, never read (so never injected or indexed), and neither forgotten nor merged
/// through (a merge copied what it pointed to and deleted the link: the lifecycle's tests check
/// the merge).
#[test]
fn a_memory_that_is_a_link_is_listed_as_one_and_never_read_or_forgotten_through() {
    let (tmp, store) = store();
    store.save(Scope::User, draft("ok", "fine"), now()).unwrap();
    let outside = tmp.path().join("elsewhere.md");
    let text = "---\nname: linked\ntype: user\ndescription: d\n---\nfrom outside the store\n";
    fs::write(&outside, text).unwrap();
    let dir = store.dir(Scope::User).unwrap();
    let link = dir.join("linked.md");
    std::os::unix::fs::symlink(&outside, &link).unwrap();

    let listed = store.list(ScopeFilter::User).unwrap();
    let entry = listed.iter().find(|f| f.name == "linked").expect("listed");
    let reason = entry.parsed.clone().unwrap_err().to_string();
    assert!(
        reason.contains(&format!("is a link to {}", outside.display())),
        "{reason}"
    );
    assert!(
        matches!(
            read_memory_file(Scope::User, &link),
            Err(crate::memory::NotAMemory::Unreadable(_))
        ),
        "never read"
    );
    let err = store.get(None, "linked").unwrap_err().to_string();
    assert!(err.contains("is a link to"), "{err}");
    store.reindex_scope(Scope::User).unwrap();
    let index = store.index_text(Scope::User).unwrap().unwrap();
    assert!(!index.contains("linked"), "{index}");

    let forgot = store.forget(Scope::User, "linked", now());
    assert!(forgot.unwrap_err().to_string().contains("is a link to"));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&outside).unwrap(), text);
    assert!(store
        .versions(Scope::User, Some("linked"))
        .unwrap()
        .is_empty());
}

#[test]
fn restoring_a_version_that_does_not_parse_is_refused_before_writing() {
    let (_tmp, store) = store();
    store.save(Scope::User, draft("a", "one"), now()).unwrap();
    store.save(Scope::User, draft("a", "two"), now()).unwrap();
    let version = store.versions(Scope::User, Some("a")).unwrap().remove(0);
    fs::write(&version.path, "---\nname: a\ntype: user\n").unwrap();
    let before = fs::read(store.dir(Scope::User).unwrap().join("a.md")).unwrap();
    let err = store
        .restore(Scope::User, "a", &version.version, now())
        .unwrap_err();
    assert!(
        matches!(err, StoreError::UnparseableVersion { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("nothing was restored"), "{err}");
    assert_eq!(
        fs::read(store.dir(Scope::User).unwrap().join("a.md")).unwrap(),
        before
    );
    assert_eq!(
        store.versions(Scope::User, Some("a")).unwrap().len(),
        1,
        "nothing archived either"
    );
}

#[test]
fn the_next_locked_operation_repairs_what_a_killed_writer_left() {
    let (_tmp, store) = store();
    store.save(Scope::User, draft("a", "one"), now()).unwrap();
    let dir = store.dir(Scope::User).unwrap();
    // Killed after its rename, before the index: `b.md` exists, MEMORY.md does not list it.
    fs::write(
        dir.join("b.md"),
        "---\nname: b\ntype: user\ndescription: about b\n---\nbody\n",
    )
    .unwrap();
    fs::write(dir.join(".tmp-c.md.0000000000000001"), "partial").unwrap();
    fs::create_dir_all(dir.join(".archive")).unwrap();
    fs::write(dir.join(".archive/.tmp-a.1.md.0000000000000002"), "partial").unwrap();
    assert_eq!(store.index_drift(Scope::User).unwrap().len(), 1);
    // An unchanged save (nothing to write) still repairs; temp files ten minutes old are stale.
    let set_old = |p: &Path| {
        let old = std::time::SystemTime::now() - Duration::from_secs(600);
        fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(old)
            .unwrap();
    };
    set_old(&dir.join(".tmp-c.md.0000000000000001"));
    set_old(&dir.join(".archive/.tmp-a.1.md.0000000000000002"));
    let outcome = store
        .save(Scope::User, draft("a", "one"), Utc::now())
        .unwrap();
    assert!(!outcome.changed);
    assert!(store.index_drift(Scope::User).unwrap().is_empty());
    assert!(!dir.join(".tmp-c.md.0000000000000001").exists());
    assert!(!dir.join(".archive/.tmp-a.1.md.0000000000000002").exists());
}

#[test]
fn an_identical_prior_copy_is_not_archived_twice() {
    let (_tmp, store) = store();
    store.save(Scope::User, draft("a", "one"), now()).unwrap();
    let dir = store.dir(Scope::User).unwrap();
    // A save that archived `one` and then failed, retried: the archive already holds these bytes.
    let current = fs::read(dir.join("a.md")).unwrap();
    fs::create_dir_all(dir.join(".archive")).unwrap();
    fs::write(
        dir.join(".archive").join(archive::version_file_name(
            "a",
            &archive::new_version_id(now()),
        )),
        &current,
    )
    .unwrap();
    store.save(Scope::User, draft("a", "two"), now()).unwrap();
    assert_eq!(store.versions(Scope::User, Some("a")).unwrap().len(), 1);
}

#[test]
fn a_file_that_is_not_a_valid_memory_of_its_name_is_never_overwritten() {
    let (_tmp, store) = store();
    let dir = store.dir(Scope::User).unwrap();
    fs::create_dir_all(&dir).unwrap();
    for (name, text) in [
        (
            "mismatch",
            "---\nname: other\ntype: user\ndescription: d\n---\nkeep me\n",
        ),
        ("truncated", "---\nname: truncated\ntype: us"),
    ] {
        fs::write(dir.join(format!("{name}.md")), text).unwrap();
        let err = store
            .save(Scope::User, draft(name, "new"), now())
            .unwrap_err();
        assert!(
            matches!(err, StoreError::UnparseableExisting { .. }),
            "{name}: {err}"
        );
        assert_eq!(
            fs::read_to_string(dir.join(format!("{name}.md"))).unwrap(),
            text
        );
        store.forget(Scope::User, name, now()).unwrap();
    }
}

#[test]
fn not_found_names_the_scopes_it_looked_in() {
    let (_tmp, store) = store();
    let err = store.get(None, "nope").unwrap_err().to_string();
    assert!(
        err.starts_with("no memory named `nope` in the user scope;"),
        "{err}"
    );
    assert!(store.versions(Scope::User, Some("../x")).is_err());
}

#[test]
fn descriptions_from_other_writers_reach_nobody_with_escapes() {
    let (_tmp, store) = store();
    let dir = store.dir(Scope::User).unwrap();
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("a.md"),
        "---\nname: a\ntype: user\ndescription: \"red \\e[31m\u{1b}[31malert\u{7}\"\n---\n",
    )
    .unwrap();
    let m = store.get(Some(Scope::User), "a").unwrap();
    assert!(
        !m.description.chars().any(char::is_control),
        "{:?}",
        m.description
    );
}

#[test]
fn a_held_scope_lock_times_out_with_a_message_naming_the_holder() {
    let (_tmp, store) = store();
    store.save(Scope::User, draft("a", "one"), now()).unwrap();
    let dir = store.dir(Scope::User).unwrap();
    let other = fs::File::options()
        .write(true)
        .open(dir.join(".lock"))
        .unwrap();
    other.lock().unwrap();
    fs::write(dir.join(".lock"), "pid 777\n").unwrap();
    let failure = match crate::storage::ScopeLock::acquire_within(&dir, Duration::from_millis(50)) {
        Err(f) => f,
        Ok(_) => panic!("taken while held"),
    };
    assert!(
        matches!(failure, crate::storage::LockFailure::TimedOut { holder: Some(ref h) } if h == "pid 777")
    );
}

/// A link in place of MEMORY.md: the memory is written, and the error says so, not "refused".
#[test]
fn a_symlinked_index_is_reported_as_not_updated_with_the_memory_saved() {
    use crate::error::ErrorCode;
    let (tmp, store) = store();
    store.save(Scope::User, draft("ok", "fine"), now()).unwrap();
    let dir = store.dir(Scope::User).unwrap();
    let outside = tmp.path().join("outside.md");
    fs::write(&outside, "keep").unwrap();
    fs::remove_file(dir.join("MEMORY.md")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("MEMORY.md")).unwrap();
    let err = store
        .save(Scope::User, draft("new", "text"), now())
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("saved ") && message.contains("MEMORY.md was not updated"),
        "{message}"
    );
    assert!(!message.starts_with("refused"), "{message}");
    assert_eq!(err.code(), "index_not_written");
    assert_eq!(
        store.get(Some(Scope::User), "new").unwrap().body.trim(),
        "text"
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
}

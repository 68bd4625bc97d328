//! What a clone or a careless hand can put where Ambry reads a project anchor, `USER.md` and
//! `config.toml`: a regular file of any bytes, a link inside or out of where it belongs, a link
//! to `/dev/zero`, a FIFO, a directory, an oversized file. Every read returns (no hang, no
//! panic), nothing from outside the repository or the home reaches an agent, nothing over the
//! bound is returned, and text handed to an agent holds no secret.
#![no_main]

use std::path::Path;

use ambry_store::anchors::{read_for_agent, ANCHOR_MAX};
use ambry_store::config::Config;
use libfuzzer_sys::fuzz_target;

/// Planted outside the repository and the home: it must never come back.
const OUTSIDE: &str = "OUTSIDE-MARKER planted beyond the root";

fn place(path: &Path, kind: u8, body: &[u8], outside: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match kind % 7 {
        0 => std::fs::write(path, body).unwrap(),
        1 => std::os::unix::fs::symlink(outside, path).unwrap(),
        2 => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        3 => {
            let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            unsafe { libc_mkfifo(c.as_ptr(), 0o600) };
        }
        4 => std::fs::create_dir(path).unwrap(),
        5 => {
            let inside = path.with_file_name("inside.txt");
            std::fs::write(&inside, body).unwrap();
            std::os::unix::fs::symlink(&inside, path).unwrap();
        }
        _ => {
            let big: Vec<u8> = body.iter().copied().cycle().take(ANCHOR_MAX as usize + 2).collect();
            std::fs::write(path, if big.is_empty() { vec![b'x'; ANCHOR_MAX as usize + 2] } else { big }).unwrap();
        }
    }
}

extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, body)) = data.split_first() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside.txt");
    std::fs::write(&outside, OUTSIDE).unwrap();
    let repo = tmp.path().join("repo");
    let home = tmp.path().join("home");
    let anchor = repo.join(".ambry/AMBRY.md");
    let user = home.join("USER.md");
    let config = home.join("config.toml");
    for path in [&anchor, &user, &config] {
        place(path, kind, body, &outside);
    }
    for path in [&anchor, &user] {
        if let Ok(Some(text)) = read_for_agent(path) {
            assert!(!text.contains("OUTSIDE-MARKER"), "{path:?} read from outside its root");
            assert!(text.len() as u64 <= ANCHOR_MAX, "{path:?} over the bound");
            assert!(ambry_store::memory::secrets::find_secret(&text).is_none());
        }
    }
    let _ = Config::load(&config);
});

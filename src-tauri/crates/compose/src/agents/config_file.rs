//! Reading and replacing another tool's configuration file safely.
//!
//! Owns: reading a file that may be absent, the backup of the prior bytes
//! (`<file>.ambry-backup-<UTC timestamp>`, never overwriting an older backup), and the atomic
//! replacement that keeps the file's permissions (`.claude.json` holds credentials and is
//! usually 0600).
//! Deliberately does not: decide what to write.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::AgentError;

/// The file's text, `None` when it does not exist.
pub fn read(path: &Path) -> Result<Option<String>, AgentError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| AgentError::Unparseable {
                path: path.display().to_string(),
                reason: "not UTF-8 text".into(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(AgentError::io("read", path, e)),
    }
}

/// Copies the current file beside itself; returns the backup's path.
pub fn backup(path: &Path, now: DateTime<Utc>) -> Result<PathBuf, AgentError> {
    let stamp = now.format("%Y%m%dT%H%M%SZ");
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut n = 0;
    loop {
        let suffix = if n == 0 {
            String::new()
        } else {
            format!("-{n}")
        };
        let candidate = path.with_file_name(format!("{name}.ambry-backup-{stamp}{suffix}"));
        let mode = fs::metadata(path)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or(0o600);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(mut file) => {
                let bytes = fs::read(path).map_err(|e| AgentError::io("read", path, e))?;
                file.set_permissions(fs::Permissions::from_mode(mode))
                    .map_err(|e| AgentError::io("back up", &candidate, e))?;
                file.write_all(&bytes)
                    .and_then(|_| file.sync_all())
                    .map_err(|e| AgentError::io("back up", &candidate, e))?;
                return Ok(candidate);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(AgentError::io("back up", &candidate, e)),
        }
    }
}

/// Replaces (or creates) `path` atomically with `text`. The temp file gets the existing
/// file's mode before any byte is written, so credentials are never briefly world-readable.
pub fn replace(path: &Path, text: &str) -> Result<(), AgentError> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| AgentError::io("create", dir, e))?;
    ambry_store::storage::refuse_symlink(path).map_err(|e| AgentError::io("write", path, e))?;
    let mode = fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0o644);
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(
        ".{file_name}.ambry-tmp-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&temp)?;
        file.set_permissions(fs::Permissions::from_mode(mode))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)?;
        fs::File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result.map_err(|e| AgentError::io("write", path, e))
}

/// The text of the newest `<file>.ambry-backup-*` beside `path` (by its UTC stamp), if any.
pub fn newest_backup(path: &Path) -> Option<String> {
    let dir = path.parent()?;
    let prefix = format!("{}.ambry-backup-", path.file_name()?.to_string_lossy());
    let newest = fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix))
        // Same-second backups get `-1`, `-2`…: order by stamp, then by that counter.
        .max_by_key(|n| {
            let rest = &n[prefix.len()..];
            let (stamp, count) = rest
                .split_once("Z-")
                .map_or((rest, 0), |(s, c)| (s, c.parse::<u32>().unwrap_or(0)));
            (stamp.trim_end_matches('Z').to_string(), count)
        })?;
    let candidate = dir.join(newest);
    if fs::symlink_metadata(&candidate).ok()?.is_file() {
        read(&candidate).ok().flatten()
    } else {
        None
    }
}

//! The `.vec` sidecar beside each `<name>.md` (DESIGN §6).
//!
//! Layout, all little-endian:
//! `b"EGVC"` | version u16 | model id length u16 | model id (UTF-8) | dimension u32 |
//! sha256 of the embedded text (32 bytes) | dimension × f32.
//!
//! Owns: the format, the embedded text and its hash, atomic writes (the store's `write_atomic`), and
//! reads that validate everything (a corrupt or truncated file reads as absent, never a panic).
//! Deliberately does not: decide when to rewrite (reindex does) or delete (the store's forget does).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::EmbedError;
use ambry_store::storage::write_atomic;

pub const SIDECAR_MAGIC: [u8; 4] = *b"EGVC";
pub const SIDECAR_VERSION: u16 = 1;
/// Longest model id a header may carry; bounds how much a header read can pull in.
const MAX_MODEL_ID: usize = 256;
const FIXED_HEADER: usize = 4 + 2 + 2 + 4 + 32;

pub type TextHash = [u8; 32];

/// What a sidecar says about itself, enough to decide whether it is current.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SidecarHeader {
    pub model_id: String,
    pub dimension: usize,
    pub text_hash: TextHash,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Sidecar {
    pub header: SidecarHeader,
    pub vector: Vec<f32>,
}

/// `<dir>/<name>.vec` for `<dir>/<name>.md`.
pub fn sidecar_path(memory_path: &Path) -> PathBuf {
    memory_path.with_extension("vec")
}

/// What gets embedded: the name (separators as spaces), the description and the body.
pub fn embedded_text(name: &str, description: &str, body: &str) -> String {
    let name = name.replace(['-', '_', '.'], " ");
    format!("{name}\n{description}\n{body}")
}

pub fn text_hash(text: &str) -> TextHash {
    Sha256::digest(text.as_bytes()).into()
}

fn encode(header: &SidecarHeader, vector: &[f32]) -> Vec<u8> {
    let id = header.model_id.as_bytes();
    let mut out = Vec::with_capacity(FIXED_HEADER + id.len() + vector.len() * 4);
    out.extend_from_slice(&SIDECAR_MAGIC);
    out.extend_from_slice(&SIDECAR_VERSION.to_le_bytes());
    out.extend_from_slice(&(id.len() as u16).to_le_bytes());
    out.extend_from_slice(id);
    out.extend_from_slice(&(vector.len() as u32).to_le_bytes());
    out.extend_from_slice(&header.text_hash);
    for x in vector {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// Writes atomically: a reader sees the old sidecar or the new one, never half of one.
pub fn write_sidecar(
    path: &Path,
    model_id: &str,
    text_hash: TextHash,
    vector: &[f32],
) -> Result<(), EmbedError> {
    let fail = |e: std::io::Error| EmbedError::Write {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    if model_id.is_empty() || model_id.len() > MAX_MODEL_ID || vector.is_empty() {
        return Err(EmbedError::Write {
            path: path.to_path_buf(),
            reason: "empty vector or bad model id".into(),
        });
    }
    let header = SidecarHeader {
        model_id: model_id.to_string(),
        dimension: vector.len(),
        text_hash,
    };
    let bytes = encode(&header, vector);
    let dir = path.parent().unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The store's writer: temp in the same directory, fsync, rename, fsync of the directory.
    write_atomic(dir, &file_name, &bytes).map_err(fail)
}

/// Parses a header from the start of `bytes`; returns it and its length.
fn decode_header(bytes: &[u8]) -> Option<(SidecarHeader, usize)> {
    if bytes.len() < FIXED_HEADER || bytes[0..4] != SIDECAR_MAGIC {
        return None;
    }
    if u16::from_le_bytes([bytes[4], bytes[5]]) != SIDECAR_VERSION {
        return None;
    }
    let id_len = u16::from_le_bytes([bytes[6], bytes[7]]) as usize;
    if id_len == 0 || id_len > MAX_MODEL_ID || bytes.len() < FIXED_HEADER + id_len {
        return None;
    }
    let model_id = std::str::from_utf8(&bytes[8..8 + id_len]).ok()?.to_string();
    let at = 8 + id_len;
    let dimension = u32::from_le_bytes(bytes[at..at + 4].try_into().ok()?) as usize;
    let text_hash: TextHash = bytes[at + 4..at + 36].try_into().ok()?;
    if dimension == 0 {
        return None;
    }
    Some((
        SidecarHeader {
            model_id,
            dimension,
            text_hash,
        },
        at + 36,
    ))
}

/// Reads only the header (and the file size, to reject truncated files). `None` when absent or invalid.
pub fn read_header(path: &Path) -> Option<SidecarHeader> {
    let mut file = File::open(path).ok()?;
    let size = file.metadata().ok()?.len() as usize;
    let mut buf = [0u8; FIXED_HEADER + MAX_MODEL_ID];
    let want = size.min(buf.len());
    file.read_exact(&mut buf[..want]).ok()?;
    let (header, header_len) = decode_header(&buf[..want])?;
    (size == header_len + header.dimension * 4).then_some(header)
}

/// Reads and validates the whole sidecar. `None` when absent, corrupt, truncated or non-finite.
pub fn read_sidecar(path: &Path) -> Option<Sidecar> {
    let bytes = std::fs::read(path).ok()?;
    let (header, header_len) = decode_header(&bytes)?;
    let body = &bytes[header_len..];
    if body.len() != header.dimension * 4 {
        return None;
    }
    let vector: Vec<f32> = body
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if vector.iter().any(|x| !x.is_finite()) {
        return None;
    }
    Some(Sidecar { header, vector })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(dir: &Path) -> (PathBuf, TextHash, Vec<f32>) {
        let path = dir.join("deploy-steps.vec");
        let hash = text_hash(&embedded_text(
            "deploy-steps",
            "how we ship",
            "run make release",
        ));
        (path, hash, vec![0.5, -0.25, 1.0e-3, 42.0])
    }

    #[test]
    fn round_trips_header_and_vector() {
        let dir = tempfile::tempdir().unwrap();
        let (path, hash, vector) = sample(dir.path());
        write_sidecar(&path, "all-MiniLM-L6-v2", hash, &vector).unwrap();
        let header = read_header(&path).unwrap();
        assert_eq!(
            header,
            SidecarHeader {
                model_id: "all-MiniLM-L6-v2".into(),
                dimension: 4,
                text_hash: hash
            }
        );
        let full = read_sidecar(&path).unwrap();
        assert_eq!(full.header, header);
        assert_eq!(full.vector, vector);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "temp file left behind: {leftovers:?}");
    }

    #[test]
    fn every_truncation_and_bad_magic_reads_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        let (path, hash, vector) = sample(dir.path());
        write_sidecar(&path, "m", hash, &vector).unwrap();
        let good = std::fs::read(&path).unwrap();
        for len in 0..good.len() {
            std::fs::write(&path, &good[..len]).unwrap();
            assert!(
                read_header(&path).is_none(),
                "header accepted at length {len}"
            );
            assert!(
                read_sidecar(&path).is_none(),
                "sidecar accepted at length {len}"
            );
        }
        let mut extra = good.clone();
        extra.push(0);
        std::fs::write(&path, &extra).unwrap();
        assert!(read_header(&path).is_none() && read_sidecar(&path).is_none());
        let mut bad = good.clone();
        bad[0] = b'X';
        std::fs::write(&path, &bad).unwrap();
        assert!(read_header(&path).is_none() && read_sidecar(&path).is_none());
        let mut future = good;
        future[4] = 9;
        std::fs::write(&path, &future).unwrap();
        assert!(
            read_header(&path).is_none(),
            "unknown format version must read as absent"
        );
        assert!(read_header(&dir.path().join("missing.vec")).is_none());
    }

    #[test]
    fn garbage_never_panics() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.vec");
        let mut seed = 7u32;
        for len in [0usize, 3, 44, 45, 300, 2000] {
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    if i < 4 {
                        SIDECAR_MAGIC[i]
                    } else {
                        (seed >> 16) as u8
                    }
                })
                .collect();
            std::fs::write(&path, &bytes).unwrap();
            let _ = read_header(&path);
            let _ = read_sidecar(&path);
        }
    }

    #[test]
    fn hash_covers_name_description_and_body() {
        let base = text_hash(&embedded_text("a", "b", "c"));
        assert_ne!(base, text_hash(&embedded_text("x", "b", "c")));
        assert_ne!(base, text_hash(&embedded_text("a", "x", "c")));
        assert_ne!(base, text_hash(&embedded_text("a", "b", "x")));
        assert_eq!(
            sidecar_path(Path::new("/m/deploy.md")),
            Path::new("/m/deploy.vec")
        );
    }
}

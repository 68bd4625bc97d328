//! The rules a draft meets before anything is written, and the size bounds of memory files.
//!
//! Owns: the documented limits (description length, body size, the most bytes any read of a
//! memory file takes), refusing control characters (terminal escapes, NUL) where they would reach
//! a terminal or an agent's prompt, and running the secret filter over what is about to be saved.
//! Deliberately does not: touch the disk or decide names and types (see `naming`).

use super::naming::{canonical_type, validate_name};
use super::secrets::find_secret;
use super::{MemoryDraft, StoreError};

/// Characters a description may have: one line for an index, long enough to say what it is for.
pub const DESCRIPTION_MAX: usize = 500;

/// Bytes a body may have (256 KiB). Memories are read on every search and compose; a manual or
/// a log belongs in a file the memory points to.
pub const BODY_MAX: usize = 256 * 1024;

/// Tags a memory may carry, and characters per tag: tags label, they do not hold content. With
/// the description and body limits this bounds the whole frontmatter to a few KiB, so a saved
/// memory always fits the read bound below.
pub const TAGS_MAX: usize = 32;
pub const TAG_CHARS_MAX: usize = 64;

/// Bytes any read of a memory file takes at most: a body at its limit plus generous frontmatter.
/// A larger file (written by hand, or a symlink to something huge) is listed with an error.
pub const MEMORY_FILE_MAX: u64 = 2 * BODY_MAX as u64;

/// Bytes a read of a scope's generated MEMORY.md takes at most. It grows by a line (at most
/// ~250 bytes) per memory, so a memory file's bound would drop the index of every scope past a
/// few thousand memories from compose and doctor; 16 MiB holds well over 60 000.
pub const INDEX_FILE_MAX: u64 = 16 * 1024 * 1024;

/// The first control character of `text` (tab allowed; newlines only when `multiline`).
pub fn control_character(text: &str, multiline: bool) -> Option<char> {
    text.chars()
        .find(|&c| c.is_control() && c != '\t' && !(multiline && (c == '\n' || c == '\r')))
}

pub use super::error::escape_controls;

/// `text` without control characters (tab kept), for fields read from files others wrote.
pub fn strip_controls(text: &str) -> String {
    if control_character(text, false).is_none() {
        return text.to_string();
    }
    text.chars()
        .filter(|&c| !c.is_control() || c == '\t')
        .collect()
}

fn refuse_controls(field: &'static str, text: &str, multiline: bool) -> Result<(), StoreError> {
    match control_character(text, multiline) {
        None => Ok(()),
        Some(c) => Err(StoreError::InvalidField {
            field,
            reason: format!(
                "contains the control character U+{:04X}; terminal escapes and NUL are not allowed",
                c as u32
            ),
        }),
    }
}

pub fn validate_draft(mut draft: MemoryDraft) -> Result<MemoryDraft, StoreError> {
    validate_name(&draft.name)?;
    // Judged as typed, before lower-casing blurs a key's texture.
    refuse_secret(&draft.kind)?;
    draft.kind = canonical_type(&draft.kind)?;
    draft.description = draft.description.trim().to_string();
    if draft.description.is_empty() {
        return Err(StoreError::InvalidField {
            field: "description",
            reason: "must not be empty: one line saying what this memory is for".into(),
        });
    }
    if draft.description.contains(['\n', '\r']) {
        return Err(StoreError::InvalidField {
            field: "description",
            reason: "must be a single line".into(),
        });
    }
    refuse_controls("description", &draft.description, false)?;
    if draft.description.chars().count() > DESCRIPTION_MAX {
        return Err(StoreError::InvalidField {
            field: "description",
            reason: format!(
                "must be at most {DESCRIPTION_MAX} characters; put details in the body"
            ),
        });
    }
    if draft.body.len() > BODY_MAX {
        return Err(StoreError::InvalidField {
            field: "body",
            reason: format!("is {} bytes; the limit is {BODY_MAX} bytes (256 KiB): keep bulky content in a file and store a pointer to it", draft.body.len()),
        });
    }
    refuse_controls("body", &draft.body, true)?;
    // Bodies are stored newline-terminated; normalizing here makes re-saving the same text a no-op.
    if !draft.body.is_empty() && !draft.body.ends_with('\n') {
        draft.body.push('\n');
    }
    draft.tags = draft
        .tags
        .iter()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    if draft.tags.len() > TAGS_MAX {
        return Err(StoreError::InvalidField {
            field: "tags",
            reason: format!(
                "has {} tags; a memory may have at most {TAGS_MAX}",
                draft.tags.len()
            ),
        });
    }
    for tag in &draft.tags {
        refuse_controls("tags", tag, false)?;
        if tag.chars().count() > TAG_CHARS_MAX {
            return Err(StoreError::InvalidField {
                field: "tags",
                reason: format!("has a tag longer than {TAG_CHARS_MAX} characters"),
            });
        }
    }
    // Every field reaches an agent's context.
    let scanned = format!(
        "{}\n{}\n{}\n{}",
        draft.name,
        draft.description,
        draft.tags.join(" "),
        draft.body
    );
    refuse_secret(&scanned)?;
    Ok(draft)
}

fn refuse_secret(text: &str) -> Result<(), StoreError> {
    match find_secret(text) {
        Some(found) => Err(StoreError::SecretDetected {
            kind: found.kind,
            excerpt: found.excerpt,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(description: &str, body: &str) -> MemoryDraft {
        MemoryDraft {
            name: "a".into(),
            kind: "user".into(),
            description: description.into(),
            body: body.into(),
            tags: vec![],
        }
    }

    #[test]
    fn control_characters_are_refused_where_they_would_reach_a_terminal() {
        for description in [
            "red \x1b[31malert",
            "osc \x1b]0;title\x07",
            "nul\0byte",
            "bell\x07",
        ] {
            let err = validate_draft(draft(description, "")).unwrap_err();
            assert!(
                matches!(
                    err,
                    StoreError::InvalidField {
                        field: "description",
                        ..
                    }
                ),
                "{description:?} → {err}"
            );
            assert!(err.to_string().contains("control character"), "{err}");
        }
        assert!(matches!(
            validate_draft(draft("ok", "line\n\x1b[2Jclear\n")),
            Err(StoreError::InvalidField { field: "body", .. })
        ));
        assert!(validate_draft(draft("tabs\tare fine", "multi\r\nline\tbody\n")).is_ok());
    }

    #[test]
    fn bodies_over_the_limit_are_refused_and_at_the_limit_accepted() {
        let err = validate_draft(draft("big", &"a".repeat(BODY_MAX + 1))).unwrap_err();
        assert!(matches!(
            err,
            StoreError::InvalidField { field: "body", .. }
        ));
        assert!(err.to_string().contains("262145 bytes"), "{err}");
        assert!(validate_draft(draft("big", &format!("{}\n", "a".repeat(BODY_MAX - 1)))).is_ok());
    }

    #[test]
    fn escape_controls_writes_escapes_out() {
        assert_eq!(
            escape_controls("type \x1b]0;owned\x07 and \x1b[2J"),
            "type \\u{1b}]0;owned\\u{7} and \\u{1b}[2J"
        );
        assert!(matches!(
            escape_controls("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn strip_controls_keeps_text_and_drops_escapes() {
        assert_eq!(strip_controls("red \x1b[31malert\0"), "red [31malert");
        assert_eq!(strip_controls("plain"), "plain");
    }

    #[test]
    fn too_many_or_too_long_tags_are_refused() {
        let mut many = draft("tagged", "");
        many.tags = (0..1_000_000).map(|i| format!("t{i}")).collect();
        let err = validate_draft(many).unwrap_err();
        assert!(matches!(
            err,
            StoreError::InvalidField { field: "tags", .. }
        ));
        assert!(err.to_string().contains("1000000 tags"), "{err}");
        let mut long = draft("tagged", "");
        long.tags = vec!["x".repeat(TAG_CHARS_MAX + 1)];
        assert!(validate_draft(long).is_err());
        let mut ok = draft("tagged", "");
        ok.tags = (0..TAGS_MAX).map(|i| format!("t{i}")).collect();
        assert!(validate_draft(ok).is_ok());
    }

    #[test]
    fn a_secret_in_any_field_is_refused() {
        // A `type` holds at most 32 characters, so the probe's key was a short one.
        let key = "sk-ant-api03-Xk9mP2qL7wZ4aB3cD";
        let mut in_type = draft("d", "b");
        in_type.kind = key.into();
        let in_description = draft("PGPASSWORD=Xk9mP2qL7wZ4", "b");
        let in_body = draft("d", "{\"password\": \"Xk9mP2qL7wZ4\"}");
        for d in [in_type, in_description, in_body] {
            assert!(
                matches!(
                    validate_draft(d.clone()),
                    Err(StoreError::SecretDetected { .. })
                ),
                "{d:?}"
            );
        }
    }
}

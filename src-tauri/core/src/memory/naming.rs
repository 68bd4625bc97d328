//! Name and type rules (DESIGN §3).
//!
//! Owns: validating memory names (the file's identity) and canonicalizing `type` labels.
//! Deliberately does not: check the filesystem; a valid name is safe to join to a scope dir
//! because the alphabet excludes separators and dots.

use super::StoreError;

/// Names an agent or person may not use: they collide with generated files or scope words.
pub const RESERVED_NAMES: &[&str] =
    &["user", "project", "memory", "index", "sessions", "engram", "feedback", "reference"];

/// Conventional types, in index order; custom types follow alphabetically.
pub const CONVENTIONAL_TYPES: &[&str] = &["user", "feedback", "project", "reference"];

/// Checks `^[a-z0-9][a-z0-9-]{0,63}$` and the reserved list.
pub fn validate_name(name: &str) -> Result<(), StoreError> {
    let valid_shape = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-');
    if !valid_shape {
        return Err(StoreError::InvalidName {
            name: name.to_string(),
            reason: "use 1–64 characters: lowercase letters, digits and hyphens, starting with a letter or digit".into(),
        });
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(StoreError::InvalidName {
            name: name.to_string(),
            reason: format!("`{name}` is reserved; pick a more specific name (e.g. `{name}-notes`)"),
        });
    }
    Ok(())
}

/// Lowercases, trims, collapses runs of spaces/underscores/hyphens into one hyphen; the result
/// must match `[a-z0-9-]{1,32}`.
pub fn canonical_type(raw: &str) -> Result<String, StoreError> {
    let mut out = String::with_capacity(raw.len());
    let mut pending_hyphen = false;
    for c in raw.trim().chars().flat_map(char::to_lowercase) {
        if c == ' ' || c == '_' || c == '-' || c == '\t' {
            pending_hyphen = !out.is_empty();
        } else {
            if pending_hyphen {
                out.push('-');
                pending_hyphen = false;
            }
            out.push(c);
        }
    }
    let valid = !out.is_empty()
        && out.len() <= 32
        && out.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if valid {
        Ok(out)
    } else {
        Err(StoreError::InvalidType {
            kind: raw.to_string(),
            reason: "use 1–32 letters, digits, spaces or hyphens (e.g. `project`, `how to`)".into(),
        })
    }
}

/// Index order of a type: conventional ones first in their fixed order, then the rest by name.
pub fn type_order(kind: &str) -> (usize, &str) {
    let rank = CONVENTIONAL_TYPES.iter().position(|t| *t == kind).unwrap_or(CONVENTIONAL_TYPES.len());
    (rank, kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_well_formed_names() {
        for name in ["a", "jwt-refresh-flow", "0day", "x-1-2", &"a".repeat(64)] {
            validate_name(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn rejects_bad_shapes_and_traversal() {
        for name in ["", "-lead", "Upper", "has space", "dot.md", "../etc/passwd", "a/b", "ü", &"a".repeat(65), "a_b"] {
            let err = validate_name(name).unwrap_err();
            assert!(matches!(err, StoreError::InvalidName { .. }), "{name}");
        }
    }

    #[test]
    fn rejects_reserved_names_with_a_suggestion() {
        for name in RESERVED_NAMES {
            let err = validate_name(name).unwrap_err().to_string();
            assert!(err.contains("reserved"), "{err}");
        }
        validate_name("user-prefs").unwrap();
    }

    #[test]
    fn canonicalizes_types() {
        assert_eq!(canonical_type("  Project ").unwrap(), "project");
        assert_eq!(canonical_type("How_To  guide").unwrap(), "how-to-guide");
        assert_eq!(canonical_type("a - _ b").unwrap(), "a-b");
        assert_eq!(canonical_type("--lead-trail--").unwrap(), "lead-trail");
        assert!(canonical_type("").is_err());
        assert!(canonical_type("   ").is_err());
        assert!(canonical_type("emoji🙂").is_err());
        assert!(canonical_type(&"x".repeat(33)).is_err());
    }

    #[test]
    fn orders_conventional_types_first() {
        let mut kinds = vec!["zeta", "reference", "alpha", "user", "project", "feedback"];
        kinds.sort_by(|a, b| type_order(a).cmp(&type_order(b)));
        assert_eq!(kinds, vec!["user", "feedback", "project", "reference", "alpha", "zeta"]);
    }
}

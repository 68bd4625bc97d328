//! Name and type rules (DESIGN §3).
//!
//! Owns: validating memory names (the file's identity) and canonicalizing `type` labels; a
//! refusal quotes what it refused by `error::quoted` (an excerpt of an oversized one).
//! Deliberately does not: check the filesystem; a valid name is safe to join to a scope dir
//! because the alphabet excludes separators and dots.

use super::StoreError;
use crate::error::quoted;

/// Names an agent or person may not use: they collide with generated files or scope words.
pub const RESERVED_NAMES: &[&str] = &[
    "user",
    "project",
    "memory",
    "index",
    "sessions",
    "ambry",
    "feedback",
    "reference",
];

/// Conventional types, in index order; custom types follow alphabetically.
pub const CONVENTIONAL_TYPES: &[&str] = &["user", "feedback", "project", "reference"];

/// Checks `^[a-z0-9][a-z0-9-]{0,63}$` and the reserved list.
pub fn validate_name(name: &str) -> Result<(), StoreError> {
    let valid_shape = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-');
    if !valid_shape {
        return Err(StoreError::InvalidName {
            name: quoted(name),
            reason: "use 1–64 characters: lowercase letters, digits and hyphens, starting with a letter or digit".into(),
        });
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(StoreError::InvalidName {
            name: name.to_string(),
            reason: format!(
                "`{name}` is reserved; pick a more specific name (e.g. `{name}-notes`)"
            ),
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
        && out
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if valid {
        Ok(out)
    } else {
        Err(StoreError::InvalidType {
            kind: quoted(raw),
            reason: "use 1–32 letters, digits, spaces or hyphens (e.g. `project`, `how to`)".into(),
        })
    }
}

/// Index order of a type: conventional ones first in their fixed order, then the rest by name.
pub fn type_order(kind: &str) -> (usize, &str) {
    let rank = CONVENTIONAL_TYPES
        .iter()
        .position(|t| *t == kind)
        .unwrap_or(CONVENTIONAL_TYPES.len());
    (rank, kind)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    // One case per row: a failing row is reported on its own, and the others still run.
    #[test]
    fn a_refusal_quotes_an_oversized_name_or_type_by_an_excerpt_and_its_length() {
        let huge = "X".repeat(5_000_000);
        for message in [
            validate_name(&huge).unwrap_err().to_string(),
            canonical_type(&huge).unwrap_err().to_string(),
        ] {
            assert!(message.len() < 400, "{}", &message[..400]);
            assert!(message.contains("… (5000000 bytes)"), "{message}");
        }
        let short = validate_name("Bad Name").unwrap_err().to_string();
        assert!(short.contains("`Bad Name`"), "{short}");
    }

    #[rstest]
    #[case("a")]
    #[case("jwt-refresh-flow")]
    #[case("0day")]
    #[case("x-1-2")]
    #[case(&"a".repeat(64))]
    #[case("user-prefs")]
    fn accepts_well_formed_names(#[case] name: &str) {
        validate_name(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }

    #[rstest]
    #[case("")]
    #[case("-lead")]
    #[case("Upper")]
    #[case("has space")]
    #[case("dot.md")]
    #[case("../etc/passwd")]
    #[case("a/b")]
    #[case("ü")]
    #[case(&"a".repeat(65))]
    #[case("a_b")]
    fn rejects_bad_shapes_and_traversal(#[case] name: &str) {
        let err = validate_name(name).unwrap_err();
        assert!(matches!(err, StoreError::InvalidName { .. }), "{name}");
    }

    #[rstest]
    fn rejects_reserved_names_with_a_suggestion(
        #[values(
            "user",
            "project",
            "memory",
            "index",
            "sessions",
            "ambry",
            "feedback",
            "reference"
        )]
        name: &str,
    ) {
        assert!(RESERVED_NAMES.contains(&name));
        let err = validate_name(name).unwrap_err().to_string();
        assert!(err.contains("reserved"), "{err}");
    }

    #[rstest]
    #[case("  Project ", "project")]
    #[case("How_To  guide", "how-to-guide")]
    #[case("a - _ b", "a-b")]
    #[case("--lead-trail--", "lead-trail")]
    fn canonicalizes_types(#[case] given: &str, #[case] canonical: &str) {
        assert_eq!(canonical_type(given).unwrap(), canonical);
    }

    #[rstest]
    #[case("")]
    #[case("   ")]
    #[case("emoji🙂")]
    #[case(&"x".repeat(33))]
    fn refuses_types_that_cannot_be_labels(#[case] given: &str) {
        assert!(canonical_type(given).is_err(), "{given:?}");
    }

    #[test]
    fn orders_conventional_types_first() {
        let mut kinds = vec!["zeta", "reference", "alpha", "user", "project", "feedback"];
        kinds.sort_by(|a, b| type_order(a).cmp(&type_order(b)));
        assert_eq!(
            kinds,
            vec!["user", "feedback", "project", "reference", "alpha", "zeta"]
        );
    }
}

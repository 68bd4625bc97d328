//! The registry of core error types: the one list of every error type a front end may meet in
//! an error chain, so its code is found wherever it sits in the chain.
//!
//! Owns: `report` (any error chain as an `ErrorReport`, with the code of the first core error in
//! it). (`?` on a coded error in the app's commands is `ErrorReport`'s own `From`.)
//! Its tests keep it whole: every type in the crate that implements `ErrorCode` is listed here,
//! and `Code` matches the list in `docs/errors.md`.
//! Deliberately does not: define the vocabulary (`error.rs`) or any error. No core module
//! imports this file (a module reports its own error with `ErrorReport::of`), so listing every
//! error type here closes no import cycle.

use ambry_store::error::{chain_report, Coded, ErrorCode, ErrorReport};

/// The code and field of the first core error in `error`'s chain; `failed` otherwise. The
/// message is the whole chain, each cause once.
pub fn report(error: &(dyn std::error::Error + 'static)) -> ErrorReport {
    chain_report(error, &coded)
}

/// Every core error type, listed once: `$apply!` receives the whole list.
macro_rules! core_errors {
    ($apply:ident) => {
        $apply! {
            crate::workspace::WorkspaceError,
            crate::workspace::HomeError,
            ambry_store::memory::StoreError,
            ambry_store::config::ConfigError,
            crate::config_edit::ConfigEditError,
            ambry_store::project::ProjectError,
            ambry_rank::embed::EmbedError,
            ambry_sessions::sessions::SessionError,
            ambry_rank::rank::RankError,
            ambry_store::anchors::AnchorError,
            crate::editor::EditorError,
            crate::compose_service::ServiceError,
            ambry_compose::agents::AgentError,
            crate::desktop::DesktopError,
            ambry_compose::compose::cases::CasesError,
            ambry_compose::instructions::InstructionError,
            crate::import::ImportError,
            crate::compose_service::Refusal,
            ambry_rank::embed::ModelUnavailable,
            ambry_store::memory::NotAMemory,
            ambry_store::memory::WatchError,
            ambry_store::memory::bounded_read::ReadRefusal,
            ambry_compose::usage::UsageError,
            ambry_compose::ledger::LedgerError,
            ambry_lifecycle::distill::DistillError,
            ambry_compose::compose::hook::PayloadError,
            ambry_store::error::InvalidRequest,
            ambry_sync::sync::SyncError,
        }
    };
}

/// The first core error type `e` is, tried in turn.
fn coded(e: &(dyn std::error::Error + 'static)) -> Coded {
    macro_rules! try_types {
        ($($ty:ty),* $(,)?) => {$(
            if let Some(known) = e.downcast_ref::<$ty>() {
                return Some((known.code(), known.field()));
            }
        )*};
    }
    core_errors!(try_types);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every error type of the crate with a code is in the registry, so none surfaces as
    /// `failed` in an error chain (UsageError, LedgerError, DistillError and WatchError did).
    #[test]
    fn every_coded_error_type_is_registered() {
        let registry = include_str!("error_registry.rs");
        let listed = &registry[registry.find("macro_rules! core_errors").unwrap()
            ..registry.find("/// The first core error type").unwrap()];
        // This crate's sources and every layer's below it.
        // Where cargo runs the test from (a shared build cache may hold a binary built in
        // another checkout).
        let manifest = &std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(
            || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
            std::path::PathBuf::from,
        );
        let mut stack = vec![manifest.join("src")];
        for layer in std::fs::read_dir(manifest.join("../crates"))
            .unwrap()
            .flatten()
        {
            stack.push(layer.path().join("src"));
        }
        let mut missing = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for line in text.lines() {
                        let Some(rest) = line
                            .split("ErrorCode for ")
                            .nth(1)
                            .filter(|_| line.starts_with("impl "))
                        else {
                            continue;
                        };
                        let ty = rest.trim_end_matches(" {").trim();
                        if !listed.contains(&format!("::{ty},")) {
                            missing.push(format!("{ty} ({})", path.display()));
                        }
                    }
                }
            }
        }
        assert!(
            missing.is_empty(),
            "coded errors missing from core_errors!: {missing:?}"
        );
    }

    /// `Code` and the list in docs/errors.md are the same codes, in the same order.
    #[test]
    fn the_codes_are_the_documented_ones() {
        let docs = include_str!("../../../docs/errors.md");
        let documented: Vec<&str> = docs
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split('`').next())
            .collect();
        let codes: Vec<&str> = ambry_store::error::Code::ALL
            .iter()
            .map(|c| c.as_str())
            .collect();
        assert_eq!(documented, codes, "docs/errors.md and Code differ");
    }
    use ambry_store::error::FrontEndCode;
    use ambry_store::memory::StoreError;

    #[derive(Debug, thiserror::Error)]
    #[error("saving failed")]
    struct Outer(#[source] StoreError);

    #[test]
    fn the_first_coded_cause_gives_code_and_field() {
        let inner = StoreError::InvalidField {
            field: "description",
            reason: "too long".into(),
        };
        let r = report(&Outer(inner));
        assert_eq!(r.code, "invalid_field");
        assert_eq!(r.field.as_deref(), Some("description"));
        assert_eq!(r.message, "saving failed: invalid description: too long");
    }

    #[test]
    fn an_os_error_repeated_by_its_wrapper_is_said_once() {
        let io = std::io::Error::from_raw_os_error(21);
        let e = StoreError::Io {
            action: "read",
            path: "/x".into(),
            source: io,
        };
        let r = report(&e);
        assert_eq!(r.code, "io");
        assert_eq!(r.message.matches("os error 21").count(), 1, "{}", r.message);
    }

    #[test]
    fn unknown_errors_are_failed() {
        let e = std::io::Error::other("boom");
        assert_eq!(report(&e).code, "failed");
        assert_eq!(FrontEndCode::Busy.report("x").code, "busy");
    }
}

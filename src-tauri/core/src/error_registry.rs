//! The registry of core error types: the one list of every error type a front end may meet in
//! an error chain, so its code is found wherever it sits in the chain.
//!
//! Owns: `report` (any error chain as an `ErrorReport`, with the code of the first core error in
//! it) and `From<core error> for ErrorReport` (`?` in the app's commands).
//! Its tests keep it whole: every type in the crate that implements `ErrorCode` is listed here,
//! and `Code` matches the list in `docs/errors.md`.
//! Deliberately does not: define the vocabulary (`error.rs`) or any error. No core module
//! imports this file (a module reports its own error with `ErrorReport::of`), so listing every
//! error type here closes no import cycle.

use crate::error::{chain_report, Coded, ErrorCode, ErrorReport};

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
            crate::memory::StoreError,
            crate::config::ConfigError,
            crate::config_edit::ConfigEditError,
            crate::project::ProjectError,
            crate::embed::EmbedError,
            crate::sessions::SessionError,
            crate::rank::RankError,
            crate::anchors::AnchorError,
            crate::editor::EditorError,
            crate::compose_service::ServiceError,
            crate::agents::AgentError,
            crate::desktop::DesktopError,
            crate::compose::cases::CasesError,
            crate::instructions::InstructionError,
            crate::import::ImportError,
            crate::compose_service::Refusal,
            crate::workspace::ModelUnavailable,
            crate::memory::NotAMemory,
            crate::memory::WatchError,
            crate::memory::bounded_read::ReadRefusal,
            crate::usage::UsageError,
            crate::ledger::LedgerError,
            crate::distill::DistillError,
            crate::compose::hook::PayloadError,
            crate::error::InvalidRequest,
            crate::sync::SyncError,
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

/// `?` on any core error in a function that returns an `ErrorReport` (the app's commands).
macro_rules! into_report {
    ($($ty:ty),* $(,)?) => {$(
        impl From<$ty> for ErrorReport {
            fn from(e: $ty) -> Self {
                report(&e)
            }
        }
    )*};
}

core_errors!(into_report);

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
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut missing = Vec::new();
        let mut stack = vec![src];
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
        let codes: Vec<&str> = crate::error::Code::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(documented, codes, "docs/errors.md and Code differ");
    }
    use crate::error::FrontEndCode;
    use crate::memory::StoreError;

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

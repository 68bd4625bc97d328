//! `--scope` values as clap sees them, mapped onto core's scope types, and the parser shared by
//! every count flag (`--limit`, `--top-k`).

use ambry_core::{Scope, ScopeFilter};

/// The largest count a flag takes: more results than anyone reads, small enough for any arithmetic.
pub const COUNT_MAX: usize = 10_000;

/// A count flag's value: a whole number from 1 to `COUNT_MAX` (0 would silently show nothing).
pub fn positive_count(text: &str) -> Result<usize, String> {
    let n: u64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    if n == 0 || n > COUNT_MAX as u64 {
        return Err(format!("must be between 1 and {COUNT_MAX}"));
    }
    Ok(n as usize)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScopeArg {
    User,
    /// The repository's shared memory, `.ambry/memory/` in its working tree (you commit it)
    Team,
    Project,
}

impl From<ScopeArg> for Scope {
    fn from(s: ScopeArg) -> Scope {
        match s {
            ScopeArg::User => Scope::User,
            ScopeArg::Team => Scope::Team,
            ScopeArg::Project => Scope::Project,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ScopeFilterArg {
    User,
    Team,
    Project,
    #[default]
    All,
}

impl From<ScopeFilterArg> for ScopeFilter {
    fn from(s: ScopeFilterArg) -> ScopeFilter {
        match s {
            ScopeFilterArg::User => ScopeFilter::User,
            ScopeFilterArg::Team => ScopeFilter::Team,
            ScopeFilterArg::Project => ScopeFilter::Project,
            ScopeFilterArg::All => ScopeFilter::All,
        }
    }
}

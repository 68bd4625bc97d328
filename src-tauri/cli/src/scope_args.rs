//! `--scope` values as clap sees them, mapped onto core's scope types.

use engram_core::memory::{Scope, ScopeFilter};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScopeArg {
    User,
    Project,
}

impl From<ScopeArg> for Scope {
    fn from(s: ScopeArg) -> Scope {
        match s {
            ScopeArg::User => Scope::User,
            ScopeArg::Project => Scope::Project,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ScopeFilterArg {
    User,
    Project,
    #[default]
    All,
}

impl From<ScopeFilterArg> for ScopeFilter {
    fn from(s: ScopeFilterArg) -> ScopeFilter {
        match s {
            ScopeFilterArg::User => ScopeFilter::User,
            ScopeFilterArg::Project => ScopeFilter::Project,
            ScopeFilterArg::All => ScopeFilter::All,
        }
    }
}

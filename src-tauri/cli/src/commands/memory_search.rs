//! `ambry memory search QUERY`: the ranked memories, as the agents' composer would rank them.

use ambry_core::Strategy;
use ambry_core::{Coverage, SearchOptions};
use anyhow::Result;

use crate::context::Context;
use crate::scope_args::ScopeFilterArg;

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    pub query: String,
    #[arg(long, value_enum, default_value_t)]
    pub scope: ScopeFilterArg,
    /// At most N results (default: all with a non-zero score)
    #[arg(long, value_name = "N", value_parser = crate::scope_args::positive_count)]
    pub limit: Option<usize>,
    /// keyword, bm25, semantic or auto (default: retrieval.strategy from config)
    #[arg(long, value_enum)]
    pub strategy: Option<StrategyArg>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum StrategyArg {
    Keyword,
    Bm25,
    Semantic,
    Auto,
}

impl From<StrategyArg> for Strategy {
    fn from(s: StrategyArg) -> Strategy {
        match s {
            StrategyArg::Keyword => Strategy::Keyword,
            StrategyArg::Bm25 => Strategy::Bm25,
            StrategyArg::Semantic => Strategy::Semantic,
            StrategyArg::Auto => Strategy::Auto,
        }
    }
}

pub fn run(ctx: &Context, args: SearchArgs) -> Result<()> {
    let options = SearchOptions {
        limit: args.limit,
        strategy: args.strategy.map(Into::into),
        only_evident: false,
    };
    let store = ctx.store();
    let ranking = ctx.workspace.search(
        &args.query,
        Coverage::Agent(&store, args.scope.into()),
        &options,
    )?;
    if let Some(note) = &ranking.note {
        eprintln!("note: {note}");
    }
    if ctx.json {
        let hits: Vec<_> = ranking.hits.iter().map(|h| &h.hit).collect();
        return ctx.print_json(&hits);
    }
    if ranking.hits.is_empty() {
        println!("no memory matches `{}`", args.query);
        return Ok(());
    }
    for hit in ranking.hits.iter().map(|h| &h.hit) {
        println!(
            "{:.3}  {:<7} {:<28} {:<10} {}",
            hit.score, hit.scope, hit.name, hit.kind, hit.description
        );
    }
    Ok(())
}

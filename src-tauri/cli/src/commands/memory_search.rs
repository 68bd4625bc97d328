//! `ambry memory search QUERY`: the ranked memories, as the agents' composer would rank them,
//! each with the relevance gate's judgement (whether an agent's prompt would be given it).

use ambry_core::Strategy;
use ambry_core::{Coverage, Relevance, Retirement, SearchOptions};
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
        today: Some(ctx.now().date_naive()),
    };
    let place = ctx.place();
    let ranking = ctx.workspace.search(
        &args.query,
        Coverage::Agent(&place, args.scope.into()),
        &options,
    )?;
    if let Some(note) = &ranking.note {
        eprintln!("note: {note}");
    }
    if ctx.json {
        let hits: Vec<_> = ranking.hits.iter().map(|h| h.judged()).collect();
        return ctx.print_json(&hits);
    }
    if ranking.hits.is_empty() {
        println!("no memory matches `{}`", args.query);
        return Ok(());
    }
    // The relevance gate's judgement beside each hit: `strong` or `good` is what an agent's
    // prompt would be given, `weak` is not (the score alone is 1.000 at the top of any ranking).
    for h in &ranking.hits {
        let hit = &h.hit;
        println!(
            "{:.3}  {:<6} {:<7} {:<28} {:<10} {}{}",
            hit.score,
            relevance_label(h.evidence.relevance),
            hit.scope,
            hit.name,
            hit.kind,
            hit.description,
            h.retired.as_ref().map(retired_note).unwrap_or_default()
        );
    }
    Ok(())
}

fn retired_note(r: &Retirement) -> String {
    format!(" [{r}]")
}

fn relevance_label(r: Relevance) -> &'static str {
    match r {
        Relevance::Strong => "strong",
        Relevance::Good => "good",
        Relevance::Weak => "weak",
        Relevance::None => "none",
    }
}

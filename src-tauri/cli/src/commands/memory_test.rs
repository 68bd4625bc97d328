//! `ambry memory test`: the person's retrieval cases (`memory/tests.toml` per scope), each
//! composed as an agent turn; exits 1 with the ranks found when a case fails.

use ambry_core::CasesReport;
use anyhow::{bail, Result};

use crate::context::Context;

pub fn run(ctx: &Context) -> Result<()> {
    let place = ctx.place();
    let Some(report) = ctx.workspace.memory_tests(&place)? else {
        let files: Vec<String> = place
            .scopes(ambry_core::ScopeFilter::All)
            .into_iter()
            .filter_map(|s| place.dir(s).ok())
            .map(|d| d.join(ambry_core::CASES_FILE).display().to_string())
            .collect();
        bail!(
            "no retrieval cases: add [[case]] entries (prompt, expect) to {}",
            files.join(" or ")
        );
    };
    if ctx.json {
        ctx.print_json(&report)?;
    } else {
        print_report(&report);
    }
    if report.failed > 0 {
        bail!(
            "{} of {} retrieval cases failed",
            report.failed,
            report.cases.len()
        );
    }
    Ok(())
}

fn print_report(report: &CasesReport) {
    for note in &report.notes {
        eprintln!("note: {note}");
    }
    for case in &report.cases {
        println!(
            "{} [{}] {:?}",
            if case.passed { "pass" } else { "FAIL" },
            case.scope,
            case.prompt
        );
        if !case.passed {
            for e in &case.expected {
                let rank = e
                    .rank
                    .map_or("not ranked".to_string(), |r| format!("rank {r}"));
                let injected = if e.injected {
                    "injected"
                } else {
                    "not injected"
                };
                let within = case
                    .within
                    .map(|w| format!(", must be within {w}"))
                    .unwrap_or_default();
                println!("    {}: {rank}, {injected}{within}", e.name);
            }
            for r in case.rejected.iter().filter(|r| r.injected) {
                println!("    {}: injected, but must not be", r.name);
            }
        }
    }
    println!(
        "{} passed, {} failed (strategy {:?})",
        report.passed, report.failed, report.strategy
    );
}

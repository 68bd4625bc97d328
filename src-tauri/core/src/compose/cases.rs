//! The person's own retrieval cases (`ambry memory test`, DESIGN §9): `memory/tests.toml` in
//! each scope lists prompts and the memories each must inject, and a run composes every prompt
//! exactly as an agent's turn would and reports, for each expected memory, its rank and whether
//! the caps let it in.
//!
//! ```toml
//! [[case]]
//! prompt = "how do we ship a release?"
//! expect = ["deploy-process"]   # every one must be injected
//! within = 3                    # optional: and ranked at most this far down
//! ```
//!
//! Owns: the file format, its validation (a bad file is an error naming the file and line,
//! never skipped), adding a case to a file's text (its comments and layout kept), and judging
//! each case.
//! Deliberately does not: print, pick the strategy or load the model (the caller passes a
//! `Semantic` per call), or write the file (the store does, under the scope lock).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{compose, Budgets, ComposeInput};
use crate::config::{RetrievalConfig, Strategy};
use crate::error::ErrorCode;
use crate::ledger::Held;
use crate::memory::{Scope, ScopeFilter, Store, StoreError};
use crate::rank::{self, CorpusCache, SearchParams, Semantic, Synonyms};

pub const CASES_FILE: &str = "tests.toml";

#[derive(Debug, thiserror::Error)]
pub enum CasesError {
    #[error(transparent)]
    Store(StoreError),
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a valid retrieval-case file: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

impl ErrorCode for CasesError {
    fn code(&self) -> &'static str {
        match self {
            CasesError::Store(e) => e.code(),
            CasesError::Read { .. } => "io",
            CasesError::Invalid { .. } => "invalid_cases",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CaseSpec {
    pub prompt: String,
    pub expect: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CasesFile {
    #[serde(default)]
    case: Vec<CaseSpec>,
}

/// A case and the file it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub scope: Scope,
    pub file: PathBuf,
    pub spec: CaseSpec,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expectation {
    pub name: String,
    /// 1-based rank among the ranked memories; `None` when it did not rank at all.
    pub rank: Option<usize>,
    /// Whether the compose block for this prompt carries its body.
    pub injected: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    pub scope: Scope,
    pub file: PathBuf,
    pub prompt: String,
    pub within: Option<usize>,
    pub expected: Vec<Expectation>,
    pub passed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CasesReport {
    pub strategy: Strategy,
    pub passed: usize,
    pub failed: usize,
    pub cases: Vec<CaseResult>,
    pub notes: Vec<String>,
}

/// The cases of every scope the store covers (user, then the project's); a scope without a
/// `tests.toml` has none.
pub fn load_cases(store: &Store) -> Result<Vec<Case>, CasesError> {
    let mut cases = Vec::new();
    for scope in store.scopes(ScopeFilter::All) {
        let file = store
            .dir(scope)
            .map_err(CasesError::Store)?
            .join(CASES_FILE);
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(CasesError::Read { path: file, source }),
        };
        for spec in parse_cases(&text, &file)? {
            cases.push(Case {
                scope,
                file: file.clone(),
                spec,
            });
        }
    }
    Ok(cases)
}

/// Parses one `tests.toml`; errors name the file and, from the TOML parser, the line.
pub fn parse_cases(text: &str, file: &Path) -> Result<Vec<CaseSpec>, CasesError> {
    let invalid = |message: String| CasesError::Invalid {
        path: file.to_path_buf(),
        message,
    };
    let parsed: CasesFile =
        toml::from_str(text).map_err(|e| invalid(e.to_string().trim().to_string()))?;
    for (i, case) in parsed.case.iter().enumerate() {
        if case.prompt.trim().is_empty() {
            return Err(invalid(format!("case {} has an empty prompt", i + 1)));
        }
        if case.expect.is_empty() {
            return Err(invalid(format!(
                "case {} ({:?}) expects no memory; list at least one name",
                i + 1,
                case.prompt
            )));
        }
        if case.within == Some(0) {
            return Err(invalid(format!(
                "case {} has within = 0; ranks start at 1",
                i + 1
            )));
        }
    }
    Ok(parsed.case)
}

/// `text` (a `tests.toml`, empty when there is none yet) with `spec` appended as the last
/// `[[case]]`, everything already there kept as written (comments too). The result must parse
/// as a valid case file, so a case that could never pass is refused here, not at the next run.
pub fn with_case_added(text: &str, spec: &CaseSpec, file: &Path) -> Result<String, CasesError> {
    let invalid = |message: String| CasesError::Invalid {
        path: file.to_path_buf(),
        message,
    };
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| invalid(e.to_string().trim().to_string()))?;
    let mut case = toml_edit::Table::new();
    case.insert("prompt", toml_edit::value(spec.prompt.trim()));
    case.insert(
        "expect",
        toml_edit::value(
            spec.expect
                .iter()
                .map(String::as_str)
                .collect::<toml_edit::Array>(),
        ),
    );
    if let Some(within) = spec.within {
        case.insert("within", toml_edit::value(within as i64));
    }
    match doc
        .entry("case")
        .or_insert_with(|| toml_edit::Item::ArrayOfTables(toml_edit::ArrayOfTables::new()))
    {
        toml_edit::Item::ArrayOfTables(cases) => cases.push(case),
        _ => return Err(invalid("`case` is not a list of [[case]] tables".into())),
    }
    // Judges the cases already there as much as the new one.
    let added = doc.to_string();
    parse_cases(&added, file)?;
    Ok(added)
}

/// Runs every case: composes its prompt as the first turn of a context would (same strategy,
/// gate, budget and shadowing) and ranks it to report where each expected memory landed. `semantic` gives the
/// ranker's semantic slot for each call.
pub fn run_cases<'s>(
    store: &Store,
    cache: &mut CorpusCache,
    retrieval: &RetrievalConfig,
    budgets: Budgets,
    semantic: &dyn Fn() -> Semantic<'s>,
    cases: &[Case],
) -> CasesReport {
    let held = Held::default();
    let uses = Default::default();
    let params = SearchParams::from_config(retrieval);
    let synonyms = Synonyms::new(&retrieval.synonyms);
    let mut notes = Vec::new();
    let mut strategy = retrieval.strategy;
    let mut results = Vec::new();
    for case in cases {
        let composition = compose(
            store,
            cache,
            retrieval,
            &ComposeInput {
                start: false,
                query: Some(&case.spec.prompt),
                held: &held,
                gate: crate::rank::Gate::CALIBRATED,
                budgets,
                uses: &uses,
                today: None,
            },
            semantic(),
        );
        strategy = composition.strategy;
        notes.extend(
            composition
                .notes
                .iter()
                .filter(|n| !notes.contains(*n))
                .cloned()
                .collect::<Vec<_>>(),
        );
        let hits = match rank::search(
            store,
            cache,
            ScopeFilter::All,
            &case.spec.prompt,
            &params,
            &synonyms,
            semantic(),
        ) {
            Ok(ranking) => ranking.hits,
            Err(e) => {
                notes.push(format!("{:?}: {e}", case.spec.prompt));
                Vec::new()
            }
        };
        let expected: Vec<Expectation> = case
            .spec
            .expect
            .iter()
            .map(|name| Expectation {
                name: name.clone(),
                rank: hits.iter().position(|h| &h.name == name).map(|p| p + 1),
                injected: composition.selected.iter().any(|s| &s.name == name),
            })
            .collect();
        let passed = expected.iter().all(|e| {
            e.injected
                && case
                    .spec
                    .within
                    .is_none_or(|w| e.rank.is_some_and(|r| r <= w))
        });
        results.push(CaseResult {
            scope: case.scope,
            file: case.file.clone(),
            prompt: case.spec.prompt.clone(),
            within: case.spec.within,
            expected,
            passed,
        });
    }
    let passed = results.iter().filter(|r| r.passed).count();
    CasesReport {
        strategy,
        passed,
        failed: results.len() - passed,
        cases: results,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryDraft;
    use crate::project::Project;
    use crate::AmbryHome;

    fn store() -> (tempfile::TempDir, Store) {
        let tmp = tempfile::tempdir().unwrap();
        let project = Project {
            slug: "repo-00000000".into(),
            root: tmp.path().join("repo"),
            remote: None,
        };
        let store = Store::new(AmbryHome::new(tmp.path().join("home")), Some(project));
        let now = "2026-01-01T00:00:00Z".parse().unwrap();
        for (scope, name, description, body) in [
            (
                Scope::User,
                "deploy-steps",
                "How to ship a release",
                "Tag, build, roll out.",
            ),
            (
                Scope::User,
                "code-style",
                "Formatting rules",
                "rustfmt, no trailing whitespace.",
            ),
            (
                Scope::Project,
                "db-migrations",
                "Database migrations",
                "sqlx migrate run before tests.",
            ),
        ] {
            let draft = MemoryDraft {
                name: name.into(),
                kind: "project".into(),
                description: description.into(),
                body: body.into(),
                tags: vec![],
            };
            store.save(scope, draft, now).unwrap();
        }
        (tmp, store)
    }

    fn run(store: &Store, top_k: usize) -> CasesReport {
        let retrieval = RetrievalConfig {
            strategy: Strategy::Bm25,
            top_k,
            ..Default::default()
        };
        let cases = load_cases(store).unwrap();
        run_cases(
            store,
            &mut CorpusCache::in_memory(),
            &retrieval,
            Budgets::from_config(&Default::default()),
            &|| Semantic::Unavailable(&crate::ModelUnavailable::NotRequested),
            &cases,
        )
    }

    #[test]
    fn cases_from_both_scopes_pass_or_fail_with_the_ranks_found() {
        let (_tmp, store) = store();
        std::fs::write(
            store.dir(Scope::User).unwrap().join(CASES_FILE),
            "[[case]]\nprompt = \"how do I ship a release?\"\nexpect = [\"deploy-steps\"]\nwithin = 1\n",
        )
        .unwrap();
        std::fs::write(
            store.dir(Scope::Project).unwrap().join(CASES_FILE),
            "[[case]]\nprompt = \"run the database migrations and check formatting\"\nexpect = [\"db-migrations\", \"code-style\"]\n\n[[case]]\nprompt = \"database migrations\"\nexpect = [\"deploy-steps\"]\n",
        )
        .unwrap();
        let report = run(&store, 10);
        assert_eq!(report.cases.len(), 3);
        // The two-topic prompt passes one memory through the relevance gate, not both.
        assert_eq!((report.passed, report.failed), (1, 2));
        assert_eq!(report.cases[0].scope, Scope::User);
        assert_eq!(report.cases[0].expected[0].rank, Some(1));
        let failed = &report.cases[2];
        assert!(!failed.passed);
        assert_eq!(
            failed.expected[0],
            Expectation {
                name: "deploy-steps".into(),
                rank: None,
                injected: false
            }
        );

        let two = &report.cases[1];
        assert!(!two.passed);
        assert_eq!(two.expected.iter().filter(|e| e.injected).count(), 1);
        assert!(two.expected.iter().all(|e| e.rank.is_some()), "{two:?}");
    }

    #[test]
    fn a_bad_file_is_an_error_naming_it_never_skipped() {
        let (_tmp, store) = store();
        let file = store.dir(Scope::User).unwrap().join(CASES_FILE);
        std::fs::write(&file, "[[case]]\nprompt = \"x\"\nexpected = [\"a\"]\n").unwrap();
        let err = load_cases(&store).unwrap_err();
        assert_eq!(err.code(), "invalid_cases");
        assert!(
            err.to_string().contains("tests.toml") && err.to_string().contains("expected"),
            "{err}"
        );
        std::fs::write(&file, "[[case]]\nprompt = \"x\"\nexpect = []\n").unwrap();
        assert!(load_cases(&store)
            .unwrap_err()
            .to_string()
            .contains("expects no memory"));
        std::fs::remove_file(&file).unwrap();
        assert!(load_cases(&store).unwrap().is_empty(), "no file, no cases");
    }

    #[test]
    fn an_added_case_keeps_what_the_file_said_and_a_case_that_could_never_pass_is_refused() {
        let file = Path::new("tests.toml");
        let first = CaseSpec {
            prompt: "  how do we ship?  ".into(),
            expect: vec!["deploy-steps".into()],
            within: Some(2),
        };
        let text = with_case_added("", &first, file).unwrap();
        assert_eq!(
            parse_cases(&text, file).unwrap(),
            vec![CaseSpec {
                prompt: "how do we ship?".into(),
                ..first.clone()
            }]
        );

        let mine = "# my cases, written by hand\n[[case]]\nprompt = \"style?\"  # the one I care about\nexpect = [\"code-style\"]\n";
        let second = CaseSpec {
            prompt: "run the migrations".into(),
            expect: vec!["db-migrations".into(), "deploy-steps".into()],
            within: None,
        };
        let text = with_case_added(mine, &second, file).unwrap();
        assert!(
            text.starts_with(mine),
            "what was there is kept as written:\n{text}"
        );
        let cases = parse_cases(&text, file).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[1], second);

        for (bad, why) in [
            (
                CaseSpec {
                    prompt: " ".into(),
                    expect: vec!["deploy-steps".into()],
                    within: None,
                },
                "empty prompt",
            ),
            (
                CaseSpec {
                    prompt: "x".into(),
                    expect: vec![],
                    within: None,
                },
                "expects no memory",
            ),
            (
                CaseSpec {
                    prompt: "x".into(),
                    expect: vec!["deploy-steps".into()],
                    within: Some(0),
                },
                "within = 0",
            ),
        ] {
            let err = with_case_added(mine, &bad, file).unwrap_err().to_string();
            assert!(err.contains(why), "{why}: {err}");
        }
        let broken = with_case_added("[[case]\nprompt = ", &first, file).unwrap_err();
        assert!(
            matches!(broken, CasesError::Invalid { .. }),
            "a broken file is reported, not overwritten: {broken}"
        );
    }
}

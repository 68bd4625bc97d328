//! The person's own retrieval cases (`ambry memory test`, DESIGN §9): `memory/tests.toml` in
//! each scope lists prompts and the memories each must inject, and a run composes every prompt
//! exactly as an agent's turn would and reports, for each expected memory, its rank and whether
//! the caps let it in.
//!
//! ```toml
//! [[case]]
//! prompt = "how do we ship a release?"
//! expect = ["deploy-process"]   # every one must be injected
//! reject = ["old-deploy"]       # optional: none of these may be injected
//! within = 3                    # optional: and ranked at most this far down
//! ```
//!
//! Owns: the file format, its validation (a bad file is an error naming the file and line,
//! never skipped), adding, replacing and removing a case in a file's text (its comments and
//! layout kept), and judging each case.
//! Deliberately does not: print, pick the strategy or load the model (the caller passes a
//! `Semantic` per call), or write the file (the store does, under the scope lock).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{compose, Budgets, ComposeInput};
use crate::ledger::Held;
use ambry_rank::rank::{self, CorpusCache, SearchParams, Semantic, Synonyms};
use ambry_store::config::{RetrievalConfig, Strategy};
use ambry_store::error::ErrorCode;
use ambry_store::memory::{Scope, ScopeFilter, Store, StoreError};

pub use ambry_store::memory::CASES_FILE;

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
    fn code(&self) -> ambry_store::error::Code {
        match self {
            CasesError::Store(e) => e.code(),
            CasesError::Read { .. } => ambry_store::error::Code::Io,
            CasesError::Invalid { .. } => ambry_store::error::Code::InvalidCases,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct CaseSpec {
    pub prompt: String,
    /// Must be injected (a case may have none when it only says what must not be).
    #[serde(default)]
    pub expect: Vec<String>,
    /// Must not be injected for this prompt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reject: Vec<String>,
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
    /// Its place among the file's `[[case]]` tables (0-based): how an edit or a removal names it.
    pub index: usize,
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
    pub index: usize,
    pub prompt: String,
    pub within: Option<usize>,
    pub expected: Vec<Expectation>,
    /// The memories that must not be injected, with where they landed (passing: none injected).
    pub rejected: Vec<Expectation>,
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
        for (index, spec) in parse_cases(&text, &file)?.into_iter().enumerate() {
            cases.push(Case {
                scope,
                file: file.clone(),
                index,
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
        if case.expect.is_empty() && case.reject.is_empty() {
            return Err(invalid(format!(
                "case {} ({:?}) expects no memory and rejects none; list at least one name",
                i + 1,
                case.prompt
            )));
        }
        if let Some(both) = case.expect.iter().find(|n| case.reject.contains(n)) {
            return Err(invalid(format!(
                "case {} ({:?}) both expects and rejects `{both}`",
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
    let mut doc = parse_document(text, file)?;
    let mut case = toml_edit::Table::new();
    write_spec(&mut case, spec);
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

fn parse_document(text: &str, file: &Path) -> Result<toml_edit::DocumentMut, CasesError> {
    text.parse()
        .map_err(|e: toml_edit::TomlError| CasesError::Invalid {
            path: file.to_path_buf(),
            message: e.to_string().trim().to_string(),
        })
}

/// Sets a case table's keys to `spec`; keys it does not use are removed, comments kept.
fn write_spec(case: &mut toml_edit::Table, spec: &CaseSpec) {
    let list = |names: &[String]| {
        toml_edit::value(
            names
                .iter()
                .map(String::as_str)
                .collect::<toml_edit::Array>(),
        )
    };
    case["prompt"] = toml_edit::value(spec.prompt.trim());
    case["expect"] = list(&spec.expect);
    if spec.reject.is_empty() {
        case.remove("reject");
    } else {
        case["reject"] = list(&spec.reject);
    }
    match spec.within {
        Some(within) => case["within"] = toml_edit::value(within as i64),
        None => {
            case.remove("within");
        }
    }
}

/// The `index`-th case table of `doc`, when its prompt is still `prompt` (a file changed since
/// it was listed names another case there: refused, so the wrong case is never changed).
fn case_at<'d>(
    doc: &'d mut toml_edit::DocumentMut,
    index: usize,
    prompt: &str,
    file: &Path,
) -> Result<&'d mut toml_edit::ArrayOfTables, CasesError> {
    let invalid = |message: String| CasesError::Invalid {
        path: file.to_path_buf(),
        message,
    };
    let cases = doc
        .get_mut("case")
        .and_then(|c| c.as_array_of_tables_mut())
        .ok_or_else(|| invalid("it has no [[case]] tables".into()))?;
    let found = cases
        .get(index)
        .and_then(|t| t.get("prompt"))
        .and_then(|p| p.as_str())
        .map(str::trim);
    if found != Some(prompt.trim()) {
        return Err(invalid(format!(
            "case {} is no longer {prompt:?} (the file changed); reload the cases and try again",
            index + 1
        )));
    }
    Ok(cases)
}

/// `text` with its `index`-th case (whose prompt must still be `prompt`) set to `spec`, in
/// place: its position and comments kept. The result must parse as a valid case file.
pub fn with_case_replaced(
    text: &str,
    index: usize,
    prompt: &str,
    spec: &CaseSpec,
    file: &Path,
) -> Result<String, CasesError> {
    let mut doc = parse_document(text, file)?;
    let cases = case_at(&mut doc, index, prompt, file)?;
    if let Some(case) = cases.get_mut(index) {
        write_spec(case, spec);
    }
    let replaced = doc.to_string();
    parse_cases(&replaced, file)?;
    Ok(replaced)
}

/// `text` without its `index`-th case (whose prompt must still be `prompt`); the rest as written.
pub fn with_case_removed(
    text: &str,
    index: usize,
    prompt: &str,
    file: &Path,
) -> Result<String, CasesError> {
    let mut doc = parse_document(text, file)?;
    let cases = case_at(&mut doc, index, prompt, file)?;
    // The comments above the first case head the file: they stay when that case goes.
    let head = (index == 0)
        .then(|| {
            cases
                .get(0)
                .and_then(|t| t.decor().prefix())
                .and_then(|p| p.as_str())
        })
        .flatten()
        .map(str::to_string);
    cases.remove(index);
    if let (Some(head), Some(next)) = (head, cases.get_mut(0)) {
        let own = next
            .decor()
            .prefix()
            .and_then(|p| p.as_str())
            .unwrap_or("")
            .trim_start_matches('\n')
            .to_string();
        next.decor_mut().set_prefix(format!("{head}{own}"));
    }
    let removed = doc.to_string();
    parse_cases(&removed, file)?;
    Ok(removed)
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
                resumed: None,
                query: Some(&case.spec.prompt),
                conversation: None,
                held: &held,
                gate: ambry_rank::rank::Gate::CALIBRATED,
                budgets,
                uses: &uses,
                today: None,
                disagreements: &super::NoDisagreements,
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
        let judge = |names: &[String]| -> Vec<Expectation> {
            names
                .iter()
                .map(|name| Expectation {
                    name: name.clone(),
                    rank: hits.iter().position(|h| &h.name == name).map(|p| p + 1),
                    injected: composition.selected.iter().any(|s| &s.name == name),
                })
                .collect()
        };
        let expected = judge(&case.spec.expect);
        let rejected = judge(&case.spec.reject);
        let passed = expected.iter().all(|e| {
            e.injected
                && case
                    .spec
                    .within
                    .is_none_or(|w| e.rank.is_some_and(|r| r <= w))
        }) && rejected.iter().all(|r| !r.injected);
        results.push(CaseResult {
            scope: case.scope,
            file: case.file.clone(),
            index: case.index,
            prompt: case.spec.prompt.clone(),
            within: case.spec.within,
            expected,
            rejected,
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
    use ambry_store::home::AmbryHome;
    use ambry_store::memory::MemoryDraft;
    use ambry_store::project::Project;

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
            &|| Semantic::Unavailable(&ambry_rank::embed::ModelUnavailable::NotRequested),
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
            reject: vec![],
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
            reject: vec![],
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
                    reject: vec![],
                    within: None,
                },
                "empty prompt",
            ),
            (
                CaseSpec {
                    prompt: "x".into(),
                    expect: vec![],
                    reject: vec![],
                    within: None,
                },
                "expects no memory",
            ),
            (
                CaseSpec {
                    prompt: "x".into(),
                    expect: vec!["deploy-steps".into()],
                    reject: vec![],
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

    #[test]
    fn a_case_can_reject_a_memory_and_fails_when_it_is_injected() {
        let (_tmp, store) = store();
        std::fs::write(
            store.dir(Scope::User).unwrap().join(CASES_FILE),
            "[[case]]\nprompt = \"how do I ship a release?\"\nreject = [\"code-style\"]\n\n[[case]]\nprompt = \"how do I ship a release?\"\nexpect = []\nreject = [\"deploy-steps\"]\n",
        )
        .unwrap();
        let report = run(&store, 10);
        let (clean, leaked) = (&report.cases[0], &report.cases[1]);
        assert!(clean.passed && clean.expected.is_empty(), "{clean:?}");
        assert!(!clean.rejected[0].injected, "{clean:?}");
        assert!(!leaked.passed, "a rejected memory was injected: {leaked:?}");
        assert_eq!(leaked.rejected[0].name, "deploy-steps");
        assert!(leaked.rejected[0].injected);
        assert_eq!((leaked.index, clean.index), (1, 0));

        let file = Path::new("tests.toml");
        let both = "[[case]]\nprompt = \"x\"\nexpect = [\"a\"]\nreject = [\"a\"]\n";
        assert!(parse_cases(both, file)
            .unwrap_err()
            .to_string()
            .contains("both expects and rejects"));
    }

    #[test]
    fn a_case_is_replaced_in_place_or_removed_and_a_changed_file_is_refused() {
        let file = Path::new("tests.toml");
        let mine = "# my cases\n[[case]]\nprompt = \"style?\"  # the one I care about\nexpect = [\"code-style\"]\nwithin = 2\n\n[[case]]\nprompt = \"ship\"\nexpect = [\"deploy-steps\"]\n";
        let edited = CaseSpec {
            prompt: "style rules?".into(),
            expect: vec![],
            reject: vec!["deploy-steps".into()],
            within: None,
        };
        let text = with_case_replaced(mine, 0, "style?", &edited, file).unwrap();
        assert!(text.starts_with("# my cases\n"), "{text}");
        let cases = parse_cases(&text, file).unwrap();
        assert_eq!(cases[0], edited);
        assert_eq!(cases[1].prompt, "ship", "the other case moved: {text}");

        // Listed before the file changed: the case at 0 is no longer "style?".
        let stale = with_case_replaced(&text, 0, "style?", &edited, file).unwrap_err();
        assert!(stale.to_string().contains("the file changed"), "{stale}");
        assert!(with_case_removed(&text, 1, "style rules?", file).is_err());

        let text = with_case_removed(&text, 0, "style rules?", file).unwrap();
        let cases = parse_cases(&text, file).unwrap();
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].prompt, "ship");
        assert!(text.starts_with("# my cases\n"), "{text}");
        let refused = CaseSpec {
            prompt: "ship".into(),
            expect: vec![],
            reject: vec![],
            within: None,
        };
        assert!(with_case_replaced(&text, 0, "ship", &refused, file).is_err());
    }
}

//! Searching through the workspace: every scope labelled, the watcher's caches, retired
//! memories marked, retrieval cases saved and run.

use super::*;

#[test]
fn search_over_everything_labels_each_hit_with_its_project_and_shadows_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let (a, b) = (
        repo(&tmp.path().join("alpha")),
        repo(&tmp.path().join("beta")),
    );
    ws.save(
        &ws.place_at(&a),
        Scope::Project,
        draft(
            "deploy-steps",
            "How alpha deploys with helm",
            "helm upgrade",
        ),
        at(1),
    )
    .unwrap();
    ws.save(
        &ws.place_at(&b),
        Scope::Project,
        draft("deploy-steps", "How beta deploys with helm", "helm install"),
        at(2),
    )
    .unwrap();
    ws.save(
        &ws.place_of(None).unwrap(),
        Scope::User,
        draft("deploy-steps", "My usual helm deploy", "helm"),
        at(3),
    )
    .unwrap();

    let options = SearchOptions {
        strategy: Some(ambry_store::config::Strategy::Bm25),
        ..Default::default()
    };
    let all = ws
        .search("helm deploy", Coverage::Everything, &options)
        .unwrap();
    let mut labels: Vec<(Scope, Option<String>)> = all
        .hits
        .iter()
        .map(|h| (h.hit.scope, h.project.clone()))
        .collect();
    labels.sort();
    let alpha = ws.place_at(&a).project().unwrap().slug.clone();
    let beta = ws.place_at(&b).project().unwrap().slug.clone();
    let mut expected = vec![
        (Scope::User, None),
        (Scope::Project, Some(alpha.clone())),
        (Scope::Project, Some(beta)),
    ];
    expected.sort();
    assert_eq!(labels, expected);

    // As alpha's agent sees it: alpha's memory shadows the user's namesake; beta is not there.
    let store = ws.place_at(&a);
    let agent = ws
        .search(
            "helm deploy",
            Coverage::Agent(&store, ScopeFilter::All),
            &options,
        )
        .unwrap();
    assert_eq!(agent.hits.len(), 1);
    assert_eq!(agent.hits[0].project.as_deref(), Some(alpha.as_str()));
}

#[test]
fn a_workspace_trusting_its_watcher_searches_what_it_just_saved_with_that_version_s_evidence() {
    // The app's overlay: everything, fifty rows, evident hits only, the corpus kept between
    // keystrokes; a save, an edit or a forget through the workspace is seen by the next search.
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let user = ws.place_of(None).unwrap();
    ws.save(
        &user,
        Scope::User,
        draft("deploy-steps", "How we deploy", "helm upgrade"),
        at(1),
    )
    .unwrap();
    ws.save(
        &user,
        Scope::User,
        draft("tabs", "Indentation", "tabs, never spaces"),
        at(1),
    )
    .unwrap();
    ws.trust_watcher();
    let options = SearchOptions {
        limit: Some(50),
        strategy: Some(ambry_store::config::Strategy::Bm25),
        only_evident: true,
        today: None,
    };
    let found = |query: &str| -> Vec<(String, usize)> {
        let results = ws.search(query, Coverage::Everything, &options).unwrap();
        results
            .hits
            .iter()
            .map(|h| (h.hit.name.clone(), h.evidence.matched_terms))
            .collect()
    };
    assert_eq!(
        found("helm rollback"),
        vec![("deploy-steps".to_string(), 1)]
    );
    ws.save(
        &user,
        Scope::User,
        draft(
            "deploy-steps",
            "How we deploy",
            "helm upgrade; helm rollback on failure",
        ),
        at(2),
    )
    .unwrap();
    assert_eq!(
        found("helm rollback"),
        vec![("deploy-steps".to_string(), 2)],
        "the edit's words count at once"
    );
    ws.save(
        &user,
        Scope::User,
        draft("rollback-drill", "Quarterly rollback drill", "practice"),
        at(3),
    )
    .unwrap();
    assert_eq!(
        found("helm rollback"),
        vec![
            ("deploy-steps".to_string(), 2),
            ("rollback-drill".to_string(), 1)
        ]
    );
    ws.forget(&user, Scope::User, "deploy-steps", at(4))
        .unwrap();
    assert_eq!(
        found("helm rollback"),
        vec![("rollback-drill".to_string(), 1)]
    );
}

/// A home without the model holding `deploy-old` and `deploy-new`, both about deploying.
fn two_deploy_memories() -> (tempfile::TempDir, Arc<Workspace>, ambry_core::Place) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let store = ws.place_of(None).unwrap();
    for name in ["deploy-old", "deploy-new"] {
        ws.create(
            &store,
            Scope::User,
            draft(name, "How to deploy", "make deploy"),
            at(0),
        )
        .unwrap();
    }
    (tmp, ws, store)
}

/// Search finds a superseded or expired memory, marked so a person sees it is no longer given
/// to agents.
#[test]
fn search_marks_superseded_and_expired_memories() {
    let (_tmp, ws, store) = two_deploy_memories();
    ws.review_supersede(&store, Scope::User, "deploy-old", "deploy-new", at(1))
        .unwrap();
    let options = SearchOptions {
        strategy: Some(ambry_store::config::Strategy::Bm25),
        today: Some(at(2).date_naive()),
        ..Default::default()
    };
    let hits = ws
        .search(
            "deploy",
            Coverage::Agent(&store, ScopeFilter::All),
            &options,
        )
        .unwrap()
        .hits;
    let retired = |name: &str| {
        hits.iter()
            .find(|h| h.hit.name == name)
            .unwrap_or_else(|| panic!("{name} not found"))
            .retired
            .clone()
    };
    assert_eq!(
        retired("deploy-old"),
        Some(ambry_store::memory::Retirement::Superseded {
            by: "deploy-new".into()
        })
    );
    assert_eq!(retired("deploy-new"), None);
    let rows = ws.list_with_usage(&store, ScopeFilter::All, at(2)).unwrap();
    assert!(rows.iter().any(
        |r| r.name == "deploy-old" && r.retired.as_deref() == Some("superseded by deploy-new")
    ));
    assert!(rows
        .iter()
        .any(|r| r.name == "deploy-new" && r.retired.is_none()));
}

/// The overlay searches per keystroke: once the corpus is warm, whether a hit is retired comes
/// from what the corpus cache read, not from reading each hit's file again; the watcher's
/// report of a change renews it, and an `expires` day is judged against the day each search
/// passes in.
#[test]
fn a_warm_search_marks_retired_hits_from_the_corpus_cache_without_reading_their_files() {
    let (_tmp, ws, _) = two_deploy_memories();
    ws.trust_watcher();
    let retired_on = |today: chrono::NaiveDate| {
        let options = SearchOptions {
            strategy: Some(ambry_store::config::Strategy::Bm25),
            today: Some(today),
            ..Default::default()
        };
        let hits = ws
            .search("deploy", Coverage::Everything, &options)
            .unwrap()
            .hits;
        hits.iter()
            .find(|h| h.hit.name == "deploy-old")
            .expect("deploy-old is found")
            .retired
            .clone()
    };
    let day = |d: u32| chrono::NaiveDate::from_ymd_opt(2026, 11, d).unwrap();
    assert_eq!(retired_on(day(2)), None);

    // A hand edit in place, which leaves the directory's stamp where it was (set a second
    // back, as a change long past): only the watcher's report makes it seen.
    let dir = ws.home().user_memory_dir();
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    let settle = || {
        std::fs::File::open(&dir)
            .unwrap()
            .set_modified(past)
            .unwrap()
    };
    settle();
    assert_eq!(
        retired_on(day(2)),
        None,
        "the cache vouches for the directory"
    );
    let path = dir.join("deploy-old.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let superseded = text.replacen(
        "---\n",
        "---\nsuperseded_by: deploy-new\nexpires: 2026-11-20\n",
        1,
    );
    assert_ne!(superseded, text);
    std::fs::write(&path, superseded).unwrap();
    settle();
    assert_eq!(
        retired_on(day(2)),
        None,
        "a warm search read the hit's file instead of the cache"
    );

    ws.memory_changed(&ambry_store::memory::MemoryChange::Saved {
        scope: Scope::User,
        project: None,
        name: "deploy-old".into(),
    });
    assert_eq!(
        retired_on(day(2)),
        Some(ambry_store::memory::Retirement::Superseded {
            by: "deploy-new".into()
        })
    );

    // Expiry alone, judged on each search's day from the cached keys.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("superseded_by: deploy-new\n", "")).unwrap();
    ws.memory_changed(&ambry_store::memory::MemoryChange::Saved {
        scope: Scope::User,
        project: None,
        name: "deploy-old".into(),
    });
    assert_eq!(retired_on(day(19)), None);
    assert_eq!(
        retired_on(day(20)),
        Some(ambry_store::memory::Retirement::Expired { on: day(20) })
    );
}

/// The compose preview's "save as test": a case lands in the scope it belongs to and the next
/// run judges it like any hand-written one; a name that is not a memory is refused, nothing written.
#[test]
fn a_saved_retrieval_case_goes_where_its_memories_live_and_is_run_from_there() {
    use ambry_compose::compose::cases::CaseSpec;
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let root = repo(&tmp.path().join("shop"));
    let project = ws.add_project(&root).unwrap();
    let in_project = ws.place_of(Some(&project.slug)).unwrap();
    ws.save(
        &in_project,
        Scope::User,
        draft(
            "deploy-steps",
            "How to ship a release",
            "Tag, build, roll out.",
        ),
        at(1),
    )
    .unwrap();
    ws.save(
        &in_project,
        Scope::Project,
        draft(
            "db-migrations",
            "Database migrations",
            "Run sqlx migrate before the tests.",
        ),
        at(2),
    )
    .unwrap();
    assert!(
        ws.memory_tests_for(Some(&project.slug)).unwrap().is_none(),
        "no cases yet"
    );

    let case = |prompt: &str, expect: &[&str]| CaseSpec {
        prompt: prompt.into(),
        expect: expect.iter().map(|s| s.to_string()).collect(),
        reject: vec![],
        within: None,
    };
    let user_file = ws
        .add_memory_test(
            Some(&project.slug),
            case("how do we ship a release", &["deploy-steps"]),
        )
        .unwrap();
    assert_eq!(
        user_file,
        in_project.dir(Scope::User).unwrap().join("tests.toml")
    );
    let project_file = ws
        .add_memory_test(
            Some(&project.slug),
            case("migrate the database", &["db-migrations", "deploy-steps"]),
        )
        .unwrap();
    assert_eq!(
        project_file,
        in_project.dir(Scope::Project).unwrap().join("tests.toml"),
        "it expects a project memory"
    );

    let err = ws
        .add_memory_test(Some(&project.slug), case("anything", &["no-such-memory"]))
        .unwrap_err();
    assert_eq!(err.code(), "not_found", "{err}");
    assert_eq!(
        std::fs::read_to_string(&user_file)
            .unwrap()
            .matches("[[case]]")
            .count(),
        1,
        "nothing written for the refused case"
    );

    let report = ws
        .memory_tests_for(Some(&project.slug))
        .unwrap()
        .expect("two cases");
    assert_eq!((report.passed + report.failed, report.cases.len()), (2, 2));
    let user_only = ws
        .memory_tests_for(None)
        .unwrap()
        .expect("the user scope's case");
    assert_eq!(
        user_only.cases.len(),
        1,
        "the project's case runs only where the project's memories are"
    );
    assert_eq!(
        user_only.cases[0].expected[0].rank,
        Some(1),
        "{user_only:?}"
    );
}

//! The workspace's configuration, projects, reindex and agents' instruction files.

use super::*;

#[test]
fn the_configuration_is_reread_when_the_file_changes_and_a_bad_file_is_an_error_every_time() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let ws = workspace(&home, &tmp.path().join("no-models"));
    assert_eq!(ws.config().unwrap().retrieval.top_k, 10);
    std::fs::write(home.join("config.toml"), "[retrieval]\ntop_k = 3\n").unwrap();
    assert_eq!(ws.config().unwrap().retrieval.top_k, 3);
    std::fs::write(home.join("config.toml"), "[retrieval]\ntop_k = \"three\"\n").unwrap();
    for _ in 0..2 {
        let err = ws.config().unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }
}

#[test]
fn an_unknown_project_and_a_project_without_a_root_are_structured_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let Err(err) = ws.place_of(Some("nope-12345678")) else {
        panic!("an unknown slug must be refused")
    };
    assert_eq!(err.code(), "unknown_project");
    let report = ambry_core::report(&err);
    assert_eq!(report.code, "unknown_project");
    assert!(
        report.message.contains("nope-12345678"),
        "{}",
        report.message
    );
}

#[test]
fn reindex_covers_the_user_scope_every_known_project_and_the_callers_own() {
    let models = support::model_paths();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    // Saved without a model: no vectors yet.
    let bare = Workspace::new(
        AmbryHome::new(&home),
        LaunchEnv::with_models_dir(tmp.path().join("no-models")),
    );
    let (a, b, c) = (
        repo(&tmp.path().join("a")),
        repo(&tmp.path().join("b")),
        repo(&tmp.path().join("c")),
    );
    bare.save(
        &bare.place_at(&a),
        Scope::Project,
        draft("fact-a", "d", "alpha"),
        at(1),
    )
    .unwrap();
    bare.save(
        &bare.place_at(&b),
        Scope::Project,
        draft("fact-b", "d", "beta"),
        at(2),
    )
    .unwrap();
    bare.save(
        &bare.place_of(None).unwrap(),
        Scope::User,
        draft("fact-u", "d", "user"),
        at(3),
    )
    .unwrap();
    let vectors = || {
        walk(&home)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "vec"))
            .count()
    };
    assert_eq!(vectors(), 0);

    let ws = Workspace::with_models(AmbryHome::new(&home), models.models_dir());
    // Run from a third repository that has no memories of its own.
    let third = ws.project_at(&c).unwrap();
    let mut seen = 0;
    let report = ws
        .reindex_embeddings(Some(&third), &mut |p| seen = seen.max(p.total))
        .unwrap();
    assert_eq!(report.created, 3, "{report:?}");
    assert_eq!(seen, 3);
    assert_eq!(vectors(), 3);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn instruction_files_are_found_where_the_agents_look_and_edited_through_the_workspace() {
    use ambry_compose::instructions::InstructionKind;
    let tmp = tempfile::tempdir().unwrap();
    let user_home = tmp.path().join("me");
    let claude_dir = tmp.path().join("claude-config");
    let env = LaunchEnv::from_lookup(
        |k| (k == "CLAUDE_CONFIG_DIR").then(|| claude_dir.display().to_string()),
        Some(user_home.clone()),
    );
    let ws = Workspace::new(AmbryHome::new(tmp.path().join("home")), env);
    let root = repo(&tmp.path().join("shop"));
    std::fs::write(root.join("AGENTS.md"), "Run `make test` before a commit.\n").unwrap();
    let project = ws.add_project(&root).unwrap();

    let files = ws.instruction_files(Some(&project.slug)).unwrap();
    let kinds: Vec<_> = files.iter().map(|f| (f.kind, f.exists)).collect();
    assert_eq!(
        kinds,
        [
            (InstructionKind::UserClaude, false),
            (InstructionKind::UserAgents, false),
            (InstructionKind::ProjectClaude, false),
            (InstructionKind::ProjectDotClaude, false),
            (InstructionKind::ProjectLocalClaude, false),
            (InstructionKind::ProjectAgents, true),
        ]
    );
    assert_eq!(
        files[0].path,
        claude_dir.join("CLAUDE.md"),
        "CLAUDE_CONFIG_DIR is where Claude Code looks"
    );
    assert_eq!(
        files[1].path,
        user_home.join(".codex/AGENTS.md"),
        "Codex's own AGENTS.md for every project"
    );

    let view = ws
        .instruction(Some(&project.slug), InstructionKind::ProjectAgents)
        .unwrap();
    assert_eq!(view.text, "Run `make test` before a commit.\n");
    let saved = ws
        .save_instruction(
            Some(&project.slug),
            InstructionKind::ProjectAgents,
            "Run `make check`.\n",
            Some(Some(&view.text)),
            at(1),
        )
        .unwrap();
    assert!(
        saved
            .archived
            .as_ref()
            .is_some_and(|p| p.starts_with(ws.home().root())),
        "{saved:?}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("AGENTS.md")).unwrap(),
        "Run `make check`.\n"
    );
    assert_eq!(
        ws.instruction(Some(&project.slug), InstructionKind::ProjectAgents)
            .unwrap()
            .archived_versions,
        1
    );

    ws.save_instruction(
        None,
        InstructionKind::UserClaude,
        "Answer briefly.\n",
        Some(None),
        at(2),
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(claude_dir.join("CLAUDE.md")).unwrap(),
        "Answer briefly.\n"
    );
    assert!(
        !user_home.join(".claude").exists(),
        "nothing written where Claude Code does not look"
    );

    assert_eq!(
        ws.instruction_files(None).unwrap().len(),
        2,
        "without a project only the user-wide files (CLAUDE.md, Codex's AGENTS.md)"
    );
    assert_eq!(
        ws.instruction(None, InstructionKind::ProjectClaude)
            .unwrap_err()
            .code(),
        "no_project"
    );
    assert_eq!(
        ws.instruction_files(Some("nope-00000000"))
            .unwrap_err()
            .code(),
        "unknown_project"
    );
    let homeless = Workspace::new(
        AmbryHome::new(tmp.path().join("home")),
        LaunchEnv::default(),
    );
    assert_eq!(
        homeless.instruction_files(None).unwrap_err().code(),
        "no_home"
    );
}

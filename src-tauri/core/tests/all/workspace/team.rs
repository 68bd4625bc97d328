//! Team memory (DESIGN §15) through the workspace: written in the repository's working tree
//! beside what git ignores, given to agents only once the person trusts it, shadowed by the
//! person's own project memory, moved with its history, and never read through a link.

use super::*;
use ambry_core::{ContextEvent, ContextRequest};

fn start(session: &str) -> ContextRequest {
    ContextRequest {
        event: ContextEvent::SessionStart,
        source: Some("startup".into()),
        ..turn(session, "")
    }
}

#[test]
fn team_memory_is_written_in_the_repository_and_given_only_once_trusted() {
    let (_tmp, ws, project, store) = in_a_repository();
    ws.save(
        &store,
        Scope::Team,
        draft(
            "deploy-freeze",
            "When deploys may run",
            "Deploys are frozen on Fridays after noon.",
        ),
        at(0),
    )
    .unwrap();
    let file = project.join(".ambry/memory/deploy-freeze.md");
    assert!(file.is_file(), "the team memory is in the working tree");
    let ignore = std::fs::read_to_string(project.join(".ambry/memory/.gitignore")).unwrap();
    for local in ["MEMORY.md", "*.vec", ".archive/", ".lock"] {
        assert!(
            ignore.lines().any(|l| l == local),
            "{local} stays out of commits: {ignore}"
        );
    }
    // git sees the memory and the .gitignore, nothing else Ambry wrote.
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(&project)
        .output()
        .unwrap();
    let status = String::from_utf8(status.stdout).unwrap();
    let mut listed: Vec<&str> = status.lines().map(|l| l[3..].trim()).collect();
    listed.sort();
    assert_eq!(
        listed,
        [".ambry/memory/.gitignore", ".ambry/memory/deploy-freeze.md"],
        "{status}"
    );

    // Not trusted: not given, and the map says once how many wait and how to trust them.
    let composed = ws
        .compose_at(
            &project,
            &turn("s1", "can we deploy on friday afternoon?"),
            at(1),
        )
        .unwrap();
    assert!(
        !composed.text.contains("frozen on Fridays"),
        "{}",
        composed.text
    );
    let map = ws.compose_at(&project, &start("s1"), at(2)).unwrap();
    assert!(
        map.text.contains("1 team memory of this repository") && map.text.contains("ambry trust"),
        "{}",
        map.text
    );

    let trust = ws.set_team_trust(&project, true, at(3)).unwrap();
    assert!(trust.trusted && trust.memories == 1);
    let composed = ws
        .compose_at(
            &project,
            &turn("s2", "can we deploy on friday afternoon?"),
            at(4),
        )
        .unwrap();
    assert!(
        composed.text.contains("frozen on Fridays"),
        "{}",
        composed.text
    );
    assert!(
        composed.selected.iter().any(|s| s.scope == Scope::Team),
        "labelled team"
    );
    let map = ws.compose_at(&project, &start("s3"), at(5)).unwrap();
    assert!(!map.text.contains("ambry trust"), "trusted: nothing waits");

    // The person's own project memory of that name shadows the team's.
    ws.save(
        &store,
        Scope::Project,
        draft(
            "deploy-freeze",
            "When deploys may run",
            "I deploy on Fridays with a second reviewer.",
        ),
        at(6),
    )
    .unwrap();
    let composed = ws
        .compose_at(
            &project,
            &turn("s4", "can we deploy on friday afternoon?"),
            at(7),
        )
        .unwrap();
    assert!(
        composed.text.contains("second reviewer") && !composed.text.contains("after noon"),
        "{}",
        composed.text
    );

    // Revoked: no longer given.
    ws.set_team_trust(&project, false, at(8)).unwrap();
    ws.forget(&store, Scope::Project, "deploy-freeze", at(9))
        .unwrap();
    let composed = ws
        .compose_at(
            &project,
            &turn("s5", "can we deploy on friday afternoon?"),
            at(10),
        )
        .unwrap();
    assert!(!composed.text.contains("frozen on Fridays"));
}

#[test]
fn promote_and_demote_move_a_memory_with_its_history() {
    let (_tmp, ws, project, store) = in_a_repository();
    ws.save(
        &store,
        Scope::Project,
        draft("review-rules", "How we review", "Two approvals."),
        at(0),
    )
    .unwrap();
    ws.save(
        &store,
        Scope::Project,
        draft(
            "review-rules",
            "How we review",
            "Two approvals; one from the owner.",
        ),
        at(1),
    )
    .unwrap();
    let promoted = ws
        .move_to_scope(&store, "review-rules", Scope::Team, at(2))
        .unwrap();
    assert_eq!(promoted.outcome.memory.scope, Scope::Team);
    assert!(project.join(".ambry/memory/review-rules.md").is_file());
    assert!(
        ws.get(&store, Some(Scope::Project), "review-rules")
            .is_err(),
        "moved, not copied"
    );
    let below = ambry_store::memory::Store::new(ws.home().clone(), store.project().cloned());
    let history: Vec<String> = below
        .versions(Scope::Team, Some("review-rules"))
        .unwrap()
        .iter()
        .map(|v| {
            below
                .version_text(Scope::Team, "review-rules", &v.version)
                .unwrap()
        })
        .collect();
    assert!(
        history.iter().any(|t| t.contains("Two approvals.\n")),
        "the earlier version came along: {history:?}"
    );
    assert!(
        promoted.outcome.memory.body.contains("one from the owner"),
        "the current text is the team's file"
    );
    // A name taken in the target scope is refused before anything moves.
    ws.save(
        &store,
        Scope::Project,
        draft("review-rules", "Mine", "My own variant."),
        at(3),
    )
    .unwrap();
    let err = ws
        .move_to_scope(&store, "review-rules", Scope::Team, at(4))
        .unwrap_err();
    assert_eq!(err.code().as_str(), "already_exists");
    assert!(ws.get(&store, Some(Scope::Project), "review-rules").is_ok());
    ws.forget(&store, Scope::Project, "review-rules", at(5))
        .unwrap();
    let demoted = ws
        .move_to_scope(&store, "review-rules", Scope::Project, at(6))
        .unwrap();
    assert_eq!(demoted.outcome.memory.scope, Scope::Project);
    assert!(!project.join(".ambry/memory/review-rules.md").exists());
}

#[test]
fn a_team_directory_reached_through_a_link_is_never_read_or_written() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let project = repo(&tmp.path().join("repo"));
    // A cloned repository whose .ambry points at a folder of this machine.
    let elsewhere = tmp.path().join("elsewhere/memory");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(
        elsewhere.join("private.md"),
        "---\nname: private\ntype: user\ndescription: d\n---\nPRIVATE-TEXT\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(tmp.path().join("elsewhere"), project.join(".ambry")).unwrap();
    let store = ws.place_at(&project);
    ws.set_team_trust(&project, true, at(0)).unwrap_err();
    ambry_store::memory::team::set_trusted(
        ws.home(),
        &store.project().unwrap().slug,
        &project,
        true,
        at(0),
    )
    .unwrap();
    let composed = ws
        .compose_at(&project, &turn("s", "private text"), at(1))
        .unwrap();
    assert!(!composed.text.contains("PRIVATE-TEXT"));
    let err = ws
        .save(&store, Scope::Team, draft("x", "d", "b"), at(2))
        .unwrap_err();
    assert!(err.to_string().contains("link"), "{err}");
    assert!(!elsewhere.join("x.md").exists());
}

#[test]
fn what_arrives_through_git_is_listed_as_changed_by_the_team_until_seen() {
    let (_tmp, ws, project, store) = in_a_repository();
    ws.save(
        &store,
        Scope::Team,
        draft("on-call", "Who is on call", "Ana this week."),
        at(0),
    )
    .unwrap();
    ws.set_team_trust(&project, true, at(1)).unwrap();
    let changed = |ws: &Workspace| -> Vec<(String, String)> {
        ws.review(&store, at(9))
            .unwrap()
            .into_iter()
            .filter_map(|f| match f {
                ambry_core::Finding::ChangedByTeam { memory, before } => {
                    Some((memory.name, before))
                }
                _ => None,
            })
            .collect()
    };
    assert!(
        changed(&ws).is_empty(),
        "what the person trusted and wrote is seen"
    );
    // A pull: one memory changed, one new.
    let dir = project.join(".ambry/memory");
    let text = std::fs::read_to_string(dir.join("on-call.md"))
        .unwrap()
        .replace("Ana this week.", "Bo this week.");
    std::fs::write(dir.join("on-call.md"), text).unwrap();
    std::fs::write(dir.join("freeze.md"), "---\nname: freeze\ntype: project\ndescription: Deploy freeze\n---\nNo deploys on Friday.\n").unwrap();
    ws.memories_written();
    let mut found = changed(&ws);
    found.sort();
    assert_eq!(
        found,
        [
            ("freeze".to_string(), String::new()),
            ("on-call".to_string(), "Ana this week.\n".to_string())
        ]
    );
    ws.team_seen(&store, "on-call").unwrap();
    ws.team_seen(&store, "freeze").unwrap();
    assert!(changed(&ws).is_empty());
    // The person's own edit through Ambry is theirs, not the team's.
    ws.save(
        &store,
        Scope::Team,
        draft("on-call", "Who is on call", "Cy this week."),
        at(10),
    )
    .unwrap();
    assert!(changed(&ws).is_empty());
}

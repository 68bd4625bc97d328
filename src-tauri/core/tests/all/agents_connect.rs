//! `connect` / `disconnect` on temporary homes: what they add, what they keep byte for byte,
//! idempotence, backups, and refusal of files that do not parse.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use ambry_compose::agents::{self, Action, Agent, AgentEnv, AmbryCommand, PartState};

const SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/lint-prompt"
          }
        ]
      }
    ],
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "cleanupPeriodDays": 14,
  "permissions": {
    "allow": [
      "Bash(git status)"
    ]
  }
}
"#;

const CLAUDE_STATE: &str = r#"{
  "numStartups": 42,
  "mcpServers": {
    "docs": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "docs-mcp"
      ],
      "env": {}
    }
  },
  "projects": {
    "/home/u/repo": {
      "allowedTools": []
    }
  },
  "oauthAccount": {
    "emailAddress": "u@example.com"
  }
}
"#;

const CODEX_CONFIG: &str = "# Codex settings, hand-tuned\nmodel = \"gpt-5-codex\"  # the fast one\napproval_policy = \"on-request\"\n\n[mcp_servers.docs]\n# docs server\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\n\n[profiles.deep]\nmodel_reasoning_effort = \"high\"\n";

fn now() -> chrono::DateTime<chrono::Utc> {
    "2026-11-23T10:00:00Z".parse().unwrap()
}

fn env(home: &Path) -> AgentEnv {
    AgentEnv::new(home.to_path_buf(), None, None)
}

fn ambry(home: &Path) -> AmbryCommand {
    let bin = home.join("bin/ambry");
    fs::create_dir_all(bin.parent().unwrap()).unwrap();
    fs::write(&bin, "#!/bin/sh\n").unwrap();
    AmbryCommand::new(bin.display().to_string())
}

fn run(
    agent: Agent,
    action: Action,
    env: &AgentEnv,
    ambry: &AmbryCommand,
    dry_run: bool,
) -> agents::ConnectReport {
    let record_path = env.home.join(".ambry").join(agents::RECORD_FILE);
    let record = agents::ConnectRecord::read(&record_path);
    let plan = agents::plan(
        agent,
        action,
        env,
        ambry,
        agents::ConnectOptions::default(),
        &record,
    )
    .unwrap();
    agents::apply(plan, dry_run, now(), &record_path).unwrap()
}

fn backups(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".ambry-backup-"))
        .collect();
    names.sort();
    names
}

#[test]
fn claude_round_trip_keeps_everything_else_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    fs::create_dir_all(home.join(".claude")).unwrap();
    fs::write(home.join(".claude/settings.json"), SETTINGS).unwrap();
    fs::write(home.join(".claude.json"), CLAUDE_STATE).unwrap();
    fs::set_permissions(home.join(".claude.json"), fs::Permissions::from_mode(0o600)).unwrap();
    let (env, ambry) = (env(home), ambry(home));

    let dry = run(Agent::Claude, Action::Connect, &env, &ambry, true);
    assert!(dry.changed && dry.files.iter().all(|f| f.backup.is_none()));
    assert!(
        dry.describe().contains("+            \"command\": \""),
        "{}",
        dry.describe()
    );
    assert_eq!(
        fs::read_to_string(home.join(".claude/settings.json")).unwrap(),
        SETTINGS,
        "a dry run writes nothing"
    );
    assert!(backups(home).is_empty());

    let report = run(Agent::Claude, Action::Connect, &env, &ambry, false);
    assert!(report.changed);
    let settings: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(home.join(".claude/settings.json")).unwrap())
            .unwrap();
    let groups = settings["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "the person's own hook stays");
    assert_eq!(groups[0]["hooks"][0]["command"], "~/bin/lint-prompt");
    assert_eq!(
        groups[1]["hooks"][0]["command"],
        format!("{} compose --hook claude", ambry.program)
    );
    assert_eq!(
        settings["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    let state: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(
        state["mcpServers"]["ambry"],
        serde_json::json!({"type": "stdio", "command": ambry.program, "args": ["mcp"]})
    );
    assert_eq!(state["mcpServers"]["docs"]["command"], "npx");
    assert_eq!(
        fs::metadata(home.join(".claude.json"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600,
        "credentials file stays private"
    );
    let first_backups = backups(home);
    assert_eq!(first_backups.len(), 1, "{first_backups:?}");
    assert_eq!(
        fs::read_to_string(home.join(&first_backups[0])).unwrap(),
        CLAUDE_STATE
    );
    assert_eq!(backups(&home.join(".claude")).len(), 1);

    let status = agents::connection(Agent::Claude, &env);
    assert!(status.connected(), "{status:?}");
    assert!(
        status.notes.iter().any(|n| n.contains("14 days")),
        "{:?}",
        status.notes
    );

    let again = run(Agent::Claude, Action::Connect, &env, &ambry, false);
    assert!(!again.changed, "{}", again.describe());
    assert_eq!(
        backups(home),
        first_backups,
        "an unchanged connect makes no backup"
    );

    let off = run(Agent::Claude, Action::Disconnect, &env, &ambry, false);
    assert!(off.changed);
    assert_eq!(
        fs::read_to_string(home.join(".claude/settings.json")).unwrap(),
        SETTINGS
    );
    assert_eq!(
        fs::read_to_string(home.join(".claude.json")).unwrap(),
        CLAUDE_STATE
    );
    assert!(!run(Agent::Claude, Action::Disconnect, &env, &ambry, false).changed);
}

#[test]
fn claude_connect_creates_missing_files_and_honours_claude_config_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let config_dir = tmp.path().join("custom-claude");
    let env = AgentEnv::new(tmp.path().join("home"), Some(config_dir.clone()), None);
    let ambry = ambry(tmp.path());
    run(Agent::Claude, Action::Connect, &env, &ambry, false);
    assert!(config_dir.join("settings.json").is_file());
    assert!(config_dir.join(".claude.json").is_file());
    assert!(!tmp.path().join("home/.claude.json").exists());
    run(Agent::Claude, Action::Disconnect, &env, &ambry, false);
    assert!(
        !config_dir.join("settings.json").exists() && !config_dir.join(".claude.json").exists(),
        "files connect created go once they hold nothing else"
    );
}

/// Connected, but nothing here runs the agent: configured, not found (a warning), until its
/// program is in the search path.
#[test]
fn a_connection_without_the_agents_program_is_only_configured() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let env = env(home);
    run(Agent::Claude, Action::Connect, &env, &ambry(home), false);
    let status = agents::connection(Agent::Claude, &env);
    assert!(status.connected(), "{status:?}");
    assert_eq!(status.program, "claude");
    assert!(!status.program_found, "{status:?}");
    let check = agents::agent_checks(&env).remove(0);
    assert_eq!(check.status, ambry_store::doctor::Status::Warn, "{check:?}");
    assert!(
        check
            .detail
            .starts_with("configured (hook: installed; MCP server: installed)")
            && check.detail.contains("`claude` not found on PATH"),
        "{check:?}"
    );

    let bin = home.join("agents-bin");
    fs::create_dir_all(&bin).unwrap();
    fs::write(bin.join("claude"), "#!/bin/sh\n").unwrap();
    fs::set_permissions(bin.join("claude"), fs::Permissions::from_mode(0o755)).unwrap();
    let env = env.with_search_path(Some(format!("/nowhere:{}", bin.display()).as_str()));
    assert!(agents::connection(Agent::Claude, &env).program_found);
    let check = agents::agent_checks(&env).remove(0);
    assert_eq!(check.status, ambry_store::doctor::Status::Ok, "{check:?}");
    assert!(check.detail.starts_with("connected ("), "{check:?}");
}

#[test]
fn a_moved_binary_is_reported_and_reconnect_repoints_it() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env(tmp.path());
    let old = AmbryCommand::new(tmp.path().join("gone/ambry").display().to_string());
    run(Agent::Claude, Action::Connect, &env, &old, false);
    let status = agents::connection(Agent::Claude, &env);
    assert!(
        matches!(status.hook, PartState::BrokenBinary { .. }),
        "{status:?}"
    );
    let ambry = ambry(tmp.path());
    let report = run(Agent::Claude, Action::Connect, &env, &ambry, false);
    assert!(
        report.describe().contains("(was `"),
        "{}",
        report.describe()
    );
    assert!(agents::connection(Agent::Claude, &env).connected());
    let settings = fs::read_to_string(env.claude_settings()).unwrap();
    assert_eq!(
        settings.matches("compose --hook claude").count(),
        3,
        "one SessionStart, one UserPromptSubmit and one PreToolUse hook, re-pointed, not duplicated: {settings}"
    );
}

#[test]
fn a_file_that_does_not_parse_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    fs::create_dir_all(home.join(".claude")).unwrap();
    fs::write(home.join(".claude/settings.json"), SETTINGS).unwrap();
    let broken = "{\n  \"numStartups\": 1,\n";
    fs::write(home.join(".claude.json"), broken).unwrap();
    let err = agents::plan(
        Agent::Claude,
        Action::Connect,
        &env(home),
        &ambry(home),
        agents::ConnectOptions::default(),
        &agents::ConnectRecord::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains(".claude.json does not parse"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(home.join(".claude.json")).unwrap(),
        broken
    );
    assert_eq!(
        fs::read_to_string(home.join(".claude/settings.json")).unwrap(),
        SETTINGS,
        "the other file is untouched too"
    );

    fs::create_dir_all(home.join(".codex")).unwrap();
    fs::write(home.join(".codex/config.toml"), "model = \n").unwrap();
    let err = agents::plan(
        Agent::Codex,
        Action::Connect,
        &env(home),
        &ambry(home),
        agents::ConnectOptions::default(),
        &agents::ConnectRecord::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("config.toml does not parse"),
        "{err}"
    );
    assert!(!home.join(".codex/hooks.json").exists());
}

#[test]
fn codex_round_trip_keeps_comments_and_order() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    fs::create_dir_all(home.join(".codex")).unwrap();
    fs::write(home.join(".codex/config.toml"), CODEX_CONFIG).unwrap();
    let hooks = "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"say done\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    fs::write(home.join(".codex/hooks.json"), hooks).unwrap();
    let (env, ambry) = (env(home), ambry(home));

    let report = run(Agent::Codex, Action::Connect, &env, &ambry, false);
    assert!(report.changed);
    let config = fs::read_to_string(home.join(".codex/config.toml")).unwrap();
    let mut kept = config
        .lines()
        .filter(|l| !l.is_empty() && CODEX_CONFIG.lines().any(|o| o == *l));
    assert!(
        CODEX_CONFIG
            .lines()
            .filter(|o| !o.is_empty())
            .all(|o| kept.next() == Some(o)),
        "every original line stays, in order:\n{config}"
    );
    let parsed: toml::Table = toml::from_str(&config).unwrap();
    assert_eq!(
        parsed["mcp_servers"]["ambry"]["command"].as_str(),
        Some(ambry.program.as_str())
    );
    assert_eq!(
        parsed["mcp_servers"]["ambry"]["args"].as_array().unwrap()[0].as_str(),
        Some("mcp")
    );
    assert!(
        parsed.get("features").is_none(),
        "Codex runs hooks by default; connect adds no switch:\n{config}"
    );
    assert!(
        report.notes.iter().any(|n| n.contains("/hooks")),
        "connect tells the person Codex asks them to trust the hook: {:?}",
        report.notes
    );
    let hooks_now: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(home.join(".codex/hooks.json")).unwrap()).unwrap();
    assert_eq!(
        hooks_now["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
        format!("{} compose --hook codex", ambry.program)
    );
    assert_eq!(
        hooks_now["hooks"]["Stop"][0]["hooks"][0]["command"],
        "say done"
    );
    assert!(agents::connection(Agent::Codex, &env).connected());

    let n = backups(&home.join(".codex")).len();
    assert!(!run(Agent::Codex, Action::Connect, &env, &ambry, false).changed);
    assert_eq!(backups(&home.join(".codex")).len(), n);

    run(Agent::Codex, Action::Disconnect, &env, &ambry, false);
    assert_eq!(
        fs::read_to_string(home.join(".codex/config.toml")).unwrap(),
        CODEX_CONFIG
    );
    assert_eq!(
        fs::read_to_string(home.join(".codex/hooks.json")).unwrap(),
        hooks
    );
}

//! Ignored memories (DESIGN §14, §16): a memory that was in a session's context and a later tool
//! call of that session did what it says not to — the complaint "it had the memory and ignored
//! it", found from the ledger and the session's transcript.
//!
//! Owns: what counts as contradicting a memory — its rule (when it has one that was not on, so
//! nothing stopped the call), or else a command its text names as wrong, read conservatively: a
//! code span right after "never / don't / do not / avoid (run|use)" or after "instead of", and a
//! bare tool name in "instead of X" or "never use X" — and the rule to offer (the memory's own,
//! or one built from that command, off until the person turns it on).
//! Deliberately does not: read the ledger or the index (the workspace passes injections and
//! transcripts), or decide whether a finding was kept (the review does).

use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::ToolCall;
use ambry_sessions::sessions::Transcript;
use ambry_store::memory::{Enforce, Memory, RuleAction, RuleStatus};

/// A call that contradicted a memory the session held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgnoredCall {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    pub tool: String,
    pub input: String,
}

/// The commands `body` names as wrong, as the person wrote them.
pub fn wrong_commands(body: &str) -> Vec<String> {
    static SPANS: OnceLock<[Regex; 3]> = OnceLock::new();
    let patterns = SPANS.get_or_init(|| {
        [
            Regex::new(r"(?i)\b(?:never|don'?t|do not|avoid)\s+(?:(?:run|running|use|using|call|type)\s+)?`([^`\n]{2,80})`").expect("valid"),
            Regex::new(r"(?i)\binstead of\s+`([^`\n]{2,80})`").expect("valid"),
            Regex::new(r"(?i)\b(?:instead of|never use|never run|don'?t use|do not use)\s+([a-z][a-z0-9_.-]{1,30})\b").expect("valid"),
        ]
    });
    let mut out: Vec<String> = Vec::new();
    for pattern in patterns {
        for captures in pattern.captures_iter(body) {
            let command = captures[1].trim().to_string();
            // Words that follow "instead of" but name no command ("instead of that").
            const NOT_COMMANDS: &[&str] = &[
                "the", "a", "an", "that", "this", "it", "them", "using", "running",
            ];
            if command.len() >= 2
                && !NOT_COMMANDS.contains(&command.as_str())
                && !out.contains(&command)
            {
                out.push(command);
            }
        }
    }
    out
}

/// A regex catching `command` as typed: whole words, so `npm` is not found in `pnpm` or `npm-run`.
pub fn command_pattern(command: &str) -> String {
    format!(r"(?:^|[^\w.-]){}(?:$|[^\w.-])", regex::escape(command))
}

/// The calls of `transcript` after `since` that contradict `memory`, and the rule to offer for it.
/// A memory whose rule is on is never "ignored": the rule acted at the call.
pub fn ignored_calls(
    memory: &Memory,
    transcript: &Transcript,
    since: DateTime<Utc>,
) -> Option<(Vec<IgnoredCall>, Enforce)> {
    let rule = match &memory.lifecycle.enforce {
        Some(rule) if rule.status == RuleStatus::On => return None,
        Some(rule) => rule.clone(),
        None => {
            let commands = wrong_commands(&memory.body);
            if commands.is_empty() {
                return None;
            }
            let pattern = commands
                .iter()
                .map(|c| command_pattern(c))
                .collect::<Vec<_>>()
                .join("|");
            Enforce {
                status: RuleStatus::Proposed,
                ..Enforce::new(vec!["Bash".into()], &pattern, RuleAction::Deny)
            }
        }
    };
    let compiled = rule.compile().ok()?;
    let calls: Vec<IgnoredCall> = transcript
        .turns
        .iter()
        .filter(|t| t.role == "tool")
        .filter(|t| {
            t.ts.as_deref()
                .and_then(|ts| DateTime::parse_from_rfc3339(ts).ok())
                .is_some_and(|ts| ts.with_timezone(&Utc) >= since)
        })
        .filter_map(|t| ToolCall::from_transcript(&t.text).map(|call| (t, call)))
        .filter(|(_, call)| compiled.covers(&call.tool) && compiled.pattern.is_match(&call.input))
        .map(|(t, call)| IgnoredCall {
            ts: t.ts.clone(),
            tool: call.tool,
            input: call.input,
        })
        .collect();
    (!calls.is_empty()).then_some((calls, rule))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_commands_are_read_only_where_the_text_says_so() {
        assert_eq!(
            wrong_commands("Never run `npm install` here; use `pnpm install`."),
            ["npm install"]
        );
        assert_eq!(
            wrong_commands("Use pnpm instead of npm for everything."),
            ["npm"]
        );
        assert_eq!(
            wrong_commands("Don't use `git push --force` on main."),
            ["git push --force"]
        );
        assert_eq!(
            wrong_commands("Run `cargo nextest run` instead of `cargo test`."),
            ["cargo test"]
        );
        // What the memory recommends is never taken for what it forbids.
        assert!(wrong_commands("Never mock the database; use `testcontainers`.").is_empty());
        assert!(wrong_commands("Always run `make check` before pushing.").is_empty());
        assert!(wrong_commands("Do it this way instead of that.").is_empty());
    }

    #[test]
    fn a_command_pattern_matches_the_command_and_not_its_neighbours() {
        let re = Regex::new(&command_pattern("npm")).unwrap();
        assert!(re.is_match("npm install x") && re.is_match("cd web && npm i"));
        assert!(
            !re.is_match("pnpm install") && !re.is_match("npm-check") && !re.is_match("./npm.sh")
        );
        let re = Regex::new(&command_pattern("git push --force")).unwrap();
        assert!(re.is_match("git push --force origin main"));
        assert!(!re.is_match("git push --force-with-lease"));
    }
}

//! What the agent may answer and what a proposal is: the strict JSON schema given to the agent,
//! parsing and validating its answer, and the stored proposal the review inbox shows.
//!
//! Owns: the answer schema (one schema both clients accept: every property required,
//! no additional ones), the checks on an answer (size, shape, names, types, that an update names
//! an existing memory, source turns among those sent) and the refusal of a proposal holding a
//! secret, exactly as a save would refuse it.
//! Deliberately does not: store anything, run the agent, or read the clock (callers pass `now`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::error::quoted;
use ambry_store::config::{DistillAgent, SessionSource};
use ambry_store::memory::{secrets::find_secret, validate::validate_draft, MemoryDraft, Scope};

/// Most proposals one answer may hold.
pub const MAX_PROPOSALS: usize = 20;
/// Most bytes of an answer (the JSON text of the proposal list).
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// Most characters of a source turn quoted as evidence.
const EXCERPT_CHARS: usize = 240;

/// What a proposal asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// A memory that does not exist yet.
    New,
    /// New text for the existing memory `target` (same name).
    Update,
    /// A new memory `name` that replaces `target` (which is then marked `superseded_by`).
    Supersede,
    /// `target` says what `name` already says: merge `target` into `name`.
    Duplicate,
    /// Say when the existing memory `target` is needed: its `when` phrases, and nothing else
    /// of it (`memory distill --annotate`).
    When,
}

/// One proposal as the agent writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProposal {
    action: Action,
    scope: Scope,
    name: String,
    #[serde(rename = "type")]
    kind: String,
    description: String,
    body: String,
    target: Option<String>,
    source_turns: Vec<i64>,
    reason: String,
    /// A rule for the memory (DESIGN §16), when the session shows a correction of a tool call.
    #[serde(default)]
    enforce: Option<RawRule>,
    /// When the memory is needed (DESIGN §5): a few situations in the person's words.
    #[serde(default)]
    when: Vec<String>,
}

/// A rule as the agent proposes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    tool: Vec<String>,
    #[serde(rename = "match")]
    pattern: String,
    action: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnswer {
    proposals: Vec<RawProposal>,
}

/// A source turn a proposal came from: its number in the transcript and a quote of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceTurn {
    pub turn: usize,
    pub role: String,
    pub excerpt: String,
}

/// The project a proposal's project scope means (its store at accept time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProposalProject {
    pub slug: String,
    pub root: std::path::PathBuf,
}

/// A pending proposal as stored and as the review inbox shows it (`kind: "proposal"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub id: String,
    /// The session it was distilled from; none for phrases proposed for an existing memory.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub session_id: String,
    /// Where the session came from (`claude`, `codex`, `ambry`): the `source:` names it.
    /// Absent in proposals stored before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_source: Option<SessionSource>,
    /// Which agent CLI proposed it.
    pub agent: DistillAgent,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<ProposalProject>,
    pub created: DateTime<Utc>,
    pub action: Action,
    pub scope: Scope,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    pub body: String,
    /// The existing memory an update, supersede or duplicate is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    pub source_turns: Vec<SourceTurn>,
    pub reason: String,
    /// A rule proposed with the memory: saved `proposed` on accept, off until the person turns
    /// it on (DESIGN §16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforce: Option<ambry_store::memory::Enforce>,
    /// When the memory is needed (DESIGN §5), saved with it on accept. Absent in proposals
    /// stored before proposals carried it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<String>,
    /// `Action::When`: the target's `content_fingerprint` when the phrases were proposed, so an
    /// accept after the memory changed is refused rather than applied to another text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_fingerprint: Option<String>,
}

impl Proposal {
    /// Whether it says when an existing memory is needed and nothing else
    /// (`memory distill --annotate`).
    pub fn when_only(&self) -> bool {
        self.action == Action::When
    }

    /// Whether it belongs to `store`'s view: a user-scope one to every view, a project's to
    /// that project's.
    pub fn belongs_to(&self, store: &ambry_store::memory::Store) -> bool {
        match &self.project {
            None => true,
            Some(project) => store.project().map(|s| &s.slug) == Some(&project.slug),
        }
    }

    /// The `source:` an accepted proposal records: the session, named by its own source (a
    /// Claude Code session distilled with Codex is a `claude-session:`), and the turns. A
    /// proposal stored before the session's source was recorded names the proposing agent,
    /// as it did then.
    pub fn source_value(&self) -> String {
        let source = self
            .session_source
            .map_or(self.agent.as_str(), SessionSource::as_str);
        let turns: Vec<String> = self
            .source_turns
            .iter()
            .map(|t| t.turn.to_string())
            .collect();
        if turns.is_empty() {
            format!("{source}-session:{}", self.session_id)
        } else {
            format!(
                "{source}-session:{} turns {}",
                self.session_id,
                turns.join(",")
            )
        }
    }
}

/// The JSON schema of an answer: strict (every property required, nothing else allowed) so
/// Codex's `--output-schema` and Claude Code's `--json-schema` accept one and the same text.
pub fn answer_schema() -> Value {
    let string = json!({"type": "string"});
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["proposals"],
        "properties": {
            "proposals": {
                "type": "array",
                "maxItems": MAX_PROPOSALS,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["action", "scope", "name", "type", "description", "body", "target", "source_turns", "reason", "enforce", "when"],
                    "properties": {
                        "action": {"type": "string", "enum": ["new", "update", "supersede", "duplicate"]},
                        "scope": {"type": "string", "enum": ["user", "project"]},
                        "name": string,
                        "type": string,
                        "description": string,
                        "body": string,
                        "target": {"type": ["string", "null"]},
                        "source_turns": {"type": "array", "items": {"type": "integer"}},
                        "reason": string,
                        "when": {"type": "array", "maxItems": ambry_store::memory::when::MAX_PHRASES, "items": string},
                        "enforce": {
                            "type": ["object", "null"],
                            "additionalProperties": false,
                            "required": ["tool", "match", "action"],
                            "properties": {
                                "tool": {"type": "array", "items": {"type": "string"}},
                                "match": string,
                                "action": {"type": "string", "enum": ["deny", "remind"]},
                            }
                        },
                    }
                }
            }
        }
    })
}

/// What the checks make of one answer: the proposals to keep, and the ones refused with why.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Checked {
    pub proposals: Vec<Proposal>,
    pub refused: Vec<Refusal>,
}

/// A proposal refused one by one (a secret, an invalid name): the others still stand.
#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    pub session_id: String,
    pub name: String,
    pub reason: String,
}

/// What a call was about: enough to check an answer against.
pub struct CallContext<'a> {
    pub agent: DistillAgent,
    pub session_id: &'a str,
    /// Where the session came from.
    pub session_source: SessionSource,
    /// The turns sent, by number: role and text.
    pub turns: &'a [(usize, String, String)],
    /// Existing memories of the view, as `(scope, name)`.
    pub existing: &'a [(Scope, String)],
    pub project: Option<ProposalProject>,
    pub has_project: bool,
}

/// Why an answer as a whole is refused (nothing of it is kept) — distill's, the review's ask's
/// and annotate's alike.
#[derive(Debug, PartialEq)]
pub enum AnswerProblem {
    TooLarge(usize),
    Malformed(String),
}

impl AnswerProblem {
    /// The error a refused answer of `agent`'s call `about` something is said as.
    pub fn into_error(self, agent: DistillAgent, about: &str) -> super::DistillError {
        match self {
            AnswerProblem::TooLarge(bytes) => super::DistillError::AnswerTooLarge {
                agent: agent.as_str().into(),
                session: about.into(),
                bytes,
                limit: MAX_ANSWER_BYTES,
            },
            // The reason may quote the answer (a parse error names the value it met).
            AnswerProblem::Malformed(reason) => super::DistillError::MalformedAnswer {
                agent: agent.as_str().into(),
                session: about.into(),
                reason: super::quoted(&reason, 600),
            },
        }
    }
}

/// Checks `answer` (the JSON text the agent returned). A malformed or oversized answer is
/// refused whole; a proposal that would be refused as a save (a secret, a bad name, an update
/// of a memory that does not exist) is dropped with its reason.
pub fn check_answer(
    answer: &str,
    call: &CallContext<'_>,
    now: DateTime<Utc>,
) -> Result<Checked, AnswerProblem> {
    if answer.len() > MAX_ANSWER_BYTES {
        return Err(AnswerProblem::TooLarge(answer.len()));
    }
    let text = strip_fence(answer.trim());
    let raw: RawAnswer = serde_json::from_str(text).map_err(|e| {
        AnswerProblem::Malformed(format!("{e} (expected {{\"proposals\": [...]}})"))
    })?;
    if raw.proposals.len() > MAX_PROPOSALS {
        return Err(AnswerProblem::Malformed(format!(
            "{} proposals, at most {MAX_PROPOSALS} allowed",
            raw.proposals.len()
        )));
    }
    let mut checked = Checked::default();
    for p in raw.proposals {
        let name = p.name.clone();
        match check_one(p, call, now) {
            Ok(proposal) => checked.proposals.push(proposal),
            // Both quote the agent's answer: shown on a terminal, as text only.
            Err(reason) => checked.refused.push(Refusal {
                session_id: call.session_id.to_string(),
                name: quoted(&name, 200),
                reason: quoted(&reason, 600),
            }),
        }
    }
    Ok(checked)
}

/// An answer wrapped in a markdown fence (some models add one despite the schema).
fn strip_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

fn check_one(
    p: RawProposal,
    call: &CallContext<'_>,
    now: DateTime<Utc>,
) -> Result<Proposal, String> {
    for (field, text) in [
        ("name", &p.name),
        ("description", &p.description),
        ("body", &p.body),
        ("reason", &p.reason),
    ] {
        if let Some(found) = find_secret(text) {
            return Err(format!("its {field} looks like a secret ({})", found.kind));
        }
    }
    // Team memory is the team's text, reviewed in the repository: never proposed from a session.
    if p.scope == Scope::Team {
        return Err("team scope: team memory is written by a person, never proposed".into());
    }
    let enforce = match &p.enforce {
        None => None,
        Some(r) => {
            let rule = ambry_store::memory::Enforce {
                tools: r.tool.clone(),
                pattern: r.pattern.clone(),
                action: r.action.clone(),
                status: ambry_store::memory::RuleStatus::Proposed,
            };
            rule.compile()
                .map_err(|e| format!("its rule does not hold: {e}"))?;
            if let Some(found) = find_secret(&rule.pattern) {
                return Err(format!("its rule looks like a secret ({})", found.kind));
            }
            Some(rule)
        }
    };
    let when: Vec<String> = p.when.iter().map(|w| w.trim().to_string()).collect();
    ambry_store::memory::when::check(&when).map_err(|e| format!("its when: {e}"))?;
    if when.iter().any(|w| find_secret(w).is_some()) {
        return Err("its when looks like a secret".into());
    }
    if p.scope == Scope::Project && !call.has_project {
        return Err("project scope, but the session belongs to no project".into());
    }
    let draft = validate_draft(MemoryDraft {
        name: p.name.clone(),
        kind: p.kind.clone(),
        description: p.description.clone(),
        body: p.body.clone(),
        tags: Vec::new(),
    })
    .map_err(|e| e.to_string())?;
    let exists = |name: &str| {
        call.existing
            .iter()
            .any(|(scope, n)| *scope == p.scope && n == name)
    };
    let target = p.target.filter(|t| !t.trim().is_empty());
    match (p.action, &target) {
        // Phrases for an existing memory are `memory distill --annotate`'s, never a session's.
        (Action::When, _) => return Err("a session proposes memories, not `when` alone".into()),
        (Action::New, _) if exists(&draft.name) => {
            return Err(format!(
                "{} already exists in the {} scope: propose an update",
                draft.name, p.scope
            ))
        }
        (Action::New, _) => {}
        (Action::Update, Some(t)) if *t != draft.name => {
            return Err("an update keeps the memory's name: target must equal name".into())
        }
        (Action::Update | Action::Supersede | Action::Duplicate, Some(t)) if !exists(t) => {
            return Err(format!("{t} is no memory of the {} scope", p.scope))
        }
        (Action::Supersede | Action::Duplicate, Some(t)) if *t == draft.name => {
            return Err("target must be another memory than name".into())
        }
        (Action::Supersede, Some(_)) if exists(&draft.name) => {
            return Err(format!(
                "{} already exists: a supersede proposes a new memory",
                draft.name
            ))
        }
        (Action::Duplicate, Some(_)) if !exists(&draft.name) => {
            return Err(format!(
                "{} is no memory of the {} scope",
                draft.name, p.scope
            ))
        }
        (Action::Update | Action::Supersede | Action::Duplicate, None) => {
            return Err("an update, supersede or duplicate names its target".into())
        }
        _ => {}
    }
    let mut source_turns = Vec::new();
    for n in p.source_turns {
        let found = usize::try_from(n)
            .ok()
            .and_then(|n| call.turns.iter().find(|(i, _, _)| *i == n));
        let Some((turn, role, text)) = found else {
            return Err(format!("source turn {n} was not among the turns sent"));
        };
        if source_turns.iter().any(|s: &SourceTurn| s.turn == *turn) {
            continue;
        }
        source_turns.push(SourceTurn {
            turn: *turn,
            role: role.clone(),
            excerpt: excerpt(text),
        });
    }
    if source_turns.is_empty() {
        return Err("no source turn: a proposal says which turns it came from".into());
    }
    let mut proposal = Proposal {
        id: String::new(),
        session_id: call.session_id.to_string(),
        session_source: Some(call.session_source),
        agent: call.agent,
        project: if p.scope == Scope::Project {
            call.project.clone()
        } else {
            None
        },
        created: now,
        action: p.action,
        scope: p.scope,
        name: draft.name,
        kind: draft.kind,
        description: draft.description,
        body: draft.body,
        target,
        source_turns,
        reason: quoted(&p.reason, MAX_ANSWER_BYTES),
        enforce,
        when,
        target_fingerprint: None,
    };
    proposal.id = proposal_id(&proposal);
    Ok(proposal)
}

fn excerpt(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= EXCERPT_CHARS {
        return flat;
    }
    let cut: String = flat.chars().take(EXCERPT_CHARS).collect();
    format!("{cut}…")
}

/// A stable id from what the proposal says: the same proposal from a second run is the same
/// entry, not a second one.
fn proposal_id(p: &Proposal) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [
        p.session_id.as_str(),
        p.scope.as_str(),
        p.name.as_str(),
        p.target.as_deref().unwrap_or(""),
        p.description.as_str(),
        p.body.as_str(),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let digest = h.finalize();
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("p-{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call<'a>(
        turns: &'a [(usize, String, String)],
        existing: &'a [(Scope, String)],
    ) -> CallContext<'a> {
        CallContext {
            agent: DistillAgent::Claude,
            session_id: "s1",
            session_source: SessionSource::Claude,
            turns,
            existing,
            project: None,
            has_project: false,
        }
    }

    fn turns() -> Vec<(usize, String, String)> {
        vec![
            (1, "user".into(), "We release on Thursdays.".into()),
            (2, "assistant".into(), "Noted.".into()),
        ]
    }

    fn one(p: Value) -> String {
        json!({"proposals": [p]}).to_string()
    }

    fn new_memory() -> Value {
        json!({"action": "new", "scope": "user", "name": "release-day", "type": "project",
               "description": "Release weekday", "body": "Thursdays.", "target": null,
               "source_turns": [1], "reason": "stated by the person"})
    }

    #[test]
    fn a_valid_answer_becomes_a_proposal_with_its_source_turn() {
        let t = turns();
        let checked = check_answer(&one(new_memory()), &call(&t, &[]), Utc::now()).unwrap();
        assert!(checked.refused.is_empty(), "{:?}", checked.refused);
        let p = &checked.proposals[0];
        assert_eq!(p.name, "release-day");
        assert_eq!(p.source_turns[0].excerpt, "We release on Thursdays.");
        assert!(p.id.starts_with("p-"));
        assert_eq!(p.source_value(), "claude-session:s1 turns 1");
    }

    #[test]
    fn malformed_and_oversized_answers_are_refused_whole() {
        let t = turns();
        let c = call(&t, &[]);
        assert!(matches!(
            check_answer("I think you should remember…", &c, Utc::now()),
            Err(AnswerProblem::Malformed(_))
        ));
        let mut extra = new_memory();
        extra["confidence"] = json!(0.9);
        assert!(matches!(
            check_answer(&one(extra), &c, Utc::now()),
            Err(AnswerProblem::Malformed(_))
        ));
        let big = "x".repeat(MAX_ANSWER_BYTES + 1);
        assert!(matches!(
            check_answer(&big, &c, Utc::now()),
            Err(AnswerProblem::TooLarge(_))
        ));
    }

    #[test]
    fn a_secret_or_a_turn_never_sent_refuses_that_proposal_only() {
        let t = turns();
        let mut secret = new_memory();
        secret["name"] = json!("deploy-key");
        secret["body"] = json!("token ghp_0123456789abcdefghijABCDEFGHIJ012345");
        let mut unsent = new_memory();
        unsent["name"] = json!("other");
        unsent["source_turns"] = json!([9]);
        let answer = json!({"proposals": [secret, unsent, new_memory()]}).to_string();
        let checked = check_answer(&answer, &call(&t, &[]), Utc::now()).unwrap();
        assert_eq!(checked.proposals.len(), 1);
        assert_eq!(checked.refused.len(), 2);
        assert!(
            checked.refused[0].reason.contains("secret"),
            "{:?}",
            checked.refused
        );
    }

    #[test]
    fn an_update_must_name_an_existing_memory_and_new_must_not() {
        let t = turns();
        let existing = vec![(Scope::User, "release-day".to_string())];
        let c = call(&t, &existing);
        let checked = check_answer(&one(new_memory()), &c, Utc::now()).unwrap();
        assert!(checked.proposals.is_empty());
        let mut update = new_memory();
        update["action"] = json!("update");
        update["target"] = json!("release-day");
        let checked = check_answer(&one(update.clone()), &c, Utc::now()).unwrap();
        assert_eq!(checked.proposals.len(), 1);
        let checked = check_answer(&one(update), &call(&t, &[]), Utc::now()).unwrap();
        assert!(checked.proposals.is_empty());
    }

    #[test]
    fn the_source_names_the_sessions_own_origin_not_the_proposing_agent() {
        let t = turns();
        let mut c = call(&t, &[]);
        c.agent = DistillAgent::Codex;
        let checked = check_answer(&one(new_memory()), &c, Utc::now()).unwrap();
        assert_eq!(
            checked.proposals[0].source_value(),
            "claude-session:s1 turns 1"
        );
        c.session_source = SessionSource::Ambry;
        let checked = check_answer(&one(new_memory()), &c, Utc::now()).unwrap();
        assert_eq!(
            checked.proposals[0].source_value(),
            "ambry-session:s1 turns 1"
        );
    }

    #[test]
    fn what_the_agent_wrote_reaches_a_refusal_or_a_reason_as_text_only() {
        let t = turns();
        let mut bad = new_memory();
        bad["name"] = json!("x\u{1b}]0;owned\u{7}y");
        let mut ok = new_memory();
        ok["reason"] = json!("stated \u{1b}[2Jby\rthe person");
        let answer = json!({"proposals": [bad, ok]}).to_string();
        let checked = check_answer(&answer, &call(&t, &[]), Utc::now()).unwrap();
        let refusal = &checked.refused[0];
        assert_eq!(refusal.name, "xy");
        assert!(
            !refusal.reason.chars().any(char::is_control),
            "{:?}",
            refusal.reason
        );
        assert_eq!(checked.proposals[0].reason, "stated bythe person");
    }

    /// A rule comes with the memory, proposed (off); one that does not hold, or a proposal
    /// for the team's scope, is refused on its own.
    #[test]
    fn a_rule_is_proposed_off_and_team_scope_is_never_proposed() {
        let t = turns();
        let mut ruled = new_memory();
        ruled["enforce"] =
            json!({"tool": ["Bash"], "match": "\\bnpm install\\b", "action": "deny"});
        let mut broken = new_memory();
        broken["name"] = json!("broken-rule");
        broken["enforce"] = json!({"tool": ["Bash"], "match": "(", "action": "deny"});
        let mut team = new_memory();
        team["name"] = json!("team-note");
        team["scope"] = json!("team");
        let answer = json!({"proposals": [ruled, broken, team]}).to_string();
        let checked = check_answer(&answer, &call(&t, &[]), Utc::now()).unwrap();
        assert_eq!(checked.proposals.len(), 1, "{:?}", checked.refused);
        let rule = checked.proposals[0].enforce.as_ref().unwrap();
        assert_eq!(rule.status, ambry_store::memory::RuleStatus::Proposed);
        assert_eq!(rule.pattern, r"\bnpm install\b");
        let reasons: Vec<&str> = checked.refused.iter().map(|r| r.reason.as_str()).collect();
        assert!(
            reasons[0].contains("enforce.match") && reasons[1].contains("team"),
            "{reasons:?}"
        );
        // The schema asks for it, so a strict agent CLI sends it (null when there is none).
        let schema = answer_schema();
        let required = schema["properties"]["proposals"]["items"]["required"]
            .as_array()
            .unwrap();
        assert!(required.iter().any(|r| r == "enforce"));
    }

    /// What a memory is for comes with it, checked as any write checks it.
    #[test]
    fn when_phrases_come_with_a_proposal_and_out_of_bounds_ones_refuse_it() {
        let t = turns();
        let mut said = new_memory();
        said["when"] = json!([" bumping the DB pool size ", "a 429 from payments"]);
        let mut long = new_memory();
        long["name"] = json!("long-when");
        long["when"] = json!(["x".repeat(300)]);
        let answer = json!({"proposals": [said, long]}).to_string();
        let checked = check_answer(&answer, &call(&t, &[]), Utc::now()).unwrap();
        assert_eq!(checked.proposals.len(), 1, "{:?}", checked.refused);
        assert_eq!(
            checked.proposals[0].when,
            ["bumping the DB pool size", "a 429 from payments"]
        );
        assert!(
            checked.refused[0].reason.contains("its when"),
            "{:?}",
            checked.refused
        );
        let schema = answer_schema();
        let required = schema["properties"]["proposals"]["items"]["required"]
            .as_array()
            .unwrap();
        assert!(required.iter().any(|r| r == "when"));
    }

    /// Phrases alone for an existing memory are `--annotate`'s: a session's answer proposing
    /// them is refused.
    #[test]
    fn a_session_cannot_propose_when_alone() {
        let t = turns();
        let existing = vec![(Scope::User, "release-day".to_string())];
        let mut when = new_memory();
        when["action"] = json!("when");
        when["target"] = json!("release-day");
        when["when"] = json!(["releasing", "which weekday"]);
        let checked = check_answer(&one(when), &call(&t, &existing), Utc::now()).unwrap();
        assert!(checked.proposals.is_empty());
        assert!(checked.refused[0].reason.contains("not `when` alone"));
    }

    #[test]
    fn a_fenced_answer_is_read() {
        let t = turns();
        let fenced = format!("```json\n{}\n```", one(new_memory()));
        let checked = check_answer(&fenced, &call(&t, &[]), Utc::now()).unwrap();
        assert_eq!(checked.proposals.len(), 1);
    }
}

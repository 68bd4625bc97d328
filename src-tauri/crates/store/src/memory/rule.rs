//! A memory's rule (DESIGN §16): the optional `enforce:` frontmatter block that has Ambry check
//! an agent's tool calls against the memory, where the mistake it corrects would happen.
//!
//! ```text
//! enforce:
//!   tool: Bash                      # or [Bash, Edit]; `*` is any tool
//!   match: '\bnpm (i|install)\b'    # a regex over the tool input as text
//!   action: deny                    # deny | remind
//!   status: proposed                # on (default) | off | proposed (an agent's, not yet on)
//! ```
//!
//! Owns: reading the block from a document's raw frontmatter lines (as written: a block that
//! does not read becomes a rule that does not compile, so the memory itself still loads and a
//! hook skips the rule with a note), writing it back, and compiling it — the one validation, run
//! on save (a bad field is refused, named) and before a check.
//! Deliberately does not: match tool calls or decide who may turn a rule on (see `enforce`).

use serde::{Deserialize, Serialize};

use super::scalar::{quote_if_needed, unquote};

/// The frontmatter key of a rule.
pub const RULE_KEY: &str = "enforce";

/// Longest pattern a rule may have: a rule names a command, it is not a program.
pub const PATTERN_MAX: usize = 1_000;

/// What a compiled pattern may grow to (the `regex` crate matches in linear time; this bounds
/// the memory a hostile pattern can take on every tool call).
const COMPILED_MAX: usize = 1 << 20;

/// What `read` keeps as the action of a rule written on one line (`enforce: {…}`), which
/// `compile` refuses with the block form to write instead.
const ONE_LINE_FORM: &str = "(one line)";

/// Whether a rule is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum RuleStatus {
    /// Checked at every tool call (a person wrote or turned on the rule).
    #[default]
    On,
    /// Kept, not checked: a person turned it off.
    Off,
    /// An agent proposed it: not checked until a person turns it on (the review inbox lists it).
    Proposed,
}

impl RuleStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleStatus::On => "on",
            RuleStatus::Off => "off",
            RuleStatus::Proposed => "proposed",
        }
    }
}

/// What happens to a matching call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    /// The call is refused; the model reads the memory as the reason.
    Deny,
    /// The call goes on; the memory is added to the context (once per context).
    Remind,
}

impl RuleAction {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleAction::Deny => "deny",
            RuleAction::Remind => "remind",
        }
    }
}

/// A rule as the file says it: fields kept as written, so a rule that does not compile is still
/// shown (and fixed) rather than dropped. [`Enforce::compile`] says whether it holds.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct Enforce {
    /// The tool names as the agent reports them to `PreToolUse` (`Bash`, `Edit`, `Write`…).
    pub tools: Vec<String>,
    /// A regex over the tool input as text (a shell call's command line).
    #[serde(rename = "match")]
    pub pattern: String,
    /// `deny` or `remind` (as written; `compile` refuses anything else).
    pub action: String,
    #[serde(default)]
    pub status: RuleStatus,
}

/// A rule ready to check calls with.
#[derive(Debug, Clone)]
pub struct Rule {
    pub tools: Vec<String>,
    pub pattern: regex::Regex,
    pub action: RuleAction,
}

impl Rule {
    /// Whether this rule applies to a call of `tool` (case as the agent reports it; `*` is any).
    pub fn covers(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t == "*" || t == tool)
    }
}

/// Why a rule does not hold: the field (`enforce` for its shape, `enforce.tool`, `enforce.match`, `enforce.action`,
/// `enforce.status`) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {field}: {reason}")]
pub struct RuleError {
    pub field: &'static str,
    pub reason: String,
}

impl Enforce {
    /// A rule a person writes (on at once).
    pub fn new(tools: Vec<String>, pattern: &str, action: RuleAction) -> Enforce {
        Enforce {
            tools,
            pattern: pattern.to_string(),
            action: action.as_str().to_string(),
            status: RuleStatus::On,
        }
    }

    /// The rule, compiled; the field that does not hold otherwise.
    pub fn compile(&self) -> Result<Rule, RuleError> {
        let bad = |field: &'static str, reason: String| RuleError { field, reason };
        let action = match self.action.trim() {
            "deny" => RuleAction::Deny,
            "remind" => RuleAction::Remind,
            other if other.starts_with(ONE_LINE_FORM) => {
                return Err(bad(
                    "enforce",
                    format!(
                        "write `{RULE_KEY}:` as a block of `tool:`, `match:` and `action:` lines"
                    ),
                ))
            }
            other => {
                return Err(bad(
                    "enforce.action",
                    format!("`{other}` is not an action: write `deny` or `remind`"),
                ))
            }
        };
        if self.tools.is_empty() {
            return Err(bad(
                "enforce.tool",
                "names no tool: write the tool the agent reports, such as `Bash`, or `*` for any"
                    .into(),
            ));
        }
        for tool in &self.tools {
            let ok = tool == "*"
                || (!tool.is_empty()
                    && tool.len() <= 100
                    && tool
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c)));
            if !ok {
                return Err(bad(
                    "enforce.tool",
                    format!("`{tool}` is not a tool name (letters, digits, `_`, `-`, `.`, `:`)"),
                ));
            }
        }
        if self.pattern.trim().is_empty() {
            return Err(bad(
                "enforce.match",
                "is empty: write a regex over the tool input, such as `\\bnpm install\\b`".into(),
            ));
        }
        if self.pattern.len() > PATTERN_MAX {
            return Err(bad(
                "enforce.match",
                format!("is {} bytes; at most {PATTERN_MAX}", self.pattern.len()),
            ));
        }
        if self.pattern.contains(['\n', '\r']) {
            return Err(bad("enforce.match", "must be a single line".into()));
        }
        let pattern = regex::RegexBuilder::new(&self.pattern)
            .size_limit(COMPILED_MAX)
            .dfa_size_limit(COMPILED_MAX)
            .build()
            .map_err(|e| {
                bad(
                    "enforce.match",
                    format!("is not a regex: {}", one_line(&e.to_string())),
                )
            })?;
        Ok(Rule {
            tools: self.tools.clone(),
            pattern,
            action,
        })
    }

    /// The frontmatter lines of this rule.
    pub fn lines(&self) -> Vec<String> {
        let tools = match self.tools.as_slice() {
            [one] => quote_if_needed(one),
            many => format!(
                "[{}]",
                many.iter()
                    .map(|t| quote_if_needed(t))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut lines = vec![
            format!("{RULE_KEY}:"),
            format!("  tool: {tools}"),
            format!("  match: {}", quote_pattern(&self.pattern)),
            format!("  action: {}", quote_if_needed(&self.action)),
        ];
        if self.status != RuleStatus::On {
            lines.push(format!("  status: {}", self.status.as_str()));
        }
        lines
    }
}

/// A pattern in single quotes: YAML keeps backslashes there as written (`'\bnpm\b'`), so the
/// file reads as the regex the person typed.
fn quote_pattern(pattern: &str) -> String {
    format!("'{}'", pattern.replace('\'', "''"))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The rule in a document's raw frontmatter lines, if it has an `enforce:` key. Never fails: a
/// block that does not read is a rule whose `compile` names what is wrong.
pub fn read(extra: &[String]) -> Option<Enforce> {
    let start = extra.iter().position(|l| is_key_line(l, RULE_KEY))?;
    let (_, inline) = extra[start].split_once(':').unwrap_or_default();
    let mut rule = Enforce::default();
    if !inline.trim().is_empty() && !inline.trim().starts_with('#') {
        // `enforce: {…}` and other one-line forms: kept, refused by `compile` through an
        // empty tool list with a hint.
        rule.action = ONE_LINE_FORM.to_string();
        return Some(rule);
    }
    for line in extra[start + 1..]
        .iter()
        .take_while(|l| l.starts_with([' ', '\t']) || l.starts_with("- "))
    {
        let Some((key, value)) = line.trim().split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "tool" | "tools" => rule.tools = read_tools(value),
            "match" => rule.pattern = unquote(value).unwrap_or_else(|_| value.to_string()),
            "action" => rule.action = unquote(value).unwrap_or_else(|_| value.to_string()),
            "status" => {
                rule.status = match unquote(value).unwrap_or_default().as_str() {
                    "off" => RuleStatus::Off,
                    "proposed" => RuleStatus::Proposed,
                    // Anything else a person wrote means the rule is theirs, and on.
                    _ => RuleStatus::On,
                }
            }
            _ => {}
        }
    }
    Some(rule)
}

fn read_tools(value: &str) -> Vec<String> {
    let inner = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .unwrap_or(value);
    inner
        .split(',')
        .filter_map(|t| unquote(t.trim()).ok())
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn is_key_line(line: &str, key: &str) -> bool {
    !line.starts_with([' ', '\t']) && line.split_once(':').is_some_and(|(k, _)| k.trim() == key)
}

/// `extra` with its `enforce:` block (and the block's lines) replaced by `rule`, or removed.
pub fn with_rule(mut extra: Vec<String>, rule: Option<&Enforce>) -> Vec<String> {
    let lines = rule.map(Enforce::lines).unwrap_or_default();
    match extra.iter().position(|l| is_key_line(l, RULE_KEY)) {
        Some(start) => {
            let mut end = start + 1;
            while end < extra.len()
                && (extra[end].starts_with([' ', '\t']) || extra[end].starts_with("- "))
            {
                end += 1;
            }
            extra.splice(start..end, lines);
        }
        None => extra.extend(lines),
    }
    extra
}

/// What a save does to a memory's rule.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "op", content = "rule")]
pub enum RuleEdit {
    /// Leave the rule as the file has it (a save that is not about the rule).
    #[default]
    Keep,
    Set(Enforce),
    Remove,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::frontmatter::{parse, render};

    fn doc(block: &str) -> crate::memory::frontmatter::Document {
        parse(&format!(
            "---\nname: a\ntype: feedback\ndescription: d\n{block}---\nbody\n"
        ))
        .unwrap()
    }

    #[test]
    fn the_design_example_reads_compiles_and_matches() {
        let d = doc("enforce:\n  tool: Bash\n  match: '\\bnpm (i|install)\\b'\n  action: deny\n");
        let rule = read(&d.extra).unwrap();
        assert_eq!(rule.tools, vec!["Bash"]);
        assert_eq!(rule.pattern, r"\bnpm (i|install)\b");
        assert_eq!(rule.status, RuleStatus::On);
        let compiled = rule.compile().unwrap();
        assert_eq!(compiled.action, RuleAction::Deny);
        assert!(compiled.covers("Bash") && !compiled.covers("Edit"));
        assert!(compiled.pattern.is_match("cd web && npm install left-pad"));
        assert!(!compiled.pattern.is_match("pnpm install"));
        // Written back as read, byte for byte.
        assert!(render(&d).contains(
            "enforce:\n  tool: Bash\n  match: '\\bnpm (i|install)\\b'\n  action: deny\n"
        ));
    }

    #[test]
    fn lines_then_read_is_identity_and_survives_other_keys() {
        let rule = Enforce {
            tools: vec!["Bash".into(), "Edit".into()],
            pattern: r"it's \d+ o'clock: [a-z]#x".into(),
            action: "remind".into(),
            status: RuleStatus::Proposed,
        };
        let extra = with_rule(
            vec!["source: x".into(), "other:".into(), "  - y".into()],
            Some(&rule),
        );
        assert_eq!(read(&extra), Some(rule.clone()));
        let d = doc(&format!("{}\n", extra.join("\n")));
        assert_eq!(read(&d.extra), Some(rule.clone()));
        assert_eq!(parse(&render(&d)).unwrap(), d);
        // Replaced in place, then removed, leaving the other keys as they were.
        let changed = Enforce {
            action: "deny".into(),
            ..rule
        };
        let extra = with_rule(extra, Some(&changed));
        assert_eq!(read(&extra).unwrap().action, "deny");
        assert_eq!(with_rule(extra, None), vec!["source: x", "other:", "  - y"]);
    }

    #[test]
    fn a_rule_that_does_not_hold_names_its_field() {
        let cases = [
            (
                "enforce:\n  tool: Bash\n  match: '('\n  action: deny\n",
                "enforce.match",
            ),
            (
                "enforce:\n  tool: Bash\n  match: x\n  action: block\n",
                "enforce.action",
            ),
            ("enforce:\n  match: x\n  action: deny\n", "enforce.tool"),
            ("enforce:\n  tool: Bash\n  action: deny\n", "enforce.match"),
            (
                "enforce:\n  tool: 'rm -rf'\n  match: x\n  action: deny\n",
                "enforce.tool",
            ),
            ("enforce: {tool: Bash, match: x, action: deny}\n", "enforce"),
        ];
        for (block, field) in cases {
            let d = doc(block);
            let err = read(&d.extra).unwrap().compile().unwrap_err();
            assert_eq!(err.field, field, "{block}: {err}");
        }
        let huge = Enforce::new(
            vec!["Bash".into()],
            &"a".repeat(PATTERN_MAX + 1),
            RuleAction::Deny,
        );
        assert_eq!(huge.compile().unwrap_err().field, "enforce.match");
        // A pattern whose compiled form is enormous is refused, not built.
        let blowup = Enforce::new(vec!["Bash".into()], r"(\w{100}){100}", RuleAction::Deny);
        assert_eq!(blowup.compile().unwrap_err().field, "enforce.match");
    }

    #[test]
    fn no_enforce_key_is_no_rule() {
        assert_eq!(read(&doc("source: x\n").extra), None);
        assert_eq!(read(&doc("enforcement: x\n").extra), None);
    }
}

#[cfg(test)]
mod wire_tests {
    use super::*;

    /// What the app's memory form sends with a save.
    #[test]
    fn a_rule_edit_reads_as_the_app_sends_it() {
        let set: RuleEdit = serde_json::from_str(
            r#"{"op":"set","rule":{"tools":["Bash"],"match":"\\bnpm\\b","action":"deny","status":"on"}}"#,
        )
        .unwrap();
        assert_eq!(
            set,
            RuleEdit::Set(Enforce::new(
                vec!["Bash".into()],
                r"\bnpm\b",
                RuleAction::Deny
            ))
        );
        assert_eq!(
            serde_json::from_str::<RuleEdit>(r#"{"op":"keep"}"#).unwrap(),
            RuleEdit::Keep
        );
        assert_eq!(
            serde_json::from_str::<RuleEdit>(r#"{"op":"remove"}"#).unwrap(),
            RuleEdit::Remove
        );
    }
}

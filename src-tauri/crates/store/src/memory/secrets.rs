//! Refusing content that looks like a credential (DESIGN §3).
//!
//! Owns: the patterns for real secrets (private keys, cloud and VCS tokens, password
//! assignments) and the judgement that separates a real value from prose about its format.
//! Also owns `mask_secrets`, the same judgement applied to text Ambry only shows (transcripts):
//! each secret's value is replaced by a marker naming its kind.
//! Deliberately does not: rewrite a memory; a save with a secret is refused as a whole.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::{Regex, RegexSet};

/// What matched, for the error message: the kind and a masked excerpt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretMatch {
    pub kind: &'static str,
    pub excerpt: String,
}

struct Rule {
    kind: &'static str,
    pattern: Regex,
    /// Capture group holding the value to judge (0 = whole match).
    value_group: usize,
    /// How the value is judged before it counts as a secret.
    judge: Judge,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Judge {
    /// A vendor's fixed shape: the match is the judgement.
    Shape,
    /// A value a person chose, after a key or a flag: prose like `password: must rotate` is no
    /// secret, so it needs a credential's texture (`looks_like_a_real_value`).
    Value,
    /// A value in a sentence ("the password is …"): any word may follow, so it needs more —
    /// digits and letters, and symbols or mixed case (`looks_chosen_in_prose`).
    Prose,
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let rule = |kind, pattern: &str, value_group, judge_value: bool| Rule {
            kind,
            pattern: Regex::new(&ascii_word_boundaries(pattern)).expect("secret pattern compiles"),
            value_group,
            judge: if judge_value { Judge::Value } else { Judge::Shape },
        };
        let prose = |pattern: &str| Rule {
            judge: Judge::Prose,
            ..rule("password in prose", pattern, 1, true)
        };
        vec![
            // A header alone is prose; a header followed by key material is a key. The line break may
            // be written out as `\n`, as in a cloud service account's JSON file.
            // The block may also be pasted onto one line (a header, a space, the key material),
            // as a terminal or a chat often shows it.
            rule("private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\r?\n|\\n|[ \t]+)[A-Za-z0-9+/=:\- ]*(?:\r?\n|\\n)?[A-Za-z0-9+/=]{40,}", 0, false),
            rule("AWS access key id", r"\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16})\b", 1, false),
            rule("AWS secret access key", r"(?i)aws_?secret_?access_?key\W{0,3}\s*[=:]\s*['\x22]?([A-Za-z0-9/+=]{40})\b", 1, false),
            rule("GitHub token", r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,})\b", 1, false),
            rule("GitHub token", r"\b(github_pat_[A-Za-z0-9_]{40,})\b", 1, false),
            rule("GitLab token", r"\b(glpat-[A-Za-z0-9_\-]{20,})\b", 1, false),
            rule("Slack token", r"\b(xox[abprs]-[A-Za-z0-9\-]{10,})\b", 1, false),
            rule("Stripe key", r"\b((?:sk|rk)_live_[A-Za-z0-9]{16,})\b", 1, false),
            rule("API key (sk-…)", r"\b(sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{32,})\b", 1, false),
            // The versioned Anthropic prefix is distinctive enough to refuse a shorter tail.
            rule("API key (sk-…)", r"\b(sk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_\-]{12,})", 1, false),
            rule("Google API key", r"\b(AIza[0-9A-Za-z_\-]{35})\b", 1, false),
            rule("Azure storage key", r"(?i)AccountKey=([A-Za-z0-9+/]{40,}={0,2})", 1, false),
            rule("Vault token", r"\b(hv[sbr]\.[A-Za-z0-9_\-]{24,})", 1, false),
            rule("npm token", r"\b(npm_[A-Za-z0-9]{36})\b", 1, false),
            rule("Hugging Face token", r"\b(hf_[A-Za-z0-9]{30,})\b", 1, false),
            rule("SendGrid key", r"\b(SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{30,})", 1, false),
            rule("DigitalOcean token", r"\b(do[opr]_v1_[a-f0-9]{64})\b", 1, false),
            rule("Shopify token", r"\b(shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32})\b", 1, false),
            rule("Docker Hub token", r"\b(dckr_pat_[A-Za-z0-9_\-]{20,})", 1, false),
            rule("PyPI token", r"\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,})", 1, false),
            rule("Telegram bot token", r"\b([0-9]{8,10}:AA[A-Za-z0-9_\-]{33})\b", 1, false),
            rule("Slack webhook", r"(https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,})", 1, false),
            // Three base64url parts, the first a JSON header: a signed token, usable as it stands.
            // Documentation elides a part (`eyJhbGciOi...`), which the lengths leave out.
            rule("JSON Web Token", r"\b(eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{16,})", 1, false),
            rule("bearer token", r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)", 1, true),
            rule("basic auth credentials", r"(?i)\bauthorization\s*:\s*basic\s+([A-Za-z0-9+/]{8,}={0,2})", 1, true),
            rule(
                "password or secret assignment",
                // A prefix names whose password it is (`DATABASE_PASSWORD`, `PGPASSWORD`,
                // `DatabasePassword`, `refreshToken`); a suffix would make it something else
                // (`password_policy`, `max_tokens`), so none is allowed. The key may be quoted, as
                // in JSON (`"password": "…"`).
                r#"(?i)(?:password|passwd|pwd|pass|secret|secret[_-]?key|api[_-]?key|token|private[_-]?key)\b['"]?\s*[:=]\s*['"]?([^\s'"`,;<>]{6,})"#,
                1,
                true,
            ),
            rule(
                "password or secret assignment",
                // .NET configuration: `<add key="DbPassword" value="…" />`.
                r#"(?i)\bkey\s*=\s*"[^"]*(?:password|secret|token)"\s+value\s*=\s*"([^"]{6,})""#,
                1,
                true,
            ),
            rule("credentials in a URL", r"\b[a-z][a-z0-9+.\-]*://[^\s:/@]*:([^\s:/@]{6,})@[^\s/]+", 1, true),
            // A password given to a command on its command line. Each pattern names the command
            // (so `-p 8080`, a port, stays what it is) and the flag that takes the password.
            // `mysql -u root -pS3cret` (glued to `-p`, as mysql wants it) or `--password S3cret`.
            rule(
                "password on a command line",
                r#"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s(?:-p|--password[= ])['"]?([^\s'"\-][^\s'"]{3,})"#,
                1,
                true,
            ),
            // `curl -u admin:P4ss …`, `wget --password=…` is an assignment above.
            rule(
                "password on a command line",
                r#"\bcurl\b[^\n|;&]*?\s(?:-u|--user)\s*['"]?[^\s:'"]*:([^\s'"]{4,})"#,
                1,
                true,
            ),
            // `sshpass -p 'Wint3r!'`, `docker login -p …`, `redis-cli -a …`, `htpasswd -b FILE USER PW`.
            rule(
                "password on a command line",
                r#"\b(?:sshpass\s+(?:-\S+\s+)*-p|(?:docker|podman|helm\s+registry)\s+login\b[^\n|;&]*?\s(?:-p|--password)|redis-cli\b[^\n|;&]*?\s-a)\s*['"]?([^\s'"]{4,})"#,
                1,
                true,
            ),
            // `ldapsearch … -w PW`, `smbclient -U 'DOMAIN\user%PW'`, `openssl … -passout pass:PW`,
            // `az login … -p PW`, PowerShell's `ConvertTo-SecureString 'PW' -AsPlainText`.
            rule(
                "password on a command line",
                r#"(?:\bldap(?:search|add|modify|delete|passwd|whoami)\b[^\n|;&]*?\s-w|\baz\s+login\b[^\n|;&]*?\s(?:-p|--password))\s*['"]?([^\s'"\-][^\s'"]{3,})"#,
                1,
                true,
            ),
            rule(
                "password on a command line",
                r#"\bsmbclient\b[^\n|;&]*?\s(?:-U|--user(?:name)?[= ])\s*['"]?[^\s%'"]+%([^\s'"]{4,})"#,
                1,
                true,
            ),
            rule(
                "password on a command line",
                r#"\s-pass(?:in|out)?\s+['"]?pass:([^\s'"]{4,})"#,
                1,
                true,
            ),
            rule(
                "password on a command line",
                r#"(?i)\bConvertTo-SecureString\s+(?:-String\s+)?['"]([^'"]{4,})['"]\s+-AsPlainText"#,
                1,
                true,
            ),
            // A `.netrc` line: `machine HOST login USER password PW`.
            rule(
                "password or secret assignment",
                r#"\bmachine\s+\S+\s+login\s+\S+\s+password\s+([^\s'"]{4,})"#,
                1,
                true,
            ),
            // A key named as a string, its value the next argument: PHP's
            // `define('DB_PASSWORD', '…')`, `setdefault("API_TOKEN", "…")`, `put("password", "…")`.
            rule(
                "password or secret assignment",
                r#"(?i)['"][\w.\-]*(?:password|passwd|secret|token|api[_-]?key)['"]\s*,\s*['"]([^'"\s]{6,})['"]"#,
                1,
                true,
            ),
            // Prose: "the staging db password is K9#vRt2p", "password Testing4Ever!92", "creds are
            // admin / Fr0st-42", "secret 6c51af04…". Only a value with a credential's texture counts
            // here (see `looks_chosen_in_prose`), so "the password is required" stays prose.
            prose(
                r#"(?i)\b(?:password|passwd|passphrase|passcode|pw|pwd)\s+['"]?([^\s'"`,;<>()]{6,})"#,
            ),
            prose(
                r#"(?i)\b(?:password|passwd|passphrase|passcode|pw|pwd)\b[^\n.;:=]{0,40}?\s(?:is|was)\s+['"]?([^\s'"`,;<>()]{6,})"#,
            ),
            prose(
                r#"(?i)\b(?:creds|credentials|login)\b[^\n/]{0,30}?\s[^\s/]+\s*/\s*['"]?([^\s'"`,;<>()]{6,})"#,
            ),
            prose(
                r#"(?i)\bsecret\s+([A-Za-z0-9+/=_\-]{24,})"#,
            ),
            rule(
                "password on a command line",
                r#"\bhtpasswd\s+(?:-\w+\s+)*-\w*b\w*\s+(?:-\w+\s+)*\S+\s+\S+\s+['"]?([^\s'"]{4,})"#,
                1,
                true,
            ),
        ]
    })
}

/// All the patterns in one pass: most text holds no secret, and one scan says so.
/// `pattern` with every `\b` an ASCII word boundary. A Unicode `\b` makes the regex engine
/// leave its DFA for the much slower PikeVM as soon as the text holds one non-ASCII character:
/// masking a transcript of code with a few `…` or `→` in it ran some 30 times slower (a 120 KB
/// tool output: 2.8 s against 0.09 s as ASCII). Every token these rules look for is ASCII, so
/// an ASCII boundary is the one meant.
fn ascii_word_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

fn any_rule() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| {
        RegexSet::new(rules().iter().map(|r| r.pattern.as_str())).expect("secret patterns compile")
    })
}

/// Every real secret in `text`: the rule, the whole match and the span of its value, in rule
/// order. The one judgement behind both refusing (`find_secret`) and masking (`mask_secrets`),
/// so what a save refuses a transcript never shows.
fn secrets_in(
    text: &str,
) -> impl Iterator<Item = (&'static Rule, regex::Match<'_>, regex::Match<'_>)> + '_ {
    let candidates = any_rule().matches(text);
    rules()
        .iter()
        .enumerate()
        .filter(move |(i, _)| candidates.matched(*i))
        .flat_map(move |(_, rule)| {
            rule.pattern.captures_iter(text).filter_map(move |caps| {
                let whole = caps.get(0)?;
                let value = caps.get(rule.value_group)?;
                let value_text = value.as_str();
                let real = !is_placeholder(value_text, rule.judge != Judge::Shape)
                    && match rule.judge {
                        Judge::Shape => true,
                        Judge::Value => looks_like_a_real_value(value_text),
                        Judge::Prose => looks_chosen_in_prose(value_text),
                    };
                real.then_some((rule, whole, value))
            })
        })
}

/// The first thing in `text` that looks like a real secret, if any.
pub fn find_secret(text: &str) -> Option<SecretMatch> {
    secrets_in(text).next().map(|(rule, whole, _)| SecretMatch {
        kind: rule.kind,
        excerpt: mask(whole.as_str()),
    })
}

/// What a masked secret reads as: `[secret masked: GitHub token]`. Searchable by its words, and
/// counted by `doctor` to name the transcripts that hold secrets.
pub const MASK_OPEN: &str = "[secret masked: ";

/// `text` with the value of every real secret replaced by a marker naming its kind (the key of
/// an assignment stays: `PGPASSWORD=[secret masked: …]` still says what was set). Unchanged,
/// and not copied, when it holds none.
pub fn mask_secrets(text: &str) -> Cow<'_, str> {
    let Cow::Owned(mut masked) = mask_once(text) else {
        return Cow::Borrowed(text);
    };
    // A match hides any other that overlaps it (a URL whose host runs into a second URL's
    // scheme: `a://u:PW@host.xhttps://v:PW2@…`); masking the first brings the second out, so
    // mask until nothing is left. Each pass turns a value into a marker no rule reads as one,
    // so this ends; the bound only guards against a rule that ever would.
    for _ in 0..MAX_MASK_PASSES {
        match mask_once(&masked) {
            Cow::Borrowed(_) => break,
            Cow::Owned(again) => masked = again,
        }
    }
    Cow::Owned(masked)
}

/// Passes after the first in [`mask_secrets`]; overlapping secrets need one each.
const MAX_MASK_PASSES: usize = 16;

/// One pass of [`mask_secrets`]: every match the rules find, without looking again at text a
/// match covered.
fn mask_once(text: &str) -> Cow<'_, str> {
    let mut spans: Vec<(usize, usize, &'static str)> = secrets_in(text)
        .map(|(rule, _, m)| (m.start(), m.end(), rule.kind))
        .collect();
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    spans.sort_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (start, end, kind) in spans {
        if end <= done {
            continue; // inside a secret already masked
        }
        if start >= done {
            out.push_str(&text[done..start]);
            out.push_str(MASK_OPEN);
            out.push_str(kind);
            out.push(']');
        }
        // An overlapping match extends the masked span without a second marker.
        done = end;
    }
    out.push_str(&text[done..]);
    Cow::Owned(out)
}

/// Documentation examples and template slots are not secrets. A placeholder is a whole value
/// — a slot (`<your-password>`, `${DB_PASSWORD}`, `{{ token }}`), an elision (`sk-…`, `xxxx`),
/// a known stand-in (`changeme`) or a phrase made only of words that say so
/// (`your-token-here`, `REPLACE_ME`) — never a value that merely contains such a word: people
/// pick passwords like `MyTodoList#2024` or `Beyourself!88`. A machine-made token (`chosen` false:
/// a vendor's fixed shape of random characters) is a placeholder when it holds such a word
/// anywhere, as documentation writes them (`AKIAIOSFODNN7EXAMPLE`): chance puts none there.
fn is_placeholder(value: &str, chosen: bool) -> bool {
    let value = value.trim_matches(|c| matches!(c, '\'' | '"' | '`'));
    let lower = value.to_ascii_lowercase();
    const SLOTS: &[&str] = &["<", "[", "${", "$(", "{{", "%(", "%{", "env:"];
    const ELISIONS: &[&str] = &["xxxx", "****", "…", "...", "####"];
    // A YAML tag (`!vault |`, `!secret db_password`) says where the value comes from.
    let yaml_tag = value.len() > 1
        && value.starts_with('!')
        && value[1..]
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_');
    if value.is_empty()
        || yaml_tag
        || value.starts_with('$')
        || SLOTS.iter().any(|s| lower.starts_with(s))
        || ELISIONS.iter().any(|e| lower.contains(e))
        || value
            .chars()
            .all(|c| c == value.chars().next().unwrap_or(' '))
    {
        return true;
    }
    // Words joined by separators, each all letters or all digits, one of them saying "put the
    // real value here". A word glued to digits or symbols (`Todo2024!`) is a password.
    const STAND_INS: &[&str] = &[
        "your",
        "yours",
        "example",
        "sample",
        "changeme",
        "placeholder",
        "redacted",
        "dummy",
        "replace",
        "replaceme",
        "todo",
        "fixme",
        "tbd",
        "here",
        "xxx",
        "secret_here",
        "insert",
        "fake",
    ];
    let words: Vec<&str> = lower.split(['-', '_', '.']).collect();
    let plain = words.iter().all(|w| {
        w.chars().all(|c| c.is_ascii_alphabetic()) || w.chars().all(|c| c.is_ascii_digit())
    });
    let joined: String = words.concat();
    if plain
        && (words.iter().any(|w| STAND_INS.contains(w)) || STAND_INS.contains(&joined.as_str()))
    {
        return true;
    }
    const IN_DOCUMENTED_TOKENS: &[&str] = &[
        "example",
        "your",
        "dummy",
        "placeholder",
        "redacted",
        "replace",
        "todo",
    ];
    // Only in a value of a token's length: a long key block's random characters could hold one.
    !chosen && value.len() <= 64 && IN_DOCUMENTED_TOKENS.iter().any(|w| lower.contains(w))
}

/// A value worth refusing has the texture of a credential: digits or symbols among letters,
/// or mixed case at some length. Plain words (`password: required`) are prose.
fn looks_like_a_real_value(value: &str) -> bool {
    // A path or a URL says where a secret lives, which is what a memory should hold.
    if value.starts_with(['/', '~']) || value.starts_with("./") || value.contains("://") {
        return false;
    }
    // Code reading the secret from elsewhere, not the secret itself: a call or an index
    // (`getpass.getpass(`, `os.environ[`) or a path of fields (`process.env.STRIPE_KEY`,
    // `settings.SECRET_KEY`). A value that only holds a bracket somewhere is a password.
    if reads_from_code(value) {
        return false;
    }
    let has_digit = value.chars().any(|c| c.is_ascii_digit());
    let has_symbol = value
        .chars()
        .any(|c| !c.is_alphanumeric() && c != '-' && c != '_' && c != '.');
    let has_upper = value.chars().any(|c| c.is_uppercase());
    let has_lower = value.chars().any(|c| c.is_lowercase());
    let is_identifier_like = value
        .chars()
        .all(|c| c.is_ascii_lowercase() || c == '_' || c == '-' || c == '.');
    if is_identifier_like {
        return false;
    }
    (has_digit && (has_lower || has_upper))
        || has_symbol
        || (has_upper && has_lower && value.len() >= 12)
}

/// `value` is code that reads a secret: an identifier or a path (`a.b`, `a::b`, `a?.b`) followed
/// by a call or an index, or a field path of two or more lowercase-led parts (`process.env.X`, `self.token`).
fn reads_from_code(value: &str) -> bool {
    static CODE: OnceLock<Regex> = OnceLock::new();
    CODE.get_or_init(|| {
        Regex::new(r"^(?:[A-Za-z_][A-Za-z0-9_.:?]*[(\[]|[a-z_][a-z0-9_]{0,39}(?:\.[A-Za-z_][A-Za-z0-9_]{0,39})+$)")
            .expect("code pattern compiles")
    })
    .is_match(value)
}

/// A word in a sentence that is a password: a credential's texture, and more of it than after a
/// key — letters and digits, and symbols or mixed case ("Testing4Ever!92", "rpe3glxWDlhCMgAd"),
/// or a long run of hex or base64 ("secret 6c51af04…"). "required", "rotated", "12 characters"
/// and "stored in Vault" are prose.
fn looks_chosen_in_prose(value: &str) -> bool {
    let value = value.trim_end_matches(['.', '!', '?']);
    if !looks_like_a_real_value(value) {
        return false;
    }
    let letters = value.chars().filter(|c| c.is_ascii_alphabetic()).count();
    let digits = value.chars().filter(|c| c.is_ascii_digit()).count();
    let symbols = value.chars().any(|c| !c.is_alphanumeric());
    let mixed_case =
        value.chars().any(|c| c.is_uppercase()) && value.chars().any(|c| c.is_lowercase());
    letters > 0 && digits > 0 && (symbols || mixed_case || value.len() >= 24)
}

fn mask(matched: &str) -> String {
    let first_line = matched.lines().next().unwrap_or("");
    let shown: String = first_line.chars().take(12).collect();
    format!("{shown}…")
}

#[cfg(test)]
#[path = "secrets_tests.rs"]
mod tests;

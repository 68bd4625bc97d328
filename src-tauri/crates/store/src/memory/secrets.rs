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
mod tests {
    /// Found by the fuzz smoke: the first URL's match ran over the second URL's scheme, so its
    /// password was never matched on its own and survived the masking.
    #[test]
    fn overlapping_secrets_are_all_masked() {
        let text = "mongodb+srv://admin:hunter2pw@cluster0.abchttps://deploy:gm9ncwZO73Txbe1@git.example.org/app.git";
        let masked = super::mask_secrets(text);
        assert!(
            !masked.contains("hunter2pw") && !masked.contains("gm9ncwZO73Txbe1"),
            "{masked}"
        );
        assert_eq!(super::find_secret(&masked), None, "{masked}");
    }

    #[test]
    fn every_word_boundary_is_ascii_so_non_ascii_text_keeps_the_fast_engine() {
        for rule in super::rules() {
            let pattern = rule.pattern.as_str();
            let unicode = pattern
                .match_indices(r"\b")
                .filter(|(at, _)| !pattern[..*at].ends_with("(?-u:"));
            assert_eq!(unicode.count(), 0, "a Unicode word boundary in {pattern}");
        }
        // The same secrets are found beside non-ASCII text as beside ASCII.
        let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        for text in [
            format!("token → {token} …"),
            format!("«{token}»"),
            format!("é {token}"),
        ] {
            assert_eq!(
                super::find_secret(&text).map(|m| m.kind),
                Some("GitHub token"),
                "{text}"
            );
            assert!(!super::mask_secrets(&text).contains(token), "{text}");
        }
    }

    use super::*;

    fn kind(text: &str) -> Option<&'static str> {
        find_secret(text).map(|m| m.kind)
    }

    #[test]
    fn finds_real_credentials() {
        let key_body =
            "MIIEowIBAAKCAQEA7bq3Q9F1yq0Z8m3rJ7pXw2h8s5K4nL6vT9cB1dE2fG3hI4jK5lM6nO7pQ8rS9tU0";
        let cases: Vec<(String, &str)> = vec![
            (
                format!(
                    "-----BEGIN RSA PRIVATE KEY-----\n{key_body}\n-----END RSA PRIVATE KEY-----"
                ),
                "private key",
            ),
            (
                format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{key_body}\n"),
                "private key",
            ),
            (
                "key id AKIAZ3MXQ7V2LPRT4K9B in prod".into(),
                "AWS access key id",
            ),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8d9s7t6u".into(),
                "AWS secret access key",
            ),
            (
                "token ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R".into(),
                "GitHub token",
            ),
            ("glpat-Zx8Kq2ZrL9mXw3Tn7Yb1".into(), "GitLab token"),
            ("xoxb-2048-99213-AbCdEfGhIjKl".into(), "Slack token"),
            ("sk_live_51Hx8Kq2ZrL9mXw3Tn7Yb1Vc".into(), "Stripe key"),
            (
                "OPENAI_API_KEY=sk-proj-4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R".into(),
                "API key (sk-…)",
            ),
            (
                "password=hunter2hunter2".into(),
                "password or secret assignment",
            ),
            (
                "db password: \"S3cr3t!pass\"".into(),
                "password or secret assignment",
            ),
            (
                "postgres://app:Zq9x7Lm2p@db.internal/app".into(),
                "credentials in a URL",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(kind(&text), Some(expected), "{text}");
        }
    }

    #[test]
    fn prose_about_key_formats_is_not_a_secret() {
        let prose = [
            "AWS access keys start with AKIA followed by 16 characters.",
            "The docs example key is AKIAIOSFODNN7EXAMPLE; never commit real ones.",
            "Set password= in the .env file, never in code.",
            "password: must be rotated every 90 days",
            "The password is required; the api_key comes from the vault.",
            "api_key: read from the environment (API_KEY)",
            "GitHub tokens look like ghp_ followed by 36 characters.",
            "Private keys begin with -----BEGIN PRIVATE KEY----- and must stay out of git.",
            "password: ${DB_PASSWORD}",
            "password=<your password here>",
            "secret: changeme",
            "connect with postgres://user:<password>@host/db",
            "token: refresh_token_rotation",
        ];
        for text in prose {
            assert_eq!(find_secret(text), None, "{text}");
        }
    }

    /// Every case is checked and every failure reported at once, so one run shows the whole gap.
    fn failures(cases: &[(&str, bool)]) -> Vec<String> {
        cases
            .iter()
            .filter(|(text, secret)| find_secret(text).is_some() != *secret)
            .map(|(text, secret)| {
                format!(
                    "{text:?}: expected {}",
                    if *secret { "a secret" } else { "no secret" }
                )
            })
            .collect()
    }

    #[test]
    fn assignments_with_prefixes_and_short_values() {
        let cases: &[(&str, bool)] = &[
            ("DATABASE_PASSWORD=hunter2hunter2", true),
            ("DB_PASSWORD=Xk9mP2vL7qRt", true),
            ("db_password=Xk9mP2vL7qRt", true),
            ("db-password: s3cretpass", true),
            ("password=hunter2", true),
            ("PASSWORD=\"hunter2\"", true),
            ("export REDIS_PASSWORD=p4ssw0rd!", true),
            ("app.secret=Zq9x7Lm2p", true),
            ("STRIPE_SECRET_KEY=Zq9x7Lm2pQ8", true),
            ("GITHUB_AUTH_TOKEN: 9f8e7d6c5b4a", true),
            (
                "The DATABASE_PASSWORD variable holds the database password.",
                false,
            ),
            (
                "DB_PASSWORD is read from the environment at start-up.",
                false,
            ),
            (
                "Set DATABASE_PASSWORD=<secret> in .env, never in code.",
                false,
            ),
            ("DB_PASSWORD=${DB_PASSWORD}", false),
            ("password_policy: minimum 12 characters", false),
            ("password: required", false),
            ("password: must be rotated", false),
            ("pwd: /home/u/app", false),
            ("DB_PASSWORD_FILE=/run/secrets/db", false),
            ("db_password: read from vault at secret/data/db", false),
            ("API keys look like `sk-` followed by 48 characters.", false),
            (
                "A GitHub token is ghp_ plus 36 alphanumerics; AWS key ids start with AKIA.",
                false,
            ),
        ];
        let failed = failures(cases);
        assert!(
            failed.is_empty(),
            "{} case(s) failed:\n{}",
            failed.len(),
            failed.join("\n")
        );
    }

    /// A placeholder is a whole value, not a value holding a placeholder's word: passwords
    /// people pick contain "todo", "your", "example", "replace", "dummy".
    #[test]
    fn a_password_holding_a_placeholder_word_is_a_password() {
        let cases: &[(&str, bool)] = &[
            ("PGPASSWORD=MyTodoList#2024", true),
            ("DATABASE_PASSWORD=Beyourself!88", true),
            ("password: ExampleCorp$99x", true),
            ("SMTP_PASSWORD=ReplaceMe2Now!7", true),
            ("db_password=Dummy-Run#42", true),
            ("password=<your-password>", false),
            ("PGPASSWORD=your-password-here", false),
            ("API_KEY=YOUR_API_KEY", false),
            ("SECRET_KEY=replace_me", false),
            ("password: change-me", false),
            ("token=xxxxxxxxxxxxxxxx", false),
            ("password=${PGPASSWORD}", false),
            ("password={{ db_password }}", false),
            ("API_TOKEN=todo", false),
            (
                "The docs example key is AKIAIOSFODNN7EXAMPLE; never commit real ones.",
                false,
            ),
        ];
        let failed = failures(cases);
        assert!(
            failed.is_empty(),
            "{} case(s) failed:\n{}",
            failed.len(),
            failed.join("\n")
        );
    }

    /// Passwords handed to a command on its command line, and a key block pasted on one line.
    #[test]
    fn passwords_on_command_lines_and_one_line_key_blocks_are_secrets() {
        let cases: &[(&str, bool)] = &[
            ("mysql -u root -pS3cretPass123", true),
            ("mysqldump -h db -u app --password='Qz8!vLm2x' app > dump.sql", true),
            ("curl -u admin:P4ssw0rd-2024x https://api.internal/v1/health", true),
            ("sshpass -p 'Wint3r!2024x' ssh deploy@bastion", true),
            ("docker login -u ci -p 'Dk8#pLq2vX' registry.internal", true),
            ("redis-cli -h cache -p 6379 -a R3d1sPa55word ping", true),
            ("htpasswd -b -c .htpasswd admin Adm1n!Pass", true),
            ("-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEA7bq3Q9F1yq0Z8m3rJ7pXw2h8s5K4nL6vT9cB1dE2fG3hI4jK5lM6nO7pQ8rS9tU0 -----END RSA PRIVATE KEY-----", true),
            ("-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQ -----END OPENSSH PRIVATE KEY-----", true),
            ("mysql -u root -p", false),
            ("mysql -h db -P 3306 -u app -p app_db", false),
            ("curl -u $USER:$TOKEN https://api.internal/v1", false),
            ("curl -s -u deploy https://ci.internal:8443/api", false),
            ("sshpass -f ~/.ssh/pw ssh deploy@bastion", false),
            ("docker login -u ci --password-stdin registry.internal", false),
            ("docker run -p 3000:3000 app", false),
            ("ssh -p 2222 deploy@bastion", false),
            ("psql -h db -p 5432 -U app", false),
            ("The key file starts with -----BEGIN OPENSSH PRIVATE KEY----- and must stay out of git.", false),
        ];
        let failed = failures(cases);
        assert!(
            failed.is_empty(),
            "{} case(s) failed:\n{}",
            failed.len(),
            failed.join("\n")
        );
    }

    /// `secrets` and `benign` judged: the secrets missed and the ordinary lines flagged (with
    /// their kind), both counts printed under `what`.
    fn judged(
        what: &str,
        secrets: &'static str,
        benign: &'static str,
    ) -> (Vec<String>, Vec<String>) {
        let (secrets, benign) = (corpus(secrets), corpus(benign));
        let missed: Vec<String> = secrets
            .iter()
            .filter(|s| find_secret(s).is_none())
            .cloned()
            .collect();
        let flagged: Vec<String> = benign
            .iter()
            .filter_map(|line| find_secret(line).map(|m| format!("{line:?} as {}", m.kind)))
            .collect();
        eprintln!(
            "{what}: caught {}/{}, false positives {}/{}",
            secrets.len() - missed.len(),
            secrets.len(),
            flagged.len(),
            benign.len()
        );
        (missed, flagged)
    }

    /// The corpora written apart from these rules, by someone who never saw them (88 secrets of
    /// realistic forms, 186 ordinary lines about credentials and code). The rules before this
    /// set: caught 56/88, flagged 2/186; with the forms the trust review named (placeholders as
    /// whole values, mysql/curl/sshpass, one-line keys), before any rule was fitted to the set:
    /// 71/88, 3/186. The rules were then fitted to it (passwords on more command lines, in
    /// prose and in `.netrc`, keys named as strings, code reading a secret, YAML tags): 88/88
    /// and 0/186 — a tuning figure from here on; the frozen set below is the measurement.
    #[test]
    fn the_independent_corpus_is_caught_as_measured() {
        let (missed, flagged) = judged(
            "independent (dev)",
            include_str!("secrets_corpus/dev_secrets.txt"),
            include_str!("secrets_corpus/dev_benign.txt"),
        );
        assert!(missed.is_empty(), "missed {}: {missed:#?}", missed.len());
        assert!(
            flagged.is_empty(),
            "{} false positive(s):\n{}",
            flagged.len(),
            flagged.join("\n")
        );
    }

    /// The frozen set: 60 secrets and 120 ordinary lines written by someone who saw neither the
    /// rules nor the corpora above, after the rules were fitted, and never fitted to. The rules
    /// before this change: caught 30/60, flagged 3/120. Measured once after: caught 50/60,
    /// flagged 2/120 (missed: passwords given to 7z, unzip, sqlcmd, xfreerdp, snmpwalk, lftp,
    /// openconnect's stdin, a Twilio client's arguments, a bot token in a URL path, one in prose;
    /// flagged: a `%API_KEY%` slot, and an empty `Password:` whose value was read from the next
    /// line). Gated there, so a change that loses ground fails; a rule fitted to these lines
    /// would make the figure meaningless, so none is.
    #[test]
    fn the_frozen_corpus_is_caught_as_measured() {
        let (missed, flagged) = judged(
            "frozen",
            include_str!("secrets_corpus/heldout_secrets.txt"),
            include_str!("secrets_corpus/heldout_benign.txt"),
        );
        assert!(missed.len() <= HELDOUT_MISSED, "missed {}", missed.len());
        assert!(
            flagged.len() <= HELDOUT_FLAGGED,
            "{} false positive(s)",
            flagged.len()
        );
    }

    const HELDOUT_MISSED: usize = 10;
    const HELDOUT_FLAGGED: usize = 2;

    /// One detector: what a save refuses, masking hides — every secret of the corpora changes
    /// when masked and holds none after; no ordinary line is changed.
    #[test]
    fn refusing_and_masking_agree_on_every_line() {
        for line in corpus(include_str!("secrets_corpus/secrets.txt"))
            .into_iter()
            .chain(corpus(include_str!("secrets_corpus/dev_secrets.txt")))
        {
            let refused = find_secret(&line).is_some();
            let masked = mask_secrets(&line);
            assert_eq!(
                refused,
                matches!(masked, Cow::Owned(_)),
                "refused {refused} but masked {masked:?}: {line}"
            );
            assert_eq!(find_secret(&masked), None, "{masked}");
        }
        for line in corpus(include_str!("secrets_corpus/benign.txt"))
            .into_iter()
            .chain(corpus(include_str!("secrets_corpus/dev_benign.txt")))
        {
            assert_eq!(
                find_secret(&line).is_some(),
                matches!(mask_secrets(&line), Cow::Owned(_)),
                "{line}"
            );
        }
    }

    #[test]
    fn masking_replaces_every_value_and_keeps_the_rest() {
        let text = "export AWS_ACCESS_KEY_ID=AKIAZ3MXQ7V2LPRT4K9B\nPGPASSWORD=Xk9mP2qL7wZ4 psql\n\
                    push with ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R please";
        let masked = mask_secrets(text);
        for secret in ["AKIAZ3MXQ7V2LPRT4K9B", "Xk9mP2qL7wZ4", "ghp_4f8Kq2Zr"] {
            assert!(!masked.contains(secret), "{secret} in {masked}");
        }
        assert!(masked.contains("PGPASSWORD=[secret masked: password or secret assignment] psql"));
        assert!(masked.contains("push with [secret masked: GitHub token] please"));
        assert_eq!(
            find_secret(&masked),
            None,
            "the masked text holds no secret: {masked}"
        );
        assert!(matches!(
            mask_secrets("password: must be rotated"),
            Cow::Borrowed(_)
        ));
        let every = corpus(include_str!("secrets_corpus/secrets.txt"));
        let left: Vec<String> = every
            .iter()
            .map(|s| mask_secrets(s).into_owned())
            .filter(|m| find_secret(m).is_some())
            .collect();
        assert!(
            left.is_empty(),
            "still holding a secret once masked: {left:#?}"
        );
    }

    #[test]
    fn redaction_removes_every_secret_and_keeps_the_prose() {
        let text = "key ghp_0123456789abcdefghijABCDEFGHIJ012345 and AKIAIOSFODNN7REALKEY1 here";
        let clean = mask_secrets(text);
        assert!(find_secret(&clean).is_none(), "{clean}");
        assert!(clean.starts_with("key [secret masked: "), "{clean}");
        assert!(clean.ends_with(" here"), "{clean}");
        assert_eq!(mask_secrets("nothing secret"), "nothing secret");
    }

    #[test]
    fn the_excerpt_names_the_match_without_revealing_it() {
        let m = find_secret("use ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R now").unwrap();
        assert!(m.excerpt.starts_with("ghp_4f8Kq2Zr"));
        assert!(!m.excerpt.contains("Pa2Ge8R"));
    }

    /// Corpus lines: `#` starts a comment, `⏎` stands for a line break.
    fn corpus(text: &'static str) -> Vec<String> {
        text.lines()
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(|line| line.replace('⏎', "\n"))
            .collect()
    }

    /// Measured on the corpora (76 secrets of about 40 kinds, 253 ordinary lines of memories,
    /// code, hashes, UUIDs, base64 and elided token documentation): caught 76/76 (the last
    /// seven, placeholder words inside passwords and passwords on command lines, were missed
    /// until the trust review: 69/76), false positives 0/253. Placeholders (`${DB_PASSWORD}`,
    /// `<your-password>`, `changeme`, an empty value) are not secrets: a default everyone knows
    /// protects nothing, and refusing it would refuse every setup note.

    #[test]
    fn the_secret_corpus_is_caught_whole_and_ordinary_text_passes() {
        let (missed, flagged) = judged(
            "corpus",
            include_str!("secrets_corpus/secrets.txt"),
            include_str!("secrets_corpus/benign.txt"),
        );
        assert!(missed.is_empty(), "missed {}:\n{missed:#?}", missed.len());
        // The measured number is zero, so none is allowed: a new pattern that refuses ordinary
        // text fails here and has to be narrowed.
        assert!(
            flagged.is_empty(),
            "{} false positive(s):\n{}",
            flagged.len(),
            flagged.join("\n")
        );
    }
}

//! The secret scanner's tests: each kind of secret found, placeholders and benign text left
//! alone, and the labelled corpora (dev and held-out) scored.

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
            format!("-----BEGIN RSA PRIVATE KEY-----\n{key_body}\n-----END RSA PRIVATE KEY-----"),
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
fn judged(what: &str, secrets: &'static str, benign: &'static str) -> (Vec<String>, Vec<String>) {
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

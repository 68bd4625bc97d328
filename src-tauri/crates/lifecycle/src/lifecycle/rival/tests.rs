//! The claims of memory pairs as people write them: rival tools, values, negations, moves,
//! subjects told apart by headline or name, and what is the same said two ways.

use super::*;

fn cmp(a: &str, b: &str) -> Comparison {
    compare(&Claims::of(a), &Claims::of(b))
}

#[test]
fn rival_tools_conflict_even_when_one_side_never_names_the_other() {
    let c = cmp(
        "Install dependencies with `yarn install`.",
        "The monorepo uses npm workspaces; run `npm install` at the root.",
    );
    assert_eq!(c.rivals, [("yarn".to_string(), "npm".to_string())]);
    let c = cmp(
        "Lint Python code with flake8.",
        "Python linting is done by `ruff check .`.",
    );
    assert_eq!(c.rivals, [("flake8".to_string(), "ruff".to_string())]);
    // Tools named only to be refused on both sides are one rule.
    let c = cmp(
        "Use pnpm; do not use npm or yarn.",
        "Install only with pnpm, never with npm or yarn.",
    );
    assert!(c.rivals.is_empty() && c.apart.is_none(), "{c:?}");
}

#[test]
fn rival_values_conflict_and_the_same_value_written_otherwise_does_not() {
    assert!(!cmp(
        "Indent Python with 4 spaces.",
        "Our Python files use two-space indentation."
    )
    .rivals
    .is_empty());
    assert!(!cmp(
        "Production runs in us-east-1.",
        "All production resources live in eu-west-1."
    )
    .rivals
    .is_empty());
    let same = cmp(
        "CI build artifacts are retained for 14 days.",
        "Build artifacts in CI expire after two weeks.",
    );
    assert!(same.rivals.is_empty() && same.unsure.is_empty(), "{same:?}");
    let same = cmp(
        "Outbound HTTP calls are retried three times.",
        "The outbound HTTP client gives up after 3 retries.",
    );
    assert!(same.rivals.is_empty(), "{same:?}");
}

#[test]
fn a_rule_and_its_negation_or_a_move_away_conflict() {
    assert!(!cmp(
        "Error handling in library crates.\nUse anyhow for errors in the library crates.",
        "No anyhow in libraries.\nLibrary crates must not depend on anyhow; they define typed errors."
    )
    .rivals
    .is_empty());
    assert!(!cmp(
        "Where logs are shipped.\nApplication logs are shipped to the ELK stack.",
        "Log destination.\nApplication logs moved from ELK to Datadog; ELK was shut down."
    )
    .rivals
    .is_empty());
    assert!(!cmp(
        "Java version of the monolith.\nThe legacy monolith runs on Java 11.",
        "Monolith JDK upgrade.\nThe monolith was upgraded from Java 11 to Java 17 and no longer runs on 11."
    )
    .rivals
    .is_empty());
}

#[test]
fn the_same_claims_said_shortly_and_at_length_are_the_same_claims_an_addition_is_not() {
    assert!(
        cmp(
            "Node version.\nNode 20.",
            "The Node.js version the project targets.\nThe project runs on Node.js version 20."
        )
        .same_claims
    );
    assert!(
        !cmp(
            "Package manager.\nUse pnpm for this repo.",
            "pnpm version.\nThe packageManager field pins pnpm 9.x; enable it through corepack."
        )
        .same_claims
    );
}

#[test]
fn the_same_values_written_two_ways_make_a_duplicate_whatever_else_one_side_names() {
    let tokens = (
        "Access token lifetime.\nAccess tokens expire after 15 minutes.",
        "JWT exp.\nAccess JWTs are issued with a lifetime of 900 seconds.",
    );
    let c = cmp(tokens.0, tokens.1);
    assert!(c.same_values && !c.same_claims, "{c:?}");
    assert_eq!(
        c.agreed,
        [("15 minutes".to_string(), "900 seconds".to_string())]
    );
    assert!(
        cmp(
            "Image budget.\nKeep the image under 1 GiB.",
            "Image size.\nDocker images must stay below 1024 MiB."
        )
        .same_values
    );
    // Another value, or one more on either side, is not the same values.
    assert!(
        !cmp(
            tokens.0,
            "JWT exp.\nAccess JWTs are issued with a lifetime of 600 seconds."
        )
        .same_values
    );
    assert!(
        !cmp(
            tokens.0,
            "JWT exp.\nAccess JWTs live 900 seconds; refresh tokens 30 days."
        )
        .same_values
    );
    // Judged: a duplicate from the lower similarity, with the model and words only.
    use super::super::pairs::{judge, Side, Verdict};
    let (a, b) = (
        Side::new(
            "Access token lifetime",
            "Access tokens expire after 15 minutes.",
        ),
        Side::new(
            "JWT exp",
            "Access JWTs are issued with a lifetime of 900 seconds.",
        ),
    );
    let with_model = judge(&a, &b, Some(0.6));
    assert!(with_model.similarity < super::super::pairs::SAME_CLAIMS_AT);
    assert_eq!(with_model.verdict, Some(Verdict::Duplicate));
    assert_eq!(judge(&a, &b, Some(0.4)).verdict, None, "too far apart");
}

#[test]
fn names_alike_but_for_one_qualifier_the_other_never_says_are_two_subjects() {
    let named = |name: &str, description: &str, body: &str| {
        Claims::of(&format!("{description}.\n{body}")).named(name)
    };
    let c = compare(
        &named(
            "access-token-ttl",
            "Token lifetime",
            "Tokens the API issues for requests live 15 minutes.",
        ),
        &named(
            "refresh-token-ttl",
            "Token lifetime",
            "Tokens that renew a session live 30 days.",
        ),
    );
    assert_eq!(c.apart, Some(("access".into(), "refresh".into())), "{c:?}");
    // A generic qualifier against a specific one names two subjects too.
    let c = compare(
        &named(
            "sidekiq-default-concurrency",
            "Sidekiq threads",
            "The sidekiq process for the low queue runs 10 threads.",
        ),
        &named(
            "sidekiq-mailers-concurrency",
            "Sidekiq threads",
            "The sidekiq process for mail runs 2 threads.",
        ),
    );
    assert!(c.apart.is_some(), "{c:?}");
    // One side saying the other's qualifier: one rule, named two ways.
    let c = compare(
        &named(
            "decimal-rounding",
            "Rounding money",
            "Round money amounts with banker's rounding (half to even).",
        ),
        &named(
            "bankers-rounding",
            "Rounding money",
            "Money is rounded half to even.",
        ),
    );
    assert!(c.apart.is_none(), "{c:?}");
    // A rival tool in the name is the disagreement, not another subject.
    let c = compare(
        &named(
            "deps-yarn",
            "Installing dependencies",
            "Run `yarn install`.",
        ),
        &named("deps-npm", "Installing dependencies", "Run `npm install`."),
    );
    assert!(c.apart.is_none() && !c.rivals.is_empty(), "{c:?}");
}

#[test]
fn a_tool_both_sides_refuse_is_no_disagreement_and_one_said_missing_is() {
    let c = cmp(
        "Gradle wrapper.\nAlways use the Gradle wrapper: run `./gradlew`, not a system gradle.",
        "Building.\nInvoke the checked-in `./gradlew` rather than whatever gradle is on the PATH.",
    );
    assert!(c.rivals.is_empty(), "{c:?}");
    let c = cmp(
        "Laravel tests.\nLaravel app tests are written in Pest.",
        "Laravel tests.\nTests are PHPUnit classes; Pest is not installed.",
    );
    assert!(
        c.rivals
            .contains(&("pest".to_string(), "phpunit".to_string())),
        "{c:?}"
    );
}

#[test]
fn one_meaning_in_other_words_is_a_duplicate_unless_a_value_is_unsure() {
    use super::super::pairs::{judge, Side, Verdict, DUPLICATE_AT, MEANS_THE_SAME_AT};
    let (a, b) = (
        Side::new(
            "All functions need type hints",
            "Every new Python function should have full type annotations for its parameters and return value.",
        ),
        Side::new(
            "Annotation policy",
            "Write complete annotations on any function signature you add to the Python code, return type included.",
        ),
    );
    let same = judge(&a, &b, Some(MEANS_THE_SAME_AT + 0.005));
    assert!(same.similarity < DUPLICATE_AT, "{same:?}");
    assert_eq!(same.verdict, Some(Verdict::Duplicate));
    assert_eq!(judge(&a, &b, Some(MEANS_THE_SAME_AT - 0.1)).verdict, None);
    let (a, b) = (
        Side::new(
            "Config file",
            "The service reads `config/app.yaml` at start.",
        ),
        Side::new("Settings", "At start it loads `settings/main.toml`."),
    );
    let unsure = judge(&a, &b, Some(0.8));
    assert!(
        matches!(unsure.verdict, Some(Verdict::Uncertain(_))),
        "{unsure:?}"
    );
}

#[test]
fn a_size_in_decimal_and_in_binary_units_is_one_value() {
    let c = cmp(
        "Image budget.\nCI fails any image larger than 500 MB.",
        "Image size.\nImages over 0.5 GB are rejected.",
    );
    assert!(c.rivals.is_empty() && c.same_values, "{c:?}");
    assert!(!cmp(
        "Image budget.\nCI fails any image larger than 500 MB.",
        "Image size.\nImages over 0.8 GB are rejected.",
    )
    .rivals
    .is_empty());
}

#[test]
fn a_rival_value_about_another_subject_is_apart_not_a_conflict() {
    let c = cmp(
        "The orders service listens on port 8081.",
        "The inventory service listens on port 8082.",
    );
    assert!(c.apart.is_some() && c.rivals.is_empty());
    assert!(cmp(
        "The web app is on React 18.3.",
        "The web app is on TypeScript 5.4."
    )
    .apart
    .is_some());
    assert!(cmp(
        "Local Postgres is exposed on port 5432.",
        "Local Redis is exposed on port 6379."
    )
    .apart
    .is_some());
}

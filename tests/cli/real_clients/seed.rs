//! A home of about 100 memories (user and project scope) with both trust anchors, and ten
//! memories that the session prompts need, each prompt written for one of them.
//!
//! Owns: the seeded content, the marker that makes each body findable in a model request
//! (`MARK-<name>`, only in bodies: the memory map shows names and descriptions, never bodies),
//! and the byte sizes the oracle is computed from.
//! Deliberately does not: judge anything.

use super::world::World;

pub const USER_ANCHOR: &str =
    "USER-ANCHOR-7d1: I prefer small reviewable diffs, British spelling in prose, and tests \
before code. Ask before adding a dependency. Never push to main. Explain trade-offs briefly, \
and say plainly when something is a guess. Keep commit subjects under 72 characters.";
pub const PROJECT_ANCHOR: &str =
    "PROJECT-ANCHOR-4c2: This repository is the payments gateway. The public API is \
versioned under /v2 and must stay backwards compatible. Money is integer minor units, never \
floats. Every handler logs a request id. The team owns the Terraform under infra/.";

/// A memory a session prompt needs: its name, the prompt asked for it, another wording of
/// the same need (asked again later in a session), and the words of its body.
pub struct Needed {
    pub name: &'static str,
    pub description: &'static str,
    pub prompt: &'static str,
    pub again: &'static str,
    pub body: &'static str,
}

pub const NEEDED: [Needed; 10] = [
    Needed { name: "deploy-process", description: "How this service is deployed to production",
        prompt: "How do we deploy this service to production?", again: "Remind me of the production deploy steps.",
        body: "Deploys go blue-green behind the staging gate. Run the database migrations first, wait for the canary \
to report healthy for ten minutes, then switch traffic. Roll back by switching the router back, never by redeploying \
an old build. The deploy job lives in ci/deploy.yml and needs the release-manager role." },
    Needed { name: "db-migrations", description: "How database migrations are written and applied",
        prompt: "I need to add a column; how do database migrations work here?", again: "What are the rules for a database migration again?",
        body: "Migrations use sqitch under db/. Never edit a migration that has been applied anywhere; add a new one. \
Every migration has a revert and a verify script. Adding a NOT NULL column needs a default or a backfill in a \
separate migration, because the blue-green deploy runs old code against the new schema." },
    Needed { name: "release-cadence", description: "Which weekday the team releases and the freeze rules",
        prompt: "When is the next release day and is there a freeze?", again: "Which weekday do we release on?",
        body: "We release on Thursdays, never on Fridays. A code freeze starts Wednesday at noon UTC; only fixes for \
release blockers merge after it, each approved by the release manager. Holidays move the release to the previous \
working day, announced in the team channel a week ahead." },
    Needed { name: "code-review", description: "What a pull request needs before merging",
        prompt: "What does a pull request need before it can be merged?", again: "How many approvals does a pull request need?",
        body: "Every pull request needs two approvals, one from CODEOWNERS of each touched directory, a green CI run \
and a linked ticket. Reviewers answer within one working day. Squash merge only; the author merges, not the \
reviewer. Draft pull requests are not reviewed." },
    Needed { name: "python-tooling", description: "Which Python version and package manager the tooling uses",
        prompt: "Which Python version and package manager do we use for the tooling scripts?", again: "Remind me which Python package manager the scripts use.",
        body: "The tooling scripts pin Python 3.12 and use uv for packages: uv sync, then uv run. Never pip install \
into the system interpreter. The lock file uv.lock is committed; update it with uv lock --upgrade-package NAME in a \
pull request of its own." },
    Needed { name: "oncall-escalation", description: "Who is on call and how to escalate an incident",
        prompt: "Who is on call and how do I escalate an incident?", again: "How do I escalate an incident again?",
        body: "The pager rota rotates on Mondays at 10:00 UTC; see the on-call calendar. Escalate an incident in \
#ops-escalation with the incident template, page the secondary after fifteen minutes without acknowledgement, and \
open a postmortem ticket for every customer-visible incident." },
    Needed { name: "secrets-handling", description: "Where secrets and API keys are kept",
        prompt: "Where do I put a new API secret for a third-party service?", again: "Where are API secrets stored?",
        body: "Secrets live in Vault under kv/payments/<service>; applications read them through the sidecar at \
startup. Never put a secret in a .env file, a CI variable or a test fixture. Rotate a leaked secret at once and \
record the rotation in the security log." },
    Needed { name: "feature-flags", description: "How feature flags are created and retired",
        prompt: "How do we manage feature flags?", again: "When must a feature flag be removed?",
        body: "Feature flags are managed in Unleash, one flag per change, named team.feature.purpose. A flag is \
removed within two sprints of reaching 100 percent; the cleanup ticket is created together with the flag. Never \
nest one flag inside another." },
    Needed { name: "slo-error-budget", description: "The service level objective and error budget policy",
        prompt: "What is our SLO and the error budget policy?", again: "What happens when the error budget is spent?",
        body: "The gateway's SLO is 99.9 percent successful requests over 30 days. The error budget is reviewed \
monthly; when it is spent, feature work stops and the team works on reliability until the budget recovers. Latency \
SLO: p99 under 400 ms for authorisations." },
    Needed { name: "commit-style", description: "How commit messages are written",
        prompt: "How should I write commit messages here?", again: "What is the commit message convention?",
        body: "Commits follow Conventional Commits (feat, fix, chore, docs, refactor, test) with the ticket id in the \
footer. Subjects are imperative and under 72 characters. Pull requests are squash merged, so the pull request title \
becomes the commit subject and must follow the same convention." },
];

const AREAS: [&str; 10] = [
    "billing", "search", "auth", "ui", "ci", "docs", "cache", "queue", "logging", "metrics",
];
const ASPECTS: [&str; 9] = [
    "conventions",
    "pitfalls",
    "owners",
    "history",
    "testing",
    "config",
    "performance",
    "errors",
    "naming",
];

/// The names of every memory `seed_home` writes.
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = NEEDED.iter().map(|n| n.name.to_string()).collect();
    for area in AREAS {
        for aspect in ASPECTS {
            names.push(format!("{area}-{aspect}"));
        }
    }
    names
}

/// The marker that identifies a memory's body in a request.
pub fn mark(name: &str) -> String {
    format!("MARK-{name}")
}

fn body_of(needed: &Needed) -> String {
    format!("{} ({})", needed.body, mark(needed.name))
}

/// The bytes of a needed memory's body as the store holds it (what an oracle injects once).
pub fn body_bytes(needed: &Needed) -> usize {
    body_of(needed).len()
}

/// Writes both anchors and 100 memories (10 needed, 90 others) through the `ambry` under test.
pub fn seed_home(world: &World) {
    std::fs::create_dir_all(world.store()).unwrap();
    std::fs::write(world.store().join("USER.md"), format!("{USER_ANCHOR}\n")).unwrap();
    std::fs::create_dir_all(world.project().join(".ambry")).unwrap();
    std::fs::write(
        world.project().join(".ambry/AMBRY.md"),
        format!("{PROJECT_ANCHOR}\n"),
    )
    .unwrap();
    for needed in &NEEDED {
        save(
            world,
            needed.name,
            needed.description,
            &body_of(needed),
            "project",
        );
    }
    for (i, area) in AREAS.iter().enumerate() {
        for (j, aspect) in ASPECTS.iter().enumerate() {
            let name = format!("{area}-{aspect}");
            let scope = if (i + j) % 2 == 0 { "user" } else { "project" };
            let body = format!(
                "Notes on the {aspect} of the {area} module: keep the {area} {aspect} documented in its README, \
                 check the {area} dashboards after a change, and ask the {area} owners before renaming anything public. \
                 Entry {i}.{j} of the team handbook. ({})",
                mark(&name)
            );
            let description = format!("The {aspect} of the {area} module");
            save(world, &name, &description, &body, scope);
        }
    }
}

fn save(world: &World, name: &str, description: &str, body: &str, scope: &str) {
    world
        .ambry(&[
            "memory",
            "save",
            name,
            "--type",
            "project",
            "--description",
            description,
            "--scope",
            scope,
            "--body",
            body,
        ])
        .ok("seed a memory");
}

//! The independent paraphrase set: twenty memories on distinct engineering topics and, for
//! each, a query that shares no content word with it (bm25 cannot answer these by
//! construction). Used by the semantic-only check and by the strategy comparison.

/// (name, description, body)
pub const MEMORIES: &[(&str, &str, &str)] = &[
    ("db-migrations", "How schema changes ship", "Run sqlx migrate before deploying; never edit an applied migration file."),
    ("jwt-refresh-flow", "Auth token renewal", "Access tokens expire after 15 minutes; the client swaps the refresh token at /auth/refresh."),
    ("ci-flaky-tests", "Unreliable checks in the pipeline", "The integration suite times out on the shared runner; rerun once before investigating."),
    ("release-process", "Cutting a version", "Tag vX.Y.Z on main, the workflow builds artifacts and publishes the changelog."),
    ("code-review-style", "Review etiquette", "Prefer small pull requests; reviewers answer within a day; nits are prefixed with nit:."),
    ("logging-policy", "What goes into logs", "Structured JSON logs; never log passwords or personal data; use trace ids."),
    ("k8s-rollback", "Reverting a bad rollout", "kubectl rollout undo deployment/api restores the previous replica set."),
    ("cache-invalidation", "Redis entries going stale", "Keys carry a version prefix; bump it to drop every cached product page."),
    ("oncall-rotation", "Who answers pages", "Weekly rotation, handover on Monday at 10:00, escalate after 30 minutes."),
    ("python-env", "Interpreter setup", "Use uv venv with Python 3.12; pin dependencies in requirements.lock."),
    ("frontend-build", "Bundling the web UI", "Vite builds to dist/; run pnpm build, assets are hashed for long caching."),
    ("payment-webhooks", "Stripe event handling", "Verify the signature header, process idempotently by event id, reply 200 quickly."),
    ("backup-restore", "Database snapshots", "Nightly pg_dump to S3, kept 30 days; restore with pg_restore into a scratch instance first."),
    ("feature-flags", "Toggling unfinished work", "Flags live in LaunchDarkly; remove a flag within two sprints of full rollout."),
    ("rate-limits", "Throttling API clients", "Token bucket of 100 requests per minute per key; return 429 with Retry-After."),
    ("timezone-handling", "Dates and clocks", "Store UTC everywhere; convert to the viewer's zone only when rendering."),
    ("error-budget", "Reliability target", "99.9% monthly availability; freeze launches when the budget is spent."),
    ("dependency-updates", "Keeping libraries current", "Renovate opens weekly grouped PRs; merge after the suite passes."),
    ("user-prefers-tabs", "Editor preference", "Indent with tabs in Go and Makefiles, four spaces elsewhere; no trailing whitespace."),
    ("memory-leak-hunt", "Growing RSS in the worker", "Heap profiles showed an unbounded map of sessions; evict entries after an hour."),
];

/// (query, target name): no word of the query appears in the target's name, description or body.
pub const QUERIES: &[(&str, &str)] = &[
    ("altering tables in production", "db-migrations"),
    (
        "keeping people signed in when credentials lapse",
        "jwt-refresh-flow",
    ),
    (
        "why does the build sometimes go red randomly",
        "ci-flaky-tests",
    ),
    (
        "how do we ship a fresh edition of our software",
        "release-process",
    ),
    ("giving feedback on teammates' patches", "code-review-style"),
    (
        "sensitive information in diagnostic output",
        "logging-policy",
    ),
    ("go back after a broken cluster upgrade", "k8s-rollback"),
    (
        "outdated stored copies shown to shoppers",
        "cache-invalidation",
    ),
    (
        "who is responsible for emergencies at night",
        "oncall-rotation",
    ),
    (
        "isolated sandbox for scripting language packages",
        "python-env",
    ),
    ("compiling javascript for browsers", "frontend-build"),
    (
        "card charge notifications from the billing provider",
        "payment-webhooks",
    ),
    ("recover lost data after disaster", "backup-restore"),
    (
        "hide half-done functionality behind switches",
        "feature-flags",
    ),
    ("too many calls from one customer", "rate-limits"),
    (
        "showing local hours in different countries",
        "timezone-handling",
    ),
    ("how much downtime is acceptable", "error-budget"),
    (
        "upgrading third-party packages regularly",
        "dependency-updates",
    ),
    ("source code layout taste", "user-prefers-tabs"),
    ("process consuming ever more ram", "memory-leak-hunt"),
];

//! Embeddings through the real binary: `memory reindex`, the vector written by `memory save`, and `doctor`.

use std::path::PathBuf;

use crate::support::Sandbox;

fn test_models() -> PathBuf {
    let dir = std::env::var_os("AMBRY_TEST_MODELS").map(PathBuf::from).unwrap_or_else(|| {
        panic!("AMBRY_TEST_MODELS is not set: run `scripts/fetch-models.sh DIR` and set AMBRY_TEST_MODELS=DIR (make test does both)")
    });
    assert!(
        dir.join("onnxruntime/libonnxruntime.so.1.24.4").is_file()
            && dir.join("all-MiniLM-L6-v2/model.onnx").is_file(),
        "embedding assets missing under AMBRY_TEST_MODELS={}: run scripts/fetch-models.sh {0}",
        dir.display()
    );
    dir
}

fn write_memory(sandbox: &Sandbox, name: &str, description: &str, body: &str) {
    let dir = sandbox.home.path().join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{name}.md")),
        format!("---\nname: {name}\ntype: note\ndescription: {description}\ncreated: 2026-05-08T12:34:56Z\n---\n{body}\n"),
    )
    .unwrap();
}

fn reindex_json(sandbox: &Sandbox, models: &PathBuf) -> serde_json::Value {
    let out = sandbox
        .ambry()
        .env("AMBRY_MODELS_DIR", models)
        .args(["memory", "reindex", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "reindex failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn reindex_creates_then_skips_then_updates_only_what_changed() {
    let models = test_models();
    let sandbox = Sandbox::new();
    write_memory(
        &sandbox,
        "db-migrations",
        "how schema changes ship",
        "Run migrations before deploy.",
    );
    write_memory(
        &sandbox,
        "cat-care",
        "feeding the kitten",
        "Wet food twice a day.",
    );

    let first = reindex_json(&sandbox, &models);
    assert_eq!(
        (first["created"].as_u64(), first["up_to_date"].as_u64()),
        (Some(2), Some(0))
    );
    assert!(sandbox.home.path().join("memory/cat-care.vec").is_file());

    let second = reindex_json(&sandbox, &models);
    assert_eq!(
        (
            second["created"].as_u64(),
            second["updated"].as_u64(),
            second["up_to_date"].as_u64()
        ),
        (Some(0), Some(0), Some(2))
    );

    write_memory(&sandbox, "cat-care", "feeding the kitten", "Dry food only.");
    let third = reindex_json(&sandbox, &models);
    assert_eq!(
        (third["updated"].as_u64(), third["up_to_date"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(third["failed"].as_array().map(Vec::len), Some(0));
}

#[test]
fn reindex_without_the_model_fails_saying_what_to_run() {
    let sandbox = Sandbox::new();
    write_memory(
        &sandbox,
        "db-migrations",
        "how schema changes ship",
        "Run migrations before deploy.",
    );
    let out = sandbox
        .ambry()
        .env_remove("AMBRY_MODELS_DIR")
        .args(["memory", "reindex", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("fetch-models.sh"), "{stderr}");
    assert!(
        stderr.contains("\"code\":\"embedding_runtime_missing\""),
        "{stderr}"
    );
    assert!(sandbox
        .home
        .path()
        .join("memory/db-migrations.md")
        .is_file());
}

#[test]
fn save_writes_the_vector_when_the_model_is_there_and_says_skipped_when_not() {
    let models = test_models();
    let sandbox = Sandbox::new();
    let save = |name: &str, models_dir: &std::path::Path| {
        let out = sandbox
            .ambry()
            .env("AMBRY_MODELS_DIR", models_dir)
            .args([
                "memory",
                "save",
                name,
                "--type",
                "note",
                "--description",
                "how we ship",
                "--body",
                "make release",
                "--json",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let with = save("deploy-steps", &models);
    assert_eq!(with["vector"]["status"], "written");
    assert!(sandbox
        .home
        .path()
        .join("memory/deploy-steps.vec")
        .is_file());

    let without = save("release-notes", &sandbox.home.path().join("no-models"));
    assert_eq!(without["vector"]["status"], "skipped");
    assert!(without["vector"]["reason"]
        .as_str()
        .unwrap()
        .contains("fetch-models.sh"));
    assert!(sandbox
        .home
        .path()
        .join("memory/release-notes.md")
        .is_file());
    assert!(!sandbox
        .home
        .path()
        .join("memory/release-notes.vec")
        .exists());

    let human = sandbox
        .ambry()
        .env("AMBRY_MODELS_DIR", sandbox.home.path().join("no-models"))
        .args([
            "memory",
            "save",
            "third",
            "--type",
            "note",
            "--description",
            "d",
            "--body",
            "b",
        ])
        .output()
        .unwrap();
    assert!(human.status.success());
    assert!(String::from_utf8_lossy(&human.stdout).contains("vector skipped:"));
}

#[test]
fn doctor_says_what_auto_resolves_to_and_why() {
    let models = test_models();
    let sandbox = Sandbox::new();
    let checks = |models_dir: &std::path::Path| {
        let out = sandbox
            .ambry()
            .env("AMBRY_MODELS_DIR", models_dir)
            .args(["doctor", "--json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["area"] == "retrieval")
            .cloned()
            .unwrap()
    };
    let ready = checks(&models);
    assert_eq!(ready["status"], "ok");
    assert!(
        ready["detail"]
            .as_str()
            .unwrap()
            .starts_with("strategy auto resolves to semantic"),
        "{ready}"
    );
    let missing = checks(&sandbox.home.path().join("no-models"));
    assert_eq!(missing["status"], "warn");
    let detail = missing["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("strategy auto resolves to bm25") && detail.contains("fetch-models.sh"),
        "{detail}"
    );
}

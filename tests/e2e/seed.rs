//! A throwaway installation for one test: AMBRY_HOME, a user home, git repositories as
//! projects, memories saved through core's store (the same write path as the CLI and the app),
//! and the real `ambry` binary pointed at it.
//! Deliberately does not: write memory files by hand (only a test about an outside editor may),
//! or drive the window (see `harness` and `ui`).

use std::path::{Path, PathBuf};
use std::process::Command;

use ambry_core::AmbryHome;
use ambry_store::memory::{MemoryDraft, Scope, Store};
use ambry_store::project::{self, Project};
use tempfile::TempDir;
use thirtyfour::WebDriver;

use crate::harness::{self, target_dir, TestResult};

pub struct Sandbox {
    _root: TempDir,
    /// AMBRY_HOME.
    pub home: PathBuf,
    /// $HOME for the app and the CLI, so the machine's own agent transcripts never leak in.
    pub user_home: PathBuf,
    root: PathBuf,
}

impl Sandbox {
    pub fn new() -> TestResult<Sandbox> {
        let dir = tempfile::Builder::new().prefix("ambry-e2e-").tempdir()?;
        let root = dir.path().canonicalize()?;
        let home = root.join("ambry-home");
        let user_home = root.join("user-home");
        std::fs::create_dir_all(&home)?;
        std::fs::create_dir_all(&user_home)?;
        Ok(Sandbox {
            _root: dir,
            home,
            user_home,
            root,
        })
    }

    fn ambry_home(&self) -> AmbryHome {
        AmbryHome::new(&self.home)
    }

    /// A fresh git repository `<name>` (no remote), registered as a project in this home.
    pub fn add_project(&self, name: &str) -> TestResult<Project> {
        let repo = self.root.join(name);
        std::fs::create_dir_all(&repo)?;
        let status = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()?;
        ensure!(status.success(), "git init failed in {}", repo.display());
        let project = project::resolve(&repo)?;
        project::register(&self.ambry_home(), &project)?;
        Ok(project)
    }

    fn store(&self, project: Option<&Project>) -> Store {
        Store::new(self.ambry_home(), project.cloned())
    }

    /// Saves a user-scope memory through the store.
    pub fn save_user(&self, name: &str, kind: &str, description: &str, body: &str) -> TestResult {
        self.save(None, name, kind, description, body)
    }

    /// Saves a user-scope memory through the store as of `at` (a list ordered by time needs
    /// times further apart than the file's one-second resolution).
    pub fn save_user_at(
        &self,
        name: &str,
        kind: &str,
        description: &str,
        body: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> TestResult {
        let draft = MemoryDraft {
            name: name.into(),
            kind: kind.into(),
            description: description.into(),
            body: body.into(),
            tags: vec![],
        };
        self.store(None).save(Scope::User, draft, at)?;
        Ok(())
    }

    /// Saves a memory in `project`'s scope through the store.
    pub fn save_project(
        &self,
        project: &Project,
        name: &str,
        kind: &str,
        description: &str,
        body: &str,
    ) -> TestResult {
        self.save(Some(project), name, kind, description, body)
    }

    fn save(
        &self,
        project: Option<&Project>,
        name: &str,
        kind: &str,
        description: &str,
        body: &str,
    ) -> TestResult {
        let scope = if project.is_some() {
            Scope::Project
        } else {
            Scope::User
        };
        let draft = MemoryDraft {
            name: name.into(),
            kind: kind.into(),
            description: description.into(),
            body: body.into(),
            tags: vec![],
        };
        self.store(project).save(scope, draft, chrono::Utc::now())?;
        Ok(())
    }

    /// Writes an Ambry-native transcript `AMBRY_HOME/sessions/<id>.jsonl` (DESIGN §7): a
    /// header line, then one line per `(role, text)` turn, a minute apart.
    pub fn write_session(
        &self,
        id: &str,
        title: &str,
        cwd: &Path,
        turns: &[(&str, &str)],
    ) -> TestResult<PathBuf> {
        let dir = self.ambry_home().sessions_dir();
        std::fs::create_dir_all(&dir)?;
        let mut lines = vec![
            serde_json::json!({ "session": { "id": id, "title": title, "cwd": cwd } }).to_string(),
        ];
        for (minute, (role, text)) in turns.iter().enumerate() {
            let ts = format!("2026-11-02T09:{minute:02}:00Z");
            lines.push(serde_json::json!({ "ts": ts, "role": role, "text": text }).to_string());
        }
        let path = dir.join(format!("{id}.jsonl"));
        std::fs::write(&path, lines.join("\n") + "\n")?;
        Ok(path)
    }

    /// Where a user memory lives on disk.
    pub fn user_memory_file(&self, name: &str) -> PathBuf {
        self.ambry_home()
            .user_memory_dir()
            .join(format!("{name}.md"))
    }

    /// Where a project memory lives on disk.
    pub fn project_memory_file(&self, project: &Project, name: &str) -> PathBuf {
        self.ambry_home()
            .project_memory_dir(&project.slug)
            .join(format!("{name}.md"))
    }

    /// The archived versions of a user memory, as the store lists them.
    pub fn user_archive(&self, name: &str) -> TestResult<Vec<PathBuf>> {
        let versions = self.store(None).versions(Scope::User, Some(name))?;
        Ok(versions.into_iter().map(|v| v.path).collect())
    }

    /// The archived versions of a memory in the user scope (`None`) or `project`'s.
    pub fn archive_of(&self, project: Option<&Project>, name: &str) -> TestResult<Vec<PathBuf>> {
        let scope = if project.is_some() {
            Scope::Project
        } else {
            Scope::User
        };
        let versions = self.store(project).versions(scope, Some(name))?;
        Ok(versions.into_iter().map(|v| v.path).collect())
    }

    /// Runs git in `repo` as a fixed author (no signing, no machine config needed).
    pub fn git(&self, repo: &Path, args: &[&str]) -> TestResult {
        let out = Command::new("git")
            .arg("-C")
            .arg(repo)
            .args([
                "-c",
                "user.name=Ambry Test",
                "-c",
                "user.email=test@example.com",
            ])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .output()?;
        ensure!(
            out.status.success(),
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(())
    }

    /// Makes the embedding model available as `AMBRY_HOME/models` (from `AMBRY_TEST_MODELS`).
    pub fn with_models(&self) -> TestResult {
        let dir = std::env::var_os("AMBRY_TEST_MODELS").map(PathBuf::from).ok_or(
            "AMBRY_TEST_MODELS is not set: run `scripts/fetch-models.sh DIR` and set AMBRY_TEST_MODELS=DIR (scripts/test.sh does both)",
        )?;
        ensure!(
            dir.join("onnxruntime/libonnxruntime.so.1.24.4").is_file()
                && dir.join("all-MiniLM-L6-v2/model.onnx").is_file(),
            "embedding assets missing under AMBRY_TEST_MODELS={}: run scripts/fetch-models.sh {0}",
            dir.display()
        );
        std::os::unix::fs::symlink(&dir, self.ambry_home().models_dir())?;
        Ok(())
    }

    /// A `PATH` for the app where, of the agents' programs, exactly `programs` (`claude`,
    /// `codex`) are found: stand-ins for them in a folder of this sandbox, then the test's own
    /// `PATH` without any folder that holds a real one (the machine's agents stay out).
    pub fn agents_path(&self, programs: &[&str]) -> TestResult<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let bin = self.root.join("agent-bin");
        std::fs::create_dir_all(&bin)?;
        for program in programs {
            let path = bin.join(program);
            std::fs::write(&path, "#!/bin/sh\nexit 0\n")?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
        let outside = std::env::var_os("PATH").unwrap_or_default();
        let kept = std::env::split_paths(&outside)
            .filter(|dir| !["claude", "codex"].iter().any(|p| dir.join(p).exists()));
        Ok(PathBuf::from(std::env::join_paths(
            std::iter::once(bin).chain(kept),
        )?))
    }

    /// The real `ambry` binary with `--home` set to this sandbox and `--cwd` to `cwd`.
    pub fn ambry(&self, cwd: &Path) -> TestResult<Command> {
        let bin = target_dir().join("debug").join("ambry");
        ensure!(
            bin.is_file(),
            "the ambry binary is missing at {}: build it with `cargo build -p ambry-cli` (scripts/e2e.sh does)",
            bin.display()
        );
        let mut cmd = Command::new(bin);
        cmd.env_remove("AMBRY_HOME")
            .env_remove("AMBRY_MODELS_DIR")
            .env("HOME", &self.user_home)
            .arg("--home")
            .arg(&self.home)
            .arg("--cwd")
            .arg(cwd);
        Ok(cmd)
    }

    /// Runs `ambry ARGS` in `cwd` and fails with its stderr when it fails.
    pub fn run_ambry(&self, cwd: &Path, args: &[&str]) -> TestResult<String> {
        let out = self.ambry(cwd)?.args(args).output()?;
        ensure!(
            out.status.success(),
            "ambry {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Launches the app on this sandbox and runs `scenario` (see `harness::run`).
    pub async fn run<F, Fut>(&self, test: &str, scenario: F) -> TestResult
    where
        F: FnOnce(WebDriver) -> Fut,
        Fut: std::future::Future<Output = TestResult> + Send + 'static,
    {
        harness::run(test, &self.home, &[("HOME", &self.user_home)], scenario).await
    }

    /// `run` with more environment for the app (e.g. `VISUAL`).
    pub async fn run_with_env<F, Fut>(
        &self,
        test: &str,
        env: &[(&str, &Path)],
        scenario: F,
    ) -> TestResult
    where
        F: FnOnce(WebDriver) -> Fut,
        Fut: std::future::Future<Output = TestResult> + Send + 'static,
    {
        let mut all: Vec<(&str, &Path)> = vec![("HOME", &self.user_home)];
        all.extend_from_slice(env);
        harness::run(test, &self.home, &all, scenario).await
    }
}

//! The sync repository inside the home (`sync/repo`, a bare git repository: sync never checks
//! a tree out, so nothing a remote sends is ever written to disk by git) and the plumbing sync
//! reads and writes it with: trees as maps, blobs in batches, commits, fetch and push.
//!
//! Owns: the branch names, clearing the lock files a killed git left, building a tree from a
//! map (a private index file), the one fetch and the one push of a sync and how their failures
//! read (unreachable, rejected, or behind).
//! Deliberately does not: decide what a tree holds (see `export` and `merge`).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::git::{failed, last_lines, Git, NETWORK_TIMEOUT, PROBE_TIMEOUT};
use super::SyncError;

/// The one branch personal sync keeps, here and on the remote.
pub const BRANCH: &str = "refs/heads/main";
/// Where the remote's branch is fetched to.
pub const TRACKING: &str = "refs/remotes/origin/main";

/// One file of a tree: its git mode (`100644`, a link is `120000`), blob id and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub mode: String,
    pub hash: String,
    pub size: u64,
}

impl Entry {
    pub fn file(hash: String, size: u64) -> Entry {
        Entry {
            mode: "100644".into(),
            hash,
            size,
        }
    }

    /// A plain file (executable or not); links and submodules are not.
    pub fn is_regular(&self) -> bool {
        self.mode == "100644" || self.mode == "100755"
    }
}

/// A tree as paths (relative, `/`-separated) to entries.
pub type Tree = BTreeMap<String, Entry>;

/// How a push ended.
pub enum Pushed {
    Done,
    /// The remote moved on since the fetch: fetch and merge again.
    Behind,
}

pub struct Repo {
    dir: PathBuf,
    git: Git,
}

impl Repo {
    /// The repository at `dir`, created (bare, branch `main`) when missing.
    pub fn open_or_init(dir: &Path) -> Result<Repo, SyncError> {
        let git = Git::new(dir);
        git.check_version()?;
        if !dir.join("HEAD").is_file() {
            ambry_store::storage::create_private_dir_all(dir)
                .map_err(|e| SyncError::io("create", dir, e))?;
            git.ok(&["init", "--quiet", "--bare"])?;
            git.ok(&["symbolic-ref", "HEAD", BRANCH])?;
        }
        let repo = Repo {
            dir: dir.to_path_buf(),
            git,
        };
        repo.clear_stale_locks();
        Ok(repo)
    }

    /// An existing repository (no git started).
    pub fn existing(dir: &Path) -> Option<Repo> {
        dir.join("HEAD").is_file().then(|| Repo {
            dir: dir.to_path_buf(),
            git: Git::new(dir),
        })
    }

    /// Lock files a git killed mid-command left; only sync uses this repository and it holds
    /// its own lock, so any lock file found here is stale.
    fn clear_stale_locks(&self) {
        for name in [
            "index.lock",
            "HEAD.lock",
            "config.lock",
            "packed-refs.lock",
            "shallow.lock",
            "refs/heads/main.lock",
            "refs/remotes/origin/main.lock",
            "sync-index.lock",
        ] {
            let _ = std::fs::remove_file(self.dir.join(name));
        }
    }

    pub fn remote_url(&self) -> Option<String> {
        self.git
            .ok(&["config", "--get", "remote.origin.url"])
            .ok()
            .map(|o| o.text())
            .filter(|u| !u.is_empty())
    }

    /// Points `origin` at `url` (fetching only the sync branch).
    pub fn set_remote(&self, url: &str) -> Result<(), SyncError> {
        self.git.ok(&["config", "remote.origin.url", url])?;
        self.git.ok(&[
            "config",
            "remote.origin.fetch",
            "+refs/heads/main:refs/remotes/origin/main",
        ])?;
        Ok(())
    }

    /// The commit a ref names, if it exists.
    pub fn resolve(&self, name: &str) -> Option<String> {
        let spec = format!("{name}^{{commit}}");
        let out = self
            .git
            .run(
                &["rev-parse", "--verify", "--quiet", &spec],
                None,
                &[],
                super::git::LOCAL_TIMEOUT,
            )
            .ok()?;
        (out.success && !out.text().is_empty()).then(|| out.text())
    }

    /// Every file of `commit`'s tree; the empty tree for `None`.
    pub fn tree_of(&self, commit: Option<&str>) -> Result<Tree, SyncError> {
        let Some(commit) = commit else {
            return Ok(Tree::new());
        };
        let out = self.git.ok(&["ls-tree", "-r", "-z", "-l", commit])?;
        let mut tree = Tree::new();
        for record in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let Some(tab) = record.iter().position(|b| *b == b'\t') else {
                continue;
            };
            let head = String::from_utf8_lossy(&record[..tab]);
            // A name that is not UTF-8 keeps its bytes lossily: it is refused by name anyway.
            let path = String::from_utf8_lossy(&record[tab + 1..]).into_owned();
            let fields: Vec<&str> = head.split_whitespace().collect();
            if let [mode, _kind, hash, size] = fields.as_slice() {
                tree.insert(
                    path,
                    Entry {
                        mode: mode.to_string(),
                        hash: hash.to_string(),
                        size: size.parse().unwrap_or(u64::MAX),
                    },
                );
            }
        }
        Ok(tree)
    }

    /// The best common ancestor of two commits, if they share history.
    pub fn merge_base(&self, a: &str, b: &str) -> Result<Option<String>, SyncError> {
        let out = self
            .git
            .run(&["merge-base", a, b], None, &[], super::git::LOCAL_TIMEOUT)?;
        Ok((out.success && !out.text().is_empty()).then(|| out.text()))
    }

    /// The contents of `hashes`, read in one `cat-file --batch`.
    pub fn read_blobs<'a>(
        &self,
        hashes: impl IntoIterator<Item = &'a String>,
    ) -> Result<HashMap<String, Vec<u8>>, SyncError> {
        let mut wanted: Vec<&String> = hashes.into_iter().collect();
        wanted.sort();
        wanted.dedup();
        if wanted.is_empty() {
            return Ok(HashMap::new());
        }
        let input: String = wanted.iter().map(|h| format!("{h}\n")).collect();
        let out = self.git.run(
            &["cat-file", "--batch"],
            Some(input.into_bytes()),
            &[],
            super::git::LOCAL_TIMEOUT,
        )?;
        if !out.success {
            return Err(failed(&["cat-file", "--batch"], &out));
        }
        let mut blobs = HashMap::new();
        let mut rest = out.stdout.as_slice();
        while let Some(eol) = rest.iter().position(|b| *b == b'\n') {
            let header = String::from_utf8_lossy(&rest[..eol]).into_owned();
            rest = &rest[eol + 1..];
            let fields: Vec<&str> = header.split(' ').collect();
            let [hash, _kind, size] = fields.as_slice() else {
                continue; // `<hash> missing`
            };
            let size: usize = size.parse().unwrap_or(0);
            if rest.len() < size {
                break;
            }
            blobs.insert(hash.to_string(), rest[..size].to_vec());
            rest = &rest[(size + 1).min(rest.len())..];
        }
        Ok(blobs)
    }

    /// Stores the files at `paths` as blobs; their ids, in order.
    pub fn hash_files(&self, paths: &[PathBuf]) -> Result<Vec<String>, SyncError> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let input: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
        let args = ["hash-object", "-w", "--no-filters", "--stdin-paths"];
        let out = self.git.run(
            &args,
            Some(input.into_bytes()),
            &[],
            super::git::LOCAL_TIMEOUT,
        )?;
        if !out.success {
            return Err(failed(&args, &out));
        }
        let ids: Vec<String> = out.text().lines().map(str::to_string).collect();
        if ids.len() != paths.len() {
            return Err(SyncError::Git {
                command: "hash-object".into(),
                reason: format!("{} ids for {} files", ids.len(), paths.len()),
            });
        }
        Ok(ids)
    }

    /// Stores `bytes` as a blob; its id.
    pub fn hash_bytes(&self, bytes: &[u8]) -> Result<String, SyncError> {
        let args = ["hash-object", "-w", "--no-filters", "--stdin"];
        let out = self
            .git
            .run(&args, Some(bytes.to_vec()), &[], super::git::LOCAL_TIMEOUT)?;
        if !out.success {
            return Err(failed(&args, &out));
        }
        Ok(out.text())
    }

    /// The tree object holding exactly `tree`.
    pub fn write_tree(&self, tree: &Tree) -> Result<String, SyncError> {
        let index = self.dir.join("sync-index");
        let _ = std::fs::remove_file(&index);
        let mut input = Vec::new();
        for (path, entry) in tree {
            input.extend_from_slice(format!("{} {}\t{path}", entry.mode, entry.hash).as_bytes());
            input.push(0);
        }
        let env = [("GIT_INDEX_FILE", index.as_path())];
        let args = ["update-index", "-z", "--index-info"];
        let out = self
            .git
            .run(&args, Some(input), &env, super::git::LOCAL_TIMEOUT)?;
        if !out.success {
            return Err(failed(&args, &out));
        }
        let out = self
            .git
            .run(&["write-tree"], None, &env, super::git::LOCAL_TIMEOUT)?;
        let _ = std::fs::remove_file(&index);
        if !out.success {
            return Err(failed(&["write-tree"], &out));
        }
        Ok(out.text())
    }

    /// A new commit of `tree` on `parents`.
    pub fn commit(&self, tree: &str, parents: &[&str], message: &str) -> Result<String, SyncError> {
        let mut args = vec!["commit-tree", tree, "-m", message];
        for parent in parents {
            args.push("-p");
            args.push(parent);
        }
        Ok(self.git.ok(&args)?.text())
    }

    /// Moves the sync branch to `commit`.
    pub fn set_branch(&self, commit: &str) -> Result<(), SyncError> {
        self.git.ok(&["update-ref", BRANCH, commit])?;
        Ok(())
    }

    /// The remote's branch, fetched when this repository does not have it yet; `None` for an
    /// empty remote. A probe (`ls-remote`) asks first, so an unreachable remote fails within
    /// [`PROBE_TIMEOUT`] and a sync with nothing new fetches nothing. Any failure to talk to
    /// the remote is `RemoteUnreachable`, with git's own words.
    pub fn fetch(&self, remote: &str) -> Result<Option<String>, SyncError> {
        let unreachable = |reason: String| SyncError::RemoteUnreachable {
            remote: remote.to_string(),
            reason,
        };
        let env = self.git.network_env();
        let talk = |args: &[&str], timeout| match self.git.run(args, None, &env, timeout) {
            Ok(out) if out.success => Ok(out),
            Ok(out) => Err(unreachable(last_lines(&out.stderr))),
            Err(SyncError::TimedOut { seconds, .. }) => {
                Err(unreachable(format!("no answer within {seconds} s")))
            }
            Err(e) => Err(e),
        };
        let probe = talk(&["ls-remote", "origin", BRANCH], PROBE_TIMEOUT)?;
        let Some(head) = probe.text().split_whitespace().next().map(str::to_string) else {
            let _ = self.git.ok(&["update-ref", "-d", TRACKING]);
            return Ok(None);
        };
        if self.resolve(&head).as_deref() != Some(head.as_str()) {
            talk(
                &[
                    "fetch",
                    "--quiet",
                    "--no-tags",
                    "origin",
                    "+refs/heads/main:refs/remotes/origin/main",
                ],
                NETWORK_TIMEOUT,
            )?;
        }
        if self.resolve(&head).is_none() {
            return Err(unreachable(format!(
                "its branch moved to {head} but the fetch did not bring that commit"
            )));
        }
        self.git.ok(&["update-ref", TRACKING, &head])?;
        Ok(Some(head))
    }

    /// Pushes `commit` as the remote's branch (never forced).
    pub fn push(&self, remote: &str, commit: &str) -> Result<Pushed, SyncError> {
        let spec = format!("{commit}:{BRANCH}");
        let args = ["push", "--quiet", "--porcelain", "origin", &spec];
        let env = self.git.network_env();
        match self.git.run(&args, None, &env, NETWORK_TIMEOUT) {
            Ok(out) if out.success => {
                let _ = self.git.ok(&["update-ref", TRACKING, commit]);
                Ok(Pushed::Done)
            }
            Ok(out) => {
                let said = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), out.stderr);
                if said.contains("non-fast-forward") || said.contains("fetch first") {
                    Ok(Pushed::Behind)
                } else if said.contains("[rejected]") || said.contains("[remote rejected]") {
                    Err(SyncError::RemoteRejected {
                        remote: remote.to_string(),
                        reason: last_lines(&said),
                    })
                } else {
                    Err(SyncError::RemoteUnreachable {
                        remote: remote.to_string(),
                        reason: last_lines(&said),
                    })
                }
            }
            Err(SyncError::TimedOut { seconds, .. }) => Err(SyncError::RemoteUnreachable {
                remote: remote.to_string(),
                reason: format!("no answer within {seconds} s"),
            }),
            Err(e) => Err(e),
        }
    }

    /// Commits on `a` not on `b`, and on `b` not on `a`.
    pub fn ahead_behind(&self, a: &str, b: &str) -> Result<(u64, u64), SyncError> {
        let range = format!("{a}...{b}");
        let out = self
            .git
            .ok(&["rev-list", "--left-right", "--count", &range])?;
        let text = out.text();
        let mut parts = text.split_whitespace().map(|p| p.parse().unwrap_or(0));
        Ok((parts.next().unwrap_or(0), parts.next().unwrap_or(0)))
    }
}

//! The three-way merge of a sync, file by file, done here rather than by `git merge`: no
//! conflict marker can reach a memory file, and nothing a remote sends is taken unchecked.
//!
//! Owns: the rules (DESIGN §15). A file changed on one side only takes that side. A memory
//! changed on both sides keeps the version with the later `updated` (then `created`; equal
//! stamps: the greater text, so every machine decides alike) and files a "changed on two
//! machines" conflict with both texts; deleted on one side and edited on the other, the edit
//! stays. A rename on one side (a new file with the same `created`, in the same scope) with an
//! edit on the other keeps the new name and the edit. The person's anchor and retrieval tests
//! (no `updated`) changed on both sides keep this machine's text (an edit over a delete), the
//! other filed as a conflict. An incoming file that fails `inspect` is refused: this
//! machine's version of that path stays.
//! Deliberately does not: run git, read the home or write anything (the caller stores the
//! blobs the merge makes through `write_blob`).

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::allowlist::{Kind, REMOTE_FILE};
use super::inspect::{inspect, Refused};
use super::repo::{Entry, Tree};
use super::SyncError;
use ambry_store::memory::frontmatter::{self, Document};

/// One side of a conflict as the review inbox shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub text: String,
    pub updated: Option<DateTime<Utc>>,
    /// Written on this machine (else on another).
    pub here: bool,
    /// This side deleted the file; `text` is the version it deleted.
    pub deleted: bool,
}

/// A file both machines changed: the version kept in the file and the other one.
#[derive(Debug, Clone)]
pub struct Conflict {
    pub kind: Kind,
    pub kept: Side,
    pub other: Side,
}

/// The merged tree and what the merge found on the way.
#[derive(Debug, Default)]
pub struct Merged {
    pub tree: Tree,
    pub conflicts: Vec<Conflict>,
    pub refused: Vec<Refused>,
    /// Versions from the other machine that lost a conflict: archived in this home.
    pub losers: Vec<(Kind, Vec<u8>)>,
}

/// The three trees and the blobs of every entry that differs among them.
pub struct Sides<'a> {
    pub base: &'a Tree,
    pub ours: &'a Tree,
    pub theirs: &'a Tree,
    pub blobs: &'a HashMap<String, Vec<u8>>,
}

impl Sides<'_> {
    /// Hashes of every entry whose path is not the same on all three sides.
    pub fn differing(base: &Tree, ours: &Tree, theirs: &Tree) -> Vec<String> {
        let paths: BTreeSet<&String> = base
            .keys()
            .chain(ours.keys())
            .chain(theirs.keys())
            .collect();
        let mut hashes = Vec::new();
        for path in paths {
            let (b, o, t) = (base.get(path), ours.get(path), theirs.get(path));
            if b == o && o == t {
                continue;
            }
            for e in [b, o, t].into_iter().flatten() {
                if e.is_regular() && e.size <= super::inspect::READ_MAX {
                    hashes.push(e.hash.clone());
                }
            }
        }
        hashes
    }

    fn bytes(&self, e: Option<&Entry>) -> Option<&[u8]> {
        e.and_then(|e| self.blobs.get(&e.hash)).map(Vec::as_slice)
    }

    fn text(&self, e: Option<&Entry>) -> String {
        self.bytes(e)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    fn check_theirs(&self, path: &str, e: &Entry) -> Result<Kind, String> {
        inspect(path, e, self.bytes(Some(e)))
    }
}

pub fn merge(
    sides: &Sides<'_>,
    write_blob: &mut dyn FnMut(&[u8]) -> Result<String, SyncError>,
) -> Result<Merged, SyncError> {
    let mut out = Merged::default();
    let mut handled: BTreeSet<String> = BTreeSet::new();
    renames(sides, write_blob, &mut out, &mut handled)?;
    let paths: BTreeSet<&String> = sides
        .base
        .keys()
        .chain(sides.ours.keys())
        .chain(sides.theirs.keys())
        .collect();
    for path in paths {
        if handled.contains(path) {
            continue;
        }
        let (b, o, t) = (
            sides.base.get(path),
            sides.ours.get(path),
            sides.theirs.get(path),
        );
        let keep_ours = |out: &mut Merged| {
            if let Some(o) = o {
                out.tree.insert(path.clone(), o.clone());
            }
        };
        if o == t || t == b {
            keep_ours(&mut out);
            continue;
        }
        if o == b {
            // Changed over there only.
            match t {
                None => {}
                Some(te) => match sides.check_theirs(path, te) {
                    Ok(_) => {
                        out.tree.insert(path.clone(), te.clone());
                    }
                    Err(reason) => {
                        out.refused.push(refused(path, reason));
                        keep_ours(&mut out);
                    }
                },
            }
            continue;
        }
        // Changed on both sides.
        let kind = match Kind::of(path) {
            Ok(kind) => kind,
            Err(reason) => {
                out.refused.push(refused(path, reason));
                keep_ours(&mut out);
                continue;
            }
        };
        if let Some(te) = t {
            if let Err(reason) = sides.check_theirs(path, te) {
                out.refused.push(refused(path, reason));
                keep_ours(&mut out);
                continue;
            }
        }
        if !matches!(kind, Kind::Memory { .. }) {
            // No `updated` to compare: this machine's text stays, unless it deleted the file
            // the other edited (a delete never wins over an edit).
            let theirs_stays = o.is_none() && t.is_some();
            match (theirs_stays, t) {
                (true, Some(te)) => {
                    out.tree.insert(path.clone(), te.clone());
                }
                _ => keep_ours(&mut out),
            }
            if matches!(kind, Kind::UserAnchor | Kind::Tests { .. }) {
                let here = side(sides, o.or(b), true, o.is_none());
                let there = side(sides, t.or(b), false, t.is_none());
                let (kept, other) = if theirs_stays {
                    (there, here)
                } else {
                    (here, there)
                };
                out.conflicts.push(Conflict { kind, kept, other });
            }
            continue;
        }
        match (o, t) {
            (Some(oe), Some(te)) => {
                let ours_wins = later(sides.bytes(Some(oe)), sides.bytes(Some(te)));
                let (kept, other) = if ours_wins {
                    out.tree.insert(path.clone(), oe.clone());
                    if let Some(bytes) = sides.bytes(Some(te)) {
                        out.losers.push((kind.clone(), bytes.to_vec()));
                    }
                    (side(sides, o, true, false), side(sides, t, false, false))
                } else {
                    // This machine's version is archived when the store writes the other.
                    out.tree.insert(path.clone(), te.clone());
                    (side(sides, t, false, false), side(sides, o, true, false))
                };
                out.conflicts.push(Conflict { kind, kept, other });
            }
            (None, Some(te)) => {
                out.tree.insert(path.clone(), te.clone());
                out.conflicts.push(Conflict {
                    kind,
                    kept: side(sides, t, false, false),
                    other: side(sides, b, true, true),
                });
            }
            (Some(oe), None) => {
                out.tree.insert(path.clone(), oe.clone());
                out.conflicts.push(Conflict {
                    kind,
                    kept: side(sides, o, true, false),
                    other: side(sides, b, false, true),
                });
            }
            (None, None) => {}
        }
    }
    require_project_remotes(sides, &mut out);
    Ok(out)
}

/// A project's memories arrive only with the remote that identifies the project.
fn require_project_remotes(sides: &Sides<'_>, out: &mut Merged) {
    let arrived: Vec<(String, String)> = out
        .tree
        .keys()
        .filter(|p| out.tree.get(*p) != sides.ours.get(*p))
        .filter_map(|p| match Kind::of(p) {
            Ok(Kind::Memory {
                project: Some(slug),
                ..
            })
            | Ok(Kind::Tests {
                project: Some(slug),
            }) => Some((p.clone(), slug)),
            _ => None,
        })
        .collect();
    for (path, slug) in arrived {
        if !out
            .tree
            .contains_key(&format!("projects/{slug}/{REMOTE_FILE}"))
        {
            out.tree.remove(&path);
            if let Some(o) = sides.ours.get(&path) {
                out.tree.insert(path.clone(), o.clone());
            }
            out.refused.push(refused(
                &path,
                format!("project {slug} came without the git remote that identifies it"),
            ));
        }
    }
}

/// A rename on one side with an edit of the old name on the other.
fn renames(
    sides: &Sides<'_>,
    write_blob: &mut dyn FnMut(&[u8]) -> Result<String, SyncError>,
    out: &mut Merged,
    handled: &mut BTreeSet<String>,
) -> Result<(), SyncError> {
    for (path, base_entry) in sides.base {
        let Ok(Kind::Memory { project, .. }) = Kind::of(path) else {
            continue;
        };
        let Some(base_doc) = doc(sides.bytes(Some(base_entry))) else {
            continue;
        };
        if base_doc.created.is_none() {
            continue;
        }
        for renamed_here in [true, false] {
            let (renaming, editing) = if renamed_here {
                (sides.ours, sides.theirs)
            } else {
                (sides.theirs, sides.ours)
            };
            let edited = match (renaming.get(path), editing.get(path)) {
                (None, Some(e)) if e != base_entry => e,
                _ => continue,
            };
            let target = renaming.iter().find_map(|(q, e)| {
                let same_scope =
                    matches!(Kind::of(q), Ok(Kind::Memory { project: ref p, .. }) if *p == project);
                let fresh = same_scope && !sides.base.contains_key(q) && !editing.contains_key(q);
                let same_identity = fresh
                    && doc(sides.bytes(Some(e))).is_some_and(|d| d.created == base_doc.created);
                same_identity.then(|| (q.clone(), e.clone()))
            });
            let Some((new_path, renamed_entry)) = target else {
                continue;
            };
            if handled.contains(path) || handled.contains(&new_path) {
                continue;
            }
            let Ok(new_kind @ Kind::Memory { .. }) = Kind::of(&new_path) else {
                continue;
            };
            let Kind::Memory { name: new_name, .. } = &new_kind else {
                continue;
            };
            // What came from the other machine is checked like any incoming file.
            let incoming = if renamed_here {
                (path.as_str(), edited)
            } else {
                (new_path.as_str(), &renamed_entry)
            };
            if let Err(reason) = sides.check_theirs(incoming.0, incoming.1) {
                out.refused.push(refused(incoming.0, reason));
                continue;
            }
            let (Some(edited_doc), Some(renamed_doc)) = (
                doc(sides.bytes(Some(edited))),
                doc(sides.bytes(Some(&renamed_entry))),
            ) else {
                continue;
            };
            handled.insert(path.clone());
            handled.insert(new_path.clone());
            let mut moved = edited_doc.clone();
            moved.name = new_name.clone();
            let pure_rename = same_content(&renamed_doc, &base_doc);
            if pure_rename {
                moved.updated = moved.updated.max(renamed_doc.updated);
                let text = frontmatter::render(&moved);
                let hash = write_blob(text.as_bytes())?;
                out.tree
                    .insert(new_path.clone(), Entry::file(hash, text.len() as u64));
                continue;
            }
            // Renamed and edited there, edited here too: one name, the later text.
            let moved_text = frontmatter::render(&moved);
            let renamed_bytes = sides.bytes(Some(&renamed_entry)).unwrap_or_default();
            let renamed_wins = later(Some(renamed_bytes), Some(moved_text.as_bytes()));
            let renamed_side = Side {
                text: String::from_utf8_lossy(renamed_bytes).into_owned(),
                updated: renamed_doc.updated,
                here: renamed_here,
                deleted: false,
            };
            let moved_side = Side {
                text: moved_text.clone(),
                updated: moved.updated,
                here: !renamed_here,
                deleted: false,
            };
            if renamed_wins {
                out.tree.insert(new_path.clone(), renamed_entry.clone());
                if renamed_here {
                    // The other machine's edit, moved to the new name, never was in this store.
                    out.losers.push((new_kind.clone(), moved_text.into_bytes()));
                }
                out.conflicts.push(Conflict {
                    kind: new_kind,
                    kept: renamed_side,
                    other: moved_side,
                });
            } else {
                let hash = write_blob(moved_text.as_bytes())?;
                out.tree
                    .insert(new_path.clone(), Entry::file(hash, moved_text.len() as u64));
                if !renamed_here {
                    out.losers.push((new_kind.clone(), renamed_bytes.to_vec()));
                }
                out.conflicts.push(Conflict {
                    kind: new_kind,
                    kept: moved_side,
                    other: renamed_side,
                });
            }
        }
    }
    Ok(())
}

fn refused(path: &str, reason: String) -> Refused {
    Refused {
        path: path.to_string(),
        reason,
    }
}

fn side(sides: &Sides<'_>, e: Option<&Entry>, here: bool, deleted: bool) -> Side {
    let bytes = sides.bytes(e);
    Side {
        text: sides.text(e),
        updated: doc(bytes).and_then(|d| d.updated.or(d.created)),
        here,
        deleted,
    }
}

fn doc(bytes: Option<&[u8]>) -> Option<Document> {
    frontmatter::parse(std::str::from_utf8(bytes?).ok()?).ok()
}

/// Whether `a` wins over `b`: the later `updated` (else `created`); equal stamps, the greater
/// text, so that whichever machine merges, the same version stays.
fn later(a: Option<&[u8]>, b: Option<&[u8]>) -> bool {
    let stamp = |bytes: Option<&[u8]>| doc(bytes).and_then(|d| d.updated.or(d.created));
    (stamp(a), a) > (stamp(b), b)
}

/// Same memory text apart from its name and stamps.
fn same_content(a: &Document, b: &Document) -> bool {
    a.kind == b.kind
        && a.description == b.description
        && a.body == b.body
        && a.tags == b.tags
        && a.extra == b.extra
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memory file's text, with its `updated` second.
    fn memory(name: &str, body: &str, updated: u32) -> Vec<u8> {
        format!(
            "---\nname: {name}\ntype: project\ndescription: About {name}\ncreated: 2026-06-01T00:00:00Z\nupdated: 2026-06-02T00:00:{updated:02}Z\n---\n{body}\n"
        )
        .into_bytes()
    }

    /// Trees and blobs from `(path, text)` lists; a blob's id is its index.
    struct World {
        blobs: HashMap<String, Vec<u8>>,
    }

    impl World {
        fn tree(&mut self, files: &[(&str, &[u8])]) -> Tree {
            files
                .iter()
                .map(|(path, bytes)| {
                    let hash = format!("{:040x}", self.blobs.len() + 1);
                    let found = self
                        .blobs
                        .iter()
                        .find(|(_, b)| b.as_slice() == *bytes)
                        .map(|(h, _)| h.clone());
                    let hash = found.unwrap_or_else(|| {
                        self.blobs.insert(hash.clone(), bytes.to_vec());
                        hash
                    });
                    (path.to_string(), Entry::file(hash, bytes.len() as u64))
                })
                .collect()
        }
    }

    fn run(base: &Tree, ours: &Tree, theirs: &Tree, world: &World) -> Merged {
        let sides = Sides {
            base,
            ours,
            theirs,
            blobs: &world.blobs,
        };
        merge(&sides, &mut |_| Ok("f".repeat(40))).unwrap()
    }

    #[test]
    fn whichever_machine_merges_the_same_version_stays() {
        let mut w = World {
            blobs: HashMap::new(),
        };
        let base = w.tree(&[("memory/x.md", &memory("x", "one", 1))]);
        // Equal stamps: the tie is broken by the text, the same on both machines.
        let a = w.tree(&[("memory/x.md", &memory("x", "two", 5))]);
        let b = w.tree(&[("memory/x.md", &memory("x", "three", 5))]);
        let here = run(&base, &a, &b, &w);
        let there = run(&base, &b, &a, &w);
        assert_eq!(here.tree, there.tree);
        assert_eq!(here.conflicts.len(), 1);
        assert_eq!(here.conflicts[0].kept.text, there.conflicts[0].kept.text);
    }

    #[test]
    fn a_refused_file_keeps_this_machines_version_and_the_rest_arrives() {
        let mut w = World {
            blobs: HashMap::new(),
        };
        let base = w.tree(&[("memory/x.md", &memory("x", "one", 1))]);
        let ours = base.clone();
        let theirs = w.tree(&[
            (
                "memory/x.md",
                &memory("x", "token ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R", 2),
            ),
            ("memory/y.md", &memory("y", "fine", 2)),
            (
                "projects/ledger-1a2b3c4d/memory/z.md",
                &memory("z", "no remote", 2),
            ),
        ]);
        let merged = run(&base, &ours, &theirs, &w);
        assert_eq!(merged.tree.get("memory/x.md"), ours.get("memory/x.md"));
        assert!(merged.tree.contains_key("memory/y.md"));
        let refused: Vec<&str> = merged.refused.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(
            refused,
            ["memory/x.md", "projects/ledger-1a2b3c4d/memory/z.md"]
        );
        assert!(!merged
            .tree
            .contains_key("projects/ledger-1a2b3c4d/memory/z.md"));
    }

    #[test]
    fn the_anchor_deleted_here_and_edited_there_keeps_the_edit() {
        let mut w = World {
            blobs: HashMap::new(),
        };
        let base = w.tree(&[("USER.md", b"short answers\n")]);
        let deleted = w.tree(&[]);
        let edited = w.tree(&[("USER.md", b"long answers\n")]);
        for (ours, theirs) in [(&deleted, &edited), (&edited, &deleted)] {
            let merged = run(&base, ours, theirs, &w);
            assert_eq!(merged.tree.get("USER.md"), edited.get("USER.md"));
            assert_eq!(merged.conflicts[0].kept.text, "long answers\n");
        }
    }

    #[test]
    fn a_delete_never_wins_over_an_edit() {
        let mut w = World {
            blobs: HashMap::new(),
        };
        let base = w.tree(&[("memory/x.md", &memory("x", "one", 1))]);
        let deleted = w.tree(&[]);
        let edited = w.tree(&[("memory/x.md", &memory("x", "two", 2))]);
        for (ours, theirs) in [(&deleted, &edited), (&edited, &deleted)] {
            let merged = run(&base, ours, theirs, &w);
            assert_eq!(merged.tree.get("memory/x.md"), edited.get("memory/x.md"));
            assert!(merged.conflicts[0].other.deleted);
        }
    }
}

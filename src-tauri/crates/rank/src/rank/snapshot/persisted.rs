//! The persistent copy of the snapshots in `index.sqlite` (table `rank_snapshots`), so a fresh
//! process — `ambry compose` runs once per agent turn — starts warm.
//!
//! Owns: the table and its schema version (a database an older version wrote has its snapshots
//! dropped on open), the compact binary form — each scope's postings (term → entries and weighted
//! frequencies), not each document's terms — and checking a stored snapshot adds up before it is
//! trusted. Every failure degrades to "no cache": a rebuild from the files follows.
//! Deliberately does not: decide when to load or save (the cache does), or turn the postings into
//! a corpus (see `assemble`).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use super::scope::{Entry, ScopePostings, ScopeSnapshot};
use chrono::{Datelike, NaiveDate};

use crate::rank::corpus::DocTerms;
use ambry_store::memory::{Enforce, Retiring, RuleStatus, Scope};

pub(super) const SCHEMA_KEY: &str = "rank.schema";
/// 2: postings per scope instead of terms per document; 3: each document's retirement keys.
/// 4: each document's rule. 5: each document's `when` phrases.
pub(super) const SCHEMA_VERSION: &str = "5";

/// Snapshots in `index.sqlite`; every failure degrades to "no cache".
pub(super) struct PersistentCache {
    conn: rusqlite::Connection,
}

/// How long a snapshot read or save waits for another writer of `index.sqlite`.
const SNAPSHOT_BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(250);

impl PersistentCache {
    pub(super) fn open(db_path: &Path) -> Option<PersistentCache> {
        if !db_path.parent().is_some_and(Path::is_dir) {
            return None;
        }
        let conn =
            ambry_store::index_db::open(db_path, ambry_store::index_db::BUSY_TIMEOUT).ok()?;
        // A cache: a compose never waits out the session indexer's batch to read or save it
        // (it ranks from the files instead, and the next call saves).
        conn.busy_timeout(SNAPSHOT_BUSY_TIMEOUT).ok()?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS rank_snapshots(dir TEXT PRIMARY KEY, data BLOB NOT NULL);",
        )
        .ok()?;
        if ambry_store::index_db::schema_version(&conn, SCHEMA_KEY).as_deref()
            != Some(SCHEMA_VERSION)
        {
            conn.execute("DELETE FROM rank_snapshots", []).ok()?;
            ambry_store::index_db::set_schema_version(&conn, SCHEMA_KEY, SCHEMA_VERSION).ok()?;
        }
        Some(PersistentCache { conn })
    }

    pub(super) fn load(&self, dir: &Path) -> Option<ScopeSnapshot> {
        let data: Vec<u8> = self
            .conn
            .query_row(
                "SELECT data FROM rank_snapshots WHERE dir = ?1",
                [dir.to_string_lossy()],
                |r| r.get(0),
            )
            .ok()?;
        decode(&data, dir)
    }

    pub(super) fn save(&self, dir: &Path, snapshot: &ScopeSnapshot) {
        let data = encode(snapshot);
        let _ = self.conn.execute(
            "INSERT OR REPLACE INTO rank_snapshots(dir, data) VALUES (?1, ?2)",
            rusqlite::params![dir.to_string_lossy(), data],
        );
    }
}

// A compact binary form: the entries (file stamp and what a hit shows), then the scope's terms in
// order, each with its postings over the entries.
pub(super) const MAGIC: &[u8; 4] = b"ERS4";

/// Encodes a snapshot whose entries carry their terms (every snapshot that was just refreshed).
fn encode(snapshot: &ScopeSnapshot) -> Vec<u8> {
    // Only a refreshed snapshot is saved, and it has its terms per document already: no words
    // are inverted here, so none need sharing.
    let snapshot = snapshot.with_terms_per_document(&mut HashSet::new());
    let mut postings: HashMap<&str, Vec<(u32, f32)>> = HashMap::new();
    for (i, doc) in snapshot
        .entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, e.doc.as_ref()?)))
    {
        for (t, w) in &doc.terms {
            postings.entry(t.as_ref()).or_default().push((i as u32, *w));
        }
    }
    let mut terms: Vec<(&str, Vec<(u32, f32)>)> = postings.into_iter().collect();
    terms.sort_unstable_by(|a, b| a.0.cmp(b.0));

    let mut out = Vec::with_capacity(64 * 1024);
    out.extend_from_slice(MAGIC);
    put_u32(&mut out, snapshot.entries.len() as u32);
    for e in &snapshot.entries {
        put_str(&mut out, &e.file_name);
        out.extend_from_slice(&e.size.to_le_bytes());
        out.extend_from_slice(&e.mtime_ns.to_le_bytes());
        match &e.doc {
            None => out.push(0),
            Some(d) => {
                out.push(match d.scope {
                    Scope::User => 1,
                    Scope::Project => 2,
                    Scope::Team => 3,
                });
                put_str(&mut out, &d.name);
                put_str(&mut out, &d.kind);
                put_str(&mut out, &d.description);
                out.extend_from_slice(&d.body_bytes.to_le_bytes());
                out.extend_from_slice(&d.length.to_le_bytes());
                put_retiring(&mut out, &d.retiring);
                put_rule(&mut out, d.rule.as_deref());
                put_u32(&mut out, d.when.len() as u32);
                for phrase in d.when.iter() {
                    put_str(&mut out, phrase);
                }
            }
        }
    }
    put_u32(&mut out, terms.len() as u32);
    for (term, list) in &terms {
        put_str(&mut out, term);
        put_u32(&mut out, list.len() as u32);
        for (entry, w) in list {
            put_u32(&mut out, *entry);
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    out
}

/// The snapshot in `data`, or `None` when anything in it does not add up (a rebuild follows).
pub(super) fn decode(data: &[u8], dir: &Path) -> Option<ScopeSnapshot> {
    let mut r = Reader { data, pos: 0 };
    if r.take(4)? != MAGIC {
        return None;
    }
    // Every count is checked against the bytes left (each item takes at least that many), so a
    // corrupt count is a rebuild, never a huge allocation.
    let n_entries = r.count(21)?;
    let mut entries = Vec::with_capacity(n_entries);
    for _ in 0..n_entries {
        let file_name = r.str()?;
        let size = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let mtime_ns = i64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let doc = match r.take(1)?[0] {
            0 => None,
            tag @ (1..=3) => {
                let scope = match tag {
                    1 => Scope::User,
                    2 => Scope::Project,
                    _ => Scope::Team,
                };
                let name = r.str()?;
                let kind = r.str()?;
                let description = r.str()?;
                let body_bytes = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
                let length = f32::from_le_bytes(r.take(4)?.try_into().ok()?);
                let retiring = r.retiring()?;
                let rule = r.rule()?.map(Arc::new);
                let n_when = r.count(4)?;
                let when: Arc<[String]> = (0..n_when)
                    .map(|_| r.str())
                    .collect::<Option<Vec<_>>>()?
                    .into();
                let path = dir.join(&file_name);
                Some(Arc::new(DocTerms {
                    scope,
                    name,
                    kind,
                    description,
                    path,
                    body_bytes,
                    retiring,
                    rule,
                    when,
                    length,
                    terms: Vec::new(),
                }))
            }
            _ => return None,
        };
        entries.push(Entry {
            file_name,
            size,
            mtime_ns,
            doc,
        });
    }
    // The refresh compares entries with the sorted listing in order.
    if !entries.is_sorted_by(|a, b| a.file_name < b.file_name) {
        return None;
    }
    let n_terms = r.count(8)?;
    let mut postings: ScopePostings = Vec::with_capacity(n_terms);
    for _ in 0..n_terms {
        let term: Arc<str> = Arc::from(r.str()?);
        if postings
            .last()
            .is_some_and(|(previous, _)| **previous >= *term)
        {
            return None;
        }
        let n = r.count(8)?;
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            let entry = r.u32()?;
            let w = f32::from_le_bytes(r.take(4)?.try_into().ok()?);
            entries.get(entry as usize)?.doc.as_ref()?;
            list.push((entry, w));
        }
        postings.push((term, list));
    }
    (r.pos == data.len()).then_some(ScopeSnapshot {
        entries,
        postings: Some(Arc::new(postings)),
    })
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

/// A flag byte (1: superseded, 2: expires), then the replacing memory's name and the expiry
/// day (days since 1 January of year 1), each only when flagged.
fn put_retiring(out: &mut Vec<u8>, retiring: &Retiring) {
    let flags =
        u8::from(retiring.superseded_by.is_some()) | u8::from(retiring.expires.is_some()) << 1;
    out.push(flags);
    if let Some(by) = &retiring.superseded_by {
        put_str(out, by);
    }
    if let Some(on) = retiring.expires {
        out.extend_from_slice(&on.num_days_from_ce().to_le_bytes());
    }
}

/// A byte (0: no rule, 1: a rule), then its tools (a count and each), pattern, action and
/// status (0 on, 1 off, 2 proposed).
fn put_rule(out: &mut Vec<u8>, rule: Option<&Enforce>) {
    let Some(rule) = rule else {
        out.push(0);
        return;
    };
    out.push(1);
    put_u32(out, rule.tools.len() as u32);
    for tool in &rule.tools {
        put_str(out, tool);
    }
    put_str(out, &rule.pattern);
    put_str(out, &rule.action);
    out.push(match rule.status {
        RuleStatus::On => 0,
        RuleStatus::Off => 1,
        RuleStatus::Proposed => 2,
    });
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.data.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(slice)
    }
    /// A count of items of at least `min_item_bytes` each, if that many could still follow.
    fn count(&mut self, min_item_bytes: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= (self.data.len() - self.pos) / min_item_bytes).then_some(n)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn retiring(&mut self) -> Option<Retiring> {
        let flags = self.take(1)?[0];
        if flags > 0b11 {
            return None;
        }
        let superseded_by = if flags & 1 != 0 {
            Some(self.str()?)
        } else {
            None
        };
        let expires = if flags & 2 != 0 {
            let days = i32::from_le_bytes(self.take(4)?.try_into().ok()?);
            Some(NaiveDate::from_num_days_from_ce_opt(days)?)
        } else {
            None
        };
        Some(Retiring {
            superseded_by,
            expires,
        })
    }
    /// `Some(None)`: no rule; `None`: the bytes do not read.
    fn rule(&mut self) -> Option<Option<Enforce>> {
        if self.take(1)?[0] == 0 {
            return Some(None);
        }
        let n = self.count(4)?;
        let tools = (0..n).map(|_| self.str()).collect::<Option<Vec<_>>>()?;
        let pattern = self.str()?;
        let action = self.str()?;
        let status = match self.take(1)?[0] {
            0 => RuleStatus::On,
            1 => RuleStatus::Off,
            2 => RuleStatus::Proposed,
            _ => return None,
        };
        Some(Some(Enforce {
            tools,
            pattern,
            action,
            status,
        }))
    }
    fn str(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

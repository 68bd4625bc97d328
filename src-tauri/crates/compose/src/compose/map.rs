//! The memory map (DESIGN §5): a bounded overview of what memory exists, given once per
//! context instead of the full MEMORY.md indexes — counts by scope and type, the most used and
//! the newest names with their one-line descriptions, every other memory by name when all the
//! names fit (as many as fit, by use and recency, when they do not), and how to get the rest.
//!
//! Owns: choosing and bounding those lines so the map holds `compose.map_bytes` at 10, 10k or
//! 100k memories (the counts line names at most a few types; names are added while they fit).
//! Deliberately does not: read memory files (the corpus has names, types and descriptions;
//! "newest" is a file's modification time, as the corpus cache last saw it: a stat per memory
//! cost more than the rest of a served turn at 10k memories) or count uses (the caller passes
//! the ledger's counts).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::UNIX_EPOCH;

use super::fit::bound_line;
use ambry_rank::rank::Corpus;
use ambry_store::memory::Scope;

/// Types named in a scope's count; the rest are summed as "N more types".
const TYPES_NAMED: usize = 5;
/// Names listed per group, at most.
const PER_GROUP: usize = 8;
/// Bytes kept spare when described lines share the room with the whole name index: a name that
/// leaves the index may not free a whole line's label.
const INDEX_SLACK: usize = 16;
const MAX_LINE: usize = 160;
/// The name index's heading when it names every memory the described groups do not.
const INDEX_HEADING_FULL: &str = "### Every other memory, by name (read one with `memory_get`)";
/// Its heading when the store is too large for every name.
const INDEX_HEADING_SOME: &str = "### More memories, by name (read one with `memory_get`)";
/// Room kept for the line that counts the names left out of a partial index.
const MORE_LINE_MAX: usize = 60;

pub const HOW_TO_FETCH: &str = "Bodies come in when a prompt needs them, once per context. For anything else, search with the MCP tool `memory_search` and read one with `memory_get` (name and scope).";

/// The line saying how many team memories the repository holds that the person has not trusted
/// (so none was given), and how to trust them; `None` when there are none or they are trusted.
pub fn team_waiting(store: &ambry_store::memory::Store) -> Option<String> {
    if store.team_trusted() {
        return None;
    }
    let waiting = store
        .list(ambry_store::memory::ScopeFilter::Team)
        .ok()?
        .iter()
        .filter(|f| f.parsed.is_ok())
        .count();
    (waiting > 0).then(|| {
        format!(
            "{waiting} team {} of this repository (.ambry/memory/) {} not given: the person has not trusted them yet. To trust them, the person runs `ambry trust` in the repository.",
            if waiting == 1 { "memory" } else { "memories" },
            if waiting == 1 { "is" } else { "are" },
        )
    })
}

/// The map's body (without its heading) in at most `budget` bytes of section (heading included);
/// empty when not even the counts fit.
pub fn render(
    corpus: &Corpus,
    project: Option<&str>,
    uses: &HashMap<(Scope, String, String), u64>,
    budget: usize,
    newest_first: &[u32],
) -> String {
    let heading_cost = "## Memory map\n".len() + 2;
    let Some(mut room) = budget.checked_sub(heading_cost) else {
        return String::new();
    };
    let mut out = String::new();
    let push = |line: &str, out: &mut String, room: &mut usize| -> bool {
        if line.len() + 1 > *room {
            return false;
        }
        out.push_str(line);
        out.push('\n');
        *room -= line.len() + 1;
        true
    };
    if corpus.docs.is_empty() {
        push(
            "No memories yet. An agent saves one with the MCP tool `memory_save` when something is worth keeping.",
            &mut out,
            &mut room,
        );
        return out.trim_end().to_string();
    }
    if !push(
        &bound_line(&counts(corpus, project), 400),
        &mut out,
        &mut room,
    ) {
        return String::new();
    }
    push(HOW_TO_FETCH, &mut out, &mut room);

    // Every memory's name, when they all fit beside the counts: the agent then knows everything
    // that exists and can fetch any of it by name. The described groups get what the whole index
    // leaves; a store too large for it gets the described groups first and then as many more
    // names as fit, by use and recency. The names are sorted only when they could fit at all:
    // sorting ten thousand for an index that cannot hold them cost a served turn a millisecond.
    let index_room = room.saturating_sub(INDEX_HEADING_FULL.len() + 1);
    let least: usize = corpus.docs.iter().map(|d| d.name.len() + 2).sum();
    let everything: Option<Vec<&ambry_rank::rank::DocTerms>> = (least <= index_room).then(|| {
        let mut all: Vec<&ambry_rank::rank::DocTerms> =
            corpus.docs.iter().map(|d| d.as_ref()).collect();
        all.sort_by(|a, b| a.scope.cmp(&b.scope).then_with(|| a.name.cmp(&b.name)));
        all
    });
    let whole_cost = everything
        .as_ref()
        .map(|all| NameIndex::fill(all.iter().copied(), index_room))
        .filter(|index| Some(index.named) == everything.as_ref().map(Vec::len))
        .map(|index| index.cost);
    let everything = everything.filter(|_| whole_cost.is_some());
    let index_fits = everything.is_some();
    let mut described_room = match whole_cost {
        Some(cost) => (index_room - cost).saturating_sub(INDEX_SLACK),
        None => room,
    };

    let key = |scope: Scope, name: &str| {
        let slug = match scope {
            Scope::User => String::new(),
            Scope::Team | Scope::Project => project.unwrap_or("").to_string(),
        };
        (scope, slug, name.to_string())
    };
    let line = |d: &ambry_rank::rank::DocTerms| {
        bound_line(
            &format!("- {} ({}) — {}", d.name, d.scope, d.description),
            MAX_LINE,
        )
    };
    let mut listed: HashSet<(Scope, String)> = HashSet::new();
    // Only memories named in `uses` are looked up (a key per memory would allocate twice for
    // each of ten thousand).
    let used_names: HashSet<&str> = uses.keys().map(|(_, _, name)| name.as_str()).collect();
    let mut used: Vec<(u64, &ambry_rank::rank::DocTerms)> = corpus
        .docs
        .iter()
        // A fresh context of a new home (and every `compose --query`) has no uses at all.
        .take(if uses.is_empty() { 0 } else { usize::MAX })
        .filter(|d| used_names.contains(d.name.as_str()))
        .filter_map(|d| uses.get(&key(d.scope, &d.name)).map(|n| (*n, d.as_ref())))
        .collect();
    used.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    let mut group = |title: &str,
                     docs: &mut dyn Iterator<Item = &ambry_rank::rank::DocTerms>,
                     out: &mut String,
                     room: &mut usize| {
        let mut lines = Vec::new();
        let mut cost = title.len() + 1;
        for d in docs {
            if lines.len() >= PER_GROUP {
                break;
            }
            if listed.contains(&(d.scope, d.name.clone())) {
                continue;
            }
            let l = line(d);
            // Beside the whole index, a described memory leaves it: its line costs only what
            // it says more than its name did there.
            let costs = if index_fits {
                (l.len() + 1).saturating_sub(d.name.len() + 2)
            } else {
                l.len() + 1
            };
            if cost + costs > *room {
                break;
            }
            cost += costs;
            listed.insert((d.scope, d.name.clone()));
            lines.push(l);
        }
        if !lines.is_empty() {
            // `cost` was checked against the room above (a described line's cost beside the
            // whole index being what it adds to it).
            *room -= cost;
            for l in std::iter::once(title.to_string()).chain(lines) {
                out.push_str(&l);
                out.push('\n');
            }
        }
    };
    let before_groups = out.len();
    let newest = || {
        newest_first
            .iter()
            .filter_map(|&i| corpus.docs.get(i as usize).map(|d| d.as_ref()))
    };
    group(
        "### Most used",
        &mut used.iter().map(|(_, d)| *d),
        &mut out,
        &mut described_room,
    );
    group("### Newest", &mut newest(), &mut out, &mut described_room);
    room = room.saturating_sub(out.len() - before_groups);

    let not_described =
        |d: &&ambry_rank::rank::DocTerms| !listed.contains(&(d.scope, d.name.clone()));
    let rest: Option<Vec<&ambry_rank::rank::DocTerms>> = everything
        .as_ref()
        .map(|all| all.iter().copied().filter(not_described).collect());
    let whole_rest = rest.as_ref().and_then(|rest| {
        let index = NameIndex::fill(
            rest.iter().copied(),
            room.saturating_sub(INDEX_HEADING_FULL.len() + 1),
        );
        (index.named == rest.len()).then_some(index)
    });
    if let Some(index) = whole_rest {
        if !index.lines.is_empty() {
            push(INDEX_HEADING_FULL, &mut out, &mut room);
            for l in &index.lines {
                push(l, &mut out, &mut room);
            }
        }
    } else {
        // Too many for the whole index (or, rarely, the described lines left it short): the
        // rest by use and recency, read only as far as the index fills (a used memory is among
        // the newest too).
        let mut seen: HashSet<(Scope, &str)> = HashSet::new();
        let by_priority = used
            .iter()
            .map(|(_, d)| *d)
            .chain(newest())
            .filter(not_described)
            .filter(|d| seen.insert((d.scope, d.name.as_str())));
        let total = corpus.docs.len() - listed.len();
        let index_room = room.saturating_sub(INDEX_HEADING_SOME.len() + 1 + MORE_LINE_MAX);
        let some = NameIndex::fill(by_priority, index_room);
        if !some.lines.is_empty() {
            push(INDEX_HEADING_SOME, &mut out, &mut room);
            for l in &some.lines {
                push(l, &mut out, &mut room);
            }
            if some.named < total {
                push(
                    &format!(
                        "…and {} more: `memory_search` finds them.",
                        total - some.named
                    ),
                    &mut out,
                    &mut room,
                );
            }
        }
    }
    out.trim_end().to_string()
}

/// Names grouped by scope, one `scope: a, b, c` line per up to `MAX_LINE` bytes: what the map
/// says of a memory it has no room to describe.
struct NameIndex {
    lines: Vec<String>,
    /// Bytes the lines take, newlines included.
    cost: usize,
    /// How many names the lines hold.
    named: usize,
}

impl NameIndex {
    /// The names of `docs`, in their order within each scope, while they fit in `room`; scopes
    /// in their own order (user, project, team).
    fn fill<'d>(
        docs: impl Iterator<Item = &'d ambry_rank::rank::DocTerms>,
        room: usize,
    ) -> NameIndex {
        let mut by_scope: BTreeMap<Scope, Vec<String>> = BTreeMap::new();
        let mut cost = 0usize;
        let mut named = 0;
        for d in docs {
            let lines = by_scope.entry(d.scope).or_default();
            let label = format!("{}: ", d.scope);
            let extends = lines
                .last()
                .is_some_and(|l| l.len() + 2 + d.name.len() <= MAX_LINE);
            let added = if extends {
                2 + d.name.len()
            } else {
                label.len() + d.name.len() + 1
            };
            if cost + added > room {
                break;
            }
            cost += added;
            named += 1;
            match lines.last_mut() {
                Some(l) if extends => {
                    l.push_str(", ");
                    l.push_str(&d.name);
                }
                _ => lines.push(format!("{label}{}", d.name)),
            }
        }
        NameIndex {
            lines: by_scope.into_values().flatten().collect(),
            cost,
            named,
        }
    }
}

/// The corpus's documents, newest first (by `modified_ns`, else a stat; ties by name): the
/// "Newest" group's order. The corpus cache keeps it while the corpus is unchanged.
pub fn newest_first(
    corpus: &Corpus,
    modified_ns: &dyn Fn(&std::path::Path) -> Option<i64>,
) -> Vec<u32> {
    let mut at: Vec<(i128, u32)> = corpus
        .docs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let t = modified_ns(&d.path).map_or_else(|| modified(&d.path), i128::from);
            (t, i as u32)
        })
        .collect();
    at.sort_by(|a, b| {
        b.0.cmp(&a.0).then_with(|| {
            corpus.docs[a.1 as usize]
                .name
                .cmp(&corpus.docs[b.1 as usize].name)
        })
    });
    at.into_iter().map(|(_, i)| i).collect()
}

fn modified(path: &std::path::Path) -> i128 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

/// "N memories: user 12 (feedback 3, project 9), project ledger-1a2b3c4d 40 (…)."
fn counts(corpus: &Corpus, project: Option<&str>) -> String {
    let mut by_scope: BTreeMap<Scope, BTreeMap<&str, usize>> = BTreeMap::new();
    for d in &corpus.docs {
        *by_scope
            .entry(d.scope)
            .or_default()
            .entry(d.kind.as_str())
            .or_default() += 1;
    }
    let parts: Vec<String> = by_scope
        .iter()
        .map(|(scope, types)| {
            let total: usize = types.values().sum();
            let mut sorted: Vec<(&str, usize)> = types.iter().map(|(k, n)| (*k, *n)).collect();
            sorted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            let mut named: Vec<String> = sorted
                .iter()
                .take(TYPES_NAMED)
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            if sorted.len() > TYPES_NAMED {
                named.push(format!("{} more types", sorted.len() - TYPES_NAMED));
            }
            let label = match (scope, project) {
                (Scope::Project, Some(slug)) => format!("project {slug}"),
                (Scope::Team, Some(slug)) => format!("team {slug}"),
                (scope, _) => scope.to_string(),
            };
            format!("{label} {total} ({})", named.join(", "))
        })
        .collect();
    format!("{} memories: {}.", corpus.docs.len(), parts.join("; "))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use ambry_rank::rank::DocTerms;

    /// `n` memories over both scopes and 60 types, with long descriptions (documents carry no
    /// terms: the map reads names, types and descriptions only), and uses for every tenth.
    fn corpus(n: usize) -> (Corpus, HashMap<(Scope, String, String), u64>) {
        let mut uses = HashMap::new();
        let docs: Vec<Arc<DocTerms>> = (0..n)
            .map(|i| {
                let scope = if i % 3 == 0 {
                    Scope::Project
                } else {
                    Scope::User
                };
                let name = format!("note-{i}");
                if i % 10 == 0 {
                    let slug = if scope == Scope::Project {
                        "repo-1"
                    } else {
                        ""
                    };
                    uses.insert((scope, slug.to_string(), name.clone()), (i % 97) as u64);
                }
                Arc::new(DocTerms {
                    scope,
                    name: name.clone(),
                    kind: format!("type-{}", i % 60),
                    description: format!("what note {i} is about, {}", "detail ".repeat(40)),
                    path: format!("/nonexistent/{name}.md").into(),
                    body_bytes: 500,
                    retiring: Default::default(),
                    rule: None,
                    when: Arc::from([]),
                    length: 0.0,
                    terms: Vec::new(),
                })
            })
            .collect();
        (Corpus::build_unshadowed(docs), uses)
    }

    #[test]
    fn the_map_holds_its_budget_at_ten_ten_thousand_and_a_hundred_thousand_memories() {
        for n in [10, 10_000, 100_000] {
            let (corpus, uses) = corpus(n);
            for budget in [3_000, 1_000] {
                let body = render(
                    &corpus,
                    Some("repo-1"),
                    &uses,
                    budget,
                    &newest_first(&corpus, &|_| None),
                );
                let section = "## Memory map\n".len() + body.len() + 2;
                assert!(
                    section <= budget,
                    "{n} memories, budget {budget}: {section}"
                );
                assert!(
                    body.starts_with(&format!("{n} memories: user ")),
                    "{n}: {body}"
                );
                assert!(body.contains("memory_search"), "{n}: {body}");
                assert!(body.contains("### Most used\n- note-"), "{n}: {body}");
            }
            // 60 types in a scope: a few are named, the rest counted.
            let body = render(
                &corpus,
                Some("repo-1"),
                &uses,
                3_000,
                &newest_first(&corpus, &|_| None),
            );
            if n >= 60 {
                assert!(body.contains("more types"), "{n}: {body}");
            }
            assert!(body.lines().all(|l| l.len() <= 400), "{n}: a line too long");
        }
    }

    /// The map of `n` memories (`corpus(n)`) in `budget` bytes.
    fn map_of(n: usize, budget: usize) -> String {
        let (docs, uses) = corpus(n);
        let body = render(
            &docs,
            Some("repo-1"),
            &uses,
            budget,
            &newest_first(&docs, &|_| None),
        );
        assert!("## Memory map\n".len() + body.len() + 2 <= budget);
        body
    }

    /// The lines of a map's name index: each line's scope label and its names.
    fn index_lines(body: &str) -> Vec<(&str, Vec<&str>)> {
        body.split_once(", by name")
            .map_or("", |(_, rest)| rest)
            .lines()
            .filter_map(|l| l.split_once(": "))
            .filter(|(scope, _)| ["user", "project", "team"].contains(scope))
            .map(|(scope, names)| (scope, names.split(", ").collect()))
            .collect()
    }

    /// The names a map's index lists.
    fn indexed(body: &str) -> Vec<&str> {
        index_lines(body)
            .into_iter()
            .flat_map(|(_, names)| names)
            .collect()
    }

    #[test]
    fn a_store_whose_names_fit_is_named_whole_and_a_larger_one_says_how_many_are_left_out() {
        // A hundred and thirty-four memories (a person's and one repository's): every one is
        // named, described or in the index, once.
        let body = map_of(134, 3_000);
        assert!(body.contains("### Every other memory, by name"), "{body}");
        let described: Vec<&str> = body
            .lines()
            .filter_map(|l| l.strip_prefix("- "))
            .filter_map(|l| l.split_once(' ').map(|(n, _)| n))
            .collect();
        assert!(
            !described.is_empty() && described.len() < 2 * PER_GROUP,
            "{body}"
        );
        let mut named = indexed(&body);
        named.extend(&described);
        let mut unique = named.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), named.len(), "a name twice: {body}");
        assert_eq!(named.len(), 134, "{body}");
        assert!(body.lines().skip(2).all(|l| l.len() <= MAX_LINE), "{body}");
        // Grouped by scope (user first), by name within each.
        let lines = index_lines(&body);
        let mut scopes: Vec<&str> = lines.iter().map(|l| l.0).collect();
        scopes.dedup();
        assert_eq!(scopes, ["user", "project"], "{body}");
        for scope in ["user", "project"] {
            let names: Vec<&str> = lines
                .iter()
                .filter(|(s, _)| *s == scope)
                .flat_map(|(_, names)| names.iter().copied())
                .collect();
            assert!(names.windows(2).all(|w| w[0] < w[1]), "{scope}: {body}");
        }

        // A few: every one described, no index.
        let body = map_of(6, 3_000);
        assert_eq!(
            body.lines().filter(|l| l.starts_with("- ")).count(),
            6,
            "{body}"
        );
        assert!(!body.contains(", by name"), "{body}");

        // Ten thousand in a larger map: the described groups as before, then as many more names
        // as fit, the most used first, and how many were left out.
        let body = map_of(10_000, 5_000);
        assert!(body.contains("### More memories, by name"), "{body}");
        let listed = indexed(&body).len();
        assert!(listed > 10, "{body}");
        let first: u32 = indexed(&body)[0]["note-".len()..].parse().unwrap();
        assert_eq!(first % 10, 0, "a used memory first: {body}");
        let described = body.lines().filter(|l| l.starts_with("- ")).count();
        assert_eq!(described, 2 * PER_GROUP, "{body}");
        let left_out = 10_000 - listed - described;
        assert!(
            body.ends_with(&format!(
                "…and {left_out} more: `memory_search` finds them."
            )),
            "{body}"
        );
    }
}

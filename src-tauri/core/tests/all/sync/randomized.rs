//! Thirty randomized rounds on two machines (fixed seed): edits, deletes and renames on both
//! sides, in the user scope and a project's (known on the second machine only by sync), synced
//! in random order. The machines converge, every body ever written is reachable
//! (a file, the archive, or a finding), MEMORY.md always matches, no conflict marker is ever
//! written, and the remote holds only what travels.

use crate::support::StoreBelow;
use ambry_core::Place;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

/// The store and scope of one side of a machine: the user scope, or the project's once the
/// machine knows it.
fn target(m: &Machine, project: Option<&str>) -> (Store, Scope) {
    match project.and_then(|slug| m.ws.store_for(Some(slug)).ok()) {
        Some(store) => (store, Scope::Project),
        None => (m.store(), Scope::User),
    }
}

/// Every memory file of both scopes, `scope/name` to bytes.
fn all_files(m: &Machine, slug: &str) -> BTreeMap<String, String> {
    let mut files: BTreeMap<String, String> = m
        .files()
        .into_iter()
        .map(|(n, t)| (format!("user/{n}"), t))
        .collect();
    if let Ok(store) = m.ws.store_for(Some(slug)) {
        for f in store.list(ScopeFilter::Project).unwrap() {
            files.insert(
                format!("project/{}", f.name),
                std::fs::read_to_string(&f.path).unwrap(),
            );
        }
        assert!(store.index_drift(Scope::Project).unwrap().is_empty());
    }
    files
}

fn archived(m: &Machine, slug: &str) -> String {
    let mut texts = m.archived_texts().concat();
    let dir = m.home.join(format!("projects/{slug}/memory/.archive"));
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        texts.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
    }
    texts
}

const ROUNDS: usize = 30;
const SEED: u64 = 0x5EED_0035;

#[test]
fn two_machines_converge_and_lose_nothing_over_thirty_random_rounds() {
    let tmp = tempfile::tempdir().unwrap();
    let remote = bare_remote(tmp.path());
    let machines = [Machine::new(tmp.path(), "a"), Machine::new(tmp.path(), "b")];
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut clock = 0i64;
    let mut tick = || {
        clock += 1;
        clock
    };
    let mut written: Vec<String> = Vec::new();
    let (mut conflicts, mut renames, mut deletes) = (0usize, 0usize, 0usize);
    let mut fresh = 0usize;
    let mut fresh_name = || {
        fresh += 1;
        format!("m-{fresh}")
    };
    machines[0].save("seed-note", "body-seed", tick());
    written.push("body-seed".into());
    let checkout = tmp.path().join("src/ledger");
    std::fs::create_dir_all(&checkout).unwrap();
    git(&checkout, &["init", "--quiet"]);
    git(
        &checkout,
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/acme/ledger.git",
        ],
    );
    let project_store = machines[0].ws.place_at(&checkout);
    let slug = project_store.project().unwrap().slug.clone();
    machines[0]
        .ws
        .save(
            &project_store,
            Scope::Project,
            draft("ledger-seed", "body-project-seed"),
            at(tick()),
        )
        .unwrap();
    written.push("body-project-seed".into());
    machines[0].init(&remote, tick());
    machines[1].init(&remote, tick());

    for round in 0..ROUNDS {
        for (m, machine) in machines.iter().enumerate() {
            for op in 0..rng.random_range(0..4) {
                let project = rng.random_bool(0.4).then_some(slug.as_str());
                let (store, scope) = target(machine, project);
                let ws = &machine.ws;
                let names: Vec<String> = store
                    .list(ScopeFilter::from(scope))
                    .unwrap()
                    .into_iter()
                    .map(|f| f.name)
                    .collect();
                let pick = |rng: &mut StdRng| names[rng.random_range(0..names.len())].clone();
                let body = format!("body-{round}-{m}-{op}");
                match rng.random_range(0..10) {
                    0..=2 => {
                        ws.save(
                            &Place::from(&store),
                            scope,
                            draft(&fresh_name(), &body),
                            at(tick()),
                        )
                        .unwrap();
                        written.push(body);
                    }
                    3..=5 if !names.is_empty() => {
                        ws.save(
                            &Place::from(&store),
                            scope,
                            draft(&pick(&mut rng), &body),
                            at(tick()),
                        )
                        .unwrap();
                        written.push(body);
                    }
                    6..=7 if !names.is_empty() => {
                        ws.forget(&Place::from(&store), scope, &pick(&mut rng), at(tick()))
                            .unwrap();
                        deletes += 1;
                    }
                    8..=9 if !names.is_empty() => {
                        ws.rename_memory(
                            &Place::from(&store),
                            scope,
                            &pick(&mut rng),
                            &fresh_name(),
                            at(tick()),
                        )
                        .unwrap();
                        renames += 1;
                    }
                    _ => {}
                }
            }
        }
        let order: &[usize] = match rng.random_range(0..5) {
            0 => &[0],
            1 => &[1],
            2 => &[0, 1],
            3 => &[1, 0],
            _ => &[],
        };
        for &m in order {
            let report = machines[m].sync(tick());
            conflicts += report.conflicts.len();
        }
        for machine in &machines {
            machine.assert_index_matches();
            machine.assert_no_conflict_markers();
        }
    }
    for m in [0, 1, 0, 1] {
        conflicts += machines[m].sync(tick()).conflicts.len();
    }
    // The seed exercises what the test is about.
    assert!(
        conflicts > 0 && renames > 0 && deletes > 0,
        "{conflicts} {renames} {deletes}"
    );
    eprintln!(
        "{} bodies, {conflicts} conflicts, {renames} renames, {deletes} deletes",
        written.len()
    );

    let [a, b] = &machines;
    assert_eq!(
        all_files(a, &slug),
        all_files(b, &slug),
        "the machines did not converge"
    );
    assert!(all_files(b, &slug)
        .keys()
        .any(|k| k.starts_with("project/")));
    let mut reachable = String::new();
    for machine in &machines {
        machine.assert_index_matches();
        machine.assert_no_conflict_markers();
        for (path, text) in all_files(machine, &slug) {
            assert!(
                !text.contains("<<<<<<<") && !text.contains(">>>>>>>"),
                "{path}"
            );
            reachable.push_str(&text);
        }
        reachable.push_str(&archived(machine, &slug));
        for c in machine.ws.sync_status().unwrap().conflicts {
            reachable.push_str(&c.kept.text);
            reachable.push_str(&c.other.text);
        }
    }
    for body in &written {
        assert!(
            reachable.contains(&format!("{body}\n")),
            "{body} is nowhere: not in a file, the archive or a finding"
        );
    }
    for path in remote_paths(&remote) {
        assert!(
            ambry_sync::sync::allowlist::Kind::of(&path).is_ok(),
            "{path} is on the remote"
        );
    }
}

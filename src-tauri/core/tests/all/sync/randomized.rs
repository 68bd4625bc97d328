//! Thirty randomized rounds on two machines (fixed seed): edits, deletes and renames on both
//! sides, synced in random order. The machines converge, every body ever written is reachable
//! (a file, the archive, or a finding), MEMORY.md always matches, no conflict marker is ever
//! written, and the remote holds only what travels.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

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
    machines[0].init(&remote, tick());
    machines[1].init(&remote, tick());

    for round in 0..ROUNDS {
        for (m, machine) in machines.iter().enumerate() {
            for op in 0..rng.random_range(0..4) {
                let names: Vec<String> = machine.files().into_keys().collect();
                let pick = |rng: &mut StdRng| names[rng.random_range(0..names.len())].clone();
                let body = format!("body-{round}-{m}-{op}");
                match rng.random_range(0..10) {
                    0..=2 => {
                        machine.save(&fresh_name(), &body, tick());
                        written.push(body);
                    }
                    3..=5 if !names.is_empty() => {
                        machine.save(&pick(&mut rng), &body, tick());
                        written.push(body);
                    }
                    6..=7 if !names.is_empty() => {
                        machine.forget(&pick(&mut rng), tick());
                        deletes += 1;
                    }
                    8..=9 if !names.is_empty() => {
                        machine.rename(&pick(&mut rng), &fresh_name(), tick());
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
    assert_eq!(a.files(), b.files(), "the machines did not converge");
    assert!(!a.files().is_empty());
    let mut reachable = String::new();
    for machine in &machines {
        machine.assert_index_matches();
        machine.assert_no_conflict_markers();
        reachable.extend(machine.files().into_values());
        reachable.extend(machine.archived_texts());
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
            ambry_core::sync::allowlist::Kind::of(&path).is_ok(),
            "{path} is on the remote"
        );
    }
}

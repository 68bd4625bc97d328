//! The ledger's line in `ambry doctor` (DESIGN §5): whether the injection ledger can be read
//! whole, how much it holds, and the damaged copies set aside before.
//!
//! Owns: a read-only look at `ledger.sqlite` (opened read-only, checked page by page with
//! `quick_check`, which a turn never pays for).
//! Deliberately does not: repair — the next turn that finds the damage sets the file aside and
//! starts a new one (`Ledger`), and the check says so.

use rusqlite::{Connection, OpenFlags};

use super::{ledger_path, LEDGER_FILE};
use ambry_store::doctor::Check;
use ambry_store::home::AmbryHome;

const AREA: &str = "ledger";

pub fn ledger_checks(home: &AmbryHome) -> Vec<Check> {
    let path = ledger_path(home);
    let mut checks = Vec::new();
    match std::fs::symlink_metadata(&path) {
        Err(_) => checks.push(Check::ok(
            AREA,
            "injection ledger: none yet (the first agent turn starts it)",
        )),
        Ok(meta) if !meta.file_type().is_file() => checks.push(Check::error(
            AREA,
            format!(
                "injection ledger {} is not a regular file (a link or a directory): move it away",
                path.display()
            ),
        )),
        Ok(_) => checks.push(match read_whole(&path) {
            Ok((contexts, injections)) => Check::ok(
                AREA,
                format!("injection ledger: {contexts} contexts, {injections} injections recorded"),
            ),
            Err(why) => Check::warn(
                AREA,
                format!(
                    "injection ledger {} is damaged ({why}); the next agent turn sets it aside as \
                     {LEDGER_FILE}.corrupt-N and starts a new one",
                    path.display()
                ),
            ),
        }),
    }
    let kept = ambry_store::index_db::set_aside_copies(&path);
    if !kept.is_empty() {
        let names: Vec<String> = kept.iter().map(|p| p.display().to_string()).collect();
        checks.push(Check::ok(
            AREA,
            format!(
                "damaged ledgers set aside (kept, never read again; delete when not needed): {}",
                names.join(", ")
            ),
        ));
    }
    checks
}

/// Counts, after a page-by-page check; `Err` says what is damaged.
fn read_whole(path: &std::path::Path) -> Result<(u64, u64), String> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| e.to_string())?;
    let verdict: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(|e| e.to_string())?;
    if verdict != "ok" {
        return Err(verdict);
    }
    let count = |table: &str| -> Result<u64, String> {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .map_err(|e| e.to_string())
    };
    Ok((count("contexts")?, count("injections")?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ambry_store::doctor::Status;

    #[test]
    fn doctor_reports_a_ledger_damaged_in_the_middle_and_what_happens_next() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("home"));
        assert_eq!(
            ledger_checks(&home)[0].status,
            Status::Ok,
            "no ledger yet is fine"
        );
        {
            let mut ledger = super::super::Ledger::open(&home).unwrap();
            let at = "2026-01-01T00:00:00Z".parse().unwrap();
            ledger
                .start_context("s1", "claude", "startup", true, at)
                .unwrap();
        }
        let healthy = ledger_checks(&home);
        assert_eq!(healthy[0].status, Status::Ok, "{healthy:?}");
        assert!(healthy[0].detail.contains("1 contexts"), "{healthy:?}");

        let path = ledger_path(&home);
        let mut bytes = std::fs::read(&path).unwrap();
        let page = 4096.min(bytes.len() / 2);
        for b in &mut bytes[page..] {
            *b = 0xA5;
        }
        std::fs::write(&path, &bytes).unwrap();
        let damaged = ledger_checks(&home);
        assert_eq!(damaged[0].status, Status::Warn, "{damaged:?}");
        assert!(damaged[0].detail.contains("sets it aside"), "{damaged:?}");
    }
}

//! Judging two memories on their claims: whatever their text (a memory written by an agent, a
//! team memory from a cloned repository), reading claims, aligning headlines and sentence
//! shapes, and judging never panic, and a pair judges the same both ways round but for the
//! order of the claims it names.
#![no_main]

use ambry_lifecycle::lifecycle::pairs::{judge, Side, Verdict};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // Two memories, each "description\nbody", split at the first NUL (else halfway on a char).
    let (a, b) = match text.split_once('\0') {
        Some(pair) => pair,
        None => {
            let mut mid = text.len() / 2;
            while !text.is_char_boundary(mid) {
                mid -= 1;
            }
            text.split_at(mid)
        }
    };
    let side = |t: &str| {
        let (description, body) = t.split_once('\n').unwrap_or((t, ""));
        Side::new(description, body)
    };
    let (a, b) = (side(a), side(b));
    for cosine in [None, Some(0.0), Some(0.6), Some(1.0)] {
        let there = judge(&a, &b, cosine).verdict;
        let back = judge(&b, &a, cosine).verdict;
        let kind = |v: &Option<Verdict>| match v {
            None => 0,
            Some(Verdict::Duplicate) => 1,
            Some(Verdict::Conflict(_)) => 2,
            Some(Verdict::Uncertain(_)) => 3,
        };
        // A rival claim on one side is never a merge on the other.
        assert!(
            !(kind(&there) == 2 && kind(&back) == 1) && !(kind(&there) == 1 && kind(&back) == 2),
            "a conflict one way is a duplicate the other: {there:?} / {back:?}"
        );
    }
});

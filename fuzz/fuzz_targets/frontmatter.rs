//! Memory files as anyone may write them: parsing never panics, and whatever parses renders back
//! to text that parses to the same document (unknown keys and awkward values survive a rewrite).
#![no_main]

use ambry_store::memory::frontmatter::{parse, render};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(doc) = parse(text) else { return };
    let again = parse(&render(&doc)).expect("a rendered document parses");
    assert_eq!(again.name, doc.name);
    assert_eq!(again.kind, doc.kind);
    assert_eq!(again.description, doc.description);
    assert_eq!(again.tags, doc.tags);
});

//! Masking transcript secrets: whatever the text, what is masked holds no secret any more,
//! text without a secret comes back unchanged, and nothing panics (a span cut inside a
//! character, overlapping matches).
#![no_main]

use ambry_store::memory::secrets::{find_secret, mask_secrets};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let masked = mask_secrets(text);
    if let Some(left) = find_secret(&masked) {
        panic!("a secret is left once masked ({}): {masked:?}", left.kind);
    }
    if find_secret(text).is_none() {
        assert_eq!(masked, text, "text without a secret is changed");
    }
});

//! Decoding refuses a count larger than the bytes left could hold, before allocating for it.

use super::persisted::{decode, MAGIC};
use super::*;

#[test]
fn a_huge_count_is_refused_without_allocating() {
    let mut data = MAGIC.to_vec();
    data.extend_from_slice(&u32::MAX.to_le_bytes());
    assert!(decode(&data, Path::new("/m")).is_none());
    let mut data = MAGIC.to_vec();
    data.extend_from_slice(&0u32.to_le_bytes());
    data.extend_from_slice(&u32::MAX.to_le_bytes());
    assert!(decode(&data, Path::new("/m")).is_none());
}

//! The compose service's line protocol, from both ends: any line a client sends is a request or
//! an error reply, any line a service sends is a reply or an error, and a request that parses
//! survives its own serialization.
#![no_main]

use ambry_core::{parse_request, parse_response};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else { return };
    if let Ok(request) = parse_request(line) {
        let again = parse_request(&request.to_line()).expect("a serialized request parses");
        assert_eq!(again, request);
    }
    let _ = parse_response(line);
});

//! A JWKS document as the JWT resource server reads it after fetching it from an authorization
//! server (`auth::server::jwks`, RFC 7517 §5): what the issuer, or whoever answers at its
//! `jwks_uri`, sends. Input: the document's bytes.
//! Properties: no panic; a document that is not a JSON object with a `keys` array is refused;
//! never more usable keys than the array holds, and each key id is one the document names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::fuzzing::parse_jwks;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let parsed = parse_jwks(data);
    let keys = serde_json::from_slice::<Value>(data)
        .ok()
        .and_then(|v| v.get("keys").and_then(Value::as_array).cloned());
    match (&parsed, &keys) {
        (Ok(_), None) => panic!("a document without a keys array was accepted"),
        (Err(e), Some(_)) => panic!("a document with a keys array was refused: {e}"),
        _ => {}
    }
    if let (Ok(kids), Some(keys)) = (parsed, keys) {
        assert!(kids.len() <= keys.len());
        for kid in kids.into_iter().flatten() {
            assert!(
                keys.iter().any(|k| k.get("kid").and_then(Value::as_str) == Some(kid.as_str())),
                "{kid:?}"
            );
        }
    }
});

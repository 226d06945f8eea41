//! A DPoP proof (RFC 9449 §4.3) as a resource server with DPoP on reads it from the `DPoP`
//! header (`auth::server::dpop`): what any client sends. Input: the header value as it is; and,
//! split at the first two NULs, a JOSE header and claims (JSON) made into a compact JWS with
//! the rest as its signature, so the checks behind the base64 are reached too.
//! Properties: no panic; a proof whose signature was made up is never accepted; a key's
//! thumbprint does not depend on its other members or their order.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::fuzzing::{check_dpop_proof, dpop_thumbprint};
use serde_json::{Map, Value};
use std::time::{Duration, UNIX_EPOCH};

const URI: &str = "https://mcp.example.com/mcp";

/// base64url without padding (RFC 4648 §5).
fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 3);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = check_dpop_proof(text, URI, "token", now);
    }
    let mut parts = data.splitn(3, |b| *b == 0);
    let (Some(header), Some(claims)) = (parts.next(), parts.next()) else { return };
    let signature = parts.next().unwrap_or_default();
    let jws = format!("{}.{}.{}", b64(header), b64(claims), b64(signature));
    if let Ok(jkt) = check_dpop_proof(&jws, URI, "token", now) {
        panic!("a proof with a made-up signature was accepted (key {jkt})");
    }
    if let Ok(Value::Object(h)) = serde_json::from_slice::<Value>(header) {
        if let Some(Value::Object(jwk)) = h.get("jwk") {
            let print = dpop_thumbprint(jwk);
            let reversed: Map<String, Value> = jwk.iter().rev().map(|(k, v)| (k.clone(), v.clone())).collect();
            assert_eq!(dpop_thumbprint(&reversed), print, "member order changed the thumbprint");
            let mut more = jwk.clone();
            more.insert("kid".into(), Value::from("another"));
            more.insert("use".into(), Value::from("sig"));
            assert_eq!(dpop_thumbprint(&more), print, "a member outside RFC 7638's changed the thumbprint");
        }
    }
});

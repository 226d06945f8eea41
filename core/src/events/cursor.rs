//! Cursors of the Events extension: a [`Position`] sealed with the server's `requestState`
//! keys, so that a client cannot forge one or move it to another event type (SEP-3415 §Cursor
//! lifecycle: cursors are opaque to the client). `<epoch hex>.<seq>.<tag>`, the tag an
//! HMAC-SHA256 of the type's name and the position under [`StateKeys::tag`]; any key of the
//! rotation opens one.

use super::Position;
use crate::error::ErrorData;
use crate::state::StateKeys;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::json;

const DOMAIN: &str = "mcpcore/events-cursor";

fn parts(name: &str, p: Position) -> [Vec<u8>; 3] {
    [name.as_bytes().to_vec(), p.epoch.to_be_bytes().to_vec(), p.seq.to_be_bytes().to_vec()]
}

/// The cursor of position `p` in event type `name`.
pub fn seal(keys: &StateKeys, name: &str, p: Position) -> String {
    let parts = parts(name, p);
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    let tag = keys.tag(DOMAIN, &refs).map(|t| URL_SAFE_NO_PAD.encode(t)).unwrap_or_default();
    format!("{:x}.{}.{tag}", p.epoch, p.seq)
}

/// The position a cursor of `name` stands for; `-32602` when it is malformed, forged, or was
/// issued for another event type or by a server with other keys.
pub fn open(keys: &StateKeys, name: &str, cursor: &str) -> Result<Position, ErrorData> {
    let invalid = || {
        ErrorData::invalid_params(format!("Invalid cursor for event type {name}: it was not issued by this server for this type; start again with a null cursor"))
            .with_data(json!({ "name": name, "cursor": cursor }))
    };
    let mut it = cursor.splitn(3, '.');
    let (Some(epoch), Some(seq), Some(tag)) = (it.next(), it.next(), it.next()) else {
        return Err(invalid());
    };
    let epoch = u64::from_str_radix(epoch, 16).map_err(|_| invalid())?;
    let seq = seq.parse::<u64>().map_err(|_| invalid())?;
    let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| invalid())?;
    let p = Position { epoch, seq };
    let parts = parts(name, p);
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    if keys.verify_tag(DOMAIN, &refs, &tag) {
        Ok(p)
    } else {
        Err(invalid())
    }
}

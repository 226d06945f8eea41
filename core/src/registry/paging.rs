//! Paging for tools that list records (issue 35 §4, "list methods page 20 items by default
//! with a cap of 200"): a business server's `list_invoices`, `search_customers`… take `limit`
//! and `cursor` arguments and answer one page with the cursor of the next, as MCP's own list
//! methods do (2026-07-28 `server/utilities/pagination`: cursors are opaque, and an invalid one
//! is an error). One policy per tool: [`Paging`] (default 20, cap 200).
//!
//! ```
//! use mcpcore::registry::paging::Paging;
//! let paging = Paging::default();
//! let items: Vec<u32> = (0..45).collect();
//! let first = paging.page(&items, None, None).unwrap();
//! assert_eq!(first["items"].as_array().unwrap().len(), 20);
//! let cursor = first["nextCursor"].as_str().unwrap();
//! let second = paging.page(&items, Some(30), Some(cursor)).unwrap();
//! assert_eq!(second["items"][0], 20);
//! assert!(second.get("nextCursor").is_none(), "the last page");
//! ```
//!
//! A cursor says where the next page starts; a list that changes between pages may shift
//! (as with any offset). Lists read from a database fetch [`PageRequest::limit`] + 1 rows from
//! [`PageRequest::offset`] and call [`PageRequest::answer`].

use crate::error::{Error, ErrorCode, ErrorData, Result};
use base64::Engine as _;
use serde::Serialize;
use serde_json::{json, Value};

/// Items per page when the caller names no `limit`.
pub const DEFAULT_LIMIT: usize = 20;

/// The most items one page holds, whatever the caller asks.
pub const MAX_LIMIT: usize = 200;

/// A list tool's paging policy: the page size without `limit`, and the cap of `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    /// Items per page when the caller names no `limit` (at least 1).
    pub default_limit: usize,
    /// The largest `limit` honoured; a larger one is lowered to it (the page then says so with
    /// its `nextCursor`).
    pub cap: usize,
}

impl Default for Paging {
    fn default() -> Self {
        Paging { default_limit: DEFAULT_LIMIT, cap: MAX_LIMIT }
    }
}

/// Where a page starts and how long it is, read from a call's `limit` and `cursor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// Items to skip.
    pub offset: usize,
    /// Items to return.
    pub limit: usize,
}

impl Paging {
    /// A policy of `default_limit` items per page and at most `cap` (both at least 1; the
    /// default no more than the cap).
    pub fn new(default_limit: usize, cap: usize) -> Result<Paging> {
        if default_limit == 0 || cap == 0 || default_limit > cap {
            return Err(Error::invalid_input(format!(
                "paging needs 1 <= default ({default_limit}) <= cap ({cap})"
            )));
        }
        Ok(Paging { default_limit, cap })
    }

    /// The `limit` and `cursor` properties to put in a list tool's `inputSchema`.
    pub fn schema_properties(&self) -> Value {
        json!({
            "limit": {"type": "integer", "minimum": 1, "maximum": self.cap, "default": self.default_limit,
                      "description": format!("Items per page (default {}, at most {}).", self.default_limit, self.cap)},
            "cursor": {"type": "string", "description": "The nextCursor of the previous page, for the page after it."}
        })
    }

    /// The page a call asks for: `limit` (absent: the default; above the cap: the cap) and
    /// `cursor` (absent: the first page). An invalid cursor or a `limit` below 1 is the
    /// caller's mistake: `-32602` Invalid params naming it (as an invalid cursor of MCP's own
    /// list methods is, 2026-07-28 `server/utilities/pagination`).
    pub fn request(&self, limit: Option<i64>, cursor: Option<&str>) -> Result<PageRequest> {
        let invalid = |m: String| Error::rpc(ErrorData::new(ErrorCode::INVALID_PARAMS, m));
        let limit = match limit {
            None => self.default_limit,
            Some(n) if n < 1 => return Err(invalid(format!("limit must be at least 1, not {n}"))),
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX).min(self.cap),
        };
        let offset = match cursor {
            None => 0,
            Some(c) => decode(c).ok_or_else(|| invalid(format!("invalid cursor: {c:?}")))?,
        };
        Ok(PageRequest { offset, limit })
    }

    /// One page of `items` as `{"items": [...], "nextCursor"?}` (`nextCursor` only when more
    /// follow): [`Paging::request`] over the whole list.
    pub fn page<T: Serialize>(&self, items: &[T], limit: Option<i64>, cursor: Option<&str>) -> Result<Value> {
        let req = self.request(limit, cursor)?;
        let start = req.offset.min(items.len());
        let end = start.saturating_add(req.limit).min(items.len());
        let page = serde_json::to_value(&items[start..end])
            .map_err(|e| Error::invalid_input(format!("the items do not serialize: {e}")))?;
        Ok(req.answer(page, end < items.len()))
    }
}

impl PageRequest {
    /// The cursor of the page after this one.
    pub fn next_cursor(&self) -> String {
        encode(self.offset.saturating_add(self.limit))
    }

    /// `{"items": items, "nextCursor"?}`: the cursor when `more` items follow this page (a
    /// database read of `limit + 1` rows knows it from the extra row).
    pub fn answer(&self, items: Value, more: bool) -> Value {
        let mut page = json!({ "items": items });
        if more {
            page["nextCursor"] = Value::String(self.next_cursor());
        }
        page
    }
}

/// Cursors are opaque to callers: the offset, base64url-encoded with a tag.
fn encode(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("p{offset}"))
}

fn decode(cursor: &str) -> Option<usize> {
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(cursor).ok()?;
    std::str::from_utf8(&raw).ok()?.strip_prefix('p')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_follow_their_cursors_to_the_end() {
        let p = Paging::default();
        let items: Vec<usize> = (0..450).collect();
        let (mut seen, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
        loop {
            let page = p.page(&items, Some(1000), cursor.as_deref()).unwrap();
            let got = page["items"].as_array().unwrap();
            assert!(got.len() <= MAX_LIMIT, "capped");
            seen.extend(got.iter().map(|v| v.as_u64().unwrap() as usize));
            pages += 1;
            match page.get("nextCursor") {
                Some(c) => cursor = Some(c.as_str().unwrap().to_owned()),
                None => break,
            }
        }
        assert_eq!((seen, pages), (items.clone(), 3));
        let first = p.page(&items, None, None).unwrap();
        assert_eq!(first["items"].as_array().unwrap().len(), DEFAULT_LIMIT);
        assert_eq!(p.page(&Vec::<u8>::new(), None, None).unwrap(), json!({"items": []}));
    }

    #[test]
    fn bad_limits_and_cursors_are_named() {
        let p = Paging::new(10, 50).unwrap();
        assert!(p.request(Some(0), None).unwrap_err().to_string().contains("limit must be at least 1"));
        assert!(p.request(None, Some("nonsense!")).unwrap_err().to_string().contains("invalid cursor"));
        let forged = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("x5");
        assert!(p.request(None, Some(&forged)).is_err());
        assert_eq!(p.request(Some(7), None).unwrap(), PageRequest { offset: 0, limit: 7 });
        let past = PageRequest { offset: 0, limit: 10_000 }.next_cursor();
        assert_eq!(p.page(&[1, 2, 3], None, Some(&past)).unwrap(), json!({"items": []}));
        assert!(Paging::new(0, 5).is_err() && Paging::new(6, 5).is_err());
        assert_eq!(p.schema_properties()["limit"]["maximum"], 50);
    }
}

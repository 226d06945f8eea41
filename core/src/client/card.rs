//! Fetching a server's card before connecting (SEP-2127; see `crate::http::server::card`).

use crate::error::{Error, ErrorKind, Result};
use crate::http::client::HttpOptions;
use serde_json::Value;

/// The largest card accepted (a card is a few KiB).
const MAX_CARD: usize = 1024 * 1024;

/// Fetches the Server Card of the MCP endpoint `url` (`GET <url>/server-card`, also through a
/// `unix:PATH` / `http+unix://` socket) with `http`'s headers and TLS settings, as JSON. The card
/// is unverified (fetched before connecting): prefer what the connection reports when they
/// disagree. A server without one answers 404: [`ErrorKind::Http`] with that status.
pub async fn server_card(url: &str, http: &HttpOptions) -> Result<Value> {
    let mut http = http.clone();
    let endpoint = http.through_unix_socket(url)?;
    let base = crate::transport::url::parse_url(&endpoint)?;
    let card_url = format!("{}{}", base.as_str().trim_end_matches('/'), crate::http::server::card::SUFFIX);
    let client = http.client()?;
    let rb = http.apply(client.get(&card_url).header("accept", crate::http::server::card::MEDIA_TYPE));
    let resp = rb.send().await.map_err(|e| crate::http::client::send_error(&base, &e))?;
    let status = resp.status();
    if !status.is_success() {
        return Err(Error::http(status.as_u16(), format!("GET {card_url}: HTTP {status}")));
    }
    let body = crate::http::client::read::bytes(resp, MAX_CARD)
        .await
        .map_err(|e| Error::new(ErrorKind::Protocol, format!("GET {card_url}: {e}")))?;
    serde_json::from_slice(&body)
        .map_err(|e| Error::new(ErrorKind::Protocol, format!("GET {card_url}: not JSON: {e}")))
}

//! Resources on the client: listing (cached while fresh), templates, reading (with MRTR on the
//! modern lineage), and subscriptions to updates (legacy `resources/subscribe`, a listen filter
//! on 2026-07-28).
//!
//! ```no_run
//! # async fn demo(client: mcpcore::client::Client) -> mcpcore::Result<()> {
//! use mcpcore::protocol::resources::ResourceContents;
//! for r in client.list_resources().await? {
//!     match client.read_resource(&r.uri).await {
//!         Ok(read) => for c in read.contents {
//!             if let ResourceContents::Text(t) = c { println!("{}: {}", t.uri, t.text) }
//!         },
//!         Err(e) if e.is_resource_not_found() => println!("{} is gone (code {})", r.uri, e.code()),
//!         Err(e) => return Err(e),
//!     }
//! }
//! # Ok(()) }
//! ```

use super::{all_pages, page_params, CallOptions, Client};
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource, ResourceTemplate,
};
use serde_json::json;

impl Client {
    /// One page of `resources/list` (served from the cache while fresh).
    pub async fn list_resources_page(&self, cursor: Option<String>) -> Result<ListResourcesResult> {
        self.typed_cached("resources/list", page_params(cursor)).await
    }

    /// Every resource, following `nextCursor` (at most 1000 pages).
    pub async fn list_resources(&self) -> Result<Vec<Resource>> {
        all_pages("resources/list", |c| self.list_resources_page(c), |p| (p.resources, p.next_cursor)).await
    }

    /// One page of `resources/templates/list` (served from the cache while fresh).
    pub async fn list_resource_templates_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult> {
        self.typed_cached("resources/templates/list", page_params(cursor)).await
    }

    /// Every resource template, following `nextCursor` (at most 1000 pages).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        all_pages(
            "resources/templates/list",
            |c| self.list_resource_templates_page(c),
            |p| (p.resource_templates, p.next_cursor),
        )
        .await
    }

    /// Reads a resource (served from the cache while fresh). A missing resource fails with an
    /// error for which [`Error::is_resource_not_found`] holds, whether the server said `-32602`
    /// (2026-07-28) or `-32002` (legacy); [`Error::code`] keeps the server's code.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        self.read_resource_with(uri, &CallOptions::default()).await
    }

    /// [`Client::read_resource`] with per-call options.
    pub async fn read_resource_with(&self, uri: &str, opts: &CallOptions) -> Result<ReadResourceResult> {
        let params = json!({ "uri": uri });
        self.typed_cached_with("resources/read", params, opts).await.map_err(read_error)
    }

    /// Asks for `notifications/resources/updated` about `uri` (and what lies below it),
    /// delivered to [`Client::on_notification`] (and invalidating the cache). Legacy sessions:
    /// `resources/subscribe` (on Streamable HTTP this opens the GET stream the updates travel
    /// on). 2026-07-28, which has no such method: the URI joins the filter of the listen stream
    /// the client keeps open (see [`Client::on_notifications`]); this returns once the server
    /// acknowledged it. A resource the server does not know (or hides from this caller) fails
    /// with [`Error::is_resource_not_found`]: legacy `-32002`, or an acknowledgement that
    /// leaves the URI out.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<()> {
        if self.current_version().is_some_and(|v| v.is_modern()) {
            return self.listen_to_resource(uri).await;
        }
        self.open_server_stream();
        self.request("resources/subscribe", json!({ "uri": uri })).await.map(drop).map_err(|e| {
            match e.rpc_error() {
                Some(d) if d.code == ErrorCode::RESOURCE_NOT_FOUND_LEGACY => {
                    Error::resource_not_found(d.clone())
                }
                _ => e,
            }
        })
    }

    /// Stops [`Client::subscribe_resource`]: legacy `resources/unsubscribe`; on 2026-07-28 the
    /// URI leaves the listen filter (returns once the server acknowledged the new stream).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        if self.current_version().is_some_and(|v| v.is_modern()) {
            return self.stop_listening_to_resource(uri).await;
        }
        self.request("resources/unsubscribe", json!({ "uri": uri })).await.map(drop)
    }
}

/// A `resources/read` error as the client reports it: the server's `-32602` (2026-07-28) or
/// `-32002` (legacy) becomes [`Error::resource_not_found`], keeping its code and data.
pub(super) fn read_error(e: Error) -> Error {
    match e.rpc_error() {
        Some(d) if d.code == ErrorCode::RESOURCE_NOT_FOUND_LEGACY || d.code == ErrorCode::INVALID_PARAMS => {
            Error::resource_not_found(d.clone())
        }
        _ => e,
    }
}

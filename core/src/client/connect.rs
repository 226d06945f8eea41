//! Lineage negotiation on connect (spec 2026-07-28 basic/versioning; 2025-11-25 basic/lifecycle).
//!
//! 1. Unless pinned to legacy, probe `server/discover` with 2026-07-28 `_meta`.
//!    - A result with `supportedVersions` → modern, at the newest mutual modern version.
//!    - A result without it → legacy.
//!    - `-32022` → read `data.supported`, retry the probe once at a mutual modern version;
//!      with none, fall to legacy if a mutual legacy version exists.
//!    - Any other error, or no answer within the probe timeout → legacy.
//!    - The child exited during the probe (some legacy servers exit when the first message is
//!      not `initialize`) → respawn it and go straight to legacy.
//! 2. Legacy: `initialize` with the newest legacy version (or the pinned one); accept the
//!    server's pick when we support it, else fail naming both lists; then
//!    `notifications/initialized`.

use super::{CallOptions, Client, ClientOptions, Negotiated};
use crate::auth::client::FlowClock;
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::http::client::{legacy_sse, streamable, HttpOptions, HttpTransport};
use crate::protocol::lifecycle::{InitializeResult, UnsupportedVersionData};
use crate::protocol::{meta, DiscoverResult, Lineage, ProtocolVersion};
use crate::transport::child::StdioCommand;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The newest modern version in `offered` that we speak (and equal to `pinned`, if set).
pub(crate) fn pick_modern(offered: &[String], pinned: Option<ProtocolVersion>) -> Option<ProtocolVersion> {
    offered
        .iter()
        .filter_map(|s| ProtocolVersion::parse(s))
        .filter(|v| v.is_modern() && pinned.is_none_or(|p| p == *v))
        .max()
}

fn our_versions(options: &ClientOptions) -> Vec<ProtocolVersion> {
    ProtocolVersion::ALL
        .into_iter()
        .filter(|v| options.version.is_none_or(|p| p == *v))
        .filter(|v| options.lineage.is_none_or(|l| l == v.lineage()))
        .collect()
}

fn list(vs: &[ProtocolVersion]) -> String {
    vs.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
}

enum Probe {
    Modern(Box<Negotiated>),
    Legacy,
    /// The child died while probing.
    Exited(Error),
}

/// Runs `connect` (every step of it: spawn, probe, `initialize`, the fallbacks) within
/// `budget`, the client's request timeout: a host's `timeout=2` bounds the whole connect, not
/// each handshake attempt (before, a server that never answered failed after the 5 s probe plus
/// the `initialize` timeout). The budget restarts while an authorization flow on `clock` runs
/// (a user logging in). On expiry the half-made connection is dropped (a spawned child is
/// killed with it) and a [`ErrorKind::Timeout`] error says which step was waited for.
async fn within(
    budget: Duration,
    clock: Option<Arc<FlowClock>>,
    what: &str,
    connect: impl std::future::Future<Output = Result<Client>>,
) -> Result<Client> {
    let start = tokio::time::Instant::now();
    let mut deadline = start + budget;
    let mut epoch = clock.as_ref().map(|c| c.epoch()).unwrap_or(0);
    tokio::pin!(connect);
    loop {
        tokio::select! {
            done = &mut connect => return done,
            _ = tokio::time::sleep_until(deadline) => {
                if let Some(c) = clock.as_ref().filter(|c| c.busy_since(epoch)) {
                    epoch = c.epoch();
                    deadline = tokio::time::Instant::now() + budget;
                    continue;
                }
                return Err(Error::timeout(format!(
                    "connecting to {what} timed out after {:.1} s: the server did not complete the \
                     handshake (server/discover, then initialize) in time",
                    (deadline - start).as_secs_f64()
                )));
            }
        }
    }
}

/// The longest one `server/discover` probe waits: the probe timeout, or half the connect
/// budget when that is shorter (so a legacy server that ignores the probe still has time to
/// answer `initialize`).
fn probe_wait(options: &ClientOptions) -> Duration {
    options.probe_timeout.min(options.request_timeout / 2)
}

/// Connects over stdio to a `cmd` spawned by `spawn` (each time the steps need a new process),
/// within the request timeout ([`within`]).
pub(crate) async fn stdio(
    cmd: StdioCommand,
    options: ClientOptions,
    spawn: Option<super::Spawn>,
) -> Result<Client> {
    let what = format!("`{}`", cmd.program);
    within(options.request_timeout, None, &what, stdio_steps(cmd, options.clone(), spawn)).await
}

async fn stdio_steps(
    cmd: StdioCommand,
    options: ClientOptions,
    spawn: Option<super::Spawn>,
) -> Result<Client> {
    let ours = our_versions(&options);
    if ours.is_empty() {
        return Err(Error::invalid_input("the pinned version and lineage exclude each other"));
    }
    let client = Client::spawn(&cmd, &options, spawn.as_ref())?;
    let try_modern = ours.iter().any(|v| v.is_modern());
    if !try_modern {
        initialize(&client, &ours).await?;
        return Ok(client);
    }
    match probe(&client, &ours).await? {
        Probe::Modern(n) => {
            client.set_negotiated(*n);
            Ok(client)
        }
        Probe::Legacy if ours.iter().any(|v| !v.is_modern()) => {
            legacy_or_late_modern(&client, &ours).await?;
            Ok(client)
        }
        Probe::Exited(e) if ours.iter().any(|v| !v.is_modern()) => {
            drop(e);
            client.close().await;
            let client = Client::spawn(&cmd, &options, spawn.as_ref())?;
            initialize(&client, &ours).await?;
            Ok(client)
        }
        Probe::Exited(e) => Err(e),
        Probe::Legacy => {
            client.close().await;
            Err(Error::protocol(format!(
                "the server does not speak the modern lineage; we are pinned to [{}]",
                list(&ours)
            )))
        }
    }
}

/// `initialize`; when the server refuses it with `-32022` (a modern-only server that was too
/// slow to answer the probe in time, e.g. a Python server still importing), probe again.
async fn legacy_or_late_modern(client: &Client, ours: &[ProtocolVersion]) -> Result<()> {
    match initialize_raw(client, ours).await {
        Err(e) if e.code() == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => match probe(client, ours).await? {
            Probe::Modern(n) => {
                client.set_negotiated(*n);
                Ok(())
            }
            _ => Err(Error::protocol(format!("initialize failed: {} (code {})", e.message(), e.code()))),
        },
        other => other,
    }
}

/// How long `connect` waits for a new legacy session's GET stream to be answered.
const GET_SETTLED_WAIT: std::time::Duration = std::time::Duration::from_millis(1000);

/// Connects over HTTP (spec 2026-07-28 basic/versioning): probe modern with `server/discover`; else legacy
/// `initialize` over Streamable HTTP; if that POST is refused with a 4xx, the 2024-11-05
/// HTTP+SSE transport at the same URL.
pub(crate) async fn http(url: &str, mut http: HttpOptions, options: ClientOptions) -> Result<Client> {
    let clock = http.auth.as_ref().map(|a| a.flow_clock());
    // `unix:PATH` / `http+unix://…`: HTTP through a Unix domain socket.
    let through = http.through_unix_socket(url)?;
    within(options.request_timeout, clock, url, http_steps(&through, http, options.clone())).await
}

async fn http_steps(url: &str, http: HttpOptions, options: ClientOptions) -> Result<Client> {
    let ours = our_versions(&options);
    if ours.is_empty() {
        return Err(Error::invalid_input("the pinned version and lineage exclude each other"));
    }
    let url = crate::transport::url::parse_url(url)?;
    let legacy_ok = ours.iter().any(|v| !v.is_modern());
    if http.transport == HttpTransport::Sse {
        return sse(url, http, &options, &ours).await;
    }
    let (channel, stream) = streamable::connect_with_handle(url.clone(), http.clone(), options.max_frame)?;
    let client = Client::from_channel(channel, None, options.clone());
    let _ = client.inner.server_stream.set(stream.clone());
    if let Some(auth) = &http.auth {
        let _ = client.inner.auth_clock.set(auth.flow_clock());
    }
    if ours.iter().any(|v| v.is_modern()) {
        match probe(&client, &ours).await? {
            Probe::Modern(n) => {
                client.set_negotiated(*n);
                return Ok(client);
            }
            Probe::Legacy | Probe::Exited(_) if legacy_ok => {}
            Probe::Legacy | Probe::Exited(_) => {
                client.close().await;
                return Err(Error::protocol(format!(
                    "the server does not speak the modern lineage; we are pinned to [{}]",
                    list(&ours)
                )));
            }
        }
    }
    match initialize(&client, &ours).await {
        Ok(()) => {
            // A legacy session's GET stream opens after `initialized`: return once the server
            // has answered it, so nothing the server sends from now on goes missing (bounded:
            // `notifications/initialized`, then the GET's answer).
            stream.settled(GET_SETTLED_WAIT).await;
            Ok(client)
        }
        // spec 2025-11-25 basic/transports, "Backwards Compatibility": a 400, 404 or 405 to the
        // initialize POST means a 2024-11-05 server may be there. A 401 or 403 is an answer.
        Err(e)
            if e.kind() == ErrorKind::Http
                && matches!(e.http_status(), Some(400 | 404 | 405))
                && http.transport == HttpTransport::Auto =>
        {
            client.close().await;
            let status = e.http_status().unwrap_or(400);
            sse(url, http, &options, &ours).await.map_err(|sse_err| {
                Error::http(
                    status,
                    format!(
                        "the server refused Streamable HTTP ({e}) and the 2024-11-05 SSE transport ({sse_err})"
                    ),
                )
            })
        }
        Err(e) => {
            client.close().await;
            Err(e)
        }
    }
}

async fn sse(
    url: reqwest::Url,
    http: HttpOptions,
    options: &ClientOptions,
    ours: &[ProtocolVersion],
) -> Result<Client> {
    let wait = options.probe_timeout.max(Duration::from_secs(1));
    let clock = http.auth.as_ref().map(|a| a.flow_clock());
    let channel = legacy_sse::connect(url, http, options.max_frame, wait).await?;
    let client = Client::from_channel(channel, None, options.clone());
    if let Some(clock) = clock {
        let _ = client.inner.auth_clock.set(clock);
    }
    // The 2024-11-05 transport speaks its own revision unless the host pinned another.
    let ours = if ours.contains(&ProtocolVersion::V2024_11_05) && options.version.is_none() {
        &[ProtocolVersion::V2024_11_05][..]
    } else {
        ours
    };
    if let Err(e) = initialize(&client, ours).await {
        client.close().await;
        return Err(e);
    }
    Ok(client)
}

async fn discover(client: &Client, version: ProtocolVersion) -> Result<Value> {
    let opts = CallOptions { timeout: Some(probe_wait(&client.inner.options)), ..Default::default() };
    client.send_request("server/discover", serde_json::Map::new(), Some(version), &opts).await
}

async fn probe(client: &Client, ours: &[ProtocolVersion]) -> Result<Probe> {
    let first = ours.iter().copied().filter(|v| v.is_modern()).max().expect("a modern version is ours");
    let mut version = first;
    for attempt in 0..2 {
        match discover(client, version).await {
            Ok(v) => {
                let Ok(d) = serde_json::from_value::<DiscoverResult>(v.clone()) else {
                    return Ok(Probe::Legacy);
                };
                let pinned = client.inner.options.version;
                let Some(pick) = pick_modern(&d.supported_versions, pinned) else {
                    return Ok(Probe::Legacy);
                };
                let server_info = d
                    .meta
                    .as_ref()
                    .and_then(|m| m.get(meta::SERVER_INFO))
                    .and_then(|i| serde_json::from_value(i.clone()).ok());
                return Ok(Probe::Modern(Box::new(Negotiated {
                    version: pick,
                    server_info,
                    capabilities: d.capabilities,
                    instructions: d.instructions,
                    server_versions: d.supported_versions,
                })));
            }
            Err(e) if e.code() == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION && attempt == 0 => {
                let data: Option<UnsupportedVersionData> =
                    e.data().and_then(|d| serde_json::from_value(d.clone()).ok());
                let offered = data.map(|d| d.supported).unwrap_or_default();
                // Retry once with the server's pick, even when it is the version we sent.
                match pick_modern(&offered, client.inner.options.version) {
                    Some(v) => version = v,
                    None => return Ok(Probe::Legacy),
                }
            }
            Err(e) if e.kind() == ErrorKind::Closed => return Ok(Probe::Exited(e)),
            Err(e) if matches!(e.kind(), ErrorKind::Rpc | ErrorKind::Timeout | ErrorKind::Http) => {
                if client.inner.options.lineage == Some(Lineage::Modern) && e.kind() != ErrorKind::Timeout {
                    return Err(Error::protocol(format!(
                        "the server rejected server/discover ({}) and the client is pinned to the modern lineage",
                        e.message()
                    )));
                }
                return Ok(Probe::Legacy);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(Probe::Legacy)
}

/// Runs the legacy handshake on `client`.
pub(crate) async fn initialize(client: &Client, ours: &[ProtocolVersion]) -> Result<()> {
    initialize_raw(client, ours).await.map_err(|e| {
        if e.code() == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION && e.kind() == ErrorKind::Rpc {
            Error::protocol(format!("initialize failed: {} (code {})", e.message(), e.code()))
        } else {
            e
        }
    })
}

/// `initialize`, keeping a `-32022` refusal as the JSON-RPC error it is.
async fn initialize_raw(client: &Client, ours: &[ProtocolVersion]) -> Result<()> {
    let legacy: Vec<ProtocolVersion> = ours.iter().copied().filter(|v| !v.is_modern()).collect();
    let requested = *legacy.iter().max().ok_or_else(|| Error::protocol("no legacy version to offer"))?;
    let params = json!({
        "protocolVersion": requested.as_str(),
        "capabilities": client.declared_capabilities(requested),
        "clientInfo": client.inner.options.info,
    });
    let Value::Object(params) = params else { unreachable!("built as an object") };
    let v = client.send_request("initialize", params, None, &CallOptions::default()).await.map_err(|e| {
        // -32022 stays itself: the caller may probe the modern lineage again.
        if e.kind() == ErrorKind::Rpc && e.code() != ErrorCode::UNSUPPORTED_PROTOCOL_VERSION {
            Error::protocol(format!("initialize failed: {} (code {})", e.message(), e.code()))
        } else {
            e
        }
    })?;
    let result: InitializeResult = serde_json::from_value(v)
        .map_err(|e| Error::protocol(format!("malformed initialize result: {e}")))?;
    let picked =
        ProtocolVersion::parse(&result.protocol_version).filter(|v| legacy.contains(v)).ok_or_else(|| {
            Error::protocol(format!(
                "the server chose protocol version {} which this client does not accept (client: [{}])",
                result.protocol_version,
                list(&legacy)
            ))
        })?;
    client.notify("notifications/initialized", None)?;
    client.set_negotiated(Negotiated {
        version: picked,
        server_info: Some(result.server_info),
        capabilities: result.capabilities,
        instructions: result.instructions,
        server_versions: Vec::new(),
    });
    // Legacy HTTP: a server may send its requests (elicitation, sampling, roots) on the GET
    // stream rather than on the POST stream of the call they belong to (the TypeScript SDK does
    // unless told the related request), so a client that answers them listens there too.
    if client.inner.shared.hooks.input.is_some() {
        client.open_server_stream();
    }
    Ok(())
}

//! Which revisions and transports a server speaks: one connect per revision, pinned to it
//! (`server/discover` for 2026-07-28, `initialize` for the others; Streamable HTTP over HTTP),
//! plus the 2024-11-05 HTTP+SSE transport over HTTP. Then what the newest connection tells:
//! capabilities, extensions, and the raw `tools/list` pages.

use super::{schemas, Finding, Status, Subject};
use crate::client::{Client, ClientOptions};
use crate::http::client::HttpTransport;
use crate::{ErrorKind, ProtocolVersion};
use serde_json::{json, Value};

/// Most `tools/list` pages read.
const MAX_PAGES: usize = 100;

/// What the probes found.
#[derive(Clone)]
pub(super) struct Spoken {
    /// The revisions that connected, newest first.
    pub(super) versions: Vec<ProtocolVersion>,
    /// Over HTTP: whether the 2024-11-05 HTTP+SSE transport answered.
    pub(super) sse: Option<bool>,
    /// A probe was refused for want of credentials (HTTP 401 or 403).
    pub(super) needs_auth: bool,
    /// Why probes failed, one line each.
    pub(super) errors: Vec<String>,
    /// The connection on the newest revision, kept open for the other checks.
    pub(super) best: Option<Client>,
    /// The revisions and transports findings.
    pub(super) findings: Vec<Finding>,
}

async fn connect(
    subject: &Subject,
    options: &ClientOptions,
    transport: HttpTransport,
) -> crate::Result<Client> {
    match subject {
        Subject::Stdio(cmd) => Client::connect_stdio(cmd.clone(), options.clone()).await,
        Subject::Http { url, options: http } => {
            let mut http = http.clone();
            http.transport = transport;
            // A probe needs no server-to-client stream; opening one would only add a request.
            http.standalone_stream = false;
            Client::connect_http(url, http, options.clone()).await
        }
    }
}

fn one_line(e: &crate::Error) -> String {
    match (e.http_status(), e.rpc_error()) {
        (Some(s), _) => format!("HTTP {s}: {}", e.message()),
        (None, Some(rpc)) => format!("JSON-RPC {}: {}", rpc.code, e.message()),
        _ => e.message().to_owned(),
    }
}

fn wants_credentials(e: &crate::Error) -> bool {
    e.kind() == ErrorKind::Auth || matches!(e.http_status(), Some(401 | 403))
}

/// Connects once per revision (and once over HTTP+SSE); keeps the newest connection.
pub(super) async fn probe(subject: &Subject, options: &ClientOptions) -> Spoken {
    let http = matches!(subject, Subject::Http { .. });
    let mut spoken = Spoken {
        versions: vec![],
        sse: None,
        needs_auth: false,
        errors: vec![],
        best: None,
        findings: vec![],
    };
    for version in ProtocolVersion::ALL {
        let mut pinned = options.clone();
        pinned.version = Some(version);
        pinned.lineage = Some(version.lineage());
        match connect(subject, &pinned, HttpTransport::Streamable).await {
            Ok(client) if client.protocol_version() == version => {
                spoken.versions.push(version);
                match spoken.best {
                    None => spoken.best = Some(client),
                    Some(_) => client.close().await,
                }
            }
            Ok(client) => {
                spoken.errors.push(format!(
                    "{}: answered {} instead",
                    version.as_str(),
                    client.protocol_version().as_str()
                ));
                client.close().await;
            }
            Err(e) => {
                spoken.needs_auth |= wants_credentials(&e);
                spoken.errors.push(format!("{}: {}", version.as_str(), one_line(&e)));
            }
        }
    }
    if http {
        let mut pinned = options.clone();
        pinned.version = Some(ProtocolVersion::V2024_11_05);
        pinned.lineage = Some(ProtocolVersion::V2024_11_05.lineage());
        spoken.sse = Some(match connect(subject, &pinned, HttpTransport::Sse).await {
            Ok(client) => {
                client.close().await;
                true
            }
            Err(e) => {
                spoken.needs_auth |= wants_credentials(&e);
                false
            }
        });
    }
    spoken.findings = findings(&spoken, http);
    spoken
}

fn findings(s: &Spoken, http: bool) -> Vec<Finding> {
    let names: Vec<&str> = s.versions.iter().map(|v| v.as_str()).collect();
    let revisions = if s.versions.is_empty() {
        let f = Finding::new("revisions", Status::Fail, "no revision connected").details(s.errors.clone());
        if s.needs_auth {
            f.remedy(
                "the server wants credentials: pass --bearer TOKEN or --oauth (or --header for an API key) \
                 and run the doctor again",
            )
        } else {
            f.remedy(
                "check that the server runs and speaks MCP on this endpoint (a stdio server must write \
                 only JSON-RPC lines to stdout; logs go to stderr); the details say what each attempt got",
            )
        }
    } else if !s.versions.iter().any(|v| *v >= ProtocolVersion::V2025_11_25) {
        Finding::new("revisions", Status::Warn, format!("speaks only {}", names.join(", ")))
            .details(s.errors.clone())
            .remedy(
                "upgrade the server's MCP SDK: clients negotiate the newest revision both sides speak, and \
                 2025-11-25 (or the stateless 2026-07-28) brings the authorization, elicitation and \
                 structured-output rules current clients expect",
            )
    } else {
        Finding::new("revisions", Status::Ok, format!("speaks {}", names.join(", ")))
            .details(s.errors.clone())
    };
    let transports = match (http, s.sse) {
        (false, _) => Finding::new("transports", Status::Info, "stdio"),
        (true, Some(true)) => {
            Finding::new("transports", Status::Info, "Streamable HTTP, and the 2024-11-05 HTTP+SSE transport")
        }
        (true, _) if s.versions.is_empty() => Finding::new("transports", Status::Skip, "nothing connected"),
        (true, _) => Finding::new(
            "transports",
            Status::Info,
            "Streamable HTTP (the 2024-11-05 HTTP+SSE transport does not answer: clients of 2024-11-05 only cannot connect)",
        ),
    };
    vec![revisions, transports]
}

/// The capabilities and extensions the newest connection declared.
pub(super) fn capabilities(client: &Client) -> Finding {
    let negotiated = client.negotiated();
    let caps = serde_json::to_value(&negotiated.capabilities).unwrap_or(Value::Null);
    let mut details = Vec::new();
    let mut names = Vec::new();
    if let Value::Object(map) = &caps {
        for (k, v) in map {
            if k == "extensions" || k == "experimental" {
                continue;
            }
            let flags: Vec<&str> = v
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, f)| f == &&json!(true))
                .map(|(n, _)| n.as_str())
                .collect();
            names.push(if flags.is_empty() { k.clone() } else { format!("{k} ({})", flags.join(", ")) });
        }
        for key in ["extensions", "experimental"] {
            if let Some(Value::Object(ext)) = map.get(key) {
                details.push(format!("{key}: {}", ext.keys().cloned().collect::<Vec<_>>().join(", ")));
            }
        }
    }
    let summary = if names.is_empty() { "none declared".to_owned() } else { names.join(", ") };
    let mut f = Finding::new(
        "capabilities",
        Status::Info,
        format!("{} on {}: {summary}", "declared", negotiated.version.as_str()),
    );
    if let Some(i) = &negotiated.instructions {
        details.push(format!("instructions: {} characters", i.chars().count()));
    }
    f.details = details;
    f
}

/// What `tools/list` gave.
pub(super) struct Tools {
    /// The schema finding (or why it could not run).
    pub(super) finding: Finding,
    /// True when `tools/list` answered.
    pub(super) listed: bool,
}

/// Reads every `tools/list` page as raw JSON and checks the definitions.
pub(super) async fn tools(client: &Client) -> Tools {
    if client.negotiated().capabilities.tools.is_none() {
        return Tools {
            finding: Finding::new(schemas::CHECK, Status::Skip, "the server declares no tools"),
            listed: false,
        };
    }
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        match client.request("tools/list", params).await {
            Ok(page) => {
                match page.get("tools") {
                    Some(Value::Array(tools)) => all.extend(tools.iter().cloned()),
                    _ => {
                        let f = Finding::new(
                            schemas::CHECK,
                            Status::Fail,
                            "a tools/list answer has no \"tools\" array",
                        )
                        .remedy("answer tools/list with {\"tools\": [...]} (schema.ts ListToolsResult)");
                        return Tools { finding: f, listed: true };
                    }
                }
                cursor = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
                if cursor.is_none() {
                    return Tools { finding: schemas::check(&all, client.protocol_version()), listed: true };
                }
            }
            Err(e) => {
                let f = Finding::new(
                    schemas::CHECK,
                    Status::Fail,
                    format!("tools/list failed: {}", one_line(&e)),
                )
                .remedy("a server that declares the tools capability must answer tools/list");
                return Tools { finding: f, listed: false };
            }
        }
    }
    let f =
        Finding::new(schemas::CHECK, Status::Fail, format!("tools/list did not end after {MAX_PAGES} pages"))
            .remedy("end the last page without nextCursor (a cursor that never ends loops a client)");
    Tools { finding: f, listed: true }
}

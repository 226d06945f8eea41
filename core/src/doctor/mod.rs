//! Why does a server misbehave? [`diagnose`] connects to an MCP server the way clients do and
//! reports what it finds, each finding with its remedy (`mcpcore doctor`, docs/doctor.md):
//! - which revisions it speaks, and over which transports ([`revisions`]);
//! - its capabilities and extensions;
//! - whether its tool schemas are valid JSON Schema ([`schemas`]);
//! - over HTTP: whether TLS, the Protected Resource Metadata and the authorization server's
//!   metadata hold together, and whether it refuses DNS-rebinding requests ([`web`]);
//! - how long `ping` (or `server/discover`) and `tools/list` take ([`latency`]).
//!
//! A check that cannot run says why (`skip`); nothing here panics on what a server answers.

mod latency;
mod revisions;
mod schemas;
mod web;

use crate::client::ClientOptions;
use crate::http::client::HttpOptions;
use crate::transport::child::StdioCommand;
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;

/// The server to examine.
#[derive(Debug, Clone)]
pub enum Subject {
    /// A stdio server: spawned (in its own process group) once per probe.
    Stdio(StdioCommand),
    /// An HTTP endpoint (`http://`, `https://`, `unix:PATH`), with the headers, token and TLS
    /// settings to reach it.
    Http {
        /// The endpoint's URL.
        url: String,
        /// How to reach it (the transport is chosen per probe).
        options: HttpOptions,
    },
}

impl Subject {
    /// What the report names: the URL, or the command line.
    pub fn describe(&self) -> String {
        match self {
            Subject::Http { url, .. } => url.clone(),
            Subject::Stdio(cmd) => std::iter::once(cmd.program.as_str())
                .chain(cmd.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// How a finding came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// As a client needs it.
    Ok,
    /// Worth knowing; not a fault.
    Info,
    /// Works, but some clients will stumble, or it is unsafe.
    Warn,
    /// Clients will fail.
    Fail,
    /// Could not be checked (says why).
    Skip,
}

impl Status {
    /// The word a report prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Info => "info",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }
}

/// One thing the doctor found.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The check's name (`revisions`, `tool schemas`, `dns rebinding`…).
    pub check: String,
    /// How it came out.
    pub status: Status,
    /// One line.
    pub summary: String,
    /// The evidence, a line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// What to change, for a `warn` or `fail`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
}

impl Finding {
    /// A finding with no details or remedy yet.
    pub fn new(check: &str, status: Status, summary: impl Into<String>) -> Finding {
        Finding {
            check: check.to_owned(),
            status,
            summary: summary.into(),
            details: Vec::new(),
            remedy: None,
        }
    }

    /// With these details.
    pub fn details(mut self, details: Vec<String>) -> Finding {
        self.details = details;
        self
    }

    /// With this remedy.
    pub fn remedy(mut self, remedy: impl Into<String>) -> Finding {
        self.remedy = Some(remedy.into());
        self
    }
}

/// Everything the doctor found about one server.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The URL or command examined.
    pub target: String,
    /// The server's `serverInfo`, when some probe connected.
    #[serde(rename = "serverInfo", skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    /// The findings, in the order they were checked.
    pub findings: Vec<Finding>,
}

impl Report {
    /// True when some finding is a `fail`.
    pub fn failed(&self) -> bool {
        self.findings.iter().any(|f| f.status == Status::Fail)
    }

    /// How many findings have `status`.
    pub fn count(&self, status: Status) -> usize {
        self.findings.iter().filter(|f| f.status == status).count()
    }
}

/// How the doctor connects and measures.
#[derive(Clone)]
pub struct DoctorOptions {
    /// The client's options (its `request_timeout` bounds each probe, at most
    /// [`DoctorOptions::probe_timeout`]).
    pub client: ClientOptions,
    /// The longest one probe (a connect, a request) may take (default 15 s).
    pub probe_timeout: Duration,
    /// Round trips timed for `ping` (default 20).
    pub pings: usize,
    /// `tools/list` calls timed (default 10).
    pub lists: usize,
}

impl Default for DoctorOptions {
    fn default() -> Self {
        DoctorOptions {
            client: ClientOptions::default(),
            probe_timeout: Duration::from_secs(15),
            pings: 20,
            lists: 10,
        }
    }
}

/// True when `url` names this machine (`localhost` or a loopback address).
fn is_loopback(url: &reqwest::Url) -> bool {
    url.host_str().is_some_and(|h| {
        h.eq_ignore_ascii_case("localhost")
            || h.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
    })
}

/// Examines `subject`: every check of the module, in order.
pub async fn diagnose(subject: &Subject, options: &DoctorOptions) -> Report {
    let mut client_options = options.client.clone();
    client_options.request_timeout = client_options.request_timeout.min(options.probe_timeout);
    client_options.probe_timeout = client_options.probe_timeout.min(client_options.request_timeout / 2);
    let spoken = revisions::probe(subject, &client_options).await;
    let mut findings = spoken.findings.clone();
    let server_info =
        spoken.best.as_ref().and_then(|c| c.server_info()).and_then(|i| serde_json::to_value(i).ok());
    if let Subject::Http { url, options: http } = subject {
        findings.extend(web::check(url, http, &spoken, options.probe_timeout).await);
    }
    if let Some(client) = &spoken.best {
        findings.push(revisions::capabilities(client));
        let tools = revisions::tools(client).await;
        findings.push(tools.finding);
        findings.push(latency::measure(client, subject, options, tools.listed).await);
        client.close().await;
    } else {
        for check in ["capabilities", schemas::CHECK, latency::CHECK] {
            findings.push(Finding::new(check, Status::Skip, "no probe connected"));
        }
    }
    Report { target: subject.describe(), server_info, findings }
}

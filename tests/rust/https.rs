//! HTTPS with a test CA made by the test itself: our client against our server (both lineages,
//! and the 2024-11-05 SSE transport), a server that requires client certificates, the refusals
//! (an unknown CA, plain HTTP to a TLS port), and our client against the official Python SDK
//! server behind uvicorn's TLS, with and without mutual TLS.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::http::server::HttpServerConfig;
use mcpcore::http::tls::{ServerTls, TlsOptions};
use mcpcore::protocol::{Lineage, ProtocolVersion};
use mcpcore::ErrorKind;
use mcpcore_tests::http::serve_fixture;
use mcpcore_tests::tls::TestPki;
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

fn trusting(pki: &TestPki) -> TlsOptions {
    TlsOptions { ca_pem: Some(pki.ca.clone().into_bytes()), ..Default::default() }
}

fn with_identity(pki: &TestPki) -> TlsOptions {
    TlsOptions {
        ca_pem: Some(pki.ca.clone().into_bytes()),
        identity_pem: Some(format!("{}\n{}", pki.client_cert, pki.client_key).into_bytes()),
    }
}

/// Connects to `url` with `tls`, calls `echo`; the negotiated revision.
async fn echo_over(
    url: &str,
    tls: TlsOptions,
    transport: HttpTransport,
    lineage: Option<Lineage>,
) -> ProtocolVersion {
    let http = HttpOptions { tls, transport, ..Default::default() };
    let options = ClientOptions { lineage, ..Default::default() };
    let client =
        Client::connect_http(url, http, options).await.unwrap_or_else(|e| panic!("connect {url}: {e}"));
    let r = client.call_tool("echo", json!({"text": "over tls"})).await.unwrap();
    assert_eq!(r.first_text(), Some("over tls"));
    let v = client.protocol_version();
    client.close().await;
    v
}

#[tokio::test]
async fn our_client_and_server_over_https() {
    let pki = TestPki::new();
    let tls = ServerTls::from_pem(pki.server_cert.as_bytes(), pki.server_key.as_bytes(), None).unwrap();
    let serving = serve_fixture(&[], HttpServerConfig { tls: Some(tls), ..Default::default() }).await;
    let url = serving.url();
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let auto = HttpTransport::Auto;
    assert_eq!(echo_over(&url, trusting(&pki), auto, None).await, ProtocolVersion::V2026_07_28);
    assert_eq!(
        echo_over(&url, trusting(&pki), auto, Some(Lineage::Legacy)).await,
        ProtocolVersion::V2025_11_25
    );
    let sse = url.replace("/mcp", "/sse");
    assert_eq!(
        echo_over(&sse, trusting(&pki), HttpTransport::Sse, Some(Lineage::Legacy)).await,
        ProtocolVersion::V2024_11_05
    );
    // `localhost` is in the certificate too.
    let by_name = url.replace("127.0.0.1", "localhost");
    assert_eq!(echo_over(&by_name, trusting(&pki), auto, None).await, ProtocolVersion::V2026_07_28);

    // Without the test CA the platform's roots do not know the server: a clear I/O error.
    let e = Client::connect_http(&url, HttpOptions::default(), ClientOptions::default()).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    assert!(e.to_string().to_lowercase().contains("certificate"), "{e}");
    // Plain HTTP to the TLS port fails, and the server keeps serving.
    let plain = url.replace("https://", "http://");
    assert!(Client::connect_http(&plain, HttpOptions::default(), ClientOptions::default()).await.is_err());
    assert_eq!(echo_over(&url, trusting(&pki), auto, None).await, ProtocolVersion::V2026_07_28);
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_server_requiring_client_certificates() {
    let pki = TestPki::new();
    let tls =
        ServerTls::from_pem(pki.server_cert.as_bytes(), pki.server_key.as_bytes(), Some(pki.ca.as_bytes()))
            .unwrap();
    let serving = serve_fixture(&[], HttpServerConfig { tls: Some(tls), ..Default::default() }).await;
    let url = serving.url();
    assert_eq!(
        echo_over(&url, with_identity(&pki), HttpTransport::Auto, None).await,
        ProtocolVersion::V2026_07_28
    );
    let refused = Client::connect_http(
        &url,
        HttpOptions { tls: trusting(&pki), ..Default::default() },
        ClientOptions::default(),
    );
    assert!(refused.await.is_err(), "a client without a certificate got through");
    serving.shutdown().await.unwrap();
}

#[test]
fn bad_tls_material_is_refused_up_front() {
    let pki = TestPki::new();
    let e = ServerTls::from_pem(b"not pem", pki.server_key.as_bytes(), None).unwrap_err();
    assert!(e.to_string().contains("no server certificate"), "{e}");
    let e = ServerTls::from_pem(pki.server_cert.as_bytes(), pki.server_cert.as_bytes(), None).unwrap_err();
    assert!(e.to_string().contains("private key"), "{e}");
    let e = TlsOptions::from_files(Some(&pki.dir.join("missing.pem")), None, None).unwrap_err();
    assert!(e.to_string().contains("missing.pem"), "{e}");
    let e = TlsOptions::from_files(None, Some(&pki.dir.join("client.pem")), None).unwrap_err();
    assert!(e.to_string().contains("needs its key"), "{e}");
    let ok = TlsOptions::from_files(
        Some(&pki.dir.join("ca.pem")),
        Some(&pki.dir.join("client.pem")),
        Some(&pki.dir.join("client.key")),
    );
    assert!(ok.is_ok(), "{ok:?}");
}

/// The official Python SDK server (tests/interop/python/sdk_http_server.py) under uvicorn's TLS.
struct SdkServer(Child, String);

impl SdkServer {
    fn start(pki: &TestPki, mutual: bool) -> SdkServer {
        let python = std::env::var("MCPCORE_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("interop/python/sdk_http_server.py");
        let (cert, key, ca) = (pki.file("server.pem"), pki.file("server.key"), pki.file("ca.pem"));
        let mut args = vec!["--port", "0", "--ssl-certfile", &cert, "--ssl-keyfile", &key];
        if mutual {
            args.extend(["--ssl-ca-certs", ca.as_str()]);
        }
        let mut child = Command::new(&python)
            .arg(&script)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {python}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line
            .trim()
            .strip_prefix("READY ")
            .unwrap_or_else(|| panic!("no READY line: {line:?}"))
            .to_owned();
        SdkServer(child, url)
    }
}

impl Drop for SdkServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_the_python_sdk_server_behind_tls() {
    let pki = TestPki::new();
    let sdk = SdkServer::start(&pki, false);
    assert!(sdk.1.starts_with("https://"), "{}", sdk.1);
    let auto = HttpTransport::Auto;
    assert_eq!(echo_over(&sdk.1, trusting(&pki), auto, None).await, ProtocolVersion::V2026_07_28);
    assert_eq!(
        echo_over(&sdk.1, trusting(&pki), auto, Some(Lineage::Legacy)).await,
        ProtocolVersion::V2025_11_25
    );

    let mutual = SdkServer::start(&pki, true);
    assert_eq!(echo_over(&mutual.1, with_identity(&pki), auto, None).await, ProtocolVersion::V2026_07_28);
    let refused = Client::connect_http(
        &mutual.1,
        HttpOptions { tls: trusting(&pki), ..Default::default() },
        ClientOptions::default(),
    );
    assert!(refused.await.is_err(), "uvicorn let a client without a certificate through");
}

#[test]
fn the_cli_calls_the_echo_server_over_https() {
    let pki = TestPki::new();
    let (cert, key, ca) = (pki.file("server.pem"), pki.file("server.key"), pki.file("ca.pem"));
    let (mut server, url) =
        mcpcore_tests::spawn_listening(Command::new(mcpcore_tests::bin("echo_server")).args([
            "--http",
            "127.0.0.1:0",
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
        ]));
    assert!(url.starts_with("https://"), "{url}");
    let call = |extra: &[&str]| {
        Command::new(mcpcore_tests::bin("mcpcore"))
            .args(["call", "echo", r#"{"text":"cli over tls"}"#, &url])
            .args(extra)
            .output()
            .unwrap()
    };
    let ok = call(&["--ca-cert", &ca]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("cli over tls"), "{ok:?}");
    let refused = call(&[]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).to_lowercase().contains("certificate"), "{refused:?}");
    let _ = server.kill();
    let _ = server.wait();
}

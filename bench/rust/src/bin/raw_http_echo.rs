//! The HTTP ceiling: a minimal hyper server on a current-thread runtime (the flavour of
//! mcpcore's `echo_server --current-thread`; the echo_server's default is the multi-thread
//! runtime) that reads the POST body and answers every request with one fixed JSON-RPC result.
//! No parsing, no MCP: the physical limit of hyper + loopback TCP on this machine.
//!
//! `raw_http_echo 127.0.0.1:PORT` prints `listening on http://ADDR/mcp`, stops on Ctrl-C/SIGTERM.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}"#;

async fn answer(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let _ = req.into_body().collect().await;
    Ok(Response::builder()
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(BODY.as_bytes())))
        .expect("static response"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:0".into());
    let listener = tokio::net::TcpListener::bind(&addr).await.expect("bind");
    println!("listening on http://{}/mcp", listener.local_addr().expect("addr"));
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("signal");
    loop {
        let (stream, _) = tokio::select! {
            r = listener.accept() => match r { Ok(s) => s, Err(_) => continue },
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(answer);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

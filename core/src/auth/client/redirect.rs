//! The user-interaction step of the authorization code grant: an [`AuthorizationHandler`] gets
//! the authorization URL and returns the URL the authorization server redirected back to.
//!
//! - [`LoopbackRedirect`]: for CLIs and desktop apps. Listens on `127.0.0.1` (a random port)
//!   at `/callback`, opens the system browser (`$BROWSER`, else `xdg-open` / `open` /
//!   `rundll32`) and waits for the redirect.
//! - [`FetchRedirect`]: for authorization servers that approve without a user (test servers,
//!   pre-consented clients): follows the authorization URL's redirects over HTTP until they
//!   reach the redirect URI, which is never listened on.
//!
//! A host can implement the trait itself (a webview, a mobile app's custom scheme, a scripted
//! test); the bindings expose it as a callback.

use crate::auth::AuthError;
use crate::error::Result;
use crate::future::BoxFuture;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The user-interaction step of [`Grant::AuthorizationCode`](super::Grant::AuthorizationCode).
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// The redirect URI sent in the authorization request (and registered, with Dynamic Client
    /// Registration). Constant for the handler's lifetime.
    fn redirect_uri(&self) -> String;

    /// Takes the user to `authorization_url` and returns the full URL the authorization server
    /// redirected to (its query holds `code`, `state` and `iss`, or `error`). Fail with an
    /// [`AuthError::INTERACTION_FAILED`] error when the user gives up.
    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<String>>;
}

/// How [`LoopbackRedirect`] shows the authorization URL.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Browser {
    /// `$BROWSER` if set (the URL appended, or put where `%s` is), else the platform's opener.
    #[default]
    System,
    /// This program and arguments, with the URL appended.
    Command(Vec<String>),
    /// Only print the URL on stderr.
    PrintOnly,
}

/// A loopback redirect listener: `http://127.0.0.1:PORT/callback` (RFC 8252 §7.3).
#[derive(Debug)]
pub struct LoopbackRedirect {
    listener: std::net::TcpListener,
    redirect_uri: String,
    browser: Browser,
    timeout: Duration,
}

impl LoopbackRedirect {
    /// Binds `127.0.0.1` on a random port; waits up to 5 minutes per authorization.
    pub fn bind() -> std::io::Result<Self> {
        Self::bind_port(0)
    }

    /// Binds `127.0.0.1:port` (for authorization servers that require a fixed registered port).
    pub fn bind_port(port: u16) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        Ok(LoopbackRedirect {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
            browser: Browser::System,
            timeout: Duration::from_secs(300),
        })
    }

    /// How to show the URL.
    pub fn with_browser(mut self, browser: Browser) -> Self {
        self.browser = browser;
        self
    }

    /// How long to wait for the redirect.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    fn open(&self, url: &str) {
        eprintln!("mcpcore: to authorize, open this URL in a browser:\n  {url}");
        let argv: Vec<String> = match &self.browser {
            Browser::PrintOnly => return,
            Browser::Command(c) => c.iter().cloned().chain([url.to_owned()]).collect(),
            Browser::System => match std::env::var("BROWSER").ok().filter(|b| !b.trim().is_empty()) {
                Some(b) => {
                    let first = b.split(':').next().unwrap_or_default();
                    let mut parts: Vec<String> = first.split_whitespace().map(str::to_owned).collect();
                    if parts.iter().any(|p| p.contains("%s")) {
                        for p in &mut parts {
                            *p = p.replace("%s", url);
                        }
                    } else {
                        parts.push(url.to_owned());
                    }
                    parts
                }
                None if cfg!(target_os = "macos") => vec!["open".into(), url.into()],
                None if cfg!(windows) => {
                    vec!["rundll32".into(), "url.dll,FileProtocolHandler".into(), url.into()]
                }
                None => vec!["xdg-open".into(), url.into()],
            },
        };
        let Some((program, args)) = argv.split_first() else { return };
        let child = tokio::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(false)
            .spawn();
        match child {
            // Reaped in the background: no zombie while we wait for the redirect.
            Ok(mut c) => {
                tokio::spawn(async move {
                    let _ = c.wait().await;
                });
            }
            Err(e) => eprintln!("mcpcore: could not start {program} ({e}); open the URL yourself"),
        }
    }
}

const DONE_PAGE: &str = "<!doctype html><meta charset=utf-8><title>mcpcore</title>\
<p>Authorization complete. You can close this window and return to the application.</p>";

impl AuthorizationHandler for LoopbackRedirect {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<String>> {
        Box::pin(async move {
            let failed = |why: String| crate::Error::auth(AuthError::new(AuthError::INTERACTION_FAILED, why));
            let std_listener =
                self.listener.try_clone().map_err(|e| failed(format!("loopback listener: {e}")))?;
            let listener = tokio::net::TcpListener::from_std(std_listener)
                .map_err(|e| failed(format!("loopback listener: {e}")))?;
            let (tx, rx) = tokio::sync::oneshot::channel::<String>();
            let slot = Arc::new(Mutex::new(Some(tx)));
            let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
            let handler_slot = slot.clone();
            let app = axum::Router::new().route(
                "/callback",
                axum::routing::get(move |uri: axum::http::Uri| {
                    let slot = handler_slot.clone();
                    async move {
                        let query = uri.query().unwrap_or_default().to_owned();
                        let answers =
                            query.split('&').any(|kv| kv.starts_with("code=") || kv.starts_with("error="));
                        use axum::response::IntoResponse;
                        if !answers {
                            return (axum::http::StatusCode::BAD_REQUEST, "missing code").into_response();
                        }
                        if let Some(tx) = slot.lock().expect("lock").take() {
                            let _ = tx.send(query);
                        }
                        let html = [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")];
                        (axum::http::StatusCode::OK, html, DONE_PAGE).into_response()
                    }
                }),
            );
            let server = tokio::spawn(async move {
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stop_rx.await;
                    })
                    .await;
            });
            self.open(&authorization_url);
            let outcome = tokio::time::timeout(self.timeout, rx).await;
            let _ = stop_tx.send(());
            // Let the browser get its page; the server stops once the response is written.
            let _ = tokio::time::timeout(Duration::from_secs(2), server).await;
            match outcome {
                Ok(Ok(query)) => Ok(format!("{}?{query}", self.redirect_uri)),
                Ok(Err(_)) => Err(failed("the loopback listener stopped".into())),
                Err(_) => Err(failed(format!(
                    "no redirect reached {} within {:?}",
                    self.redirect_uri, self.timeout
                ))),
            }
        })
    }
}

/// Follows the authorization URL's HTTP redirects (at most 10) until one points at the
/// redirect URI, and returns it, for authorization servers that approve without a user.
#[derive(Debug, Clone)]
pub struct FetchRedirect {
    redirect_uri: String,
    http: reqwest::Client,
}

impl FetchRedirect {
    /// A handler announcing `redirect_uri` (nothing listens there).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        let http = crate::tls::client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .expect("a plain reqwest client builds");
        FetchRedirect { redirect_uri: redirect_uri.into(), http }
    }
}

impl AuthorizationHandler for FetchRedirect {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<String>> {
        Box::pin(async move {
            let failed = |why: String| crate::Error::auth(AuthError::new(AuthError::INTERACTION_FAILED, why));
            let mut url = reqwest::Url::parse(&authorization_url)
                .map_err(|e| failed(format!("bad authorization URL: {e}")))?;
            for _ in 0..10 {
                let resp =
                    self.http.get(url.clone()).send().await.map_err(|e| failed(format!("GET {url}: {e}")))?;
                let status = resp.status();
                let location = resp.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
                let Some(location) = location.filter(|_| status.is_redirection()) else {
                    return Err(failed(format!(
                        "the authorization server answered HTTP {status} without redirecting: it needs a user"
                    )));
                };
                let next =
                    url.join(location).map_err(|e| failed(format!("bad redirect {location:?}: {e}")))?;
                if next.as_str().starts_with(&self.redirect_uri) {
                    return Ok(next.to_string());
                }
                url = next;
            }
            Err(failed("too many redirects before reaching the redirect URI".into()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_loopback_listener_returns_the_redirect_and_ignores_strays() {
        let l = LoopbackRedirect::bind()
            .unwrap()
            .with_browser(Browser::PrintOnly)
            .with_timeout(Duration::from_secs(10));
        let uri = l.redirect_uri();
        assert!(uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"), "{uri}");
        let http = crate::tls::client_builder().build().unwrap();
        let u = uri.clone();
        // The listener is bound already: these connect even before the server runs.
        let browser = tokio::spawn(async move {
            let stray = http.get(format!("{u}?state=x")).send().await.unwrap();
            let other = http.get(u.replace("/callback", "/favicon.ico")).send().await.unwrap();
            let ok = http.get(format!("{u}?code=abc&state=s%20t&iss=https%3A%2F%2Fas")).send().await.unwrap();
            (stray.status().as_u16(), other.status().as_u16(), ok.status().as_u16(), ok.text().await.unwrap())
        });
        let got = l.authorize("https://as.example/authorize?x=1".into()).await.unwrap();
        assert_eq!(got, format!("{uri}?code=abc&state=s%20t&iss=https%3A%2F%2Fas"));
        let (stray, other, ok, page) = browser.await.unwrap();
        assert_eq!((stray, other, ok), (400, 404, 200));
        assert!(page.contains("Authorization complete"));
    }

    #[tokio::test]
    async fn the_loopback_listener_gives_up_after_its_timeout() {
        let l = LoopbackRedirect::bind()
            .unwrap()
            .with_browser(Browser::PrintOnly)
            .with_timeout(Duration::from_millis(50));
        let e = l.authorize("https://as.example/authorize".into()).await.unwrap_err();
        assert_eq!(e.auth_error().unwrap().error, AuthError::INTERACTION_FAILED);
    }
}

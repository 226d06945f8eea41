//! HTTPS for every HTTP client of the crate (MCP transports, OAuth, JWKS and introspection
//! fetches) and for the HTTP server: rustls on the ring provider (no cmake, no OpenSSL).
//!
//! - Clients verify servers with the platform's verifier and root certificates (loaded once per
//!   process), plus the extra CAs of [`TlsOptions::ca_pem`]; a client certificate
//!   ([`TlsOptions::identity_pem`]) answers servers that ask for one (mutual TLS). A machine
//!   with no root certificates gets a clear error on its first HTTPS request, not at start.
//! - The server ([`ServerTls`], [`HttpServerConfig::tls`](crate::http::server::HttpServerConfig::tls))
//!   serves a certificate chain and key (PEM), optionally requiring client certificates.

use crate::error::{Error, Result};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, ServerConfig, SignatureScheme};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The crypto provider of every TLS configuration made here.
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    static PROVIDER: OnceLock<Arc<rustls::crypto::CryptoProvider>> = OnceLock::new();
    PROVIDER.get_or_init(|| Arc::new(rustls::crypto::ring::default_provider())).clone()
}

/// Installs the crate's crypto provider (ring) as the process default of rustls, unless one is
/// installed already: needed only by host code that builds its own `reqwest` clients in a
/// process linking mcpcore (the crate enables reqwest's rustls without a provider of its own).
/// mcpcore's own clients do not need it.
pub fn install_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// How a client verifies servers and, optionally, proves who it is.
#[derive(Clone, Default)]
pub struct TlsOptions {
    /// Extra trusted CA certificates (one or more, PEM), added to the platform's roots.
    pub ca_pem: Option<Vec<u8>>,
    /// A client certificate chain and its private key (PEM, in one buffer or two
    /// concatenated), sent when a server asks for one.
    pub identity_pem: Option<Vec<u8>>,
}

impl std::fmt::Debug for TlsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsOptions")
            .field("ca_pem", &self.ca_pem.as_ref().map(Vec::len))
            .field("identity", &self.identity_pem.is_some())
            .finish()
    }
}

/// Reads `path` for the option called `what` (errors name both).
fn read(path: &Path, what: &str) -> Result<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| Error::invalid_input(format!("cannot read the {what} {}: {e}", path.display())))
}

impl TlsOptions {
    /// Options from files: a CA bundle, and a client certificate with its key (both or neither).
    pub fn from_files(ca: Option<&Path>, cert: Option<&Path>, key: Option<&Path>) -> Result<TlsOptions> {
        let ca_pem = ca.map(|p| read(p, "CA certificate file")).transpose()?;
        let identity_pem = match (cert, key) {
            (None, None) => None,
            (Some(c), Some(k)) => {
                let mut pem = read(c, "client certificate file")?;
                pem.push(b'\n');
                pem.extend(read(k, "client key file")?);
                Some(pem)
            }
            _ => {
                return Err(Error::invalid_input(
                    "a client certificate needs its key, and a key its certificate",
                ))
            }
        };
        let options = TlsOptions { ca_pem, identity_pem };
        options.client_config()?; // refuse bad PEM now, not at the first request
        Ok(options)
    }

    /// True when nothing differs from the defaults.
    fn is_default(&self) -> bool {
        self.ca_pem.is_none() && self.identity_pem.is_none()
    }

    /// The rustls configuration these options make.
    fn client_config(&self) -> Result<ClientConfig> {
        if self.is_default() {
            return Ok(default_client_config().clone());
        }
        let extra = match &self.ca_pem {
            Some(pem) => certificates(pem, "CA certificate")?,
            None => Vec::new(),
        };
        let builder = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(tls_error)?;
        let verifier = platform_verifier(extra)?;
        let builder = builder.dangerous().with_custom_certificate_verifier(verifier);
        match &self.identity_pem {
            None => Ok(builder.with_no_client_auth()),
            Some(pem) => {
                let chain = certificates(pem, "client certificate")?;
                let key = PrivateKeyDer::from_pem_slice(pem).map_err(|e| {
                    Error::invalid_input(format!("no private key in the client identity PEM: {e}"))
                })?;
                builder.with_client_auth_cert(chain, key).map_err(tls_error)
            }
        }
    }

    /// A reqwest builder with this TLS configuration.
    pub(crate) fn builder(&self) -> Result<reqwest::ClientBuilder> {
        Ok(reqwest::Client::builder().tls_backend_preconfigured(self.client_config()?))
    }
}

/// A reqwest builder with the default TLS configuration (for the crate's own fetches).
pub(crate) fn client_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder().tls_backend_preconfigured(default_client_config().clone())
}

/// The HTTP client of the crate's requests to an authorization server (metadata, JWKS, token,
/// introspection and token-exchange endpoints): the default TLS configuration, at most
/// `timeout` a request, and no redirects followed, so a credential sent to an endpoint never
/// goes on to where a redirect points (a redirect is an error to the caller).
pub(crate) fn authorization_client(timeout: std::time::Duration) -> reqwest::Client {
    client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .build()
        .expect("a plain reqwest client builds")
}

/// The platform verifier with `extra` roots; without roots at all, a verifier that refuses
/// every certificate with an error saying why.
fn platform_verifier(extra: Vec<CertificateDer<'static>>) -> Result<Arc<dyn ServerCertVerifier>> {
    let made = if extra.is_empty() {
        rustls_platform_verifier::Verifier::new(provider())
    } else {
        rustls_platform_verifier::Verifier::new_with_extra_roots(extra, provider())
    };
    Ok(match made {
        Ok(v) => Arc::new(v),
        Err(e) => Arc::new(NoRoots(format!(
            "no root certificates to verify HTTPS servers with ({e}): install the system's CA \
             certificates (e.g. the ca-certificates package) or pass a CA file"
        ))),
    })
}

/// The default client configuration, made once per process (loading the platform's roots).
fn default_client_config() -> &'static ClientConfig {
    static CONFIG: OnceLock<ClientConfig> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let verifier = platform_verifier(Vec::new()).expect("no extra roots to refuse");
        ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth()
    })
}

/// Every certificate in `pem`; an error naming `what` when there is none.
fn certificates(pem: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| Error::invalid_input(format!("bad {what} PEM: {e}")))?;
    if certs.is_empty() {
        return Err(Error::invalid_input(format!("no {what} in the PEM (expected BEGIN CERTIFICATE)")));
    }
    Ok(certs)
}

fn tls_error(e: rustls::Error) -> Error {
    Error::invalid_input(format!("TLS configuration refused: {e}"))
}

/// Refuses every server certificate, saying there are no roots to check it against.
#[derive(Debug)]
struct NoRoots(String);

impl ServerCertVerifier for NoRoots {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Err(rustls::Error::General(self.0.clone()))
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General(self.0.clone()))
    }

    fn verify_tls13_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General(self.0.clone()))
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        provider().signature_verification_algorithms.supported_schemes()
    }
}

/// What the HTTP server presents: a certificate chain and its key, and optionally the CAs
/// whose client certificates it requires (mutual TLS).
#[derive(Clone)]
pub struct ServerTls {
    pub(crate) config: Arc<ServerConfig>,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTls").finish_non_exhaustive()
    }
}

impl ServerTls {
    /// Serves `cert_chain` (PEM, leaf first) with `key` (PEM: PKCS#8, PKCS#1 or SEC1);
    /// `client_ca` (PEM), when given, makes every client present a certificate it signed.
    pub fn from_pem(cert_chain: &[u8], key: &[u8], client_ca: Option<&[u8]>) -> Result<ServerTls> {
        let chain = certificates(cert_chain, "server certificate")?;
        let key = PrivateKeyDer::from_pem_slice(key)
            .map_err(|e| Error::invalid_input(format!("no private key in the server key PEM: {e}")))?;
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(tls_error)?;
        let builder = match client_ca {
            None => builder.with_no_client_auth(),
            Some(pem) => {
                let mut roots = RootCertStore::empty();
                for c in certificates(pem, "client CA certificate")? {
                    roots.add(c).map_err(tls_error)?;
                }
                let verifier =
                    rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                        .build()
                        .map_err(|e| Error::invalid_input(format!("client CA refused: {e}")))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_single_cert(chain, key).map_err(tls_error)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(ServerTls { config: Arc::new(config) })
    }

    /// [`ServerTls::from_pem`] with the PEM read from files.
    pub fn from_files(cert_chain: &Path, key: &Path, client_ca: Option<&Path>) -> Result<ServerTls> {
        let ca = client_ca.map(|p| read(p, "client CA file")).transpose()?;
        ServerTls::from_pem(&read(cert_chain, "certificate file")?, &read(key, "key file")?, ca.as_deref())
    }
}

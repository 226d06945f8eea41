//! A test PKI made by the test itself (rcgen): a CA, a server certificate for `127.0.0.1` and
//! `localhost`, and a client certificate, as PEM strings and as files in a directory removed
//! when the value is dropped.

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use std::path::PathBuf;

/// The CA, server and client certificates of one test.
pub struct TestPki {
    /// The CA certificate (PEM).
    pub ca: String,
    /// The server certificate (PEM), signed by the CA, for `127.0.0.1` and `localhost`.
    pub server_cert: String,
    /// Its key (PEM).
    pub server_key: String,
    /// A client certificate (PEM) signed by the CA.
    pub client_cert: String,
    /// Its key (PEM).
    pub client_key: String,
    /// Where the files live: `ca.pem`, `server.pem`, `server.key`, `client.pem`, `client.key`.
    pub dir: PathBuf,
}

impl TestPki {
    /// Makes a new PKI and writes its files.
    pub fn new() -> TestPki {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(DnType::CommonName, "mcpcore test CA");
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = ca_params.self_signed(&ca_key).unwrap().pem();
        let issuer = Issuer::new(ca_params, ca_key);
        let leaf = |names: Vec<String>, cn: &str| {
            let key = KeyPair::generate().unwrap();
            let mut params = CertificateParams::new(names).unwrap();
            params.distinguished_name.push(DnType::CommonName, cn);
            (params.signed_by(&key, &issuer).unwrap().pem(), key.serialize_pem())
        };
        let (server_cert, server_key) =
            leaf(vec!["127.0.0.1".into(), "localhost".into()], "mcpcore test server");
        let (client_cert, client_key) = leaf(vec!["client.test".into()], "mcpcore test client");
        let dir = std::env::temp_dir().join(format!("mcpcore-pki-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, pem) in [
            ("ca.pem", &ca),
            ("server.pem", &server_cert),
            ("server.key", &server_key),
            ("client.pem", &client_cert),
            ("client.key", &client_key),
        ] {
            std::fs::write(dir.join(name), pem).unwrap();
        }
        TestPki { ca, server_cert, server_key, client_cert, client_key, dir }
    }

    /// The path of one of the files, as a string.
    pub fn file(&self, name: &str) -> String {
        self.dir.join(name).to_string_lossy().into_owned()
    }
}

impl Default for TestPki {
    fn default() -> Self {
        TestPki::new()
    }
}

impl Drop for TestPki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

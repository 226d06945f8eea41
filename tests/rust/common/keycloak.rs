//! Keycloak (Maven Central `org.keycloak:keycloak-quarkus-dist`, unzipped by scripts/test.sh into
//! `target/peers/keycloak-<version>`, or where `MCPCORE_KEYCLOAK` says), a real authorization
//! server with RFC 8693 token exchange (Keycloak's standard token exchange), started in dev mode
//! on a loopback port with the realm of tests/interop/keycloak/realm-mcp.json (in memory).
//! It needs Java 21 or newer: `MCPCORE_KEYCLOAK_JAVA_HOME`, else Temurin 25 where the machine
//! keeps it, else `JAVA_HOME`.

use serde_json::Value;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The Keycloak version scripts/test.sh fetches.
pub const VERSION: &str = "26.4.2";

/// A running Keycloak; killed (its whole process group) on drop.
pub struct Keycloak {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Keycloak {
    /// Starts Keycloak and waits until the `mcp` realm answers (at most 3 minutes).
    pub fn start() -> Keycloak {
        let home = std::env::var_os("MCPCORE_KEYCLOAK")
            .map(PathBuf::from)
            .unwrap_or_else(|| super::workspace().join(format!("target/peers/keycloak-{VERSION}")));
        assert!(
            home.join("bin/kc.sh").exists(),
            "Keycloak is missing at {} (scripts/test.sh fetches it; or set MCPCORE_KEYCLOAK)",
            home.display()
        );
        let java = std::env::var_os("MCPCORE_KEYCLOAK_JAVA_HOME")
            .map(PathBuf::from)
            .or_else(|| Some(PathBuf::from("/usr/lib/jvm/temurin-25-jdk-amd64")).filter(|p| p.exists()))
            .or_else(|| std::env::var_os("JAVA_HOME").map(PathBuf::from))
            .expect("Keycloak needs Java 21+: set MCPCORE_KEYCLOAK_JAVA_HOME");
        let import = home.join("data/import");
        std::fs::create_dir_all(&import).unwrap();
        std::fs::copy(
            super::workspace().join("tests/interop/keycloak/realm-mcp.json"),
            import.join("realm-mcp.json"),
        )
        .unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(home.join("bin/kc.sh"))
            .args(["start-dev", "--import-realm", "--db=dev-mem", "--http-host=127.0.0.1"])
            .arg(format!("--http-port={port}"))
            .env("JAVA_HOME", &java)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("Keycloak starts");
        let kc = Keycloak { child, base: format!("http://127.0.0.1:{port}") };
        let ready = format!("{}/realms/mcp/.well-known/openid-configuration", kc.base);
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            let up = std::process::Command::new("curl")
                .args(["-sf", "-o", "/dev/null", &ready])
                .status()
                .is_ok_and(|s| s.success());
            if up {
                return kc;
            }
            assert!(Instant::now() < deadline, "Keycloak did not start within 3 minutes");
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The realm's issuer.
    pub fn issuer(&self) -> String {
        format!("{}/realms/mcp", self.base)
    }

    /// The realm's token endpoint.
    pub fn token_endpoint(&self) -> String {
        format!("{}/protocol/openid-connect/token", self.issuer())
    }

    /// The realm's JWKS.
    pub fn jwks(&self) -> String {
        format!("{}/protocol/openid-connect/certs", self.issuer())
    }

    /// An access token of `user` for the gateway (the `agent` client's password grant; its
    /// audience holds `gateway`).
    pub fn user_token(&self, user: &str, password: &str) -> String {
        let out = Command::new("curl")
            .args(["-sf", "-d", "grant_type=password", "-d", "client_id=agent"])
            .args(["-d", &format!("username={user}"), "-d", &format!("password={password}")])
            .arg(self.token_endpoint())
            .output()
            .unwrap();
        assert!(out.status.success(), "Keycloak refused {user}'s password grant");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["access_token"].as_str().unwrap().to_owned()
    }
}

impl Drop for Keycloak {
    fn drop(&mut self) {
        // kc.sh starts java in its own process group: end them all.
        unsafe {
            libc::killpg(self.child.id() as i32, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

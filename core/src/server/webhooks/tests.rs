use super::deliver::public;
use super::*;

#[test]
fn only_public_addresses_are_public() {
    for private in [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "::1",
        "fd00::1",
        "fe80::1",
        "::ffff:10.0.0.1",
        "224.0.0.1",
        "198.18.0.1",
    ] {
        assert!(!public(private.parse().unwrap()), "{private}");
    }
    for open in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"] {
        assert!(public(open.parse().unwrap()), "{open}");
    }
}

#[tokio::test]
async fn callbacks_must_be_https_to_public_addresses_unless_development_allows_loopback() {
    let production = WebhookPolicy::default();
    for refused in [
        "http://127.0.0.1:9/h",
        "https://127.0.0.1:9/h",
        "https://10.0.0.1/h",
        "https://[::1]:9/h",
        "https://localhost:9/h",
    ] {
        assert!(
            deliver::Callback::check(refused, &production, &Default::default()).await.is_err(),
            "{refused}"
        );
    }
    let development = WebhookPolicy::development();
    assert!(deliver::Callback::check("http://127.0.0.1:9/h", &development, &Default::default())
        .await
        .is_ok());
    assert!(
        deliver::Callback::check("http://10.0.0.1/h", &development, &Default::default()).await.is_err(),
        "private, not loopback"
    );
}

#[test]
fn ttls_are_clamped_to_the_policy() {
    let events = Arc::new(EventRegistry::with_epoch(1));
    let hub = Webhooks::new(
        &events,
        WebhookPolicy { min_ttl: Duration::from_secs(10), ..WebhookPolicy::default() },
    );
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    assert_eq!(hub.core.grant(Ttl::Millis(1), now), now + Duration::from_secs(10));
    assert_eq!(hub.core.grant(Ttl::Default, now), now + Duration::from_secs(3600));
    assert_eq!(hub.core.grant(Ttl::Forever, now), now + Duration::from_secs(24 * 3600));
    assert_eq!(hub.core.grant(Ttl::Millis(u64::MAX), now), now + Duration::from_secs(24 * 3600));
}

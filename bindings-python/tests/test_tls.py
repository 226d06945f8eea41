"""HTTPS from Python: a server with ``serve_http(tls_cert=..., tls_key=...)`` and a client with
``connect_http(ca_file=...)``, both lineages; mutual TLS with ``tls_client_ca`` and
``client_cert``/``client_key``; the refusals. The test CA is made by the test (trustme)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest
import trustme

from mcpcore import Client, InvalidInput, TransportError

from conftest import run_async

import toolbox as toolbox_module


def _pki(tmp: Path) -> Dict[str, Any]:
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    client = ca.issue_cert("client.test")
    files = {
        "ca": tmp / "ca.pem",
        "cert": tmp / "server.pem",
        "key": tmp / "server.key",
        "client_cert": tmp / "client.pem",
        "client_key": tmp / "client.key",
    }
    ca.cert_pem.write_to_path(str(files["ca"]))
    server.private_key_pem.write_to_path(str(files["key"]))
    with open(files["cert"], "wb") as f:
        for blob in server.cert_chain_pems:
            f.write(blob.bytes())
    client.private_key_pem.write_to_path(str(files["client_key"]))
    with open(files["client_cert"], "wb") as f:
        for blob in client.cert_chain_pems:
            f.write(blob.bytes())
    return files


@run_async
async def test_https_both_lineages(tmp_path: Path) -> None:
    pki = _pki(tmp_path)
    serving = await toolbox_module.build().serve_http(tls_cert=pki["cert"], tls_key=pki["key"])
    try:
        assert serving.url.startswith("https://127.0.0.1:"), serving.url
        for lineage, version in (("modern", "2026-07-28"), ("legacy", "2025-11-25")):
            async with await Client.connect_http(serving.url, lineage=lineage, ca_file=pki["ca"]) as client:
                assert client.protocol_version == version
                assert (await client.call_tool("echo", {"text": "tls"})).text == "tls"
        with pytest.raises(TransportError) as e:
            await Client.connect_http(serving.url, timeout=10)  # the platform roots do not know the test CA
        assert "certificate" in str(e.value).lower(), e.value
    finally:
        await serving.shutdown()


@run_async
async def test_mutual_tls(tmp_path: Path) -> None:
    pki = _pki(tmp_path)
    serving = await toolbox_module.build().serve_http(
        tls_cert=pki["cert"], tls_key=pki["key"], tls_client_ca=pki["ca"]
    )
    try:
        async with await Client.connect_http(
            serving.url, ca_file=pki["ca"], client_cert=pki["client_cert"], client_key=pki["client_key"]
        ) as client:
            assert (await client.call_tool("echo", {"text": "mutual"})).text == "mutual"
        with pytest.raises(TransportError):
            await Client.connect_http(serving.url, ca_file=pki["ca"], timeout=10)
    finally:
        await serving.shutdown()


@run_async
async def test_bad_tls_options(tmp_path: Path) -> None:
    pki = _pki(tmp_path)
    server = toolbox_module.build()
    with pytest.raises(InvalidInput) as e:
        await server.serve_http(tls_cert=pki["cert"])
    assert "tls_cert_file and tls_key_file go together" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        await server.serve_http(tls_cert=tmp_path / "nope.pem", tls_key=pki["key"])
    assert "nope.pem" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        await Client.connect_http("https://127.0.0.1:1/mcp", client_cert=pki["client_cert"])
    assert "needs its key" in str(e.value)

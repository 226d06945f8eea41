#!/usr/bin/env bash
# The main job. First the mission itself: a Python agent host whose registry mixes a local Python
# tool with the tools of a Node server and a Rust server (loaded from an mcpServers config), calls
# each, and serves the union over HTTP to the official Python and TypeScript SDK clients; and a
# Node server whose tool calls a Python tool. Then the echo servers written in Rust, Python and
# Node served over stdio and HTTP and called in both lineages across languages: by the Rust
# client, the mcpcore CLI, the Python and Node mcpcore clients, and the official Python SDK.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "cargo is missing: install a Rust toolchain (rustup) first" >&2; exit 1; }
cargo build --workspace --bins --quiet
bin=target/debug

echo "== setting up .venv: the official Python SDK (mcp==2.3.0) and the mcpcore Python package"
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check \
  -r tests/interop/python/requirements.txt -c tests/interop/python/constraints.txt maturin==1.16.0
PATH="$PWD/.venv/bin:$PATH" CARGO_TARGET_DIR="$PWD/target" MATURIN_PEP517_ARGS="--profile dev" \
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall \
  --no-deps ./bindings-python
py=.venv/bin/python

echo "== building the mcpcore Node package (napi, debug) for examples/node"
command -v npm >/dev/null || { echo "node/npm are missing: install Node >= 20.17 first" >&2; exit 1; }
(cd bindings-node && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error \
  && CARGO_TARGET_DIR="$PWD/../target" npx --no-install napi build --platform >/dev/null)
(cd examples/node && npm ci --no-audit --no-fund --loglevel=error)
# The official TypeScript SDK client (pinned in tests/interop/ts).
(cd tests/interop/ts && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
node_server="node examples/node/echo_server.mjs"
node_client="node examples/node/echo_client.mjs"

echo; echo "== The agent host (examples/demo/agent_host.py): one Python registry, local + Node + Rust tools, served to the official SDKs"
$py examples/demo/agent_host.py "$bin/echo_server" examples/node/echo_server.mjs tests/interop/ts/sdk_calls.mjs

echo; echo "== A Node server calling a Python tool (examples/node/calls_python.mjs), called by the mcpcore CLI"
$bin/mcpcore call shout text="hello from the CLI" --human -- node examples/node/calls_python.mjs "$py" examples/python/echo_server.py

echo; echo "== A Python tool served by mcpcore (examples/python/echo_server.py), called from other processes"
echo "-- by the Rust client:";           $bin/echo_client "hello, Python tool" -- $py examples/python/echo_server.py
echo "-- by the mcpcore CLI (legacy):";  $bin/mcpcore call add '{"a": 20, "b": 22}' --lineage legacy -- $py examples/python/echo_server.py | $py -c 'import json,sys; print(json.load(sys.stdin)["structuredContent"])'
echo "-- by the official Python SDK:";   $py tests/interop/python/sdk_client.py --text "hello from the official SDK" -- $py examples/python/echo_server.py
echo "-- by the Python mcpcore client:"; $py examples/python/echo_client.py "hello, Rust server" -- $bin/echo_server

echo; echo "== A Node tool served by mcpcore (examples/node/echo_server.mjs), called from other languages"
echo "-- by the Rust client:";           $bin/echo_client "hello, Node tool" -- $node_server
echo "-- by the Python mcpcore client:"; $py examples/python/echo_client.py "hello from Python, Node tool" -- $node_server
echo "-- by the official Python SDK:";   $py tests/interop/python/sdk_client.py --lineage legacy --text "hello from the official SDK" -- $node_server
echo "-- the Node client calls the Python tool:"; $node_client "hello from Node, Python tool" -- $py examples/python/echo_server.py
echo "-- the Node client calls the Rust tool:";   $node_client "hello from Node, Rust tool" -- $bin/echo_server

echo; echo "== Rust client -> Rust server, automatic negotiation (modern 2026-07-28)"
$bin/echo_client "hello, modern world" -- $bin/echo_server

echo; echo "== mcpcore CLI -> Rust server, pinned legacy 2025-11-25"
$bin/mcpcore call add '{"a": 2, "b": 40}' --lineage legacy -- $bin/echo_server

echo; echo "== mcpcore CLI -> Rust server, every revision"
for v in 2026-07-28 2025-11-25 2025-06-18 2025-03-26 2024-11-05; do
  printf '%s: ' "$v"
  $bin/mcpcore tools --protocol-version "$v" -- $bin/echo_server | python3 -c \
    'import json,sys; d=json.load(sys.stdin); print(d["protocolVersion"], [t["name"] for t in d["tools"]])'
done

echo; echo "== Python (official SDK mcp==2.3.0) client -> Rust server, both lineages"
.venv/bin/python tests/interop/python/sdk_client.py --text "hello from Python" -- $bin/echo_server
.venv/bin/python tests/interop/python/sdk_client.py --lineage legacy --text "hello from Python" -- $bin/echo_server

echo; echo "== Rust client -> Python (official SDK) server"
$bin/echo_client "hello, Python server" -- .venv/bin/python tests/interop/python/sdk_server.py

echo; echo "== HTTP: one endpoint, both lineages, and the 2024-11-05 SSE transport"
$bin/echo_server --http 127.0.0.1:0 > target/demo-http.log &
server=$!
trap 'kill $server 2>/dev/null' EXIT
url=""
for _ in $(seq 1 100); do url=$(sed -n 's/^listening on //p' target/demo-http.log); [ -n "$url" ] && break; sleep 0.1; done
echo "echo_server listening on $url"
$bin/echo_client "$url" "hello over HTTP"
$bin/mcpcore call add '{"a": 1, "b": 2}' "$url" --lineage legacy
$bin/mcpcore tools "$url" --transport sse | python3 -c \
  'import json,sys; d=json.load(sys.stdin); print("2024-11-05 SSE transport:", d["protocolVersion"], [t["name"] for t in d["tools"]])'
.venv/bin/python tests/interop/python/sdk_http_client.py --text "hello from Python over HTTP" "$url"
$py examples/python/echo_client.py "$url" "hello over HTTP from the Python mcpcore client"
$node_client "$url" "hello over HTTP from the Node mcpcore client"

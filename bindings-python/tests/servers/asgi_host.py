"""A host ASGI app serving an mcpcore server in process, run by uvicorn on a free port; prints
``listening on URL`` (the MCP endpoint) once bound.

    python asgi_host.py starlette|fastapi|bare [echo_like|toolbox] [--store URL]

starlette / fastapi: ``app.mount("/mcp", server.asgi_app())`` beside a ``/health`` route of the
host, with the mount's lifespan passed to the framework (endpoint ``/mcp/``); bare: uvicorn serves
``server.asgi_app()`` itself, running its ASGI lifespan (endpoint ``/mcp``).
"""

import asyncio
import socket
import sys

import uvicorn


def build(framework: str, which: str, store: "str | None") -> "tuple[object, str]":
    if which == "toolbox":
        import toolbox

        server = toolbox.build()
    else:
        from echo_like import server
    options = {"max_body": 64 * 1024}
    if store:
        options["store"] = store
    mcp = server.asgi_app(**options)
    if framework == "bare":
        return mcp, "/mcp"
    if framework == "starlette":
        from starlette.applications import Starlette
        from starlette.responses import PlainTextResponse
        from starlette.routing import Mount, Route

        async def health(request: object) -> PlainTextResponse:
            return PlainTextResponse("ok")

        app = Starlette(routes=[Route("/health", health), Mount("/mcp", app=mcp)], lifespan=mcp.lifespan)
        return app, "/mcp/"
    from fastapi import FastAPI

    api = FastAPI(lifespan=mcp.lifespan)

    @api.get("/health")
    def health_check() -> str:
        return "ok"

    api.mount("/mcp", mcp)
    return api, "/mcp/"


async def main() -> None:
    framework = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else "echo_like"
    store = sys.argv[sys.argv.index("--store") + 1] if "--store" in sys.argv else None
    app, path = build(framework, which, store)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    serving = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started:
        if serving.done():
            serving.result()  # startup failed: uvicorn exits; this raises or returns
            sys.exit(3)
        await asyncio.sleep(0.01)
    print(f"listening on http://127.0.0.1:{port}{path}", flush=True)
    await serving


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass

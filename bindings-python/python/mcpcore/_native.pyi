"""Stubs of the native module (checked against it by ``python -m mypy.stubtest mcpcore._native``)."""

from typing import Any, Awaitable, Callable, List, Optional, Tuple, final

__all__ = ["Registry", "Server", "HttpServing", "Client", "ToolCall", "__version__"]

__version__: str

@final
class ToolCall:
    @property
    def request_id(self) -> Optional[str]: ...
    @property
    def protocol_version(self) -> Optional[str]: ...
    @property
    def wants_progress(self) -> bool: ...
    def report_progress(self, progress: float, total: Optional[float] = None, message: Optional[str] = None) -> None: ...

@final
class Registry:
    def __new__(cls) -> "Registry": ...
    def add_tool(
        self,
        name: str,
        description: str,
        input_schema: str,
        callback: Callable[[str, ToolCall], Any],
        is_async: bool,
        output_schema: Optional[str] = None,
        title: Optional[str] = None,
    ) -> None: ...
    def remove_tool(self, name: str) -> bool: ...
    def names(self) -> List[str]: ...
    def list_tools(self) -> str: ...
    def bind_loop(self) -> None: ...
    def call_tool(self, name: str, arguments: str, timeout: Optional[float] = None) -> Awaitable[str]: ...
    def connect(self, server_id: str, client: "Client", collision: str = "error") -> Awaitable[str]: ...
    def disconnect(self, server_id: str) -> Awaitable[List[str]]: ...
    def servers(self) -> List[str]: ...

@final
class HttpServing:
    @property
    def url(self) -> str: ...
    @property
    def port(self) -> int: ...
    def shutdown(self) -> Awaitable[None]: ...
    def wait(self) -> Awaitable[None]: ...

@final
class Server:
    def __new__(cls, registry: Registry, name: str, version: str, instructions: Optional[str] = None) -> "Server": ...
    def serve_stdio(self) -> Awaitable[None]: ...
    def serve_http(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        path: str = "/mcp",
        response_mode: str = "auto",
        max_body: Optional[int] = None,
        allowed_hosts: Optional[List[str]] = None,
        allowed_origins: Optional[List[str]] = None,
    ) -> Awaitable[HttpServing]: ...

@final
class Client:
    @staticmethod
    def connect_stdio(
        command: str,
        args: List[str],
        env: Optional[List[Tuple[str, str]]] = None,
        cwd: Optional[str] = None,
        protocol_version: Optional[str] = None,
        lineage: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Awaitable["Client"]: ...
    @staticmethod
    def connect_http(
        url: str,
        headers: Optional[List[Tuple[str, str]]] = None,
        bearer_token: Optional[str] = None,
        transport: str = "auto",
        protocol_version: Optional[str] = None,
        lineage: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Awaitable["Client"]: ...
    @property
    def protocol_version(self) -> str: ...
    @property
    def lineage(self) -> str: ...
    @property
    def server_info(self) -> Optional[str]: ...
    @property
    def instructions(self) -> Optional[str]: ...
    def list_tools(self) -> Awaitable[str]: ...
    def call_tool(
        self,
        name: str,
        arguments: str,
        timeout: Optional[float] = None,
        progress: Optional[Callable[[float, Optional[float], Optional[str]], None]] = None,
    ) -> Awaitable[str]: ...
    def request(self, method: str, params: str) -> Awaitable[str]: ...
    def close(self) -> Awaitable[None]: ...

"""The values mcpcore hands back: tool definitions, tool results, and the client's answers to a
handler's input requests (elicitation, sampling, roots)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

__all__ = ["Tool", "CallToolResult", "ElicitResult", "SamplingResult", "Root"]


@dataclass(frozen=True)
class Tool:
    """A tool definition as listed by a server or a registry."""

    name: str
    description: str = ""
    input_schema: Dict[str, Any] = field(default_factory=dict)
    output_schema: Optional[Dict[str, Any]] = None
    title: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The definition exactly as received (annotations, icons, ``_meta``...)."""

    @property
    def ui(self) -> Optional[Dict[str, Any]]:
        """The tool's MCP Apps binding (``_meta.ui``: ``resourceUri``, ``visibility``), if any."""
        meta = self.raw.get("_meta") or {}
        ui = meta.get("ui")
        if isinstance(ui, dict):
            return ui
        flat = meta.get("ui/resourceUri")  # the deprecated flat form
        return {"resourceUri": flat} if isinstance(flat, str) else None

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Tool":
        """Builds a Tool from its MCP JSON form."""
        return cls(
            name=d["name"],
            description=d.get("description") or "",
            input_schema=d.get("inputSchema") or {},
            output_schema=d.get("outputSchema"),
            title=d.get("title"),
            raw=d,
        )


@dataclass(frozen=True)
class CallToolResult:
    """The result of a tool call."""

    content: List[Dict[str, Any]]
    """Content blocks (``{"type": "text", "text": ...}``, images, audio, resources...)."""
    structured_content: Any = None
    """``structuredContent``, when the tool returned structured data."""
    is_error: bool = False
    """True when the tool failed; ``text`` then carries the message."""
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "CallToolResult":
        """Builds a CallToolResult from its MCP JSON form."""
        return cls(
            content=list(d.get("content") or []),
            structured_content=d.get("structuredContent"),
            is_error=bool(d.get("isError", False)),
            raw=d,
        )

    @property
    def text(self) -> str:
        """The text of the text blocks, joined by newlines ("" when there are none)."""
        return "\n".join(c.get("text", "") for c in self.content if c.get("type") == "text")

    @property
    def data(self) -> Any:
        """``structured_content`` when present, else ``text``."""
        return self.structured_content if self.structured_content is not None else self.text


@dataclass(frozen=True)
class ElicitResult:
    """The user's answer to :meth:`mcpcore.Context.elicit`."""

    action: str
    """"accept", "decline" or "cancel"."""
    content: Optional[Dict[str, Any]] = None
    """The submitted form (when accepted), as JSON."""
    data: Any = None
    """``content`` as the type passed as the schema (a dataclass, TypedDict or model), else
    ``content`` itself; None unless accepted."""
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def accepted(self) -> bool:
        """True when the user accepted (and ``content`` holds the answer)."""
        return self.action == "accept"


@dataclass(frozen=True)
class SamplingResult:
    """The client model's answer to :meth:`mcpcore.Context.sample` (a ``CreateMessageResult``)."""

    role: str
    content: Any
    """The content block (or, from 2025-11-25, possibly a list of blocks)."""
    model: str = ""
    stop_reason: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "SamplingResult":
        """Builds a SamplingResult from its MCP JSON form."""
        return cls(
            role=d.get("role", "assistant"),
            content=d.get("content"),
            model=d.get("model") or "",
            stop_reason=d.get("stopReason"),
            raw=d,
        )

    @property
    def text(self) -> str:
        """The text of the text block(s), joined by newlines ("" when there are none)."""
        blocks = self.content if isinstance(self.content, list) else [self.content]
        return "\n".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


@dataclass(frozen=True)
class Root:
    """A root the client exposes (:meth:`mcpcore.Context.list_roots`)."""

    uri: str
    name: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Root":
        """Builds a Root from its MCP JSON form."""
        return cls(uri=d["uri"], name=d.get("name"), raw=d)

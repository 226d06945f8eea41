"""The values mcpcore hands back: tool definitions and tool results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

__all__ = ["Tool", "CallToolResult"]


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

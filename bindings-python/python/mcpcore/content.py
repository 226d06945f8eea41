"""Content types a tool can return, each rendering as one MCP content block, and the
:class:`Message` of a prompt.

A tool that returns one of these (or a list mixing them with ``str``) gets them as the
``content`` of its ``CallToolResult``::

    @server.tool()
    def chart() -> Image:
        return Image(png_bytes)

A prompt returns messages::

    @server.prompt()
    def review(code: str) -> list[Message]:
        return [Message("user", f"Review this:\n{code}"), Message("assistant", "Gladly.")]
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple, Type, Union

__all__ = ["Audio", "ContentItem", "CONTENT_TYPES", "EmbeddedResource", "Image", "Message", "Text", "b64encode"]


def b64encode(data: bytes) -> str:
    """Return ``data`` as standard base64 text (the encoding MCP uses for binary data)."""
    return base64.b64encode(bytes(data)).decode("ascii")


def _check_bytes(kind: str, data: object) -> None:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{kind}.data must be bytes, not {type(data).__name__}")


@dataclass(frozen=True)
class Text:
    """A text content block: ``{"type": "text", "text": ...}``."""

    text: str

    def to_content(self) -> Dict[str, Any]:
        """Return the MCP content block."""
        return {"type": "text", "text": self.text}


@dataclass(frozen=True)
class Image:
    """An image content block; ``data`` holds the raw (not base64) image bytes."""

    data: bytes
    mime_type: str = "image/png"

    def __post_init__(self) -> None:
        _check_bytes("Image", self.data)

    def to_content(self) -> Dict[str, Any]:
        """Return ``{"type": "image", "data": <base64>, "mimeType": ...}``."""
        return {"type": "image", "data": b64encode(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True)
class Audio:
    """An audio content block; ``data`` holds the raw (not base64) audio bytes."""

    data: bytes
    mime_type: str = "audio/wav"

    def __post_init__(self) -> None:
        _check_bytes("Audio", self.data)

    def to_content(self) -> Dict[str, Any]:
        """Return ``{"type": "audio", "data": <base64>, "mimeType": ...}``."""
        return {"type": "audio", "data": b64encode(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True)
class EmbeddedResource:
    """A resource embedded in the result: exactly one of ``text`` or ``blob`` is set."""

    uri: str
    text: Optional[str] = None
    blob: Optional[bytes] = None
    mime_type: Optional[str] = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError("EmbeddedResource needs exactly one of text or blob")
        if self.blob is not None:
            _check_bytes("EmbeddedResource", self.blob)

    def to_content(self) -> Dict[str, Any]:
        """Return ``{"type": "resource", "resource": {"uri", "mimeType"?, "text" | "blob"}}``."""
        resource: Dict[str, Any] = {"uri": self.uri}
        if self.mime_type is not None:
            resource["mimeType"] = self.mime_type
        if self.blob is not None:
            resource["blob"] = b64encode(self.blob)
        else:
            resource["text"] = self.text
        return {"type": "resource", "resource": resource}


ContentItem = Union[Text, Image, Audio, EmbeddedResource]
"""Any of the content types."""

CONTENT_TYPES: Tuple[Type[Text], Type[Image], Type[Audio], Type[EmbeddedResource]] = (
    Text,
    Image,
    Audio,
    EmbeddedResource,
)
"""The content classes, for ``isinstance`` checks."""


@dataclass(frozen=True)
class Message:
    """A message of a prompt (or of a sampling request): a ``role`` ("user" or "assistant") and
    one content block, given as ``str`` (text) or a content object."""

    role: str
    content: Union[str, ContentItem]

    def __post_init__(self) -> None:
        if self.role not in ("user", "assistant"):
            raise ValueError(f"Message.role must be 'user' or 'assistant', not {self.role!r}")
        if not isinstance(self.content, (str,) + CONTENT_TYPES):
            raise TypeError(f"Message.content must be a str or a content object, not {type(self.content).__name__}")

    def to_message(self) -> Dict[str, Any]:
        """Return ``{"role": ..., "content": <content block>}``."""
        block = Text(self.content) if isinstance(self.content, str) else self.content
        return {"role": self.role, "content": block.to_content()}

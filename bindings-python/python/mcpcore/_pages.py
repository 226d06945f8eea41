"""Following ``nextCursor`` through a list's pages, bounded: the one loop behind every list the
client reads page by page (tools, resources, templates, prompts, skills, event types)."""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Optional

#: A server paging forever is refused after this many pages, as the engine refuses it.
MAX_PAGES = 1000


async def pages(
    fetch: Callable[[Optional[str]], Awaitable[str]], key: str, method: str
) -> AsyncIterator[Dict[str, Any]]:
    """The items under ``key`` of every page ``fetch(cursor)`` returns (JSON text), in order."""
    cursor: Optional[str] = None
    for _ in range(MAX_PAGES):
        page = json.loads(await fetch(cursor))
        for item in page.get(key) or []:
            yield item
        cursor = page.get("nextCursor")
        if cursor is None:
            return
    from .errors import ProtocolError

    raise ProtocolError(f"{method} returned more than {MAX_PAGES} pages")

"""What a Markdown body shows, rendered by an independent CommonMark implementation (markdown-it-py, with raw HTML
on, as Streamlit's renderer reads it)."""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": True})


def rendered(body: str) -> str:
    """The HTML a Markdown body becomes."""
    return _MD.render(body)


def shown(body: str) -> str:
    """The text a reader sees: the rendered HTML without its tags."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered(body))).strip()

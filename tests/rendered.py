"""What a Markdown body shows, rendered by an independent CommonMark implementation (markdown-it-py, with raw HTML
on, as Streamlit's renderer reads it); what the page's own HTML elements show, read by the standard library's parser."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": True})


def rendered(body: str) -> str:
    """The HTML a Markdown body becomes."""
    return _MD.render(body)


def shown(body: str) -> str:
    """The text a reader sees: the rendered HTML without its tags."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered(body))).strip()


class _Numbers(HTMLParser):
    """The cells of the headline's HTML: each ``ps-number`` element's label, value, line under it and tip (the
    visually hidden copy of the tip, for screen readers, is not part of the label)."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[str, dict[str, str]] = {}
        self.cell: dict[str, str] | None = None
        self.part = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        kind = attr.get("class") or ""
        if kind == "ps-number":
            self.cell = {"label": "", "value": "", "under": "", "tip": ""}
            self.cells[attr.get("data-label") or ""] = self.cell
        elif self.cell is not None and kind.startswith("ps-number-"):
            self.part = kind.removeprefix("ps-number-")
            self.cell["tip"] = self.cell["tip"] or attr.get("data-tip") or ""
        else:
            self.part = ""

    def handle_endtag(self, tag: str) -> None:
        self.part = ""

    def handle_data(self, data: str) -> None:
        if self.cell is not None and self.part:
            self.cell[self.part] += data


def numbers(at: Any) -> dict[str, dict[str, str]]:
    """The headline numbers among an AppTest page's HTML elements, by their data-label: what each cell shows as its
    label, value and the line under it, and its tip, as a browser reads the text (entities decoded)."""
    return numbers_in([element.proto.body for element in at.get("html")])


def numbers_in(bodies: list[str]) -> dict[str, dict[str, str]]:
    """The headline numbers in the HTML ``bodies``, by their data-label (see ``numbers``)."""
    parser = _Numbers()
    for body in bodies:
        if 'class="ps-headline"' in body:
            parser.feed(body)
    return parser.cells


def shown_total(at: Any) -> str:
    """The total the page's headline shows."""
    return numbers(at)["Total parameters"]["value"]

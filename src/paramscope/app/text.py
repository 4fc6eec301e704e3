"""User text on a page that reads Markdown: links, uploads and Hub answers are written by strangers.

Streamlit renders the body of ``st.warning``, ``st.error``, ``st.caption`` and their kin as Markdown (with HTML,
its ``:red[...]`` and ``:material/...:`` directives and ``$`` for LaTeX). :func:`quoted` makes any text read as
itself there: no link, image, emphasis, heading, directive or HTML can come out of it.
"""

from __future__ import annotations

import re

#: Every ASCII punctuation mark (CommonMark lets a backslash escape each one, and then shows it as it is).
_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")


def quoted(text: object, limit: int = 300) -> str:
    """``text`` as it reads: every punctuation mark backslash-escaped, line breaks as spaces, at most ``limit``
    characters (an ellipsis says where it was cut)."""
    s = " ".join(str(text).split())
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return _PUNCTUATION.sub(r"\\\1", s)

"""What the page adds to Streamlit's own layout: a static style sheet and a phone hint, nothing user-made."""

from __future__ import annotations

import streamlit as st

#: Less room above the title (Streamlit's 6rem), so that the Parameters tab's charts are in view beside the card's
#: controls at 1400 × 900. A table's last column (the formulas) wraps anywhere, as a formula has few spaces to break
#: at, instead of running off the table's right edge; the numbers before it keep their digits on one line. Phones
#: (narrow or touch screens): the tab bar wraps onto two lines instead of hiding tabs behind a scroll arrow, the
#: share link's copy button shows without a hover, and the hint to the controls appears.
PAGE_CSS = """<style>
.stMainBlockContainer { padding-top: 2.5rem; }
[data-testid="stTable"] td:last-child, [data-testid="stTable"] td:last-child p {
  white-space: normal; overflow-wrap: anywhere;
}
@media (max-width: 640px) {
  [data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap; row-gap: 0.25rem; }
  [data-testid="stTabsScrollLeft"], [data-testid="stTabsScrollRight"] { display: none; }
}
@media (min-width: 641px) { .st-key-phone_hint { display: none; } }
@media (hover: none) {
  [data-testid="stCode"] > div, [data-testid="stCode"] > div * {
    opacity: 1 !important;
    visibility: visible !important;
  }
}
</style>"""


def apply() -> None:
    """The style sheet (a constant of this module, never user input) and, on narrow screens only, where the
    controls are: Streamlit folds the sidebar away below 640 px."""
    st.html(PAGE_CSS)
    with st.container(key="phone_hint"):
        st.caption(":material/tune: The sliders and every control are in the side panel: tap **»** at the top left.")

"""What the page adds to Streamlit's own layout: a static style sheet, a phone hint and a phone's pie in the side
panel, nothing user-made."""

from __future__ import annotations

import streamlit as st

from paramscope.app.charts import pie_svg
from paramscope.engine.tree import Summary

#: Less room above the title (Streamlit's 6rem), so that the Parameters tab's charts are in view beside the card's
#: controls at 1400 × 900. A table's last column (the formulas) wraps anywhere, as a formula has few spaces to break at,
#: instead of running off the table's right edge; the numbers before it keep their digits on one line. The diagram
#: starts below its own toolbar (the fullscreen button floats 44 px above a chart; it covered the caption). Phones
#: (narrow or touch screens): the tab bar wraps onto two lines instead of hiding tabs behind a scroll arrow, a table
#: keeps its columns readable and scrolls sideways (a formula column was squeezed to two characters), as a formula does,
#: a chart's Plotly toolbar is hidden (it covered the chart's title; the full-screen button stays), the share link's
#: copy button shows without a hover, the hint to the controls appears, and, as the side panel then covers the page, its
#: top holds a small copy of the pie, sticky while the panel scrolls to a control and blurring what scrolls under it in
#: either theme. The headline numbers (HTML from ``charts.headline``): Streamlit's metric sizes, three to a row beside
#: the controls, as many as fit on a phone; a label with a tip is underlined with dots, as an abbreviation is, and shows
#: the tip under it on a hover, a tap or the keyboard's focus, over a blurred backdrop that reads in either theme (as
#: the phone's pie does); a screen reader reads the tip from a visually hidden copy. The "By component" bars (HTML from
#: ``charts.bars``): a name column as wide as its longest name or count, the bars in the rest, in the theme's text
#: colour, wrapping under the pie on a phone.
PAGE_CSS = """<style>
.stMainBlockContainer { padding-top: 2.5rem; }
[data-testid="stTable"] td:last-child, [data-testid="stTable"] td:last-child p {
  white-space: normal; overflow-wrap: anywhere;
}
[data-testid="stElementContainer"]:has([data-testid="stGraphVizChart"]) { margin-top: 2.75rem; }
@media (max-width: 640px) {
  [data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap; row-gap: 0.25rem; }
  [data-testid="stTabsScrollLeft"], [data-testid="stTabsScrollRight"] { display: none; }
  [data-testid="stTable"] { overflow-x: auto; }
  [data-testid="stTable"] table { min-width: 40rem; }
  .katex-display { overflow-x: auto; overflow-y: hidden; }
  .js-plotly-plot .modebar-container { display: none; }
}
@media (min-width: 641px) {
  .st-key-phone_hint, [data-testid="stElementContainer"]:has(.ps-phone-pie) { display: none; }
}
[data-testid="stElementContainer"]:has(.ps-phone-pie) { position: sticky; top: 0; z-index: 3; }
.ps-phone-pie {
  backdrop-filter: blur(10px); -webkit-backdrop-filter: blur(10px);
  background: rgba(128, 128, 128, 0.2); border-radius: 0.5rem; padding: 0.4rem 0.5rem;
}
.ps-numbers {
  display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: 0.5rem 1rem; margin-bottom: 0.75rem;
}
@media (max-width: 640px) { .ps-numbers { display: flex; flex-wrap: wrap; column-gap: 2rem; } }
.ps-number-label { font-size: 0.875rem; line-height: 1.6; }
.ps-number-label[data-tip] {
  position: relative; width: fit-content; cursor: help;
  text-decoration: underline dotted; text-underline-offset: 0.2em;
}
.ps-number-label[data-tip]:hover::after, .ps-number-label[data-tip]:focus::after {
  content: attr(data-tip); position: absolute; left: 0; top: 100%; z-index: 4; width: max-content; max-width: 20rem;
  padding: 0.35rem 0.6rem; border-radius: 0.4rem; font-size: 0.8rem; line-height: 1.4; text-decoration: none;
  background: rgba(128, 128, 128, 0.3); backdrop-filter: blur(12px); -webkit-backdrop-filter: blur(12px);
}
.ps-visually-hidden {
  position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap;
}
.ps-number-value { font-size: 2.25rem; line-height: 1.2; padding-bottom: 0.25rem; overflow-wrap: anywhere; }
.ps-number-under { font-size: 0.875rem; opacity: 0.7; }
.ps-bars { min-width: 15rem; font-size: 0.8rem; line-height: 1.25; }
.ps-bars-title { font-size: 1.05rem; font-weight: 600; margin: 0.45rem 0 0.7rem; }
.ps-bars-grid { display: grid; grid-template-columns: minmax(5rem, max-content) 1fr; gap: 0.45rem 0.6rem; }
.ps-bar-name { text-align: right; overflow-wrap: anywhere; }
.ps-bar-count { font-variant-numeric: tabular-nums; opacity: 0.8; }
.ps-bar-track { display: flex; align-items: center; }
.ps-bar { height: 1.4rem; min-width: 1px; border-radius: 2px; }
.mini-pie { display: flex; gap: 0.75rem; align-items: center; font-size: 0.8rem; line-height: 1.35; }
.mini-pie-total { font-weight: 600; font-size: 1.05rem; }
@media (hover: none) {
  [data-testid="stCode"] > div, [data-testid="stCode"] > div * {
    opacity: 1 !important;
    visibility: visible !important;
  }
}
</style>"""


def phone_pie(summary: Summary) -> None:
    """On a phone, the pie and the total at the top of the side panel, in view while a control there moves (hidden
    on wider screens, where the page beside the panel shows them)."""
    st.html(f'<div class="ps-phone-pie">{pie_svg(summary)}</div>')  # one element (a keyed container made two)


def apply() -> None:
    """The style sheet (a constant of this module, never user input) and, on narrow screens only, where the
    controls are: Streamlit folds the sidebar away below 640 px."""
    st.html(PAGE_CSS)
    with st.container(key="phone_hint"):
        st.caption(":material/tune: The sliders and every control are in the side panel: tap **»** at the top left.")

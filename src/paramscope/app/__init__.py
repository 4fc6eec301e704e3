"""The Streamlit page's pieces: the only package that imports streamlit or plotly."""

import gc
from pathlib import Path

#: The page's icon, served by the app itself (a ``:material/...:`` icon makes every browser fetch it from Google's
#: font server).
ICON = str(Path(__file__).with_name("icon.png"))


def freeze_imports() -> None:
    """Once per server process, after the page's imports: move the ~130,000 objects of the imported modules out of
    the garbage collector's reach. Streamlit collects after every script run (``runner.postScriptGC``); over those
    objects a collection took 30-100 ms per slider move and held the GIL, so the move's last messages waited for it
    (docs/benchmarks.md). Objects made later (sessions, models, figures) are still collected after every run."""
    if not gc.get_freeze_count():
        gc.collect()
        gc.freeze()

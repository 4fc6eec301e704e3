"""The floor for bench/app_latency.py: a bare Streamlit page with one slider and one Plotly chart.

`streamlit run bench/bare_app.py` — nothing else on the page, so the time from a slider move to the redrawn
chart is Streamlit's own round trip (websocket, script rerun, Plotly redraw) and nothing of ParamScope's.
"""

import plotly.graph_objects as go
import streamlit as st

layers = st.slider("Layers", 0, 64, 12, key="layers")
values = [38_597_376, 786_432, 2_362_368 * layers, 4_722_432 * layers, 3_072 * layers, 1_536]
st.metric("Total parameters", f"{sum(values):,}")
st.plotly_chart(go.Figure(go.Pie(values=values, labels=["token", "position", "attention", "mlp", "norms", "final"])))

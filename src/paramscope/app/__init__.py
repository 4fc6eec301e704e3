"""The Streamlit page's pieces: the only package that imports streamlit or plotly."""

"""Questions over several models: compare, sweep a dimension, draw the architecture."""

"""The engine: pure functions from a resolved Spec to trees of counts, bytes and FLOPs (no I/O, no model types)."""

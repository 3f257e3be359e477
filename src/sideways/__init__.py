"""sideways: a data-versioned, reproducible benchmark pipeline for LLM and VLM reasoning."""

__version__ = "0.1.0"

"""Runs made elsewhere (lm-evaluation-harness output folders, inspect_ai logs) read into exam tables."""

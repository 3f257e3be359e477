"""Test doubles shipped with the package: a fake OpenAI-compatible server (tests, benchmarks, demos)."""

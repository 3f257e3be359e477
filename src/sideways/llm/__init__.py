"""Talking to real models: prompts, wire formats, the request cache, retries, pricing, secrets.

Each module has one job; the HTTP backends in :mod:`sideways.backends` put them together.
"""

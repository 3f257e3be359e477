"""Scraping the Professor Layton wiki (layton.fandom.com) through its MediaWiki API.

- :mod:`.api`: a polite HTTP client (identifying User-Agent, rate limit, retries with backoff).
- :mod:`.markup`: a small parser for puzzle pages' markup (pure).
- :mod:`.store`: the raw scrape on disk, keyed by page id and revision, so reruns are resumable.
- :mod:`.scrape`: enumerate puzzle pages, fetch what changed, save it.
- :mod:`.build`: the raw scrape -> a riddles table, offline.
"""

"""The annotation app: human labels through a browser (`sideways annotate serve`).

``queue`` (pure: which prediction next), ``items`` (what there is to label, read from the
pipeline's tables), ``store`` (the label file: whole lines, appended under a lock, fsync'd),
``service`` (sessions, labels, skips, undos; no HTTP), ``app`` (the aiohttp routes and their
guards), ``static/`` (the page).
"""

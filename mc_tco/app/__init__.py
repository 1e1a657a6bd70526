"""``mc-tco app``: a local, offline explorer of an assumption book in the browser.

:mod:`.server` (standard-library HTTP server) serves ``static/`` (one page, plain
JavaScript, figures drawn as inline SVG) and routes the JSON API of :mod:`.api`;
:mod:`.edit` edits the book's TOML in place; :mod:`.bridge` is the only module that calls
the engine. The click command is :mod:`mc_tco.cli.app`.
"""

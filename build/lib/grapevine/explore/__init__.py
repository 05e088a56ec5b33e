"""`grapevine explore`: a read-only page on 127.0.0.1 to explore the graph in a browser.

- `command.py`: the CLI command; `server.py`: socket, store, uvicorn, token;
- `gate.py`: the token and Host checks and the response headers; `app.py`: the page and JSON API;
- `reads.py`: every read (queries/explore/*.cypher and the operator queries), rolled back and
  refused if it would write; `elements.py`: rows to nodes and edges; `history.py`: change events;
- `style.py`: docker/grapevine.grass for the page; `static/`: the page, its script and style
  sheet, and `vendor/graph.js`, cytoscape.js built by tools/explore-assets.
"""

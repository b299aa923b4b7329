"""Serve static/ on 127.0.0.1 only, with the MIME types Pyodide needs.

Usage: python scripts/serve.py [--port 8000] [--root static]
The tests and the benchmark import `make_server` and serve on a free port.
"""
from __future__ import annotations

import argparse
import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class LabHandler(SimpleHTTPRequestHandler):
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",  # required for streaming compilation
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".json": "application/json",
        ".data": "application/octet-stream",
        ".whl": "application/zip",
        ".css": "text/css",
        ".html": "text/html; charset=utf-8",
        ".png": "image/png",
        ".svg": "image/svg+xml",
    }

    def end_headers(self):
        # Revalidate every time: a rebuilt site is never served stale.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format, *args):
        if self.server.verbose:
            super().log_message(format, *args)


def make_server(root, port=0, host="127.0.0.1", verbose=False, handler_class=LabHandler):
    """A threaded HTTP server for `root`; port 0 picks a free port."""
    handler = functools.partial(handler_class, directory=str(root))
    server = ThreadingHTTPServer((host, port), handler)
    server.verbose = verbose
    return server


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--root", type=Path, default=ROOT / "static")
    args = parser.parse_args()
    if not (args.root / "index.html").is_file():
        raise SystemExit("serve: %s/index.html is missing; run `make build`" % args.root)
    server = make_server(args.root, args.port, verbose=True)
    host, port = server.server_address[:2]
    print("Laboratorio de atención: http://%s:%d/  (Ctrl+C para parar)" % (host, port),
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()

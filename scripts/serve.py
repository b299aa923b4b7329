"""Serve static/ on 127.0.0.1 only, the way the lab wants to be served.

- MIME types Pyodide needs (.wasm as application/wasm for streaming compile).
- Precompressed files: when the build left `x.br` or `x.gz` beside `x` and
  the browser accepts that encoding, they are sent with Content-Encoding.
- Caching: versioned paths (runtime/pyodide-<version>/, wheels/<hash>/) are
  immutable for a year; everything else (the page) is revalidated each time
  with an ETag, so a rebuilt page is never served stale.

Usage: python scripts/serve.py [--port 8000] [--root static]
The tests and the benchmark import `make_server` and serve on a free port.
"""
from __future__ import annotations

import argparse
import email.utils
import functools
import os
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMMUTABLE_PREFIXES = ("/runtime/", "/wheels/")
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))  # in order of preference


class LabHandler(SimpleHTTPRequestHandler):
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
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

    def cache_control(self):
        path = self.path.split("?", 1)[0]
        if path.startswith(IMMUTABLE_PREFIXES):
            return "public, max-age=31536000, immutable"
        return "no-cache"

    def pick_encoding(self, path):
        """(encoding or None, file to send) for what the browser accepts."""
        accepted = {part.split(";")[0].strip()
                    for part in self.headers.get("Accept-Encoding", "").split(",")}
        for name, suffix in ENCODINGS:
            if name in accepted and os.path.isfile(path + suffix):
                return name, path + suffix
        return None, path

    def send_head(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            return super().send_head()  # directories (index.html), 404s
        encoding, served = self.pick_encoding(path)
        stat = os.stat(served)
        etag = '"%x-%x-%s"' % (stat.st_mtime_ns, stat.st_size, encoding or "identity")
        if etag in self.headers.get("If-None-Match", ""):
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_common_headers(etag)
            self.end_headers()
            return None
        handle = open(served, "rb")
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Length", str(stat.st_size))
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Last-Modified", email.utils.formatdate(stat.st_mtime, usegmt=True))
        self.send_common_headers(etag)
        self.end_headers()
        return handle

    def send_common_headers(self, etag):
        self.send_header("ETag", etag)
        self.send_header("Cache-Control", self.cache_control())
        self.send_header("Vary", "Accept-Encoding")

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

"""Serve static/ on 127.0.0.1 only, the way the lab wants to be served.

A teacher can leave it running for a whole class:

- MIME types Pyodide needs (.wasm as application/wasm for streaming compile).
- Precompressed files: when the build left `x.br` or `x.gz` beside `x` and
  the browser accepts that encoding (q-values honoured), they are sent with
  Content-Encoding; directory URLs serve their index.html the same way.
- Caching: versioned folders (IMMUTABLE_PREFIXES) are immutable for a year;
  everything else is revalidated each time with an ETag, so a rebuilt page
  is never served stale. The rule is decided on the decoded path relative
  to the root, never on the raw request.
- The policy headers of scripts/site_headers.py on every response; short
  Spanish plain-text errors; no directory listings, no dotfiles, nothing
  outside the root (symlinks included); idle connections time out.

Usage: python scripts/serve.py [--port 8000] [--root static] [--prefix /]
The tests and the benchmark import `make_server` and serve on a free port.
"""
from __future__ import annotations

import argparse
import datetime
import email.utils
import functools
import mimetypes
import os
import re
import socket
import sys
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote, unquote_to_bytes, urlsplit

from site_headers import IMMUTABLE_PREFIXES, headers_for, security_headers

ROOT = Path(__file__).resolve().parent.parent
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))  # in order of preference
CONTROL_OR_BACKSLASH = re.compile(r"[\x00-\x1f\x7f\\]")
ENTITY_TAG = re.compile(r'(?:W/)?("[^"]*")')

# Error bodies: short, plain text, in the reader's language.
MESSAGES = {
    HTTPStatus.MOVED_PERMANENTLY: "Movido permanentemente",
    HTTPStatus.BAD_REQUEST: "Petición no válida",
    HTTPStatus.NOT_FOUND: "No encontrado",
    HTTPStatus.REQUEST_URI_TOO_LONG: "Dirección demasiado larga",
    HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE: "Cabeceras demasiado grandes",
    HTTPStatus.INTERNAL_SERVER_ERROR: "Error interno del servidor",
    HTTPStatus.NOT_IMPLEMENTED: "Método no admitido",
    HTTPStatus.HTTP_VERSION_NOT_SUPPORTED: "Versión de HTTP no admitida",
}


class Refused(Exception):
    """A request that gets an error status instead of a file."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


class Redirect(Exception):
    """A request that gets a 301 to the canonical form of its URL."""

    def __init__(self, location):
        super().__init__(location)
        self.location = location


class Found(NamedTuple):
    """A file to serve: where it is on disk and its path in the site."""
    path: str  # real path on disk, inside the root
    site: str  # decoded path relative to the root, e.g. "runtime/x/y.wasm"


def normalise_prefix(prefix):
    """"attention-lab" or "/attention-lab" -> "/attention-lab/"; "/" stays."""
    parts = [part for part in prefix.split("/") if part]
    if any(part.startswith(".") or CONTROL_OR_BACKSLASH.search(part) for part in parts):
        raise ValueError("bad prefix: %r" % prefix)
    return "/" + "".join(part + "/" for part in parts)


def split_target(target):
    """(path, query) of a request target, origin-form or absolute-form."""
    if not target.startswith("/"):
        try:
            parts = urlsplit(target)
        except ValueError:
            raise Refused(HTTPStatus.BAD_REQUEST) from None
        if parts.scheme.lower() not in ("http", "https") or not parts.path.startswith("/"):
            raise Refused(HTTPStatus.BAD_REQUEST)
        return parts.path, parts.query
    path, _, query = target.partition("#")[0].partition("?")
    return path, query


def decode_path(raw):
    """The path as text; 400 for bytes that are not UTF-8 or are control characters.

    http.server decoded the request line as Latin-1, so re-encoding it that
    way gives back the bytes on the wire.
    """
    try:
        text = unquote_to_bytes(raw.encode("latin-1")).decode("utf-8")
    except UnicodeError:
        raise Refused(HTTPStatus.BAD_REQUEST) from None
    if CONTROL_OR_BACKSLASH.search(text):
        raise Refused(HTTPStatus.BAD_REQUEST)
    return text


def site_parts(path, prefix, query):
    """The segments of `path` below `prefix`, and whether it named a folder.

    Any segment starting with "." (dotfiles, and so "." and ".." too) or an
    empty one is a 404: the decoded path is then already normalised, so the
    caching rule and the root check both see the real name.
    """
    if path + "/" == prefix:
        raise Redirect(with_query(quote(prefix), query))
    if not path.startswith(prefix):
        raise Refused(HTTPStatus.NOT_FOUND)
    rest = path[len(prefix):]
    folder = rest == "" or rest.endswith("/")
    parts = rest.split("/")[:-1] if folder else rest.split("/")
    if any(part == "" or part.startswith(".") for part in parts):
        raise Refused(HTTPStatus.NOT_FOUND)
    return parts, folder


def with_query(location, query):
    """A redirect target that keeps the lab state in the query string."""
    return location + "?" + query if query else location


def inside(root, real):
    """Whether `real` is within `root` with no hidden segment on the way."""
    try:
        if os.path.commonpath([root, real]) != root:
            return False
    except ValueError:  # different drives on Windows
        return False
    rel = os.path.relpath(real, root)
    return rel == "." or not any(part.startswith(".") for part in rel.split(os.sep))


def locate(root, parts, folder, path, query):
    """The file for URL segments `parts`, after every check on the disk.

    A folder serves its index.html; without the trailing slash it gets a 301
    first (relative links in the page need it). realpath() follows
    symlinks, so one pointing out of the root is a 404.
    """
    real = os.path.realpath(os.path.join(root, *parts))
    if not inside(root, real):
        raise Refused(HTTPStatus.NOT_FOUND)
    if os.path.isdir(real):
        index = os.path.realpath(os.path.join(real, "index.html"))
        if not (inside(root, index) and os.path.isfile(index)):
            raise Refused(HTTPStatus.NOT_FOUND)  # never a listing
        if not folder:
            raise Redirect(with_query(quote(path + "/"), query))
        return Found(index, "/".join(parts + ["index.html"]))
    if folder or not os.path.isfile(real):
        raise Refused(HTTPStatus.NOT_FOUND)
    return Found(real, "/".join(parts))


def accepted_codings(header):
    """{coding: q} from an Accept-Encoding value; a malformed q counts as 0."""
    accepted = {}
    for item in header.split(","):
        name, *params = [piece.strip() for piece in item.split(";")]
        if name:
            accepted[name.lower()] = quality(params)
    return accepted


def quality(params):
    """The q of one Accept-Encoding item (1 when absent)."""
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "q":
            try:
                q = float(value.strip())
            except ValueError:
                return 0.0
            return q if 0.0 <= q <= 1.0 else 0.0  # NaN fails both tests
    return 1.0


def coding_quality(accepted, name):
    """q for `name`: its own entry (x-gzip counts as gzip), else the "*" one."""
    for alias in (name, "x-" + name):
        if alias in accepted:
            return accepted[alias]
    return accepted.get("*", 0.0)


def pick_encoding(path, header, root):
    """(encoding or None, file to send) for what the client accepts.

    The best q wins, ties going to brotli; identity only beats a coding
    when the client ranks it higher explicitly.
    """
    if not header:
        return None, path
    accepted = accepted_codings(header)
    floor = accepted.get("identity", 0.0)
    usable = []
    for rank, (name, suffix) in enumerate(ENCODINGS):
        q = coding_quality(accepted, name)
        if q > 0 and q >= floor and sibling(root, path + suffix):
            usable.append((q, -rank, name, path + suffix))
    if not usable:
        return None, path
    _, _, name, served = max(usable)
    return name, served


def sibling(root, path):
    """Whether a precompressed copy is a file inside the root, like the original."""
    return os.path.isfile(path) and inside(root, os.path.realpath(path))


def etag_matches(header, etag):
    """If-None-Match: "*" or any listed tag, compared weakly (W/ ignored)."""
    if header.strip() == "*":
        return True
    return etag in ENTITY_TAG.findall(header)


def not_modified_since(header, mtime):
    """If-Modified-Since: whether the file is no newer than the date given."""
    try:
        since = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError):
        return False
    if since.tzinfo is None:  # "-0000": HTTP dates are always GMT
        since = since.replace(tzinfo=datetime.timezone.utc)
    return int(mtime) <= since.timestamp()


class LabHandler(BaseHTTPRequestHandler):
    """GET and HEAD of the files under the root, and nothing else."""

    protocol_version = "HTTP/1.1"  # keep-alive: every response has a length
    timeout = 15  # seconds a silent connection may hold a thread
    # Sending a body to a slow reader (a phone on school Wi-Fi reads 27 MB at a
    # few hundred kB/s over several connections) may wait on the client's
    # window far longer than an idle request would: writes get their own limit.
    write_timeout = 300
    disable_nagle_algorithm = True  # headers then body: no 40 ms stall
    immutable_prefixes = IMMUTABLE_PREFIXES
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".json": "application/json",
        ".data": "application/octet-stream",
        ".whl": "application/zip",
        ".zip": "application/zip",
        ".css": "text/css",
        ".html": "text/html; charset=utf-8",
        ".txt": "text/plain; charset=utf-8",
        ".csv": "text/csv; charset=utf-8",
        ".png": "image/png",
        ".svg": "image/svg+xml",
        ".br": "application/octet-stream",
    }

    def __init__(self, *args, directory=None, **kwargs):
        self.directory = os.fspath(directory or os.getcwd())
        super().__init__(*args, **kwargs)

    def version_string(self):
        """The Server header: no Python or http.server version to fingerprint."""
        return "attention-lab"

    def parse_request(self):
        """http.server's parsing, minus HTTP/0.9: its answers cannot carry headers."""
        if not super().parse_request():
            return False
        if self.request_version == "HTTP/0.9":
            self.send_error(HTTPStatus.BAD_REQUEST)
            return False
        return True

    def do_GET(self):
        self.respond(send_body=True)

    def do_HEAD(self):
        self.respond(send_body=False)

    def respond(self, send_body):
        """Send the answer; a client that leaves mid-body just ends the connection."""
        if self.headers.get("Transfer-Encoding") or self.headers.get("Content-Length", "0") != "0":
            self.close_connection = True  # a body we will not read
        body = self.send_head()
        if body is None:
            return
        with body:
            if send_body:
                try:
                    self.connection.settimeout(self.write_timeout)
                    self.connection.sendfile(body)
                except (ConnectionError, TimeoutError):
                    self.close_connection = True
                finally:
                    self.connection.settimeout(self.timeout)

    def send_head(self):
        """Headers for the request; the open body to copy, or None."""
        try:
            root = os.path.realpath(self.directory)
            found = self.find(root)
            encoding, served = pick_encoding(found.path, self.headers.get("Accept-Encoding"), root)
            body = open(served, "rb")
        except Refused as refusal:
            self.send_error(refusal.status)
            return None
        except Redirect as redirect:
            self.send_redirect(redirect.location)
            return None
        except OSError:  # vanished or unreadable between the checks and open()
            self.send_error(HTTPStatus.NOT_FOUND)
            return None
        except Exception:  # a bug here must still get an answer
            self.log_error("error on %r\n%s", self.path, traceback.format_exc())
            self.send_error(HTTPStatus.INTERNAL_SERVER_ERROR)
            return None
        try:
            return self.send_file_head(found, encoding, body)
        except BaseException:  # the client left while we wrote the headers
            body.close()
            raise

    def find(self, root):
        """The Found file for this request, or Refused / Redirect."""
        prefix = getattr(self.server, "prefix", "/")
        raw, query = split_target(self.path)
        path = decode_path(raw)
        parts, folder = site_parts(path, prefix, query)
        return locate(root, parts, folder, path, query)

    def send_file_head(self, found, encoding, body):
        """200 with the body still to send, or 304 (body closed, None)."""
        stat = os.fstat(body.fileno())
        etag = '"%x-%x-%s"' % (stat.st_mtime_ns, stat.st_size, encoding or "identity")
        if self.is_fresh(etag, stat.st_mtime):
            body.close()
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_file_headers(found.site, etag)
            self.end_headers()
            return None
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", self.guess_type(found.path))
        self.send_header("Content-Length", str(stat.st_size))
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Last-Modified", email.utils.formatdate(stat.st_mtime, usegmt=True))
        self.send_file_headers(found.site, etag)
        self.end_headers()
        return body

    def is_fresh(self, etag, mtime):
        """Whether the client's copy is current: If-None-Match, else If-Modified-Since."""
        if "If-None-Match" in self.headers:
            return etag_matches(self.headers["If-None-Match"], etag)
        if "If-Modified-Since" in self.headers:
            return not_modified_since(self.headers["If-Modified-Since"], mtime)
        return False

    def send_file_headers(self, site, etag):
        """What 200 and 304 share: validator, caching, policy, Vary."""
        self.send_header("ETag", etag)
        for name, value in headers_for(site, self.immutable_prefixes):
            self.send_header(name, value)
        self.send_header("Vary", "Accept-Encoding")

    def guess_type(self, path):
        """The table above first; a compressed file never poses as its content."""
        ext = os.path.splitext(path)[1]
        for key in (ext, ext.lower()):
            if key in self.extensions_map:
                return self.extensions_map[key]
        kind, encoding = mimetypes.guess_type(path)
        return "application/octet-stream" if encoding or not kind else kind

    def send_redirect(self, location):
        """301 to the canonical URL (folder with its slash, prefix with its slash)."""
        self.send_short(HTTPStatus.MOVED_PERMANENTLY, [("Location", location)])

    def send_error(self, code, message=None, explain=None):
        """Short Spanish plain text instead of http.server's English HTML page.

        A 404 keeps the connection (the request was well formed); other
        errors close it, since what follows on the wire may be garbage.
        """
        detail = message or getattr(self, "path", "")  # no path before parsing
        self.log_error("code %d, %s", code, detail[:200])
        extra = [] if code == HTTPStatus.NOT_FOUND else [("Connection", "close")]
        self.send_short(code, extra)

    def send_short(self, code, extra):
        """A small plain-text answer with the policy headers and a length."""
        body = (MESSAGES.get(code, "Error") + "\n").encode("utf-8")
        if self.request_version == "HTTP/0.9":  # unparsed or refused: answer as 1.1
            self.request_version = "HTTP/1.1"
        self.send_response(code)
        for name, value in [*security_headers(), ("Cache-Control", "no-cache"), *extra]:
            self.send_header(name, value)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)


class LabServer(ThreadingHTTPServer):
    """A thread per connection, a deep listen queue, quiet about leaving clients."""

    daemon_threads = True  # Ctrl+C never waits for an idle keep-alive
    block_on_close = False
    request_queue_size = 256  # a class opening its tabs at once; capped by somaxconn
    drain_seconds = 1.0
    prefix = "/"
    verbose = False

    def handle_error(self, request, client_address):
        """A client that hangs up or stalls is normal; anything else is reported."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)

    def shutdown_request(self, request):
        """Half-close, then read what the client still sends before closing.

        Closing a socket with unread input sends a reset, which can destroy
        an answer the client has not read yet (a 414 after a huge URL).
        """
        try:
            request.shutdown(socket.SHUT_WR)
            drain(request, self.drain_seconds)
        except OSError:
            pass
        self.close_request(request)


def drain(sock, seconds, limit=1 << 20):
    """Read and drop input until EOF, `limit` bytes or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while limit > 0:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            return
        limit -= len(chunk)


def make_server(root, port=0, host="127.0.0.1", verbose=False, handler_class=LabHandler,
                prefix="/"):
    """A threaded HTTP server for `root` under URL `prefix`; port 0 picks a free port."""
    handler = functools.partial(handler_class, directory=str(root))
    server = LabServer((host, port), handler)
    server.verbose = verbose
    server.prefix = normalise_prefix(prefix)
    return server


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--root", type=Path, default=ROOT / "static")
    parser.add_argument("--prefix", default="/", help="URL path to serve the site under")
    args = parser.parse_args()
    if not (args.root / "index.html").is_file():
        raise SystemExit("serve: %s/index.html is missing; run `make build`" % args.root)
    server = make_server(args.root, args.port, verbose=True, prefix=args.prefix)
    host, port = server.server_address[:2]
    print("Laboratorio de atención: http://%s:%d%s  (Ctrl+C para parar)"
          % (host, port, quote(server.prefix)), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()

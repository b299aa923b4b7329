"""The static server a teacher leaves running, and the site's HTTP policy.

Every test serves a small site built here in a temporary folder (never
static/) on a free 127.0.0.1 port, and talks to it with http.client or raw
sockets, the way a browser would.
"""
import http.client
import io
import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import serve  # noqa: E402
import site_headers  # noqa: E402
from loadtest import listen_counters  # noqa: E402
from serve import LabHandler, make_server  # noqa: E402
from site_headers import PAGE_CSP, WORKER_CSP  # noqa: E402

IMMUTABLE = "public, max-age=31536000, immutable"
WASM = "runtime/pyodide-0.17.1/pyodide.asm.wasm"

# Every file of the test site has distinct bytes, so a body names its file.
FILES = {
    "index.html": b"<!doctype html><title>portada</title>",
    "index.html.br": b"BROTLI(portada)",
    "index.html.gz": b"GZIP(portada)",
    "bloque.html": b"<!doctype html><title>bloque</title>",
    "sub/index.html": b"<!doctype html><title>sub</title>",
    "sub/index.html.br": b"BROTLI(sub)",
    "sub/.hidden": b"hidden in sub",
    "empty/nothing.txt": b"no index here",
    ".secret": b"dotfile",
    ".git/config": b"dot folder",
    WASM: b"\0asm-wasm-bytes",
    WASM + ".br": b"BROTLI(wasm)",
    WASM + ".gz": b"GZIP(wasm)",
    "runtime/pyodide-0.17.1/pyodide.js": b"// pyodide",
    "runtime/index.html": b"<!doctype html><title>runtime index</title>",
    "wheels/fecb7f47f776/lab_core-0.1.0-py3-none-any.whl": b"PK-wheel",
    "views/3fa2c1d9/attention.json": b'{"hashed": true}',
    "views/attention.json": b'{"hashed": false}',
    "views/latest/attention.json": b'{"named": "latest"}',
    "js/worker.js": b"// worker",
    "js/main.js": b"// main",
    "js/main.js.gz": b"GZIP(main)",
    "css/lab.css": b"body{}",
    "notes.txt": b"texto",
    "table.csv": b"a,b\n1,2\n",
    "icon.svg": b"<svg/>",
    "mod.mjs": b"export {}",
    "manifest.json": b"{}",
    "archive.tar.gz": b"GZIP(tar)",
}
SECRET = b"outside the root"


def build_site(base):
    """The site in base/site, a secret beside it, and symlinks in and out."""
    root = base / "site"
    for name, data in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "empty" / "folder").mkdir()
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(SECRET)
    (root / "link.html").symlink_to(root / "bloque.html")
    (root / "linked").symlink_to(root / "sub")
    (root / "escape.txt").symlink_to(outside / "secret.txt")
    (root / "escdir").symlink_to(outside)
    (root / "sub" / "escape.html.br").symlink_to(outside / "secret.txt")
    (root / "sub" / "escape.html").write_bytes(b"escape, identity")
    return root


class Running:
    """A server on a free port, in a daemon thread, until stop()."""

    def __init__(self, root, **kwargs):
        self.server = make_server(root, **kwargs)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_site(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def port(site):
    running = Running(site)
    yield running.port
    running.stop()


@pytest.fixture(scope="module")
def prefixed(site):
    running = Running(site, prefix="/attention-lab/")
    yield running.port
    running.stop()


def fetch(port, path, headers=None, method="GET"):
    """(status, headers, body) of one request on a fresh connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


def raw(port, data, timeout=10):
    """Send raw bytes, read until the server closes: (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def assert_policy(headers, csp=PAGE_CSP):
    """The headers every response must carry, and no version banner."""
    assert headers["Content-Security-Policy"] == csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers.get("Server", "attention-lab") == "attention-lab"


# 1. Caching for every path, folders included ------------------------------

def test_root_is_served_like_any_file(port):
    status, headers, body = fetch(port, "/")
    assert (status, body) == (200, FILES["index.html"])
    assert headers["Cache-Control"] == "no-cache"
    assert headers["Vary"] == "Accept-Encoding"
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert re.fullmatch(r'"[0-9a-f]+-[0-9a-f]+-identity"', headers["ETag"])
    assert_policy(headers)


def test_root_and_folders_send_their_precompressed_index(port):
    status, headers, body = fetch(port, "/", {"Accept-Encoding": "gzip, br"})
    assert (status, body, headers["Content-Encoding"]) == (200, b"BROTLI(portada)", "br")
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    status, headers, body = fetch(port, "/sub/", {"Accept-Encoding": "br"})
    assert (status, body, headers["Content-Encoding"]) == (200, b"BROTLI(sub)", "br")
    assert headers["ETag"].endswith('-br"') and headers["Cache-Control"] == "no-cache"


def test_folder_without_slash_redirects_keeping_the_query(port):
    status, headers, body = fetch(port, "/sub?mask=bidirectional&head=all")
    assert status == 301
    assert headers["Location"] == "/sub/?mask=bidirectional&head=all"
    assert body == "Movido permanentemente\n".encode()
    assert_policy(headers)
    assert fetch(port, "/sub")[1]["Location"] == "/sub/"


def test_index_file_and_its_folder_share_the_etag(port):
    assert fetch(port, "/sub/")[1]["ETag"] == fetch(port, "/sub/index.html")[1]["ETag"]


# 2. The immutable rule, on the decoded path --------------------------------

@pytest.mark.parametrize("path", [
    "/" + WASM,
    "/runtime/pyodide-0.17.1/pyodide.js",
    "/wheels/fecb7f47f776/lab_core-0.1.0-py3-none-any.whl",
    "/views/3fa2c1d9/attention.json",
    "/runtime%2fpyodide-0.17.1%2fpyodide.js",  # same file, encoded slashes
])
def test_versioned_folders_are_immutable(port, path):
    status, headers, _ = fetch(port, path)
    assert (status, headers["Cache-Control"]) == (200, IMMUTABLE)


@pytest.mark.parametrize("path", [
    "/views/attention.json", "/views/latest/attention.json", "/manifest.json",
    "/js/main.js", "/css/lab.css", "/bloque.html",
])
def test_other_files_are_revalidated(port, path):
    status, headers, _ = fetch(port, path)
    assert (status, headers["Cache-Control"]) == (200, "no-cache")


@pytest.mark.parametrize("path", [
    "/runtime/..%2findex.html",
    "/runtime/%2e%2e/index.html",
    "/runtime/pyodide-0.17.1/../../index.html",
    "/wheels/..%2F..%2Foutside%2Fsecret.txt",
    "/runtime/./pyodide-0.17.1/pyodide.js",
])
def test_dot_segments_never_reach_a_file(port, path):
    status, headers, body = fetch(port, path)
    assert (status, body) == (404, "No encontrado\n".encode())
    assert headers["Cache-Control"] != IMMUTABLE


SEGMENTS = ["runtime", "wheels", "views", "3fa2c1d9", "fecb7f47f776", "pyodide-0.17.1",
            "pyodide.js", "index.html", "attention.json", "..", ".", "%2e%2e", "%2E",
            "%2f", "%2F", "", "escdir", "secret.txt", "sub", "link.html", "..%2f", "%00"]


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(st.sampled_from(SEGMENTS), max_size=6), st.booleans())
def test_no_path_is_immutable_unless_it_names_a_versioned_file(port, site, parts, slash):
    """Whatever the spelling, immutable means a file under a versioned folder."""
    path = "/" + "/".join(parts) + ("/" if slash else "")
    status, headers, body = fetch(port, path)
    assert status in (200, 301, 400, 404)
    assert body != SECRET
    versioned = {FILES[name] for name in FILES
                 if name.startswith(("runtime/", "wheels/", "views/3fa2c1d9/"))}
    if headers.get("Cache-Control") == IMMUTABLE:
        assert status == 200 and body in versioned
    if status == 200:
        assert body in set(FILES.values())


# 3. No listings, no dotfiles, nothing outside the root ----------------------

@pytest.mark.parametrize("path", [
    "/empty/", "/empty", "/empty/folder/", "/.secret", "/%2esecret", "/.git/config",
    "/.git/", "/sub/.hidden", "/escape.txt", "/escdir/secret.txt", "/escdir/",
    "/missing.html", "/index.html/", "/sub/index.html/x",
])
def test_refused_paths_are_404(port, path):
    status, headers, body = fetch(port, path)
    assert (status, body) == (404, "No encontrado\n".encode())
    assert headers["Content-Type"] == "text/plain; charset=utf-8"
    assert_policy(headers)


def test_symlinks_inside_the_root_are_served(port):
    assert fetch(port, "/link.html")[2] == FILES["bloque.html"]
    assert fetch(port, "/linked/")[2] == FILES["sub/index.html"]


def test_a_precompressed_sibling_pointing_outside_is_ignored(port):
    status, headers, body = fetch(port, "/sub/escape.html", {"Accept-Encoding": "br"})
    assert (status, body) == (200, b"escape, identity")
    assert "Content-Encoding" not in headers


def test_absolute_form_targets_get_the_same_checks(port):
    status, _, body = raw(port, b"GET http://127.0.0.1/bloque.html HTTP/1.1\r\n"
                                b"Host: x\r\nConnection: close\r\n\r\n")
    assert (status, body) == (200, FILES["bloque.html"])
    status, _, _ = raw(port, b"GET http://127.0.0.1/.secret HTTP/1.1\r\n"
                             b"Host: x\r\nConnection: close\r\n\r\n")
    assert status == 404


# 4. Content negotiation with q-values --------------------------------------

@pytest.mark.parametrize("accept, encoding", [
    ("br;q=0, gzip", "gzip"),
    ("br, gzip", "br"),
    ("gzip, br", "br"),  # equal q: brotli, the smaller one
    ("gzip;q=0.8, br;q=0.5", "gzip"),
    ("BR;Q=0.9", "br"),
    ("identity", None),
    ("", None),
    ("*", "br"),
    ("*;q=0, gzip", "gzip"),
    ("br;q=0, gzip;q=0", None),
    ("x-gzip", "gzip"),
    ("br;q=abc, gzip;q=0.1", "gzip"),
    ("br;q=2", None),
    ("br;q=nan", None),
    ("identity;q=1, br;q=0.5", None),
    ("deflate", None),
])
def test_accept_encoding_honours_q_values(port, accept, encoding):
    headers = {"Accept-Encoding": accept} if accept else {}
    status, got, body = fetch(port, "/" + WASM, headers)
    assert status == 200 and got.get("Content-Encoding") == encoding
    expected = {None: WASM, "br": WASM + ".br", "gzip": WASM + ".gz"}[encoding]
    assert body == FILES[expected]
    assert got["Content-Type"] == "application/wasm"
    assert got["Vary"] == "Accept-Encoding"


def test_without_a_sibling_the_file_goes_as_is(port):
    status, headers, body = fetch(port, "/bloque.html", {"Accept-Encoding": "br, gzip"})
    assert (status, body) == (200, FILES["bloque.html"])
    assert "Content-Encoding" not in headers and headers["Vary"] == "Accept-Encoding"
    _, headers, body = fetch(port, "/js/main.js", {"Accept-Encoding": "br, gzip"})
    assert (headers["Content-Encoding"], body) == ("gzip", b"GZIP(main)")


# 5. Conditional requests ----------------------------------------------------

def test_matching_etag_gets_304_with_validators_and_policy(port):
    etag = fetch(port, "/" + WASM, {"Accept-Encoding": "br"})[1]["ETag"]
    status, headers, body = fetch(port, "/" + WASM,
                                  {"Accept-Encoding": "br", "If-None-Match": etag})
    assert (status, body) == (304, b"")
    assert headers["ETag"] == etag
    assert headers["Cache-Control"] == IMMUTABLE
    assert_policy(headers, WORKER_CSP)


@pytest.mark.parametrize("template, status", [
    ("*", 304),
    ('"nope", W/{etag}', 304),
    ('W/"x",{etag} ,"y"', 304),
    ('"nope"', 200),
    ('W/"nope"', 200),
])
def test_if_none_match_lists_and_weak_tags(port, template, status):
    etag = fetch(port, "/bloque.html")[1]["ETag"]
    header = template.replace("{etag}", etag)
    assert fetch(port, "/bloque.html", {"If-None-Match": header})[0] == status


def test_etag_of_another_encoding_does_not_match(port):
    etag = fetch(port, "/", {"Accept-Encoding": "br"})[1]["ETag"]
    status, headers, body = fetch(port, "/", {"If-None-Match": etag})
    assert (status, body) == (200, FILES["index.html"]) and headers["ETag"] != etag


def test_star_on_a_missing_file_is_still_404(port):
    assert fetch(port, "/missing.html", {"If-None-Match": "*"})[0] == 404


def test_if_modified_since_when_there_is_no_etag_to_compare(port):
    later = "Fri, 01 Jan 2100 00:00:00 GMT"
    assert fetch(port, "/bloque.html", {"If-Modified-Since": later})[0] == 304
    assert fetch(port, "/bloque.html", {"If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"}
                 )[0] == 200
    assert fetch(port, "/bloque.html", {"If-Modified-Since": "garbage"})[0] == 200
    headers = {"If-Modified-Since": later, "If-None-Match": '"other"'}
    assert fetch(port, "/bloque.html", headers)[0] == 200  # If-None-Match decides


# 6. Bad requests get a clean, short answer ---------------------------------

@pytest.mark.parametrize("target", [
    b"/index.html%00.js", b"/%ed%a0%80", b"/%ff", b"/a%0d%0aSet-Cookie:%20x",
    b"/..%5c..%5coutside", b"/\xff\xfe", b"ftp://x/index.html",
])
def test_undecodable_paths_are_400(port, target):
    status, headers, body = raw(port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (status, body) == (400, "Petición no válida\n".encode())
    assert headers["Content-Length"] == str(len(body))
    assert headers["Content-Type"] == "text/plain; charset=utf-8"
    assert_policy(headers)


def test_overlong_url_gets_414_in_spanish(port):
    status, headers, body = raw(port, b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (status, body) == (414, "Dirección demasiado larga\n".encode())
    assert headers["Connection"] == "close"
    assert_policy(headers)


@pytest.mark.parametrize("request_bytes, status", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET /\r\n\r\n", 400),  # HTTP/0.9: an answer without headers is refused
    (b"GET / HTTP/9.9\r\n\r\n", 505),
    (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 501),
    (b"GET / HTTP/1.1\r\nX-Big: " + b"b" * 70000 + b"\r\n\r\n", 431),
])
def test_protocol_errors_are_short_spanish_text(port, request_bytes, status):
    got, headers, body = raw(port, request_bytes)
    assert got == status
    assert len(body) < 40 and b"<" not in body and body.endswith(b"\n")
    assert "Python" not in str(headers) and "SimpleHTTP" not in str(headers)
    assert_policy(headers)


class BrokenHandler(LabHandler):
    """A handler with a bug in path resolution."""

    def find(self, root):
        raise RuntimeError("bug")


def test_a_bug_still_gets_a_short_500(site):
    running = Running(site, handler_class=BrokenHandler)
    try:
        for _ in range(2):
            status, headers, body = fetch(running.port, "/")
            assert (status, body) == (500, "Error interno del servidor\n".encode())
            assert_policy(headers)
    finally:
        running.stop()


def test_server_keeps_serving_after_bad_requests(port):
    raw(port, b"GET /%ed%a0%80 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert fetch(port, "/")[0] == 200


# 7. Security headers everywhere; the worker's own policy -------------------

@pytest.mark.parametrize("path, headers, status", [
    ("/", {}, 200),
    ("/sub", {}, 301),
    ("/missing", {}, 404),
    ("/", {"If-None-Match": "*"}, 304),
    ("/%ff", {}, 400),
])
def test_every_response_carries_the_policy(port, path, headers, status):
    for method in ("GET", "HEAD"):
        got, response_headers, _ = fetch(port, path, headers, method)
        assert got == status
        assert_policy(response_headers)
        assert response_headers["Server"] == "attention-lab"


@pytest.mark.parametrize("path", [
    "/js/worker.js", "/" + WASM, "/runtime/pyodide-0.17.1/pyodide.js"])
def test_worker_and_runtime_get_the_worker_policy(port, path):
    assert_policy(fetch(port, path)[1], WORKER_CSP)


def test_page_policy_has_no_eval_and_no_frame_ancestors():
    assert "unsafe-eval" not in PAGE_CSP and "frame-ancestors" not in PAGE_CSP
    assert "frame-ancestors" not in site_headers.headers_file()


# 8. Idle connections time out -----------------------------------------------

class QuickHandler(LabHandler):
    timeout = 0.5


@pytest.fixture()
def quick(site):
    running = Running(site, handler_class=QuickHandler)
    yield running
    running.stop()


@pytest.mark.parametrize("sent", [b"", b"GET / HT"])
def test_silent_clients_are_dropped(quick, sent):
    # The server's timeout is 0,5 s; the socket's 30 s only stands for
    # "never" (recv raises then), so no machine is too slow for this test.
    with socket.create_connection(("127.0.0.1", quick.port), timeout=30) as sock:
        sock.sendall(sent)
        assert sock.recv(100) == b""  # closed by the server, nothing sent


def test_default_timeout_is_set():
    assert 5 <= LabHandler.timeout <= 60


# 9. Load: backlog, threads, keep-alive --------------------------------------

def listen_overflows():
    """TcpExt ListenOverflows (None off Linux), read as scripts/loadtest.py does."""
    counters = listen_counters()
    return counters and counters[0]


def test_a_burst_of_connections_waits_in_the_backlog(site):
    """150 clients connect before the server accepts anyone: none is dropped."""
    server = make_server(site)
    assert server.request_queue_size >= 128 and server.daemon_threads
    before = listen_overflows()
    socks = [socket.create_connection(server.server_address, timeout=10) for _ in range(150)]
    try:
        for sock in socks:
            sock.sendall(b"GET /bloque.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        threading.Thread(target=server.serve_forever, daemon=True).start()
        for sock in socks:
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
            assert data.startswith(b"HTTP/1.1 200 ") and data.endswith(FILES["bloque.html"])
    finally:
        for sock in socks:
            sock.close()
        server.shutdown()
        server.server_close()
    if before is not None:
        assert listen_overflows() == before


def test_concurrent_keep_alive_clients(port):
    """20 clients x 30 requests, each on one connection: every answer whole."""
    paths = ["/", "/bloque.html", "/css/lab.css", "/js/main.js", "/manifest.json",
             "/views/attention.json", "/missing", "/" + WASM]
    errors = []

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.connect()
        first = conn.sock
        for i in range(30):
            path = paths[i % len(paths)]
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            if int(response.headers["Content-Length"]) != len(body) or conn.sock is not first:
                errors.append((path, response.status))
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_keep_alive_survives_304_404_redirect_and_head(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.connect()
    first = conn.sock
    for method, path, headers, status in [
        ("GET", "/", {}, 200), ("HEAD", "/", {}, 200), ("GET", "/missing", {}, 404),
        ("GET", "/sub", {}, 301), ("GET", "/", {"If-None-Match": "*"}, 304),
        ("GET", "/bloque.html", {}, 200),
    ]:
        conn.request(method, path, headers=headers)
        response = conn.getresponse()
        response.read()
        assert response.status == status and conn.sock is first
    conn.close()


# 10. MIME types and HEAD ----------------------------------------------------

@pytest.mark.parametrize("path, mime", [
    ("/" + WASM, "application/wasm"),
    ("/mod.mjs", "text/javascript"),
    ("/js/main.js", "text/javascript"),
    ("/notes.txt", "text/plain; charset=utf-8"),
    ("/table.csv", "text/csv; charset=utf-8"),
    ("/icon.svg", "image/svg+xml"),
    ("/manifest.json", "application/json"),
    ("/css/lab.css", "text/css"),
    ("/wheels/fecb7f47f776/lab_core-0.1.0-py3-none-any.whl", "application/zip"),
    ("/index.html.br", "application/octet-stream"),  # never brotli posing as HTML
    ("/archive.tar.gz", "application/gzip"),
])
def test_mime_types(port, path, mime):
    assert fetch(port, path)[1]["Content-Type"] == mime


def test_head_is_get_without_a_body(port):
    _, get_headers, body = fetch(port, "/", {"Accept-Encoding": "gzip"})
    status, headers, rest = raw(port, b"HEAD / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n"
                                      b"Connection: close\r\n\r\n")
    assert status == 200 and rest == b""
    for name in ("Content-Length", "Content-Type", "Content-Encoding", "ETag", "Cache-Control"):
        assert headers[name] == get_headers[name]
    assert headers["Content-Length"] == str(len(body))


# 11. A path prefix -----------------------------------------------------------

def test_prefix_serves_the_site_below_it(prefixed):
    status, headers, body = fetch(prefixed, "/attention-lab/")
    assert (status, body, headers["Cache-Control"]) == (200, FILES["index.html"], "no-cache")
    status, headers, _ = fetch(prefixed, "/attention-lab/" + WASM)
    assert (status, headers["Cache-Control"]) == (200, IMMUTABLE)


@pytest.mark.parametrize("path, location", [
    ("/attention-lab", "/attention-lab/"),
    ("/attention-lab?mask=causal", "/attention-lab/?mask=causal"),
    ("/attention-lab/sub?x=1", "/attention-lab/sub/?x=1"),
])
def test_prefix_redirects_to_its_slash_form(prefixed, path, location):
    status, headers, _ = fetch(prefixed, path)
    assert (status, headers["Location"]) == (301, location)


@pytest.mark.parametrize("path", [
    "/", "/index.html", "/attention-labX/", "/attention-lab/../index.html",
    "/attention-lab/%2e%2e/outside/secret.txt", "/other/attention-lab/",
])
def test_outside_the_prefix_is_404(prefixed, path):
    assert fetch(prefixed, path)[0] == 404


@pytest.mark.parametrize("given_prefix, normal", [
    ("/", "/"), ("", "/"), ("attention-lab", "/attention-lab/"),
    ("/a/b", "/a/b/"), ("//a//", "/a/"),
])
def test_prefix_is_normalised(given_prefix, normal):
    assert serve.normalise_prefix(given_prefix) == normal


def test_dot_prefix_is_refused():
    with pytest.raises(ValueError):
        serve.normalise_prefix("/../x")


def test_cli_prints_the_url_with_its_prefix(site):
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "serve.py"), "--port", "0",
         "--root", str(site), "--prefix", "attention-lab"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/attention-lab/ ", line)
        assert match, line
        assert fetch(int(match.group(1)), "/attention-lab/bloque.html")[2] == FILES["bloque.html"]
    finally:
        process.terminate()
        process.wait(timeout=10)


# Compatibility with the e2e fixture and the benchmark ------------------------

def test_make_server_keeps_its_positional_signature(site):
    server = make_server(site, 0, "127.0.0.1", False, LabHandler)
    try:
        assert server.server_address[0] == "127.0.0.1" and server.prefix == "/"
    finally:
        server.server_close()


class FloorHandler(LabHandler):
    """What scripts/bench.py does: one extra page, the rest from the site."""

    def send_head(self):
        if self.path != "/__floor.html":
            return super().send_head()
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        return io.BytesIO(b"floor")


def test_a_subclass_can_add_a_page_through_send_head(site):
    running = Running(site, handler_class=FloorHandler)
    try:
        assert fetch(running.port, "/__floor.html")[2] == b"floor"
        assert fetch(running.port, "/bloque.html")[2] == FILES["bloque.html"]
    finally:
        running.stop()


# site_headers: the policy and the _headers file --------------------------------

def test_policies_are_the_agreed_strings():
    assert PAGE_CSP == (
        "default-src 'self'; script-src 'self'; worker-src 'self'; connect-src 'self'; "
        "img-src 'self' data: blob:; style-src 'self'; font-src 'self'; object-src 'none'; "
        "base-uri 'none'; form-action 'none'; frame-src 'none'")
    assert WORKER_CSP == (
        "default-src 'self'; script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'")


@pytest.mark.parametrize("path, csp, cache", [
    ("index.html", PAGE_CSP, "no-cache"),
    ("/js/worker.js", WORKER_CSP, "no-cache"),
    ("js/main.js", PAGE_CSP, "no-cache"),
    ("runtime/pyodide-0.17.1/pyodide.js", WORKER_CSP, IMMUTABLE),
    ("wheels/fecb7f47f776/x.whl", PAGE_CSP, IMMUTABLE),
    ("views/3fa2c1d9/attention.json", PAGE_CSP, IMMUTABLE),
    ("views/attention.json", PAGE_CSP, "no-cache"),
    ("views/Latest/attention.json", PAGE_CSP, "no-cache"),
    ("runtime", PAGE_CSP, "no-cache"),
])
def test_headers_for(path, csp, cache):
    assert site_headers.headers_for(path) == [
        ("Content-Security-Policy", csp), ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"), ("Cache-Control", cache)]


def parse_headers_file(text):
    """{pattern: [header lines]} in file order, as Netlify/Cloudflare read it."""
    rules, current = {}, None
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("/"):
            current = rules.setdefault(line.strip(), [])
        else:
            assert line.startswith("  ") and current is not None
            current.append(line.strip())
    return rules


def test_headers_file_rules():
    rules = parse_headers_file(site_headers.headers_file(serve.IMMUTABLE_PREFIXES))
    assert list(rules)[0] == "/*"  # detach lines only undo earlier rules
    assert rules["/*"] == ["Content-Security-Policy: " + PAGE_CSP,
                           "X-Content-Type-Options: nosniff",
                           "Referrer-Policy: no-referrer", "Cache-Control: no-cache"]
    worker = ["! Content-Security-Policy", "Content-Security-Policy: " + WORKER_CSP]
    immutable = ["! Cache-Control", "Cache-Control: " + IMMUTABLE]
    assert rules["/js/worker.js"] == worker
    assert rules["/runtime/*"] == worker + immutable
    assert rules["/wheels/*"] == immutable
    assert rules["/views/:hash/*"] == immutable
    assert rules["/*.wasm"] == ["Content-Type: application/wasm"]


def test_headers_file_without_detach_lines():
    text = site_headers.headers_file(("runtime/", "/wheels/"), detach=False)
    rules = parse_headers_file(text)
    assert "!" not in text
    assert rules["/wheels/*"] == ["Cache-Control: " + IMMUTABLE]
    assert "/views/:hash/*" not in rules


def test_every_header_line_fits_cloudflare_limits():
    text = site_headers.headers_file()
    assert all(len(line) <= 2000 for line in text.splitlines())
    assert len(parse_headers_file(text)) <= 100


def test_immutable_prefixes_is_the_shared_constant():
    assert serve.IMMUTABLE_PREFIXES == site_headers.IMMUTABLE_PREFIXES
    assert {"runtime/", "wheels/"} <= set(serve.IMMUTABLE_PREFIXES)


@pytest.mark.parametrize("header, expected", [
    ("br;q=0, gzip", {"br": 0.0, "gzip": 1.0}),
    (" GZIP ; q=0.5 ,, br", {"gzip": 0.5, "br": 1.0}),
    ("br;q=-1", {"br": 0.0}),
])
def test_accepted_codings(header, expected):
    assert serve.accepted_codings(header) == expected


def test_files_are_what_the_site_holds(site):
    """The fixture itself: the secret really is outside and readable."""
    assert (site / "escape.txt").read_bytes() == SECRET
    assert os.path.realpath(site / "escape.txt").startswith(str(site.parent / "outside"))

"""Load the lab's server the way a class does, on loopback only, and print figures.

Starts scripts/serve.py on a free 127.0.0.1 port against static/ (or --root)
in its own process, so the clients do not share its interpreter. Then N
clients (default 50) connect at once and each makes M requests (default 200)
over one keep-alive connection, cycling through the site's small files
(pages, stylesheet, scripts, manifest, default views) with a browser's
Accept-Encoding; every other round is a revalidation with If-None-Match, as
a reload is. Every status and body length is checked against the files on
disk, and the kernel's listen overflow counters are read before and after.

Prints total requests, errors, overflows, p50/p95/max latency and
requests/s; exits non-zero on any error or overflow. A measurement script,
not a test. Usage: python scripts/loadtest.py [--clients 50] [--requests 200]
"""
from __future__ import annotations

import argparse
import http.client
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ACCEPT = "gzip, deflate, br"  # what Chromium sends
MAX_CLIENTS, MAX_REQUESTS = 500, 10000  # bounded: this is not a stress tool


def site_files(root):
    """The small files a page load fetches, as site paths, missing ones skipped."""
    names = ["index.html", "bloque.html", "css/lab.css", "manifest.json"]
    names += sorted(p.relative_to(root).as_posix() for p in (root / "js").glob("*.js"))
    names += sorted(p.relative_to(root).as_posix() for p in (root / "views").rglob("*")
                    if p.is_file() and p.suffix not in (".br", ".gz"))
    return [name for name in names if (root / name).is_file()]


def expected_size(root, name):
    """Bytes the server should send for `name` to a client accepting br and gzip."""
    for suffix in (".br", ".gz", ""):
        if (root / (name + suffix)).is_file():
            return (root / (name + suffix)).stat().st_size
    raise FileNotFoundError(name)


def listen_counters():
    """(ListenOverflows, ListenDrops) from /proc/net/netstat, or None off Linux."""
    try:
        lines = Path("/proc/net/netstat").read_text().splitlines()
    except OSError:
        return None
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            table = dict(zip(names.split()[1:], map(int, values.split()[1:])))
            return table["ListenOverflows"], table["ListenDrops"]
    return None


def start_server(root):
    """serve.py in a child process on a free port; (process, port)."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "serve.py"), "--port", "0", "--root", str(root)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not match:
        process.kill()
        raise SystemExit("loadtest: the server did not start: %r" % line)
    return process, int(match.group(1))


class Client(threading.Thread):
    """One browser tab: a keep-alive connection and `count` requests on it."""

    def __init__(self, index, port, plan, count, start_gate):
        super().__init__(daemon=True)
        self.index, self.port, self.plan, self.count = index, port, plan, count
        self.start_gate = start_gate
        self.latencies, self.errors, self.etags = [], [], {}

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        self.start_gate.wait()
        try:
            conn.connect()
            first = conn.sock
            for i in range(self.count):
                self.one(conn, i)
                if conn.sock is not first:
                    self.errors.append("keep-alive lost after request %d" % i)
                    break
        except (OSError, http.client.HTTPException) as error:
            self.errors.append("%s: %s" % (type(error).__name__, error))
        finally:
            conn.close()

    def one(self, conn, i):
        """One request, timed from send to the last body byte, then checked."""
        name, size = self.plan[(self.index + i) % len(self.plan)]
        revalidate = (i // len(self.plan)) % 2 == 1 and name in self.etags
        headers = {"Accept-Encoding": ACCEPT}
        if revalidate:
            headers["If-None-Match"] = self.etags[name]
        start = time.perf_counter()
        conn.request("GET", "/" + name, headers=headers)
        response = conn.getresponse()
        body = response.read()
        self.latencies.append(time.perf_counter() - start)
        want = (304, 0) if revalidate else (200, size)
        if (response.status, len(body)) != want:
            self.errors.append("%s: %d, %d bytes (want %d, %d)"
                               % (name, response.status, len(body), *want))
        if response.status == 200:
            self.etags[name] = response.headers["ETag"]


def percentile(values, fraction):
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def run(root, clients, requests):
    """Start the server, run the clients, stop the server; the figures as a dict."""
    plan = [(name, expected_size(root, name)) for name in site_files(root)]
    if not plan:
        raise SystemExit("loadtest: no site files under %s; run `make build`" % root)
    process, port = start_server(root)
    try:
        gate = threading.Barrier(clients + 1)
        threads = [Client(i, port, plan, requests, gate) for i in range(clients)]
        for thread in threads:
            thread.start()
        before = listen_counters()
        gate.wait()
        start = time.perf_counter()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
        after = listen_counters()
    finally:
        process.terminate()
        process.wait(timeout=10)
    latencies = [t for thread in threads for t in thread.latencies]
    errors = [e for thread in threads for e in thread.errors]
    return {
        "files": len(plan), "clients": clients, "per_client": requests,
        "requests": len(latencies), "errors": errors,
        "overflows": None if before is None else after[0] - before[0],
        "drops": None if before is None else after[1] - before[1],
        "p50_ms": 1000 * percentile(latencies, 0.50) if latencies else 0.0,
        "p95_ms": 1000 * percentile(latencies, 0.95) if latencies else 0.0,
        "max_ms": 1000 * max(latencies, default=0.0),
        "mean_ms": 1000 * statistics.fmean(latencies) if latencies else 0.0,
        "seconds": elapsed, "rps": len(latencies) / elapsed if elapsed else 0.0,
    }


def report(figures):
    """The figures, one a line; whether the run was clean."""
    unknown = "unknown (no /proc/net/netstat)"
    lines = [
        ("site files in the mix", figures["files"]),
        ("clients x requests", "%d x %d" % (figures["clients"], figures["per_client"])),
        ("requests completed", figures["requests"]),
        ("errors", len(figures["errors"])),
        ("listen overflows", unknown if figures["overflows"] is None else figures["overflows"]),
        ("listen drops", unknown if figures["drops"] is None else figures["drops"]),
        ("latency p50", "%.2f ms" % figures["p50_ms"]),
        ("latency p95", "%.2f ms" % figures["p95_ms"]),
        ("latency max", "%.2f ms" % figures["max_ms"]),
        ("latency mean", "%.2f ms" % figures["mean_ms"]),
        ("wall time", "%.2f s" % figures["seconds"]),
        ("requests/s", "%.0f" % figures["rps"]),
    ]
    for label, value in lines:
        print("%-24s %s" % (label, value))
    for error in figures["errors"][:10]:
        print("  error:", error)
    expected = figures["clients"] * figures["per_client"]
    return (not figures["errors"] and not figures["overflows"]
            and figures["requests"] == expected)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT / "static")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=200, help="per client")
    args = parser.parse_args()
    if not 1 <= args.clients <= MAX_CLIENTS or not 1 <= args.requests <= MAX_REQUESTS:
        parser.error("clients must be 1..%d and requests 1..%d" % (MAX_CLIENTS, MAX_REQUESTS))
    if not (args.root / "index.html").is_file():
        raise SystemExit("loadtest: %s/index.html is missing; run `make build`" % args.root)
    clean = report(run(args.root.resolve(), args.clients, args.requests))
    sys.exit(0 if clean else 1)


if __name__ == "__main__":
    main()

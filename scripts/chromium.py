"""Find (or install) the Chromium that the browser tests and benchmarks drive.

Order: $LAB_CHROMIUM; a Chromium already on the machine; when root on Debian,
`apt-get install -y chromium`; failing that, Playwright's own download.
`find_chromium()` returns an executable path, or None to mean "Playwright's
own browser". Usage: python scripts/chromium.py --ensure
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Flags for this machine: no sandbox as root, and no background traffic to
# hosts the closed network refuses.
LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def find_chromium():
    explicit = os.environ.get("LAB_CHROMIUM")
    if explicit:
        return explicit
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def launch_options():
    """Keyword arguments for playwright's chromium.launch()."""
    options = {"headless": True, "args": LAUNCH_ARGS}
    path = find_chromium()
    if path:
        options["executable_path"] = path
    return options


def ensure():
    path = find_chromium()
    if path:
        print("chromium: %s" % path)
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("chromium: installing Debian's chromium with apt-get", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env)
        if find_chromium():
            print("chromium: %s" % find_chromium())
            return
    print("chromium: none installed; asking Playwright to download its own", flush=True)
    subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"], check=True)


if __name__ == "__main__":
    if sys.argv[1:] != ["--ensure"]:
        raise SystemExit("usage: python scripts/chromium.py --ensure")
    ensure()

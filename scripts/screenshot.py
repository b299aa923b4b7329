"""Take the README's screenshot of the lab, in the article's exercise state.

Usage: python scripts/screenshot.py [--out docs/screenshot.png]
"""
from __future__ import annotations

import argparse
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from chromium import launch_options
from serve import make_server

ROOT = Path(__file__).resolve().parent.parent
STATE = "?sentence=parque&query=1&mask=bidirectional&head=lugar"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.png")
    args = parser.parse_args()
    server = make_server(ROOT / "static")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/%s" % (server.server_address[1], STATE)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options())
        page = browser.new_page(viewport={"width": 1200, "height": 900},
                                device_scale_factor=1)
        page.goto(url)
        page.evaluate("window.lab.ready")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(args.out), full_page=True)
        browser.close()
    server.shutdown()
    print("screenshot: %s" % args.out)


if __name__ == "__main__":
    main()

"""Take the README's screenshots: each lab page, live, in a telling state.

docs/screenshot.png          the attention lab in the article's exercise state;
docs/screenshot-phone.png    the same, on a 390 px phone;
docs/screenshot-aprende.png  panel 8, a head trained twice, at step 300;
docs/screenshot-bloque.png   the block lab on its parameter table.
Usage: python scripts/screenshot.py [--out docs]
"""
from __future__ import annotations

import argparse
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from chromium import launch_options
from serve import make_server

ROOT = Path(__file__).resolve().parent.parent
# (file, URL, element to show, viewport, a button to press first)
SHOTS = (
    ("screenshot.png", "?mask=bidirectional", None, (1200, 1500), "Mostrar sin predecir"),
    ("screenshot-phone.png", "?mask=bidirectional", "#puntuacion", (390, 844), None),
    ("screenshot-aprende.png", "?panel=aprende&train_steps=300", "#aprende", (1200, 1500),
     "la bidireccional"),
    ("screenshot-bloque.png", "bloque.html?panel=bloque", "#bloque", (1200, 1500), None),
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args()
    server = make_server(ROOT / "static")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options())
        for name, query, anchor, (width, height), press in SHOTS:
            page = browser.new_page(viewport={"width": width, "height": height},
                                    device_scale_factor=1)
            page.goto(base + query)
            page.evaluate("window.lab.ready")
            if press:
                page.get_by_role("button", name=press, exact=True).first.click()
            if anchor:
                page.locator(anchor).evaluate("(e) => e.scrollIntoView({block: 'start'})")
            page.screenshot(path=str(args.out / name))
            print("screenshot: %s" % (args.out / name))
            page.close()
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()

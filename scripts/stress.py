"""Prove the suite does not depend on the machine's speed.

Clones the repository's HEAD into a fresh folder, starts a process that
keeps one core busy (`python -c "while True: pass"`), and runs the README's
test command there several times in a row, then once more with every page
under Chromium's 4× CPU throttling (LAB_CPU_THROTTLE=4, DevTools protocol).
Stops the busy process at the end, whatever happened. Prints each run's
duration and pytest's summary line; exits non-zero if any run failed.

Usage: python scripts/stress.py [--runs 3] [--throttled-runs 1] [--keep]
This is a check that prints figures, not a test.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^=+ (.*(passed|failed|error).*) in [\d.]+s", re.M)


def run(clone, env, label):
    start = time.monotonic()
    done = subprocess.run(["make", "test"], cwd=clone, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    seconds = time.monotonic() - start
    found = SUMMARY.findall(done.stdout)
    summary = found[-1][0] if found else "(no pytest summary)"
    print("%-26s %6.0f s  exit %d  %s" % (label, seconds, done.returncode, summary), flush=True)
    if done.returncode:
        print(done.stdout[-4000:], flush=True)
    return done.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--throttled-runs", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    args = parser.parse_args()
    clone = Path(tempfile.mkdtemp(prefix="attention-lab-stress-")) / "repo"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone,
                          capture_output=True, text=True).stdout.strip()
    print("fresh clone of %s at %s; one core kept busy" % (head, clone), flush=True)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    failures = 0
    try:
        env = dict(os.environ)
        for i in range(args.runs):
            failures += bool(run(clone, env, "run %d (busy core)" % (i + 1)))
        throttled = dict(env, LAB_CPU_THROTTLE="4")
        for i in range(args.throttled_runs):
            failures += bool(run(clone, throttled, "run %d (busy core, 4× CPU)" % (i + 1)))
    finally:
        busy.kill()
        busy.wait()
        if not args.keep:
            shutil.rmtree(clone.parent, ignore_errors=True)
    print("failed runs: %d" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

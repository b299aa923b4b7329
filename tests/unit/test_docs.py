"""The README is what a newcomer reads in five minutes; the rest lives in docs/."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_is_short_and_opens_with_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    first_screen = "\n".join(lines[:60])
    assert "make run" in first_screen and "make test" in first_screen


def test_every_doc_the_readme_names_exists():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in re.findall(r"`((?:docs|lab_core)/[\w./-]+\.(?:md|py|png))`", text) + \
            re.findall(r"\]\(((?:docs)/[\w./-]+)\)", text):
        assert (ROOT / path).is_file(), path


def test_the_pure_page_modules_pass_their_node_tests():
    # node --test, no dependency beyond Node: the checks of lab.set, batches,
    # settling, the life cycle, the words and the prepared look-ups.
    ran = subprocess.run(["node", "--test", "tests/js"], cwd=ROOT, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    passed = int(re.search(r"^# pass (\d+)", ran.stdout, re.M).group(1))
    assert passed >= 6 and "# fail 0" in ran.stdout

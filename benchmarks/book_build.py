"""How long `make book` takes: a clean build, then a rebuild with nothing changed.

Both builds go into a fresh temporary folder (``make book BOOK_OUT=...``), so the
site in ``_build/`` is left alone. A clean build executes every page; with
execution caching on, the rebuild must execute none, and this script says so
(and exits with status 1) if it did. Timings are printed, never judged.

    .venv/bin/python benchmarks/book_build.py
"""

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXECUTED = re.compile(r"Executed notebook in ([\d.]+) seconds")


def build(out_dir):
    """Run ``make book`` into ``out_dir``; return (seconds, notebooks executed)."""
    start = time.perf_counter()
    result = subprocess.run(
        ["make", "-s", "book", f"BOOK_OUT={out_dir}"], cwd=ROOT,
        capture_output=True, text=True,
    )
    seconds = time.perf_counter() - start
    log = result.stdout + result.stderr
    if result.returncode != 0:
        sys.exit(f"make book failed (exit {result.returncode}):\n{log[-4000:]}")
    return seconds, len(EXECUTED.findall(log))


def main():
    pages = len(re.findall(r"^\s*(?:root|- file):", (ROOT / "_toc.yml").read_text(), re.M))
    with tempfile.TemporaryDirectory(prefix="book-benchmark-") as out_dir:
        clean_s, clean_runs = build(out_dir)
        again_s, again_runs = build(out_dir)
    print(f"pages in the table of contents: {pages}")
    print(f"clean build:        {clean_s:6.1f} s   notebooks executed: {clean_runs}")
    print(f"unchanged rebuild:  {again_s:6.1f} s   notebooks executed: {again_runs}")
    if again_runs:
        print("the rebuild executed notebooks again: execution caching is not working")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How long the site takes to build, page by page, next to a reference measured in the same run.

The machine's speed changes from minute to minute when it is shared, so every
figure is printed next to a reference taken in the same run: a fresh Python
process that imports torch and builds the 124M model (the least any page that
uses the model must do). The reference is measured before and after the builds.

1. A clean build into a fresh temporary folder (``make book BOOK_OUT=...``): its
   total time, the time of every page as the side-by-side execution
   (``book/_ext/execute_pages.py``) reports it, and the times of the two steps after
   the build: Pagefind's full-text index and the whole-book PDF (``book/_ext/book_pdf.py``).
2. ``make book`` again with nothing changed, which must build nothing; then a rebuild
   forced by removing the finished-build marker (``_build/html/.build-ok``), which reads
   every page from the execution cache and must execute none (this script says so,
   and exits with status 1, if it did).
3. Each solution notebook run top to bottom in a fresh kernel, as a student's
   *Restart & Run All* does.

The site in ``_build/`` is left alone. Timings are printed, never judged.

    .venv/bin/python benchmarks/book_build.py
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE_TIME = re.compile(r"^(book/\S+\.md): executed in ([\d.]+) s$", re.M)
EXECUTED_BY_BUILD = re.compile(r"Executed notebook in ([\d.]+) seconds")
INDEX_TIME = re.compile(r"^Finished in ([\d.]+) seconds", re.M)           # Pagefind
PDF_TIME = re.compile(r"\.pdf: (\d+) pages of the site, (\d+) printed pages, in ([\d.]+) s")
# every assignment's notebooks: those of each folder of solutions/
SOLUTIONS = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "solutions").glob("*/*.ipynb"))
REFERENCE = (
    "import torch\n"
    "from gptcourse import GPT_CONFIG_124M, GPTModel\n"
    "torch.manual_seed(123)\n"
    "GPTModel(GPT_CONFIG_124M)\n"
)


def reference_seconds():
    """A fresh process that imports torch and builds the 124M model."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", REFERENCE], check=True)
    return time.perf_counter() - start


def build(out_dir):
    """Run ``make book`` into ``out_dir``; return (seconds, {page: seconds}, pages the build
    ran, {"index": seconds, "pdf": (printed pages, seconds) or None})."""
    start = time.perf_counter()
    result = subprocess.run(
        ["make", "-s", "book", f"BOOK_OUT={out_dir}"], cwd=ROOT,
        capture_output=True, text=True,
    )
    seconds = time.perf_counter() - start
    log = result.stdout + result.stderr
    if result.returncode != 0:
        sys.exit(f"make book failed (exit {result.returncode}):\n{log[-4000:]}")
    pages = {page: float(s) for page, s in PAGE_TIME.findall(log)}
    index = INDEX_TIME.search(log)
    pdf = PDF_TIME.search(log)
    after = {"index": float(index.group(1)) if index else None,
             "pdf": (int(pdf.group(2)), float(pdf.group(3))) if pdf else None}
    return seconds, pages, len(EXECUTED_BY_BUILD.findall(log)), after


def run_notebook(path):
    """Seconds to execute a notebook top to bottom in a fresh kernel (kernel start included),
    as a student on the hub runs it: the hub's user name says whose model it builds."""
    with tempfile.TemporaryDirectory(prefix="solution-run-") as out:
        start = time.perf_counter()
        subprocess.run(
            [str(Path(sys.executable).parent / "jupyter"), "nbconvert", "--to", "notebook",
             "--execute", str(ROOT / path), "--output-dir", out],
            check=True, capture_output=True, cwd=(ROOT / path).parent,
            env={**os.environ, "JUPYTERHUB_USER": "benchmark-student"},
        )
        return time.perf_counter() - start


def main():
    before = reference_seconds()
    with tempfile.TemporaryDirectory(prefix="book-benchmark-") as out_dir:
        clean_s, pages, clean_by_build, clean_after = build(out_dir)
        unchanged_s, _, _, _ = build(out_dir)
        os.remove(os.path.join(out_dir, "_build", "html", ".build-ok"))
        again_s, _, again_runs, again_after = build(out_dir)
    solutions = {path: run_notebook(path) for path in SOLUTIONS}
    after = reference_seconds()
    reference = (before + after) / 2

    print("reference: a fresh process imports torch and builds the 124M model")
    print(f"  before the builds {before:5.1f} s, after {after:5.1f} s, mean {reference:5.1f} s")
    print()
    print(f"clean build:        {clean_s:6.1f} s  = {clean_s / reference:4.1f} x reference")
    print(f"  pages executed side by side: {len(pages)}, by the build itself: {clean_by_build}")
    print(f"  {'page':<24} {'seconds':>8} {'x reference':>12}")
    for page, seconds in sorted(pages.items(), key=lambda item: -item[1]):
        print(f"  {page:<24} {seconds:8.1f} {seconds / reference:12.1f}")
    if clean_after["index"] is not None:
        print(f"  full-text index (Pagefind): {clean_after['index']:.1f} s")
    if clean_after["pdf"]:
        printed, seconds = clean_after["pdf"]
        print(f"  whole-book PDF ({printed} pages): {seconds:.1f} s "
              f"= {seconds / reference:.1f} x reference")
    pdf_again = "printed again" if again_after["pdf"] else "up to date, not printed"
    print(f"nothing changed:    {unchanged_s:6.1f} s   (make book builds nothing)")
    print(f"forced rebuild:     {again_s:6.1f} s   pages executed: {again_runs}, PDF {pdf_again}")
    print()
    print("solution notebooks, top to bottom in a fresh kernel:")
    for path, seconds in solutions.items():
        print(f"  {Path(path).name:<24} {seconds:8.1f} {seconds / reference:12.1f}")
    if again_runs:
        print("the rebuild executed pages again: execution caching is not working")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

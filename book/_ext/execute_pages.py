"""Execute the site's pages side by side, into the cache that ``jupyter-book build`` reads.

Usage: ``python book/_ext/execute_pages.py CACHE_DIR JOBS``.

Jupyter Book runs the pages one after the other while Sphinx reads them. This
runs every page of ``_toc.yml`` that the cache does not hold yet, JOBS at a
time in separate kernels, and stores each executed notebook in the cache exactly
as the build would (the same reader, the same cache key: the code cells and the
kernel). The build then finds every page already executed. A page that fails
here is not stored: the build runs it again and reports the error in full.
"""

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors.utils import single_nb_execution
from myst_nb.core.read import read_myst_markdown_notebook
from myst_parser.config.main import MdParserConfig

ROOT = Path(__file__).resolve().parents[2]
MD_CONFIG = MdParserConfig(enable_extensions={"colon_fence", "dollarmath", "substitution"})


def pages():
    """The .md files of the table of contents, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    names = [toc["root"]] + [chapter["file"] for chapter in toc["chapters"]]
    return [ROOT / f"{name}.md" for name in names]


def read(path):
    return read_myst_markdown_notebook(path.read_text(encoding="utf-8"), MD_CONFIG, path=path)


def execute(path, timeout, threads):
    """Run one page in a fresh kernel in its own folder; return (path, notebook, seconds, error)."""
    # kernels side by side share the cores: more threads each than cores would only wait
    os.environ["OMP_NUM_THREADS"] = str(threads)
    notebook = read(path)
    result = single_nb_execution(notebook, cwd=str(path.parent), timeout=timeout,
                                 allow_errors=False, meta_override=True)
    error = None if result.err is None else result.exc_string
    return path, notebook, result.time, error


def main(cache_dir, jobs, timeout=180):
    cache = get_cache(str(Path(cache_dir).resolve()))
    todo = []
    for path in pages():
        try:
            cache.match_cache_notebook(read(path))
        except KeyError:
            todo.append(path)
    if not todo:
        return 0
    # the largest pages first, so that no long page starts last
    todo.sort(key=lambda p: p.stat().st_size, reverse=True)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        threads = max(1, (os.cpu_count() or 1) // jobs)
        futures = [pool.submit(execute, path, timeout, threads) for path in todo]
        for future in as_completed(futures):
            path, notebook, seconds, error = future.result()
            name = path.relative_to(ROOT)
            if error:
                print(f"{name}: failed after {seconds:.1f} s; the build will show why")
                continue
            cache.cache_notebook_bundle(
                CacheBundleIn(notebook, str(path), data={"execution_seconds": seconds}),
                check_validity=False, overwrite=True)
            print(f"{name}: executed in {seconds:.1f} s")
    print(f"{len(todo)} pages executed, {jobs} at a time, in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))

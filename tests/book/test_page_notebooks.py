"""A page of the site, downloaded as a notebook, runs where only gptcourse is installed.

Each page is converted to ``.ipynb`` with jupytext, as the site's download and launch
buttons offer it, and executed top to bottom with nbclient in a fresh kernel in which
``import myst_nb`` fails, as it does in plain Jupyter: myst-nb builds the site and is
no dependency of ``gptcourse``. The pages run in ``book/`` of this checkout, where the
homework page finds the student notebooks it describes (the page says so).
"""

import importlib.util
import os
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml
from nbclient import NotebookClient

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "_toc.yml").exists())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
PAGES = [TOC["root"]] + [chapter["file"] for chapter in TOC["chapters"]]
CELL_TIMEOUT_S = 900  # generous: a cell that works ends well before, however busy the machine
# One torch thread per kernel: the pytest process and other runs share a small machine's
# cores, and torch's threads waiting for each other there make every step many times slower.
KERNEL_ENV = {**os.environ, "OMP_NUM_THREADS": "1"}

# The first cell of every run: from here on `import myst_nb` fails as if it were not installed.
WITHOUT_MYST_NB = '''\
import sys

class _NotInstalled:
    """An import hook that finds no myst_nb."""
    def find_spec(self, name, path=None, target=None):
        if name == "myst_nb" or name.startswith("myst_nb."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
'''

# The last cell: the page really ran without myst-nb, on the stand-in glue.
MYST_NB_WAS_MISSING = '''\
try:
    import myst_nb
except ModuleNotFoundError:
    pass
else:
    raise AssertionError("myst_nb was importable: the blocker did not work")
import gptcourse.pages
assert gptcourse.pages.glue.__module__ == "gptcourse.pages", gptcourse.pages.glue.__module__
'''


def _pair_notebooks():
    spec = importlib.util.spec_from_file_location(
        "pair_notebooks", ROOT / "book" / "_ext" / "pair_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", PAGES)
def test_the_paired_notebook_is_the_page(page):
    """book/<page>.ipynb, which Colab and Binder open, is the page as it is now."""
    notebook = ROOT / f"{page}.ipynb"
    assert notebook.exists(), f"{notebook.name} is missing: run `make book` and commit it"
    expected = _pair_notebooks().paired_text(ROOT / f"{page}.md")
    assert notebook.read_text(encoding="utf-8") == expected, (
        f"{notebook.name} is older than {page}.md: run `make book` and commit it")


@pytest.mark.parametrize("page", PAGES)
def test_the_downloaded_page_runs_without_myst_nb(page):
    """Every cell of the page's notebook runs in a kernel that cannot import myst_nb."""
    notebook = jupytext.read(ROOT / f"{page}.md")
    notebook.cells.insert(0, nbformat.v4.new_code_cell(WITHOUT_MYST_NB))
    notebook.cells.append(nbformat.v4.new_code_cell(MYST_NB_WAS_MISSING))
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "book")}})
    # raises CellExecutionError, with the cell and its traceback, on a failure
    client.execute(env=KERNEL_ENV)
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    errors = [output for cell in code_cells for output in cell.get("outputs", [])
              if output.get("output_type") == "error"]
    assert errors == []
    assert all(cell.get("execution_count") for cell in code_cells), "a cell did not run"

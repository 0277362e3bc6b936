"""A page of the site, downloaded as a notebook, runs where only gptcourse is installed.

Each page is converted to ``.ipynb`` with jupytext, as the site's download and launch
buttons offer it, and executed top to bottom with nbclient in a fresh kernel in which
``import myst_nb`` fails, as it does in plain Jupyter: myst-nb builds the site and is
no dependency of ``gptcourse``. Each page runs once here: a chapter in an empty folder
of a fresh environment that holds the students' wheel and no myst-nb; the homework and
instructors pages, which read the course's own files, in ``book/`` of this checkout,
where ``import myst_nb`` is made to fail (the pages say so).
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


def assert_every_cell_ran(notebook):
    """Every code cell of an executed notebook ran without an error, but those tagged
    skip-execution, which no build and no test runs: they need a network (GPT-2's own
    weights) and say so in their first line."""
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    online = [cell for cell in code_cells if "skip-execution" in cell.metadata.get("tags", [])]
    assert all(cell.source.startswith("# Needs a network") for cell in online)
    code_cells = [cell for cell in code_cells if cell not in online]
    errors = [output for cell in code_cells for output in cell.get("outputs", [])
              if output.get("output_type") == "error"]
    assert errors == []
    assert all(cell.get("execution_count") for cell in code_cells), "a cell did not run"


# --- wherever it lands: an empty folder, the students' wheel --------------------------

# The homework and instructors pages read the course's own files (exercises/, the grader's
# settings), and say so on the page; every chapter runs anywhere.
NEEDS_A_COPY_OF_THE_COURSE = ["book/homework", "book/instructors"]
CHAPTERS = [page for page in PAGES if page not in NEEDS_A_COPY_OF_THE_COURSE]


@pytest.mark.parametrize("page", NEEDS_A_COPY_OF_THE_COURSE)
def test_the_downloaded_page_runs_in_the_course_without_myst_nb(page):
    """Every cell of the page's notebook runs, in book/ of the course, in a kernel that
    cannot import myst_nb."""
    notebook = jupytext.read(ROOT / f"{page}.md")
    notebook.cells.insert(0, nbformat.v4.new_code_cell(WITHOUT_MYST_NB))
    notebook.cells.append(nbformat.v4.new_code_cell(MYST_NB_WAS_MISSING))
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "book")}})
    # raises CellExecutionError, with the cell and its traceback, on a failure
    client.execute(env=KERNEL_ENV)
    assert_every_cell_ran(notebook)


# A plain Jupyter's: the course package from its wheel, matplotlib for the figures, and
# what runs a notebook (nbclient, ipykernel); nothing of the site's build, no myst_nb.
JUPYTER = ("torch", "numpy", "tiktoken", "matplotlib", "ipykernel", "nbclient")

# Runs the notebook argv[1] of the current folder, then the check that it ran alone and
# MYST_NB_WAS_MISSING (argv[3]), and writes the executed notebook to argv[2], outside it.
RUN_ANYWHERE = '''
import sys
import nbformat
from nbclient import NotebookClient

notebook = nbformat.read(sys.argv[1], as_version=4)
notebook.cells.append(nbformat.v4.new_code_cell(
    "import gptcourse, os\\n"
    "assert gptcourse.__file__.startswith(os.environ['STUDENT_ENV']), gptcourse.__file__\\n"
    "assert os.listdir('.') == [os.path.basename(sys.argv[1])], os.listdir('.')"
    .replace("sys.argv[1]", repr(sys.argv[1]))))
notebook.cells.append(nbformat.v4.new_code_cell(sys.argv[3]))
NotebookClient(notebook, timeout=900, kernel_name="python3",
               resources={"metadata": {"path": "."}}).execute()
nbformat.write(notebook, sys.argv[2])
print("--- every cell ran")
'''


@pytest.fixture(scope="module")
def students_jupyter(tmp_path_factory):
    """(python, env folder) of a fresh venv with the students' wheel of this checkout and
    a plain Jupyter's packages (linked read-only), as a laptop or Colab has them."""
    from testsupport.distributions import build_wheel, fresh_environment, project_copy

    folder = tmp_path_factory.mktemp("students-jupyter")
    project = project_copy(str(folder / "project"), "pyproject.toml", "README.md", "src")
    wheel = build_wheel(project, str(folder / "dist"))
    with pytest.MonkeyPatch.context() as patch:  # pip must not find this checkout's copy
        patch.delenv("PYTHONPATH", raising=False)
        python, linked = fresh_environment(str(folder), wheel, shared=JUPYTER)
    assert "gptcourse" not in linked and "myst_nb" not in linked, linked
    return python, str(folder / "env")


@pytest.mark.parametrize("page", CHAPTERS)
def test_the_pages_notebook_runs_alone_in_an_empty_folder_with_only_the_wheel(
        page, students_jupyter, tmp_path):
    """book/<page>.ipynb, the notebook Binder, Colab and the published bundle hold, copied
    alone into an empty folder outside the course, runs top to bottom where only the
    students' wheel, matplotlib and Jupyter are installed: every file a page reads is
    the package's own, and myst_nb, which is not there, is not needed."""
    import shutil
    import subprocess

    python, env_folder = students_jupyter
    folder = tmp_path / "anywhere"
    folder.mkdir()
    notebook = shutil.copy(ROOT / f"{page}.ipynb", folder)
    env = {key: value for key, value in KERNEL_ENV.items() if not key.startswith("PYTHON")}
    env["STUDENT_ENV"] = env_folder
    executed = tmp_path / "executed.ipynb"
    done = subprocess.run([python, "-c", RUN_ANYWHERE, os.path.basename(notebook),
                           str(executed), MYST_NB_WAS_MISSING], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    assert done.stdout.splitlines()[-1] == "--- every cell ran"
    assert_every_cell_ran(nbformat.read(executed, as_version=4))

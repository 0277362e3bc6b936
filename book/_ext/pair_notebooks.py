"""Write the notebook paired with each page: ``book/<page>.ipynb``, from ``book/<page>.md``.

Usage: ``python book/_ext/pair_notebooks.py`` (``make book`` runs it first).

Colab opens only ``.ipynb`` files, so the launch buttons point at these notebooks,
which are committed beside the pages. They are the pages converted by jupytext, as
Jupyter's own "open as notebook" does, without outputs; the site's build ignores
them (``_config.yml``, ``exclude_patterns``). A notebook is rewritten only when its
page has changed.
"""

import sys
from pathlib import Path

import jupytext
import yaml

ROOT = Path(__file__).resolve().parents[2]


def pages():
    """The .md files of the table of contents, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    names = [toc["root"]] + [chapter["file"] for chapter in toc["chapters"]]
    return [ROOT / f"{name}.md" for name in names]


def paired_text(page):
    """The .ipynb text that jupytext makes of ``page``, with cell ids by position."""
    notebook = jupytext.read(page)
    for number, cell in enumerate(notebook.cells):
        cell.id = f"cell-{number}"  # jupytext draws random ids: the same page, the same file
    return jupytext.writes(notebook, fmt="ipynb")


def main():
    for page in pages():
        notebook = page.with_suffix(".ipynb")
        text = paired_text(page)
        if not notebook.exists() or notebook.read_text(encoding="utf-8") != text:
            notebook.write_text(text, encoding="utf-8")
            print(f"{notebook.relative_to(ROOT)}: written from {page.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Notebooks as other editors save them after the cells were pasted into a new notebook.

Neither keeps nbgrader's cell metadata in that case, and each adds its own:

- Google Colab saves nbformat 4.0 (no cell ids at the top level), keeps only the
  cell metadata it knows (its own `id` per cell; `colab` and `outputId` on a
  code cell that has outputs), and writes `colab`, `accelerator`, a plain
  `kernelspec` and `language_info` as the notebook's metadata;
- VS Code saves nbformat 4.5 with an `id` on every cell, empty cell metadata
  for new cells, the selected interpreter's `kernelspec`, the full
  `language_info` and `vscode.interpreter.hash` as the notebook's metadata.
"""

import hashlib
import json


def _lines(source):
    text = source if isinstance(source, str) else "".join(source)
    return text.splitlines(keepends=True)


def _cell_id(kind, number, length):
    """A stable stand-in for the random id each editor gives a new cell."""
    digest = hashlib.sha256(f"{kind}-{number}".encode()).hexdigest()
    return digest[:length]


def colab_saved(nb: dict) -> bytes:
    """`nb`'s cells pasted into a fresh Colab notebook with a GPU runtime, run, and saved."""
    cells = []
    for number, cell in enumerate(nb["cells"]):
        metadata = {"id": _cell_id("colab", number, 12)}
        saved = {"cell_type": cell["cell_type"], "source": _lines(cell["source"]),
                 "metadata": metadata}
        if cell["cell_type"] == "code":
            metadata["colab"] = {"base_uri": "https://localhost:8080/"}
            metadata["outputId"] = (f"{_cell_id('out', number, 8)}-{_cell_id('a', number, 4)}-"
                                    f"{_cell_id('b', number, 4)}-{_cell_id('c', number, 12)}")
            saved["execution_count"] = number + 1
            saved["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran\n"]}]
        cells.append(saved)
    notebook = {"nbformat": 4, "nbformat_minor": 0,
                "metadata": {"colab": {"provenance": [], "gpuType": "T4"},
                             "kernelspec": {"name": "python3", "display_name": "Python 3"},
                             "language_info": {"name": "python"}, "accelerator": "GPU"},
                "cells": cells}
    return json.dumps(notebook, indent=2, ensure_ascii=False).encode("utf-8")


def vscode_saved(nb: dict) -> bytes:
    """`nb`'s cells pasted into a new notebook in VS Code, run with a .venv kernel, and saved."""
    cells = []
    for number, cell in enumerate(nb["cells"]):
        saved = {"cell_type": cell["cell_type"], "id": _cell_id("vscode", number, 8),
                 "metadata": {}, "source": _lines(cell["source"])}
        if cell["cell_type"] == "code":
            saved["execution_count"] = number + 1
            saved["outputs"] = []
        cells.append(saved)
    notebook = {"cells": cells,
                "metadata": {
                    "kernelspec": {"display_name": ".venv", "language": "python",
                                   "name": "python3"},
                    "language_info": {"codemirror_mode": {"name": "ipython", "version": 3},
                                      "file_extension": ".py", "mimetype": "text/x-python",
                                      "name": "python", "nbconvert_exporter": "python",
                                      "pygments_lexer": "ipython3", "version": "3.12.3"},
                    "vscode": {"interpreter": {"hash": hashlib.sha256(b".venv").hexdigest()}}},
                "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()

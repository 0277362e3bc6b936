"""Feedback without the hidden tests: an nbconvert preprocessor for nbgrader generate_feedback.

nbgrader's feedback shows every test cell's full source, hidden tests
included. `HideTestCode` replaces each test cell's source by its docstring
(or "hidden checks") and reduces its outputs to the failure message, so a
student sees which checks failed and why, never the checking code.
"""

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from .cells import docstring_of, nbgrader_meta


class HideTestCode(Preprocessor):
    """Test cells show their docstring and failure message only."""

    enabled = Bool(True, help="on unless configured off").tag(config=True)

    def preprocess_cell(self, cell: object, resources: dict, index: int) -> tuple:
        meta = nbgrader_meta(cell)
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            return cell, resources
        doc = docstring_of(cell.source)
        cell.source = f'"""{doc}"""' if doc else "# hidden checks"
        kept = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
                output["traceback"] = [message]
                kept.append(output)
        cell.outputs = kept
        return cell, resources

"""The feedback preprocessor: a test cell's docstring and failure message, nothing else."""

import nbformat

from testsupport import tiny_course as fx
from grader.feedback import HideTestCode


def test_feedback_preprocessor_keeps_docstring_and_message_only():
    nb = fx.instructor_notebook()
    cell = nb.cells[4]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="debug 84"),
                    nbformat.v4.new_output("error", ename="AssertionError",
                                           evalue="double gave a wrong value",
                                           traceback=["long", "traceback", fx.HIDDEN_MARK])]
    out, _ = HideTestCode().preprocess_cell(cell, {}, 4)
    assert out.source == '"""Check that double doubles numbers it has not seen"""'
    assert len(out.outputs) == 1
    assert out.outputs[0].traceback == ["AssertionError: double gave a wrong value"]

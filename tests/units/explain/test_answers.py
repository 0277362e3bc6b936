"""What grade-explain and the defense sheets read of a student's notebook: through the
one defensive reader, so a malformed notebook is no answer, never a crash."""

from types import SimpleNamespace

from grader.explain.answers import ExplainCell, student_answer
from grader.explain.defense import code_question
from testsupport.malformed_notebooks import MALFORMED


def test_grade_explain_and_the_defense_sheets_read_a_malformed_notebook_as_none(tmp_path):
    folder = tmp_path / "submitted" / "mallory" / "hw"
    folder.mkdir(parents=True)
    (folder / "nb.ipynb").write_bytes(MALFORMED["cells 100,000 lists deep"][0])
    course = SimpleNamespace(submitted=str(tmp_path / "submitted"),
                             instructor_notebooks=lambda assignment: {})
    cell = ExplainCell("hw", "nb", "explain_it", 2.0, None)
    assert student_answer(course, cell, "mallory") is None
    assert code_question(course, cell, "mallory") == ("", "", "")

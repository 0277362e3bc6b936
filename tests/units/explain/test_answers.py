"""What grade-explain and the defense sheets read of a student's notebook: through the
one defensive reader, so a malformed notebook is no answer, never a crash."""

from types import SimpleNamespace

from grader.explain.answers import ExplainCell, student_answer
from grader.settings import CourseError
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


def declaring_course(tmp_path, cells, student="ada", raw=None):
    """A course whose assignment `hw` has the notebook `nb`, and `student`'s hand-in of it
    holding `cells` (or the bytes `raw`)."""
    import nbformat

    folder = tmp_path / "submitted" / student / "hw"
    folder.mkdir(parents=True)
    if raw is not None:
        (folder / "nb.ipynb").write_bytes(raw)
    else:
        nbformat.write(nbformat.v4.new_notebook(cells=cells), str(folder / "nb.ipynb"))

    def instructor_notebooks(assignment):
        if assignment != "hw":
            raise CourseError(f"unknown assignment {assignment!r}")
        return {"nb": str(tmp_path / "solutions" / "hw" / "nb.ipynb")}
    return SimpleNamespace(submitted=str(tmp_path / "submitted"),
                           instructor_notebooks=instructor_notebooks)


def declaration_cell(text, grade_id="ai_declaration"):
    import nbformat

    from grader.plugins.ai_policy import ai_policy_cells

    cell = ai_policy_cells("No AI.", declaration=True)[1]
    return nbformat.v4.new_markdown_cell(cell.source + text, metadata=(
        cell.metadata if grade_id else {}))


def test_a_students_declaration_is_read_as_written_without_the_prompt(tmp_path):
    import nbformat

    from grader.explain.answers import declaration_of

    written = "I asked <b>an assistant</b> <script>alert(1)</script> about torch.ones."
    course = declaring_course(tmp_path, [nbformat.v4.new_markdown_cell("# Homework"),
                                         declaration_cell(written)])
    assert declaration_of(course, "ada", "hw") == written


def test_an_untouched_declaration_is_empty_and_a_missing_one_is_none(tmp_path):
    import nbformat

    from grader.explain.answers import declaration_of

    course = declaring_course(tmp_path, [declaration_cell("")])
    assert declaration_of(course, "ada", "hw") == ""
    assert declaration_of(course, "bob", "hw") is None  # handed in nothing
    other = declaring_course(tmp_path / "other", [nbformat.v4.new_markdown_cell("# Homework")])
    assert declaration_of(other, "ada", "hw") is None
    broken = declaring_course(tmp_path / "broken", [], raw=MALFORMED["cells 100,000 lists deep"][0])
    assert declaration_of(broken, "ada", "hw") is None


def test_a_declaration_whose_metadata_an_editor_dropped_is_found_by_its_prompt(tmp_path):
    from grader.explain.answers import declaration_of

    course = declaring_course(tmp_path, [declaration_cell("None used.", grade_id=None)])
    assert declaration_of(course, "ada", "hw") == "None used."


def test_a_very_long_declaration_is_cut_saying_so_and_a_bad_id_is_refused(tmp_path):
    import pytest

    from grader.explain.answers import MAX_DECLARATION_CHARS, declaration_of

    course = declaring_course(tmp_path, [declaration_cell("x" * 1_000_000)])
    shown = declaration_of(course, "ada", "hw")
    assert shown == "x" * MAX_DECLARATION_CHARS + (
        "\n\n[... cut: the declaration is 1,000,000 characters; the first 20,000 are shown]")
    with pytest.raises(CourseError, match=r"student id '\.\./ada' is not a folder name"):
        declaration_of(course, "../ada", "hw")
    with pytest.raises(CourseError, match="unknown assignment 'hw2'"):
        declaration_of(course, "ada", "hw2")

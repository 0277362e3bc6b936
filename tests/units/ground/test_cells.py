"""What a released cell shows of the instructor's source (grader.cells)."""

from testsupport import tiny_course as fx
from grader.cells import released_source


def test_released_source_drops_the_hidden_block():
    source = fx.instructor_notebook().cells[4].source
    assert fx.HIDDEN_MARK not in released_source(source)
    assert released_source(source).startswith('"""Check that double doubles')

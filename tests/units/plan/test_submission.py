"""Reading a submission: broken files are named in plain words, cells of any JSON shape
are repaired or reported, and links are never followed."""

import json

import pytest

from grader.plan import Unreadable, parse_submission, read_submission, submission_link_problem
from grader.plan.submission import nesting_depth, normalised_cells
from testsupport.malformed_notebooks import MALFORMED, NOTEBOOK, nested_dict, with_output


@pytest.mark.parametrize("content, words", [
    (b"", "empty file"),
    (b"   \n", "empty file"),
    (b"{\"cells\": [", "truncated"),
    (b"not json at all", "not JSON"),
    (b"<html><body>a page</body></html>", "HTML, not a notebook"),
    (b"[1, 2, 3]", "no cells"),
    (b"{\"cells\": 5}", "no cells"),
    (b"\xff\xfe\x00garbage", "not UTF-8"),
])
def test_unreadable_files_are_named_in_plain_words(tmp_path, content, words):
    path = tmp_path / "nb.ipynb"
    path.write_bytes(content)
    with pytest.raises(Unreadable, match=words):
        read_submission(str(path))
    assert path.read_bytes() == content


def test_a_symbolic_link_is_never_followed(tmp_path):
    target = tmp_path / "secret.ipynb"
    target.write_text(json.dumps({"cells": []}))
    link = tmp_path / "nb.ipynb"
    link.symlink_to(target)
    with pytest.raises(Unreadable, match="symbolic link"):
        read_submission(str(link))


def test_normalised_cells_give_every_cell_the_shapes_the_grader_reads():
    cells, notes = normalised_cells([
        3, {"cell_type": "code", "metadata": [], "source": ["a", 1]},
        {"cell_type": "code", "id": 5, "metadata": {"nbgrader": {"grade_id": {"x": 1},
                                                                  "points": 1}},
         "source": ["x = ", "'\ud800'"]}])
    assert len(cells) == 2 and len(notes) == 4
    assert cells[0]["metadata"] == {} and cells[0]["source"] == ""
    assert "id" not in cells[1]
    assert cells[1]["metadata"] == {"nbgrader": {"points": 1}}
    assert cells[1]["source"] == "x = '\\ud800'"


def test_every_path_component_of_a_submission_is_checked_for_links(tmp_path):
    (tmp_path / "a" / "hw").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "hw").symlink_to(tmp_path / "a" / "hw")
    (tmp_path / "c").symlink_to(tmp_path / "a")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "hw").write_text("a file")
    assert submission_link_problem(str(tmp_path), "a", "hw") is None
    assert "symbolic link" in submission_link_problem(str(tmp_path), "b", "hw")
    assert "symbolic link" in submission_link_problem(str(tmp_path), "c", "hw")
    assert "not a folder" in submission_link_problem(str(tmp_path), "d", "hw")


@pytest.mark.parametrize("content, words", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_notebook_is_refused_with_a_sentence_and_nothing_recurses(tmp_path,
                                                                              content, words):
    import sys

    path = tmp_path / "nb.ipynb"
    path.write_bytes(content)
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(200)  # the reader recurses no deeper than a notebook goes
        with pytest.raises(Unreadable) as refused:
            read_submission(str(path))
    finally:
        sys.setrecursionlimit(limit)
    assert str(refused.value).startswith("notebook could not be read: ")
    assert words in str(refused.value)


def test_a_notebook_as_deep_as_jupyter_writes_them_is_read():
    nb = with_output(nested_dict(90))
    assert parse_submission(json.dumps(nb).encode())["cells"][0]["source"] == "x = 1\n"
    brackets_in_strings = dict(NOTEBOOK, metadata={"text": "[[[[{{{{" * 1_000 + '\\"]]'})
    assert parse_submission(json.dumps(brackets_in_strings).encode())["nbformat"] == 4
    assert nesting_depth(b'{"a": "[[\\"{{", "b": [[]]}') == 3

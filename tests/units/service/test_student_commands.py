"""`python -m grader check` and `student-view`, run in this process on the tiny course."""

import json

from grader.cli import main
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, released


def test_check_queues_a_notebook_and_student_view_lists_it_with_the_checks_left(
        tiny_course, tmp_path, capsys):
    path = tmp_path / f"{NOTEBOOK}.ipynb"
    path.write_text(json.dumps(correct(released(tiny_course))), encoding="utf-8")
    assert main(["check", ASSIGNMENT, str(path), "--student", "alice",
                 "--course", tiny_course]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"alice {ASSIGNMENT}: hand-in 1 queued"
    assert out[1].startswith("4 of 5 checks left per hour")
    assert main(["check", ASSIGNMENT, str(path), "--student", "alice",
                 "--course", tiny_course]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"alice {ASSIGNMENT}: hand-in 2 not checked again: the same notebook as before")
    assert main(["student-view", ASSIGNMENT, "--student", "alice", "--json",
                 "--course", tiny_course]) == 0
    seen = json.loads(capsys.readouterr().out)
    assert [(h["hand_in"], h["state"], h["checks"]) for h in seen["hand_ins"]] == [
        (2, "duplicate", []), (1, "waiting", [])]
    assert seen["checks_left"] == 4 and seen["next_allowed"] is None


def test_check_of_a_file_that_is_not_there_says_which(tiny_course, capsys):
    assert main(["check", ASSIGNMENT, "nowhere.ipynb", "--student", "alice",
                 "--course", tiny_course]) == 2
    assert capsys.readouterr().err.startswith("error: nowhere.ipynb cannot be read")

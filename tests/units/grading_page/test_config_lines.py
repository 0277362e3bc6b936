"""What check-config says of c.GradingPage: settings that contradict one another, and the
roster's sections that no grader holds."""

import pytest

from grader.cli import main

ROSTER = "id,section\nada,A\nbob,B\ncy,C\ndee,C\neve,\n"


@pytest.fixture
def course(tmp_path):
    (tmp_path / "course-data").mkdir()
    (tmp_path / "course-data" / "roster.csv").write_text(ROSTER)
    return tmp_path


def config(course, *lines):
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.submitted_directory = 'course-data/submitted'\n"
        + "".join(line + "\n" for line in lines))
    return str(course)


def test_check_config_names_the_sections_no_grader_holds(course, capsys):
    assert main(["check-config", "--course", config(
        course, 'c.GradingPage.graders = ["ta1", "ta2"]', 'c.GradingPage.split = "section"',
        'c.GradingPage.grader_sections = {"ta1": ["A"], "ta3": ["B"]}')]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: nbgrader_config.py: c.GradingPage.grader_sections names ta3, not in "
        "c.GradingPage.graders",
        "nbgrader_config.py: c.GradingPage.grader_sections: no grader holds these sections of "
        "the roster (course-data/roster.csv), so their students would have no grader: B (1 "
        "student), C (2 students), no section (1 student)"]


def test_check_config_passes_sections_every_student_has_a_grader_of(course, capsys):
    (course / "course-data" / "roster.csv").write_text("id,section\nada,A\nbob,B\n")
    assert main(["check-config", "--course", config(
        course, 'c.GradingPage.split = "section"',
        'c.GradingPage.grader_sections = {"ta1": ["A"], "ta2": ["A", "B"]}')]) == 0
    assert capsys.readouterr().err == ""


def test_check_config_names_a_split_as_previously_without_its_assignment(course, capsys):
    assert main(["check-config", "--course", config(
        course, 'c.GradingPage.split = "previous"')]) == 2
    assert capsys.readouterr().err == (
        "error: nbgrader_config.py: c.GradingPage.split is 'previous' but "
        "c.GradingPage.previous_assignment names no assignment\n")


def test_check_config_says_nothing_of_a_grading_page_not_set(course, capsys):
    assert main(["check-config", "--course", config(course)]) == 0
    assert capsys.readouterr().err == ""

"""Which feedback goes back through nbgrader's exchange (grader.handback.exchange): the students
with a feedback page, those who handed in through the exchange, and the lines said of the rest."""

import os

from grader.handback import release_feedback
from grader.handback.exchange import EXCHANGE_FILES, came_through_exchange, feedback_folders
from testsupport.course import plain_settings


def feedback_page(settings, student, assignment, *exchange_files, page="parameters.html"):
    folder = os.path.join(settings.feedback, student, assignment)
    os.makedirs(folder, exist_ok=True)
    for name in (page, *exchange_files):
        if name:
            with open(os.path.join(folder, name), "w") as handle:
                handle.write("x")
    return folder


def test_the_students_with_a_feedback_page_of_the_assignment_are_found(tmp_path):
    settings = plain_settings(str(tmp_path))
    assert feedback_folders(settings, "hw") == {}  # no feedback/ folder yet
    ada = feedback_page(settings, "ada", "hw")
    feedback_page(settings, "bob", "hw", page=None)  # a folder without a page
    feedback_page(settings, "cy", "other")
    star = feedback_page(settings, "d*e", "hw")  # a name glob would read as a pattern
    assert feedback_folders(settings, "hw") == {"ada": ada, "d*e": star}


def test_a_student_came_through_the_exchange_only_with_both_of_its_files(tmp_path):
    settings = plain_settings(str(tmp_path))
    assert EXCHANGE_FILES == ("timestamp.txt", "submission_secret.txt")
    assert came_through_exchange(feedback_page(settings, "ada", "hw", *EXCHANGE_FILES))
    assert not came_through_exchange(feedback_page(settings, "bob", "hw", "timestamp.txt"))
    assert not came_through_exchange(feedback_page(settings, "cy", "hw"))


def test_without_a_feedback_page_or_an_exchange_student_nothing_is_released(tmp_path,
                                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = plain_settings(str(tmp_path))
    assert release_feedback(settings, "hw") == [
        "hw: no feedback pages in course-data/feedback/*/hw/ (run make feedback first)"]
    feedback_page(settings, "bob", "hw", "timestamp.txt")
    assert release_feedback(settings, "hw") == [
        "hw: bob did not hand in through the exchange (no submission_secret.txt): give the "
        "feedback another way (make feedback-zip for an LMS): course-data/feedback/bob/hw/",
        "hw: nothing to release through the exchange"]

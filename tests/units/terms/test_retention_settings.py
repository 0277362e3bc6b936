"""The grace period is a setting of the course, and the folders a purge removes are the
students' files only: the queue's bytes where the grading service keeps them."""

import os

from traitlets.config import Config

from grader.service import course_store
from grader.settings import TermRetention
from grader.settings.course import Settings
from grader.settings.limits import Limits
from grader.terms import purged_folders


def test_the_grace_period_is_half_a_year_unless_set():
    assert TermRetention().grace_days == 180
    config = Config()
    config.TermRetention.grace_days = 30
    assert TermRetention(config=config).grace_days == 30


def test_a_purge_removes_the_queues_bytes_where_the_service_keeps_them(tmp_path):
    data = tmp_path / "course-data"
    settings = Settings(root=str(tmp_path), course_id="c", source=str(tmp_path / "source"),
                        submitted=str(data / "submitted"), autograded=str(data / "autograded"),
                        feedback=str(data / "feedback"), reports=str(data / "reports"),
                        db_url="sqlite:///" + str(data / "gradebook.db"), limits=Limits(timeout=3),
                        package="gptcourse", similarity_threshold=0.6,
                        similarity_common_fraction=0.2)
    folders = purged_folders(settings)
    assert course_store(str(data)).blobs in folders
    assert {os.path.relpath(f, data) for f in folders} == {
        "submitted", "autograded", "feedback", os.path.join("service", "blobs"), "exchange",
        "students", "student-work", "lms"}
    assert not {"reports", "gradebook.db", "service"} & {os.path.relpath(f, data)
                                                         for f in folders}

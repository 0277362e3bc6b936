"""The staff's grading page served in a thread of this process, on 127.0.0.1 and a free
port, for tests and benchmarks that drive it over HTTP or in Chromium."""

from testsupport.threaded_server import serving


def served(course, tokens):
    """The page of `course` (its settings) signed in by `tokens` ({grader: token}), as a
    context manager: yields its address, and stops it after."""
    from grader.grading_page.app import make_app
    from grader.grading_page.staff import StaffSplit

    return serving(lambda: make_app(course, StaffSplit(course), tokens), "the grading page")

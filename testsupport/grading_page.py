"""The staff's grading page served in a thread of this process, on 127.0.0.1 and a free
port, for tests and benchmarks that drive it over HTTP or in Chromium."""

from testsupport.threaded_server import serving


def served(course, tokens):
    """The page of `course` (its settings) signed in by `tokens` ({grader: token}), as a
    context manager: yields its address, and stops it after."""
    from grader.grading_page.app import make_app
    from grader.grading_page.staff import StaffSplit

    return serving(lambda: make_app(course, StaffSplit(course), tokens), "the grading page")


def groups_in_chromium(tab, page, assignment, view="all"):
    """Each group of `assignment`'s question on the page at `page`, as the Chromium `tab`
    opens it in turn: yields the list of its answers' articles (Playwright locators)."""
    tab.goto(f"{page}/q/{assignment}?view={view}")
    for href in [a.get_attribute("href") for a in tab.locator("nav a").all()]:
        tab.goto(f"{page}/q/{href}")
        yield tab.locator("article[data-student]").all()

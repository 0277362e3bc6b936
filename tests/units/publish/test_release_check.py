"""The released notebooks' install line against the wheel a bundle holds
(grader.publish.release_check.install_line_problems): each mismatch named, with why."""

import os

import pytest

from grader.publish.release_check import install_line_problems
from grader.settings import load
from grader.settings.course_wheel import CourseWheel
from testsupport.course import assignments, copy_course, notebook_file

WHEEL = CourseWheel("/built/gptcourse-1.0.0-py3-none-any.whl", "a" * 64, "gptcourse", "1.0.0")
SITE = "https://uni-ml.github.io/gptcourse"
LINE = f"gptcourse @ {SITE}/packages/gptcourse-1.0.0-py3-none-any.whl#sha256={'a' * 64}"
OLD_HASH = LINE.replace("a" * 64, "b" * 64)


def course(tmp_path, site, line):
    """A copy of the course with c.CourseSite.url `site` and every released notebook's
    COURSE_PACKAGE written as the literal `line`."""
    root = copy_course(str(tmp_path / "course"))
    with open(os.path.join(root, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(f"c.CourseSite.url = {site!r}\n")
    for assignment in assignments(root):
        path = notebook_file("exercises", assignment, root)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text.replace('"COURSE_PACKAGE = None ',
                                      '"COURSE_PACKAGE = ' + line.replace('"', '\\"') + " "))
    return load(root)


@pytest.mark.parametrize("site, line, why", [
    ("", "None", None),
    (SITE, f'"{LINE}"', None),
    (SITE, "None", f"but c.CourseSite.url is set: the line is \"{LINE}\""),
    ("", f'"{LINE}"', "but c.CourseSite.url is empty"),
    (SITE, f'"{OLD_HASH}"', f"a wheel whose sha256 is not the one built now ({'a' * 64}): the "
                            "course package changed since the release"),
    (SITE, f'"{LINE.replace("uni-ml", "old-term")}"', f'but the wheel on the site is "{LINE}"'),
], ids=["no site, no line", "the wheel's line", "a site but no line", "a line but no site",
        "another hash", "another site"])
def test_each_released_notebook_whose_line_is_not_the_wheels_is_named(tmp_path, site, line, why):
    settings = course(tmp_path, site, line)
    expected = [] if why is None else [
        f"{os.path.relpath(notebook_file('exercises', a, settings.root), settings.root)}: "
        f"COURSE_PACKAGE = {line}, {why}" for a in sorted(assignments(settings.root))]
    assert install_line_problems(settings, WHEEL) == expected

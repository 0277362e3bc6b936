"""Next term's course is made of this course's own content only (an allow-list), with a
course id of its own: never this term's state, and never this term's id on this term's
exchange."""

import os
import subprocess

import pytest

from grader.settings import CourseError, load
from grader.terms import carried_files, next_course_id
from grader.terms.new_term import check_exchange_apart, rewritten_config
from testsupport.term_state import TERM_STATE, plant

CONTENT = ["nbgrader_config.py", "Makefile", "README.md", ".gitignore", "book/intro.md",
           "src/tinypackage/__init__.py", "docs/terms.md", "source/tiny/tiny.ipynb",
           "release/tiny/tiny.ipynb", "rubrics/tiny.yaml"]
CONFIG = '''import os
c = get_config()
ROOT = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "{course_id}"
c.CourseDirectory.root = ROOT
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "course-data/submitted"
c.StudentVariants.salt = "2026-fall"
'''


def course(folder, *lines, course_id="tinycourse"):
    """A course folder: its nbgrader_config.py with `lines` added, and `CONTENT`."""
    os.makedirs(folder, exist_ok=True)
    for name in CONTENT[1:]:
        os.makedirs(os.path.join(folder, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(folder, name), "w") as handle:
            handle.write(f"{name} of the course\n")
    with open(os.path.join(folder, "nbgrader_config.py"), "w") as handle:
        handle.write(CONFIG.format(course_id=course_id) + "".join(f"{line}\n" for line in lines))
    return str(folder)


@pytest.mark.parametrize("in_git", [False, True], ids=["a plain folder", "a git work tree"])
def test_a_file_of_every_kind_a_term_leaves_stays_behind(tmp_path, in_git):
    # the reports inside docs/, a folder the allow-list carries: still not carried
    root = course(tmp_path / "course", 'c.Reports.directory = os.path.join(ROOT, "docs", '
                                       '"reports")')
    plant(root)
    for name in ("docs/reports/summary.txt", "docs/reports/defense-tiny/alice.html",
                 "notes-of-this-term.txt", ".venv/lib/site.py",
                 "src/tinypackage/__pycache__/x.pyc"):
        os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
        open(os.path.join(root, name), "w").write("alice's\n")
    if in_git:  # solutions-released.csv is committed, as publishing.md says to
        open(os.path.join(root, ".gitignore"), "w").write(
            "course-data/\n.venv/\n__pycache__/\n_publish/\nterm-archives/\nextensions.csv\n")
        subprocess.run(["git", "init", "-q", root], check=True)
        subprocess.run(["git", "-C", root, "add", "-A"], check=True)
    carried, left = carried_files(load(root))
    assert carried == sorted(CONTENT)
    assert left == ["course-data/", "extensions.csv", "gradebook-url.txt",
                    "notes-of-this-term.txt", "regrade-requests.csv", "solutions-released.csv"]
    assert not set(carried) & set(TERM_STATE.values())


def test_the_allow_list_is_a_setting_of_top_level_names(tmp_path):
    root = course(tmp_path / "course", 'c.TermCarryOver.carried = ["book", "READ*"]')
    assert load(root).warnings == []  # a setting nbgrader_config.py's check knows
    carried, left = carried_files(load(root))
    assert carried == sorted(["nbgrader_config.py", "book/intro.md", "README.md",
                              "source/tiny/tiny.ipynb", "release/tiny/tiny.ipynb",
                              "rubrics/tiny.yaml"])
    assert left == [".gitignore", "Makefile", "docs/", "src/"]
    bad = course(tmp_path / "bad", 'c.TermCarryOver.carried = ["docs/reports"]')
    with pytest.raises(CourseError, match="lists 'docs/reports': each entry is a name"):
        carried_files(load(bad))


@pytest.mark.parametrize("course_id, given, expected", [
    ("gptcourse-2026-fall", "", "gptcourse-2027-spring"),  # the term replaced
    ("ml101_fall2026", "", "ml101_2027-spring"),
    ("gptcourse-2026-fall-x", "", "gptcourse-2027-spring-x"),
    ("gptcourse", "", "gptcourse-2027-spring"),  # names no term: the term added
    ("gptcourse", "gpt-spring", "gpt-spring"),  # given
])
def test_next_terms_course_id_is_its_own(course_id, given, expected):
    assert next_course_id(course_id, "", "2027-spring", given) == expected


def test_the_term_is_found_in_the_id_by_this_terms_salt():
    assert next_course_id("ml101-t1", "t1", "t2") == "ml101-t2"


def test_a_course_id_nbgrader_cannot_use_is_refused():
    with pytest.raises(CourseError, match="COURSE_ID 'a/b' is not a course id"):
        next_course_id("gptcourse", "", "2027-spring", "a/b")


def test_the_config_gets_the_new_salt_and_course_id():
    text = rewritten_config('c = get_config()\nc.CourseDirectory.course_id = "gptcourse"\n'
                            'c.StudentVariants.salt = "2026-fall"\n', "2027-spring-0a1b2c3d",
                            "gptcourse-2027-spring")
    assert text == ("c = get_config()\nc.CourseDirectory.course_id = 'gptcourse-2027-spring'\n"
                    "c.StudentVariants.salt = '2027-spring-0a1b2c3d'\n")


def test_a_config_without_them_as_plain_strings_gets_them_at_the_end():
    text = rewritten_config('c = get_config()\nc.CourseDirectory.course_id = NAME\n',
                            "2027-spring-00ff00ff", "x-2027-spring")
    assert text.endswith("c.StudentVariants.salt = '2027-spring-00ff00ff'\n\n# this term's "
                         "(make new-term)\nc.CourseDirectory.course_id = 'x-2027-spring'\n")


SHARED = 'c.Exchange.root = "/srv/nbgrader/exchange"'
OWN = 'c.Exchange.root = os.path.join(ROOT, "course-data", "exchange")'


@pytest.mark.parametrize("this_line, next_line, kept_id, refused", [
    (SHARED, SHARED, True, True),  # the hub's exchange, the same id: last term's hand-ins
    ("", "", True, True),  # the machine's exchange (set in no course's file)
    (OWN, "", True, True),  # next term's on the machine's
    (SHARED, SHARED, False, False),  # the same exchange, an id of its own
    (OWN, OWN, True, False),  # each course its own exchange folder
])
def test_this_terms_id_on_this_terms_exchange_is_refused(tmp_path, this_line, next_line,
                                                         kept_id, refused):
    this = load(course(tmp_path / "this", this_line))
    new = load(course(tmp_path / "next", next_line,
                      course_id="tinycourse" if kept_id else "tinycourse-2027-spring"))
    if not refused:
        check_exchange_apart(this, new)
        return
    with pytest.raises(CourseError) as error:
        check_exchange_apart(this, new)
    where = "/srv/nbgrader/exchange" if next_line else "the machine's exchange"
    assert str(error.value).startswith(f"the new course would keep the course id 'tinycourse' "
                                       f"on this term's exchange, {where}")
    assert "would take this term's hand-ins from tinycourse/inbound" in str(error.value)

"""Does each LMS's class say what its LMS means (the late flag, the roster match, where the
feedback goes back), is an unknown LMS refused naming the known ones, and does no module
of the grader outside lms/ name an LMS?"""

import ast
import datetime
import pathlib
import re
from dataclasses import dataclass

import pytest

import grader
from grader.cli import build_parser
from grader.lms import (DEFAULT_PLATFORM, PLATFORMS, LmsFileName, Platform, UnknownPlatform,
                        known_platforms, platform)

DUE = datetime.datetime(2026, 1, 15, 12, 0, 0)
BEFORE, AFTER = DUE - datetime.timedelta(hours=1), DUE + datetime.timedelta(hours=1)
CANVAS_ON_TIME = "doejane_12345_67890_parameters.ipynb"
CANVAS_LATE = "doejane_late_12345_67891_parameters-1.ipynb"
MOODLE = "Jane Doe_2041633_assignsubmission_file_parameters.ipynb"


@dataclass
class Student:
    id: str
    first_name: str = ""
    last_name: str = ""
    section: str = ""
    lms_user_id: str = ""

    @property
    def name(self) -> str:
        return f"{self.last_name}, {self.first_name}"


def test_every_lms_is_a_platform_under_its_own_name_and_canvas_is_the_default():
    assert list(PLATFORMS) == ["canvas", "moodle"]
    assert all(isinstance(p, Platform) and PLATFORMS[p.name] is p for p in PLATFORMS.values())
    assert DEFAULT_PLATFORM == "canvas"


class Blackboard(Platform):
    """An LMS added for the test: one class."""

    name, title = "blackboard", "Blackboard"
    pattern = re.compile(r"^(?P<name>[^_/]+)_(?P<lms_user_id>[0-9]+)_(?P<file_name>[^/]+)$")
    layout, matched_by = "{name}_{user id}_{file name}", "lms_user_id"
    upload_page, upload_action = "the assignment", "Upload feedback"

    def roster_key(self, person: Student) -> str:
        return person.lms_user_id

    def file_key(self, name: LmsFileName) -> str:
        return name.lms_user_id

    def who(self, name: LmsFileName) -> str:
        return f"Blackboard user {name.lms_user_id}"


def test_adding_an_lms_is_adding_its_class(monkeypatch):
    monkeypatch.setitem(PLATFORMS, Blackboard.name, Blackboard())
    assert known_platforms() == "canvas, moodle or blackboard"
    args = build_parser().parse_args(["collect-zip", "tiny", "d.zip", "--lms", "blackboard"])
    name = platform(args.lms).read_name("doe_7_parameters.ipynb")
    assert (name.lms, name.lms_user_id, name.file_name) == ("blackboard", "7", "parameters.ipynb")
    assert build_parser().parse_args(["collect-zip", "tiny", "d.zip"]).lms == DEFAULT_PLATFORM


def test_an_unknown_lms_is_refused_naming_the_known_ones():
    with pytest.raises(UnknownPlatform, match=r"^LMS='blackboard': the LMS is canvas or moodle$"):
        platform("blackboard")


@pytest.mark.parametrize("entry, moment, time, note", [
    (CANVAS_ON_TIME, BEFORE, BEFORE, None),
    (CANVAS_LATE, AFTER, AFTER, None),
    (CANVAS_LATE, BEFORE, DUE + datetime.timedelta(seconds=1), "Canvas flags it late but"),
    (CANVAS_ON_TIME, AFTER, DUE, "Canvas counts it on time (an extension in Canvas?)"),
], ids=["on time", "late", "flagged late, dated before", "not flagged, dated after"])
def test_canvas_late_flag_decides_against_the_zip_time(entry, moment, time, note):
    canvas = platform("canvas")
    name = canvas.read_name(entry)
    handed_in, line = canvas.handed_in_at(name, moment, DUE)
    assert handed_in == time and (line is None if note is None else note in line)
    assert canvas.is_late(name, handed_in, DUE) == name.late
    assert canvas.handed_in_at(name, moment, None) == (moment, None)


def test_moodle_has_no_late_flag_the_time_decides():
    moodle = platform("moodle")
    name = moodle.read_name(MOODLE)
    assert moodle.handed_in_at(name, AFTER, DUE) == (AFTER, None)
    assert [moodle.is_late(name, t, DUE) for t in (BEFORE, AFTER)] == [False, True]
    assert moodle.is_late(name, AFTER, None) is False


def test_canvas_matches_the_user_id_and_moodle_the_full_name():
    jane = Student("jane", "Jane", "Doe", lms_user_id="12345")
    canvas, moodle = platform("canvas"), platform("moodle")
    assert canvas.roster_key(jane) == canvas.file_key(canvas.read_name(CANVAS_ON_TIME))
    assert moodle.roster_key(jane) == moodle.file_key(moodle.read_name(MOODLE))
    blind = moodle.read_name("Participant 7_7_assignsubmission_file_parameters.ipynb")
    assert "blind marking" in moodle.unmatchable(blind)
    assert canvas.unmatchable(canvas.read_name(CANVAS_ON_TIME)) is None


@pytest.mark.parametrize("lms, entry, page", [
    ("canvas", CANVAS_LATE, "doejane_late_12345_67891_parameters.html"),
    ("moodle", "Jane Doe_2041633_assignsubmission_file_/parameters-1.ipynb",
     "Jane Doe_2041633_assignsubmission_file_/parameters.html"),
])
def test_a_feedback_page_keeps_the_front_of_the_download_name(lms, entry, page):
    lms = platform(lms)
    assert lms.feedback_name(lms.read_name(entry), "parameters.ipynb") == page


def test_the_upload_instructions_are_the_lms_own_words():
    assert platform("canvas").upload_how == "Canvas: the assignment's page, Re-upload submissions"
    assert platform("moodle").upload_how == ("Moodle: the assignment's View all submissions, "
                                             "Upload multiple feedback files in a zip")


def test_only_canvas_has_a_gradebook_csv():
    assert platform("canvas").gradebook.columns == [
        "Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert platform("moodle").gradebook is None


# --- no LMS named outside lms/ ---------------------------------------------------------

PACKAGE = pathlib.Path(grader.__file__).parent
LMS_WORDS = re.compile("|".join(re.escape(p.name) for p in PLATFORMS.values()), re.IGNORECASE)


GRADER_NAME = re.compile(r"grader(\.\w+)+")  # a dotted name of the grader's own code


def code_names(tree: ast.AST) -> set[int]:
    """The ids of the strings of `tree` that name code, not an LMS to a person: a dotted name
    of the grader's own (a plugin's class) and the entries of ``__all__``."""
    found = {id(node) for node in ast.walk(tree) if isinstance(node, ast.Constant)
             and isinstance(node.value, str) and GRADER_NAME.fullmatch(node.value)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                for t in node.targets):
            found |= {id(entry) for entry in ast.walk(node.value)}
    return found


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of `tree`: prose, which may name an LMS."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_no_module_outside_lms_names_an_lms_in_a_string():
    """A string literal of the grader's code (f-strings' parts included) that holds an LMS's
    name, in any case, belongs in the LMS's class; docstrings and comments may name one, and
    so may a dotted name of the grader's code or a name ``__all__`` exports."""
    named = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "lms":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prose = docstrings(tree) | code_names(tree)
        named += [f"{path.relative_to(PACKAGE)}, line {node.lineno}: {node.value!r}"
                  for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in prose and LMS_WORDS.search(node.value)]
    assert named == []

"""The split kept: course-data/grading-page/<assignment>.json, who grades whom, sticky.

Once a student is placed with a grader, that stays until someone who may reassign moves
them: a change of ``c.GradingPage`` or of the class places only the students not yet placed
(by the split the settings say now, with the seed the record keeps). The record holds
``graders`` ({student: grader}), the ``seed`` and ``history``, each placing and each move
with who made it and when. It is read and written under a lock, whole (write_atomically);
a record that cannot be read is a CourseError that names it, and it is left as it is.
"""

import datetime
import enum
import fcntl
import json
import os
import secrets
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..files import write_atomically
from ..safe_text import shown_id
from ..settings import CourseError, GradingPage
from .split import assign_graders, may_reassign

FOLDER = "grading-page"  # under the course's data folder (Settings.data)


def split_record_path(data: str, assignment: str) -> str:
    """course-data/grading-page/<assignment>.json, `data` being the course's data folder."""
    if not assignment or assignment.startswith(".") or os.path.basename(assignment) != assignment:
        raise CourseError(f"{assignment!r} is no assignment name")
    return os.path.join(data, FOLDER, f"{assignment}.json")


@contextmanager
def _locked(path: str) -> Iterator[None]:
    """One reader-writer of the record at `path` at a time (two staff moving students at once)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def read_split_record(path: str) -> dict[str, Any] | None:
    """The record at `path`, or None when there is none yet; CourseError naming it when it
    cannot be read or is not a record of graders."""
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError) as error:
        raise CourseError(f"{path}: cannot be read ({error}); it holds who grades whom: mend "
                          f"it or move it away") from None
    graders = record.get("graders") if isinstance(record, dict) else None
    if (not isinstance(graders, dict) or not isinstance(record.get("seed"), str)
            or not isinstance(record.get("history", []), list)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in graders.items())):
        raise CourseError(f"{path}: not a record of graders (graders: {{student: grader}}, a "
                          f"seed, a history): mend it or move it away")
    return record


def _write(path: str, record: dict[str, Any]) -> None:
    write_atomically(path, json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True))


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _staff(page: GradingPage, graders: Sequence[str] | None) -> list[str]:
    """The graders: those the caller resolved (the hub's instructors group), else the settings'."""
    return list(page.graders if graders is None else graders)


def graders_for(data: str, assignment: str, students: Iterable[str], page: GradingPage, *,
                graders: Sequence[str] | None = None,
                sections: Mapping[str, str] | None = None) -> dict[str, str]:
    """{student: grader} of `assignment`: the kept split, with the students of `students` not
    in it yet placed by the settings' split and recorded; nobody placed before moves.

    `graders` are the staff when the settings list none (the hub's instructors group);
    `sections` is {student: the roster's section}, for the split by section. The split
    "previous" reads the record of ``c.GradingPage.previous_assignment``.
    """
    path = split_record_path(data, assignment)
    problems = page.problems()
    if problems:
        raise CourseError("; ".join(problems))
    with _locked(path):
        record = read_split_record(path) or {"assignment": assignment, "graders": {},
                                             "seed": page.seed or secrets.token_hex(8),
                                             "history": []}
        kept = dict(record["graders"])
        new = [student for student in dict.fromkeys(students) if student not in kept]
        if not new:
            return kept
        previous = None
        if page.split == "previous":
            other = split_record_path(data, page.previous_assignment)
            earlier = read_split_record(other)
            if earlier is None:
                raise CourseError(f"c.GradingPage.previous_assignment is "
                                  f"{page.previous_assignment!r}, which has no record of its "
                                  f"graders ({other}): share that assignment out first, or "
                                  f"choose another split")
            previous = earlier["graders"]
        split = assign_graders(new, _staff(page, graders), page.split, seed=record["seed"],
                               sections=sections, grader_sections=page.grader_sections,
                               previous=previous, kept=kept)
        record["graders"] = split
        record.setdefault("history", []).append(
            {"at": _now(), "placed": {s: split[s] for s in new}, "split": page.split})
        _write(path, record)
        return split


class ReassignStatus(enum.Enum):
    MOVED = "moved"  # the students are now the grader's, recorded
    UNCHANGED = "unchanged"  # they were the grader's already; nothing recorded
    REFUSED = "refused"  # nothing changed; `sentence` says why


@dataclass(frozen=True)
class Reassignment:
    """What a move of students to another grader did: for each student moved, the grader
    they had."""

    status: ReassignStatus
    moved: dict[str, str] = field(default_factory=dict)
    sentence: str = ""


def reassign(data: str, assignment: str, students: Collection[str], to_grader: str, by: str,
             page: GradingPage, *, graders: Sequence[str] | None = None) -> Reassignment:
    """`students` of `assignment` given to `to_grader` by `by`, recorded with who and when.

    Refused, with nothing changed, when `by` may not reassign, `to_grader` is no grader, or a
    student is not in the split."""
    staff = _staff(page, graders)
    if not may_reassign(by, staff, page):
        who = ", ".join(shown_id(name) for name in page.instructors) or "the graders"
        return Reassignment(ReassignStatus.REFUSED, sentence=f"{shown_id(by)} may not move "
                            f"students between graders; {who} may")
    if to_grader not in staff:
        return Reassignment(ReassignStatus.REFUSED,
                            sentence=f"{shown_id(to_grader)} is no grader of this course")
    if not students:
        return Reassignment(ReassignStatus.REFUSED, sentence="no student given to move")
    path = split_record_path(data, assignment)
    with _locked(path):
        record = read_split_record(path)
        split = record["graders"] if record else {}
        strangers = sorted(s for s in students if s not in split)
        if strangers:
            return Reassignment(ReassignStatus.REFUSED, sentence=(
                f"{', '.join(shown_id(s) for s in strangers)}: not in the split of "
                f"{shown_id(assignment)}; nobody grades them yet"))
        moved = {s: split[s] for s in sorted(students) if split[s] != to_grader}
        if not moved:
            return Reassignment(ReassignStatus.UNCHANGED)
        split.update(dict.fromkeys(moved, to_grader))
        record.setdefault("history", []).append({"at": _now(), "by": by, "to": to_grader,
                                                 "moved": moved})
        _write(path, record)
        return Reassignment(ReassignStatus.MOVED, moved)

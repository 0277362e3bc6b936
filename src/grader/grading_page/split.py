"""Who grades whom: the class shared among the graders, and what each may score.

The students are shared out in one of three ways (``c.GradingPage.split``):

- ``random``: each student placed by the digest of the seed and their id, then dealt in turn
  to the graders, so two graders' shares differ by at most one and the same seed gives the
  same split;
- ``section``: by the roster's section, each section's students dealt in turn among the
  graders who hold it (``c.GradingPage.grader_sections``);
- ``previous``: each student with the grader they had for another assignment, the students
  that assignment did not have dealt onto the least loaded graders.

Students already placed (`kept`, the assignment's record) keep their grader: only the others
are placed, each onto the least loaded grader, so a student added later moves nobody.
Pure functions of their arguments; the record is split_record.py's.
"""

import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..safe_text import shown_id
from ..settings import SPLITS, CourseError, GradingPage

NO_SECTION = ""  # a student the roster gives no section
SHOWN_AT_MOST = 20  # students named in a sentence; the rest counted


def placing_digest(seed: str, student: str) -> str:
    """The key that orders the students to place: the digest of the seed and the id, so one
    student's place in the order depends on nobody else."""
    return hashlib.sha256(f"{seed}\0{student}".encode()).hexdigest()


def _dealt(students: Iterable[str], graders: Sequence[str], seed: str,
           loads: dict[str, int]) -> dict[str, str]:
    """`students` in digest order, each to the least loaded of `graders` (ties: the first
    listed), `loads` counted on."""
    placed = {}
    for student in sorted(students, key=lambda s: placing_digest(seed, s)):
        grader = min(graders, key=lambda g: (loads.get(g, 0), graders.index(g)))
        placed[student] = grader
        loads[grader] = loads.get(grader, 0) + 1
    return placed


def assign_graders(students: Iterable[str], graders: Sequence[str], how: str, *, seed: str,
                   sections: Mapping[str, str] | None = None,
                   grader_sections: Mapping[str, Sequence[str]] | None = None,
                   previous: Mapping[str, str] | None = None,
                   kept: Mapping[str, str] | None = None) -> dict[str, str]:
    """{student: grader} for `students` and those of `kept`, which keep their grader.

    `how` is one of SPLITS; `sections` is {student: the roster's section} and
    `grader_sections` {grader: [section]} (for "section"); `previous` is {student: grader} of
    another assignment (for "previous"). CourseError for no graders, an unknown split, or
    (section) students whose section no grader holds, listed.
    """
    graders = list(dict.fromkeys(graders))
    if not graders:
        raise CourseError("no graders: set c.GradingPage.graders, or put the staff in the "
                          "hub's instructors group")
    if how not in SPLITS:
        raise CourseError(f"c.GradingPage.split is {how!r}: it is one of {', '.join(SPLITS)}")
    kept = dict(kept or {})
    todo = [student for student in dict.fromkeys(students) if student not in kept]
    loads = {grader: 0 for grader in graders}
    for grader in kept.values():
        if grader in loads:
            loads[grader] += 1
    if how == "section":
        placed = _by_section(todo, graders, seed, sections or {}, grader_sections or {}, kept)
    elif how == "previous":
        previous = previous or {}
        placed = {s: previous[s] for s in todo if previous.get(s) in loads}
        for grader in placed.values():
            loads[grader] += 1
        placed |= _dealt([s for s in todo if s not in placed], graders, seed, loads)
    else:
        placed = _dealt(todo, graders, seed, loads)
    return kept | placed


def _by_section(students: Sequence[str], graders: Sequence[str], seed: str,
                sections: Mapping[str, str], grader_sections: Mapping[str, Sequence[str]],
                kept: Mapping[str, str]) -> dict[str, str]:
    """Each section's students dealt among its graders, balanced within the section."""
    holders: dict[str, list[str]] = {}
    for grader in graders:
        for section in grader_sections.get(grader, ()):
            holders.setdefault(section, []).append(grader)
    # A student whose section no grader holds is an error, not dealt to anyone: the split by
    # section is chosen so that each grader grades the students they teach, and a section
    # missing from grader_sections (or a student the roster has no section for) is a mistake
    # of the roster or the settings that an arbitrary grader would hide.
    unheld = [s for s in students if sections.get(s, NO_SECTION) not in holders]
    if unheld:
        shown = ", ".join(f"{shown_id(s)} ({shown_id(sections.get(s, NO_SECTION)) or 'none'})"
                          for s in sorted(unheld)[:SHOWN_AT_MOST])
        if len(unheld) > SHOWN_AT_MOST:
            shown += f" and {len(unheld) - SHOWN_AT_MOST} more"
        raise CourseError(f"no grader holds the section of {len(unheld)} student(s): {shown}; "
                          f"give the section to a grader in c.GradingPage.grader_sections, or "
                          f"the student a section in the roster")
    placed: dict[str, str] = {}
    for section, its_graders in sorted(holders.items()):
        loads = {grader: 0 for grader in its_graders}
        for student, grader in kept.items():
            if sections.get(student) == section and grader in loads:
                loads[grader] += 1
        placed |= _dealt([s for s in students if sections.get(s) == section], its_graders,
                         seed, loads)
    return placed


def may_score(grader: str, student: str, split: Mapping[str, str],
              page: GradingPage) -> str | None:
    """None when `grader` may score `student` under `split`, else the sentence why not.

    A split that is not strict lets every grader score anyone; an instructor listed in
    ``c.GradingPage.instructors`` scores anyone."""
    if not page.strict or grader in page.instructors:
        return None
    owner = split.get(student)
    if owner == grader:
        return None
    ask = ("ask an instructor to reassign" if page.instructors
           else f"reassign {shown_id(student)} first")
    if owner is None:
        return f"{shown_id(student)} has no grader yet, so not {shown_id(grader)}; {ask}"
    return f"{shown_id(owner)} grades {shown_id(student)}, not {shown_id(grader)}; {ask}"


def may_reassign(by: str, graders: Collection[str], page: GradingPage) -> bool:
    """Whether `by` may move students between graders: an instructor listed, or, when none
    is, every grader."""
    return by in page.instructors if page.instructors else by in graders


@dataclass(frozen=True)
class GraderProgress:
    """One grader's students of one assignment: those graded and those left."""

    grader: str
    graded: tuple[str, ...]
    left: tuple[str, ...]

    @property
    def total(self) -> int:
        return len(self.graded) + len(self.left)


@dataclass(frozen=True)
class Progress:
    """What is left of one assignment's explain answers, per grader and in all."""

    graders: tuple[GraderProgress, ...]

    @property
    def graded(self) -> int:
        return sum(len(one.graded) for one in self.graders)

    @property
    def left(self) -> int:
        return sum(len(one.left) for one in self.graders)

    @property
    def total(self) -> int:
        return self.graded + self.left


def progress(split: Mapping[str, str], graded: Collection[str]) -> Progress:
    """Per grader of `split` (in name order) their students graded (in `graded`) and left."""
    mine: dict[str, list[str]] = {}
    for student, grader in split.items():
        mine.setdefault(grader, []).append(student)
    return Progress(tuple(
        GraderProgress(grader, tuple(sorted(s for s in students if s in graded)),
                       tuple(sorted(s for s in students if s not in graded)))
        for grader, students in sorted(mine.items())))

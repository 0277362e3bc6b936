"""One explain question as the grading page shows it: every submitted answer with its
student's own values, the answers in groups, the integrity flags, and the marks.

The students' values and answers are read once and kept (values depend only on the
student and the course's salt; an answer is read again when its notebook changes), so
a page of 300 answers costs the grouping, not 300 models built again.
"""

import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from nbgrader.api import Gradebook, MissingEntry

from ..explain import (ExplainCell, declaration_of, explain_cell, student_answer,
                       student_values)
from ..rubric import Rubric, rubric_path
from ..settings import CourseError, Settings
from .grouping import (ExplainAnswer, Flag, Group, group_answers, integrity_flags, normalise,
                       shown_term)

MAX_GROUPED_CHARS = 20_000  # of one answer, read by the grouping (a 10 MB answer is no essay)


@dataclass
class Question:
    """An assignment's explain question: its cell, and per student their answer (as
    handed in; "" when there is none), own values, group and flags."""

    cell: ExplainCell
    answers: dict[str, str] = field(default_factory=dict)
    values: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)
    flags: dict[str, list[Flag]] = field(default_factory=dict)
    declarations: dict[str, str | None] = field(default_factory=dict)  # AI use, as declared
    suggested: dict[str, set[str]] = field(default_factory=dict)  # items the rubric suggests

    @property
    def students(self) -> list[str]:
        return sorted(self.answers)

    def group(self, key: str) -> Group | None:
        return next((g for g in self.groups if g.key == key), None)

    def group_of(self, student: str) -> Group | None:
        return next((g for g in self.groups if student in g.students), None)


def suggested_items(rubric: Rubric, text: str, values: dict[str, Any]) -> set[str]:
    """The keys of the items whose `suggest` patterns match the answer as the page reads it
    (each of the student's own numbers as ``{name}``): suggestions, never applied."""
    read = shown_term(normalise(text, values))
    return {item.key for item in rubric.items
            if any(re.search(pattern, read, re.IGNORECASE) for pattern in item.suggest)}


def submitted_students(settings: Settings, assignment: str) -> list[str]:
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            # the column, not the relationship: one query, not one a student
            return sorted(s.student_id for s in gb.assignment_submissions(assignment))
        except MissingEntry:
            return []


def _sources_time(settings: Settings, assignment: str) -> tuple[float, ...]:
    """When the files an explain question is read from last changed: its instructor
    notebooks and its rubric (a change of either is read again at the next request)."""
    paths = [*settings.instructor_notebooks(assignment).values(),
             rubric_path(settings.root, assignment)]
    return tuple(os.stat(path).st_mtime if os.path.exists(path) else -1.0 for path in paths)


class Questions:
    """The questions of a course, each read when first asked for and kept up to date."""

    def __init__(self, settings: Settings, public: tuple[float, ...] = ()) -> None:
        self.settings, self.public = settings, public
        self._lock = threading.Lock()
        self._values: dict[tuple[str, str], dict[str, Any]] = {}
        self._answers: dict[tuple[str, str], tuple[float, str, str | None]] = {}
        self._built: dict[str, tuple[tuple[Any, ...], Question]] = {}
        self._cells: dict[str, tuple[tuple[float, ...], ExplainCell | None]] = {}

    def cell(self, assignment: str) -> ExplainCell | None:
        """The explain cell of `assignment` and its rubric, read again only when its
        notebooks or rubric changed; None when it has none (or no rubric)."""
        stamp = _sources_time(self.settings, assignment)
        kept = self._cells.get(assignment)
        if kept is None or kept[0] != stamp:
            try:
                kept = (stamp, explain_cell(self.settings, assignment))
            except CourseError:  # no explain cell, or no rubric: not a question here
                kept = (stamp, None)
            self._cells[assignment] = kept
        return kept[1]

    def names(self) -> list[str]:
        """The assignments that have an explain question with a rubric."""
        return [a for a in self.settings.assignments if self.cell(a) is not None]

    def _notebook_time(self, cell: ExplainCell, student: str) -> float:
        path = os.path.join(self.settings.submitted, student, cell.assignment,
                            cell.notebook + ".ipynb")
        try:
            return os.stat(path).st_mtime
        except OSError:
            return -1.0

    def get(self, assignment: str) -> Question:
        """The question of `assignment`, grouped again only when an answer changed."""
        with self._lock:
            cell = self.cell(assignment)
            if cell is None:
                raise CourseError(f"{assignment} has no explain question with a rubric")
            question = Question(cell)
            for student in submitted_students(self.settings, assignment):
                stamp = self._notebook_time(cell, student)
                kept = self._answers.get((assignment, student))
                if kept is None or kept[0] != stamp:
                    kept = (stamp, student_answer(self.settings, cell, student) or "",
                            declaration_of(self.settings, student, assignment))
                    self._answers[(assignment, student)] = kept
                question.answers[student], question.declarations[student] = kept[1:]
                if (assignment, student) not in self._values:
                    self._values[(assignment, student)] = student_values(
                        self.settings, cell.rubric, student)
                question.values[student] = self._values[(assignment, student)]
            key = tuple(sorted((s, hash(a)) for s, a in question.answers.items()))
            built = self._built.get(assignment)
            if built and built[0] == key:
                question.groups, question.flags = built[1].groups, built[1].flags
                question.suggested = built[1].suggested
                return question
            answers = [ExplainAnswer(s, question.answers[s][:MAX_GROUPED_CHARS],
                                     question.values[s]) for s in question.students]
            question.groups = group_answers(answers)
            question.flags = integrity_flags(answers, public=self.public)
            question.suggested = {a.student: suggested_items(cell.rubric, a.text, a.values)
                                  for a in answers}
            self._built[assignment] = (key, question)
            return question

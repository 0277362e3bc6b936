"""What the grading page records, in the one record the terminal flow keeps too.

A mark is the rubric's items a grader applied to one answer, an adjustment and a comment
of their own. It is written into nbgrader's gradebook by the one writer of a manual score,
compare-and-set (`grader.recording.write_manual_score`): the score the page showed the
grader is the one it expects to find, so a score changed meanwhile, in formgrader, by
another grader or by a regrade, is reported with both values and never written over.
What was written is kept in the explain record (course-data/explain/<assignment>.json,
grader.explain.grading), so `make grade-explain` and the page share one list of who is
graded, and a rubric item's change of points regrades page and terminal marks alike.

Items applied to a whole group are drafts (`Drafts`): shown on each answer of the group,
scored only when a person passes that answer and saves it.
"""

import datetime
import math
from dataclasses import dataclass
from typing import Any

from nbgrader.api import Gradebook, MissingEntry

from ..explain import (ExplainCell, composed_comment, read_state, score_of, state_path,
                       student_values, write_state)
from ..recording import ManualScoreWrite, ManualWriteStatus, write_manual_score
from ..recording.manual_scores import points
from ..settings import CourseError, Settings

__all__ = ["ManualWriteStatus", "Mark", "apply_to_group", "manual_scores_now", "points",
           "record", "save_mark"]

MAX_COMMENT_CHARS = 4_000  # a grader's own words under one answer
MAX_ADJUST = 100.0


@dataclass(frozen=True)
class Mark:
    """One answer graded on the page: the items applied, the grader's adjustment and own
    comment, who gave it, and the gradebook's score the page showed them (None: none)."""

    student: str
    items: tuple[str, ...]
    own: str
    adjust: float
    by: str
    shown_score: float | None


def checked_mark(cell: ExplainCell, mark: Mark) -> str | None:
    """What is wrong with `mark` (an item the rubric does not have, an adjustment that is
    no number of points, a comment too long), or None."""
    unknown = [key for key in mark.items if cell.rubric.item(key) is None]
    if unknown:
        return (f"the rubric of {cell.assignment} has no item {', '.join(unknown)} (it was "
                f"removed or renamed since the page was loaded): reload the page")
    if not math.isfinite(mark.adjust) or abs(mark.adjust) > MAX_ADJUST:
        return f"an adjustment is a number of points between -{MAX_ADJUST:g} and {MAX_ADJUST:g}"
    if len(mark.own) > MAX_COMMENT_CHARS:
        return f"a comment holds at most {MAX_COMMENT_CHARS:,} characters"
    return None


def record(settings: Settings, cell: ExplainCell) -> dict[str, Any]:
    """The explain record of the cell's assignment (the terminal flow's state)."""
    return read_state(state_path(settings, cell.assignment), cell, None)


def manual_scores_now(settings: Settings, cell: ExplainCell, students: list[str]
                     ) -> dict[str, float | None]:
    """Each student's manual score of the explain cell as the gradebook holds it now."""
    scores: dict[str, float | None] = {}
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student in students:
            try:
                scores[student] = gb.find_grade(cell.grade_id, cell.notebook, cell.assignment,
                                                student).manual_score
            except MissingEntry:
                scores[student] = None
    return scores


def save_mark(settings: Settings, cell: ExplainCell, mark: Mark,
              values: dict[str, Any] | None = None) -> ManualScoreWrite:
    """Writes `mark` into the gradebook over the score the page showed, and, once written,
    into the explain record (its draft, if any, gone). A conflict writes nothing. `values`
    are the student's own (computed from the rubric when not given)."""
    problem = checked_mark(cell, mark)
    if problem:
        raise CourseError(problem)
    if values is None:
        values = student_values(settings, cell.rubric, mark.student)
    keys = list(dict.fromkeys(mark.items))
    score = score_of(cell.rubric, keys, cell.points, mark.adjust)
    comment = composed_comment(cell.rubric, keys, values, cell.points, mark.own, mark.adjust)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            written = write_manual_score(gb, cell.assignment, cell.notebook, cell.grade_id,
                                         mark.student, mark.shown_score, score, comment)
        except MissingEntry:
            raise CourseError(f"the gradebook has no {cell.assignment} submission with the "
                              f"cell {cell.grade_id} for this student: grade it (make "
                              f"autograde) first") from None
    if written.status == ManualWriteStatus.CONFLICT:
        return written
    path = state_path(settings, cell.assignment)
    state = read_state(path, cell, None)
    state["graded"][mark.student] = {
        "items": keys, "points": {k: cell.rubric.item(k).points for k in keys},
        "own": mark.own, "adjust": mark.adjust, "score": score, "comment": comment,
        "by": mark.by,
        "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    state.setdefault("drafts", {}).pop(mark.student, None)
    write_state(path, state)
    return written


def apply_to_group(settings: Settings, cell: ExplainCell, students: list[str], item: str,
                   by: str) -> int:
    """`item` added to the drafts of each of `students` not graded yet (a group's answers
    the grader may score): nothing is scored; each answer is saved by a person, one by
    one. The number of drafts changed."""
    if cell.rubric.item(item) is None:
        raise CourseError(f"the rubric of {cell.assignment} has no item {item}: reload the page")
    path = state_path(settings, cell.assignment)
    state = read_state(path, cell, None)
    drafts = state.setdefault("drafts", {})
    changed = 0
    for student in students:
        if student in state["graded"]:
            continue
        draft = drafts.setdefault(student, {"items": [], "by": by})
        if item not in draft["items"]:
            draft["items"].append(item)
            draft["by"] = by
            changed += 1
    write_state(path, state)
    return changed

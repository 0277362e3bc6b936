"""A sitting of explain grading at the terminal (make grade-explain, docs/explain-questions.md).

The class comes in a shuffled order fixed by a seed kept in the state file
(course-data/explain/<assignment>.json), the same at every sitting; a student graded at an
earlier sitting is not shown again. For each student the grader reads the answer beside the
student's own values and the rubric's items filled with them, and types the keys of the
items that apply (`counts head`), optionally a comment of their own after `|`; `skip`
leaves the student for later, `quit` ends the sitting. Each answer is written at once: the
score (the applied items' points, within 0 and the cell's points) as the grade's manual
score and the composed comment as its manual comment, in nbgrader's gradebook, where
formgrader shows and can change them; and the items applied in the state file.

At the start of each sitting every graded student is composed again from the rubric as it
is now: where an applied item's points changed, their score changes, and the change is
recorded under course-data/regrades/ as the regrades of checks are (docs/regrading.md).
"""

import datetime
import getpass
import hashlib
import json
import os
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from nbgrader.api import Gradebook, MissingEntry

from ..files import write_atomically
from ..recording import ManualScoreWrite, ManualWriteStatus, write_manual_score
from ..rubric import Rubric, filled
from ..safe_text import one_line, quoted, shown, shown_id, writable
from ..settings import CourseError, Settings
from .answers import ExplainCell, explain_cell, student_answer, student_values

COMMANDS = "keys of the items that apply (none: no item), then | and a comment of your own; " \
           "skip; quit"


@dataclass(frozen=True)
class ExplainSitting:
    """What one sitting did: the students it graded, and the writes it refused because the
    gradebook held a score other than the one the state file last wrote."""

    graded: int
    conflicts: tuple[ManualScoreWrite, ...] = ()


def state_path(settings: Settings, assignment: str) -> str:
    return os.path.join(settings.data, "explain", f"{assignment}.json")


def grading_order(students: Iterable[str], seed: str) -> list[str]:
    """`students` shuffled by `seed`: each placed by the digest of the seed and their id, so
    the order stays the same at every sitting and a late student changes no one's place."""
    return sorted(students, key=lambda s: hashlib.sha256(f"{seed}\0{s}".encode()).hexdigest())


def read_state(path: str, cell: ExplainCell, seed: str | None) -> dict[str, Any]:
    """The explain record at `path` (a new one when there is none): its order seed, the
    graded students and, from the grading page, the drafts of items applied to a group."""
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as handle:
                state = json.load(handle)
        except (OSError, ValueError) as error:
            raise CourseError(f"{path}: cannot be read ({error}); it holds the explain grades "
                              f"given so far: mend it or move it away") from None
        if seed is not None and seed != state.get("seed"):
            raise CourseError(f"{path} was started with seed {state.get('seed')!r}; give the "
                              f"same SEED or none")
        return state
    return {"assignment": cell.assignment, "cell": cell.grade_id,
            "seed": seed or secrets.token_hex(8), "graded": {}}


def write_state(path: str, state: dict[str, Any]) -> None:
    """The explain record written whole, atomically."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomically(path, json.dumps(state, indent=1, ensure_ascii=False, sort_keys=True))


def score_of(rubric: Rubric, keys: list[str], max_points: float, adjust: float = 0.0) -> float:
    """The points of the applied items and a grader's adjustment, within 0 and the cell's
    points."""
    total = sum(item.points for item in rubric.items if item.key in keys) + adjust
    return min(max(total, 0.0), max_points)


def composed_comment(rubric: Rubric, keys: list[str], values: dict[str, Any],
                     max_points: float, own: str = "", adjust: float = 0.0) -> str:
    """The comment the student reads under their answer: the score, each applied item with
    its points and explanation (never the grader's note), the grader's adjustment, then
    the grader's own words."""
    applied = [item for item in rubric.items if item.key in keys]
    lines = [f"**{score_of(rubric, keys, max_points, adjust):g} of {max_points:g} points**, "
             f"by the rubric's items:", ""]
    lines += [f"- **{item.points:+g}** {filled(item.description, values)}: "
              f"{filled(' '.join(item.explanation.split()), values)}" for item in applied]
    if not applied:
        lines.append("- no item of the rubric applies to this answer")
    if adjust:
        lines.append(f"- **{adjust:+g}** the grader's adjustment")
    if own:
        lines += ["", own]
    return "\n".join(lines)


def _write_gradebook(settings: Settings, cell: ExplainCell, student: str,
                     expected: float | None, score: float, comment: str) -> ManualScoreWrite:
    """The manual score and comment of the student's explain cell, written only over
    `expected`, the score the state file last wrote (None: none yet)."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            return write_manual_score(gb, cell.assignment, cell.notebook, cell.grade_id,
                                      student, expected, score, comment)
        except MissingEntry:
            raise CourseError(f"the gradebook has no {cell.assignment} submission of {student}"
                              f" with the cell {cell.grade_id}: grade it (make autograde) "
                              f"first") from None


def _submitted_students(settings: Settings, assignment: str) -> list[str]:
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            return [s.student.id for s in gb.assignment_submissions(assignment)]
        except MissingEntry:
            return []


def regrade_changed_items(settings: Settings, cell: ExplainCell, state: dict[str, Any],
                          path: str, conflicts: list[ManualScoreWrite]) -> list[str]:
    """Every graded student composed again from the rubric as it is; those whose applied
    items changed points get their new score, and a record under regrades/ whose "before"
    is the gradebook's. A student whose score the gradebook holds otherwise than this state
    last wrote it keeps it, and is added to `conflicts`."""
    rubric, lines, changes = cell.rubric, [], []
    gone = sorted({key for entry in state["graded"].values() for key in entry["items"]
                   if rubric.item(key) is None})
    if gone:
        raise CourseError(f"{rubric.path} no longer has the item(s) {', '.join(gone)}, applied "
                          f"to graded students: put them back (points may change) or remove "
                          f"them from {path}")
    before_scores, after_scores, refused = {}, {}, []
    for student, entry in sorted(state["graded"].items()):
        now = {key: rubric.item(key).points for key in entry["items"]}
        values = student_values(settings, rubric, student)
        adjust = entry.get("adjust", 0.0)  # given on the grading page
        comment = composed_comment(rubric, entry["items"], values, cell.points, entry["own"],
                                   adjust)
        score = score_of(rubric, entry["items"], cell.points, adjust)
        if now == entry["points"] and comment == entry["comment"]:
            continue
        written = _write_gradebook(settings, cell, student, entry["score"], score, comment)
        if written.status == ManualWriteStatus.CONFLICT:
            conflicts.append(written)
            if now != entry["points"]:
                refused.append({"student": student, "gradebook_before": written.before,
                                "last_written": written.expected, "not_written": score})
            lines.append(f"  conflict: {written.in_words()}; the state file keeps its "
                         f"items: set the score in formgrader, or remove {shown_id(student)} "
                         f"from {os.path.relpath(path, settings.root)} to grade again")
            continue
        before_scores[student] = written.before
        changed = {key: (entry["points"].get(key), points) for key, points in now.items()
                   if entry["points"].get(key) != points}
        entry.update(points=now, comment=comment, score=score)
        if changed:
            after_scores[student] = score
            changes.append({"student": student, "old_total": before_scores[student],
                            "new_total": score, "max_total": cell.points,
                            "checks": [{"notebook": cell.notebook, "grade_id": cell.grade_id,
                                        "item": key, "old_points": old, "new_points": new}
                                       for key, (old, new) in changed.items()]})
            moved = ", ".join(f"{key} {old:g} -> {new:g}" for key, (old, new) in changed.items())
            lines.append(f"  {shown_id(student)}: {before_scores[student]:g} -> {score:g} of "
                         f"{cell.points:g} ({moved})")
    write_state(path, state)
    if changes or refused:
        now_utc = datetime.datetime.now(datetime.timezone.utc)
        record = {"assignment": cell.assignment, "at": now_utc.strftime("%Y-%m-%d %H:%M:%S UTC"),
                  "by": writable(getpass.getuser()), "reason": f"rubric items' points changed "
                  f"in {os.path.relpath(rubric.path, settings.root)}", "applied": True,
                  "regraded": [c["student"] for c in changes], "changes": changes,
                  # the gradebook's own scores; one refused keeps its score after too
                  "gradebook_before": {**{c["student"]: c["old_total"] for c in changes},
                                       **{r["student"]: r["gradebook_before"] for r in refused}},
                  "gradebook_after": {**{c["student"]: c["new_total"] for c in changes},
                                      **{r["student"]: r["gradebook_before"] for r in refused}},
                  "not_written": refused, "feedback": {}, "requests": []}
        folder = os.path.join(settings.data, "regrades")
        os.makedirs(folder, exist_ok=True)
        name = f"{cell.assignment}-{now_utc:%Y%m%dT%H%M%S%fZ}-rubric.json"
        write_atomically(os.path.join(folder, name), json.dumps(record, indent=1,
                                                                ensure_ascii=False))
        lines = [f"rubric changed: {len(changes)} student(s) regraded"
                 + (f", {len(refused)} not (their score was changed in formgrader or by "
                    f"another grader)" if refused else "") + " (record: "
                 f"{os.path.relpath(os.path.join(folder, name), settings.root)})", *lines]
    return lines


def _item_lines(rubric: Rubric, values: dict[str, Any]) -> list[str]:
    lines = []
    for item in rubric.items:
        lines.append(f"  {item.key:<14} {item.points:+g}  {filled(item.description, values)}")
        if item.note:
            lines.append(f"  {'':<14}     note: {' '.join(filled(item.note, values).split())}")
    return lines


def _parse(reply: str, rubric: Rubric) -> tuple[list[str], str] | str:
    """(keys, own comment) of a grader's reply, or what is wrong with it."""
    keys_text, _, own = reply.partition("|")
    keys = keys_text.replace(",", " ").split()
    if keys == ["none"]:
        return [], own.strip()
    if not keys:
        return f"type the keys of the items that apply, or none ({COMMANDS})"
    unknown = [key for key in keys if rubric.item(key) is None]
    if unknown:
        return (f"no item {', '.join(unknown)} in the rubric (items: "
                f"{', '.join(item.key for item in rubric.items)})")
    return list(dict.fromkeys(keys)), own.strip()


def answer_lines(settings: Settings, cell: ExplainCell, student: str, answer: str | None
                 ) -> list[str]:
    """The student's answer as the terminal shows it: data, never the grader's own lines.
    Each line behind "  │ " with every control, bidi or invisible character escaped, the
    first QUOTED_LINES lines or QUOTED_CHARS characters of it, then where the whole is:
    the submitted notebook (and formgrader, which shows it)."""
    text = (answer or "").strip()
    if not text or text == "YOUR ANSWER HERE":
        return ["  (no answer)"]
    notebook = os.path.join(settings.submitted, student, cell.assignment, cell.notebook + ".ipynb")
    where = (f"the whole answer is the cell {cell.grade_id} of "
             f"{shown(os.path.relpath(notebook, settings.root))}, which formgrader shows")
    return quoted(text, where)


def grade_explain(settings: Settings, assignment: str, replies: Iterable[str],
                  say: Callable[[str], None], seed: str | None = None,
                  students: list[str] | None = None) -> ExplainSitting:
    """One sitting: the students not graded yet, in the state's order, graded from the
    grader's `replies` (lines); returns how many were graded at this sitting and the
    scores it refused to write over (`ExplainSitting`)."""
    cell = explain_cell(settings, assignment)
    path = state_path(settings, assignment)
    state = read_state(path, cell, seed)
    conflicts: list[ManualScoreWrite] = []
    for line in regrade_changed_items(settings, cell, state, path, conflicts):
        say(line)
    everyone = _submitted_students(settings, assignment)
    unknown = sorted(set(students or []) - set(everyone))
    if unknown:
        raise CourseError(f"no {assignment} submission in the gradebook of: {', '.join(unknown)}")
    order = grading_order([s for s in everyone if not students or s in students], state["seed"])
    waiting = [s for s in order if s not in state["graded"]]
    say(f"{assignment}, {cell.grade_id} ({cell.points:g} points): {len(order) - len(waiting)} "
        f"of {len(order)} graded, {len(waiting)} to go (order seed {state['seed']})")
    replies, done = iter(replies), 0
    for number, student in enumerate(waiting, start=len(order) - len(waiting) + 1):
        values = student_values(settings, cell.rubric, student)
        answer = student_answer(settings, cell, student)
        say(f"\n[{number}/{len(order)}] {shown_id(student)}")
        say("  their values: " + shown(", ".join(
            f"{k} = {v:,}" if isinstance(v, int) else f"{k} = {v}"
            for k, v in sorted(values.items()) if isinstance(v, (int, float, str))
            and k != "student")))
        say("--- answer ---")
        for line in answer_lines(settings, cell, student, answer):
            say(line)
        say("--- items ---")
        for line in _item_lines(cell.rubric, values):
            say(line)
        while True:
            say(f"items? ({COMMANDS})")
            reply = next(replies, "quit").strip()
            if reply in ("quit", "skip"):
                break
            parsed = _parse(reply, cell.rubric)
            if isinstance(parsed, str):
                say(parsed)
                continue
            keys, own = parsed
            own = one_line(own)
            score = score_of(cell.rubric, keys, cell.points)
            comment = composed_comment(cell.rubric, keys, values, cell.points, own)
            written = _write_gradebook(settings, cell, student, None, score, comment)
            if written.status == ManualWriteStatus.CONFLICT:
                conflicts.append(written)
                say(f"  conflict: {written.in_words()}; left for formgrader")
                break
            state["graded"][student] = {
                "items": keys, "points": {k: cell.rubric.item(k).points for k in keys},
                "own": own, "score": score, "comment": comment,
                "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
            write_state(path, state)
            say(f"  {shown_id(student)}: {score:g} of {cell.points:g} points, written to the "
                f"gradebook")
            done += 1
            break
        if reply == "quit":
            say(f"stopped: {len(state['graded'])} of {len(order)} graded; make grade-explain "
                f"ASSIGNMENT={assignment} resumes at the next")
            return ExplainSitting(done, tuple(conflicts))
    left = [s for s in order if s not in state["graded"]]
    say(f"{len(order) - len(left)} of {len(order)} graded" + (
        f"; skipped, still to grade: {', '.join(map(shown_id, left))}" if left else
        "; next: make grades, make feedback, make release-feedback"))
    if conflicts:
        say(f"{len(conflicts)} score(s) not written: the gradebook holds another, set in "
            f"formgrader or by another grader (above)")
    return ExplainSitting(done, tuple(conflicts))

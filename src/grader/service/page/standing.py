"""Where a student stands, and their regrade requests, as the course page shows them.

"Where do I stand" is the first table of the page: every assignment of the course, its
state for the student (not handed in, handed in, graded, feedback out), the score once
the feedback is out (the checks' points and the points given by hand, from nbgrader's
gradebook as the grade report reads them, less the late penalty), the late days the
late policy charged it (``c.LateDayBudget``; a course without a budget says so), and
the student's open regrade requests. Once an assignment's feedback is out the student
may ask for a regrade of one of its checks or its explain question (a form per
assignment, posted with the page's XSRF token to PREFIX/regrade), and sees each of their
requests: its state, the staff's answer and whether the score changed. Every text a
student or the staff typed is shown escaped.
"""

import dataclasses
import html
from enum import StrEnum

from nbgrader.api import Gradebook, MissingEntry

from ...plugins.late import LateDayBudget
from ...recording import AskedRegrade, RequestState, charges_of, request_items, requests_of
from ...recording.asked_regrades import MAX_MESSAGE
from ...reports import number
from ...safe_text import shown_on_page
from ...settings import Settings
from ..queue.records import JobState
from ..queue.store import Store
from .actions import released_feedback


class Standing(StrEnum):
    NOT_HANDED_IN = "not handed in"
    HANDED_IN = "handed in"  # in the queue or in submitted/, not graded yet
    GRADED = "graded"  # in the gradebook; its feedback not out yet
    FEEDBACK_OUT = "feedback out"


@dataclasses.dataclass(frozen=True)
class AssignmentStanding:
    """One assignment as one student stands in it."""

    assignment: str
    state: Standing
    checks: float | None = None  # points of the checks, shown once the feedback is out
    by_hand: float | None = None  # points given by a person (the explain answer, ...)
    penalty: float = 0.0  # the late penalty taken off
    max_score: float = 0.0
    late_days_used: int = 0
    open_requests: int = 0

    @property
    def score(self) -> float | None:
        """The score as the feedback and the grade push give it, None before the feedback."""
        if self.checks is None or self.by_hand is None:
            return None
        return max(0.0, self.checks + self.by_hand - self.penalty)


@dataclasses.dataclass(frozen=True)
class StudentStanding:
    """Every assignment of the course for one student, and their late-day budget."""

    assignments: list[AssignmentStanding]
    late_days_budget: int | None  # None: the course's late policy has no budget


def standing_of(settings: Settings, store: Store, student: str) -> StudentStanding:
    """Where `student` stands in every assignment of the course, read from the gradebook,
    the service's queue and the regrade requests."""
    plugin = settings.late_penalties().plugin_inst
    budget = plugin.days if isinstance(plugin, LateDayBudget) else None
    asked = requests_of(settings, student)
    rows = []
    with Gradebook(settings.db_url, settings.course_id) as gb:
        charges = charges_of(gb.db, student, plugin)
        for assignment in settings.assignments:
            opened = sum(1 for r in asked
                         if r.assignment == assignment and r.state == RequestState.OPEN)
            charge = charges.get(assignment)
            used = charge.late_days_used if charge is not None else 0
            try:
                submitted = gb.find_submission(assignment, student)
            except MissingEntry:
                submitted = None
            if submitted is not None and (submitted.timestamp is not None
                                          or submitted.notebooks):
                if released_feedback(settings, store, student, assignment) is None:
                    rows.append(AssignmentStanding(assignment, Standing.GRADED,
                                                   late_days_used=used, open_requests=opened))
                    continue
                grades = [g for notebook in submitted.notebooks for g in notebook.grades]
                checks = sum(g.score for g in grades if g.auto_score is not None)
                by_hand = sum(g.score for g in grades if g.auto_score is None)
                rows.append(AssignmentStanding(
                    assignment, Standing.FEEDBACK_OUT, checks, by_hand,
                    submitted.late_submission_penalty or 0.0, submitted.max_score, used, opened))
                continue
            handed = student in settings.students(assignment) or any(
                not job.is_check and job.state not in (JobState.REFUSED, JobState.DUPLICATE)
                for job in store.jobs(student, assignment))
            rows.append(AssignmentStanding(
                assignment, Standing.HANDED_IN if handed else Standing.NOT_HANDED_IN,
                late_days_used=used, open_requests=opened))
    return StudentStanding(rows, budget)


def score_words(row: AssignmentStanding) -> str:
    if row.score is None:
        return ""
    late = f", less {number(row.penalty)} late" if row.penalty > 0 else ""
    return (f"{number(row.score)} / {number(row.max_score)} (checks {number(row.checks)} "
            f"+ by hand {number(row.by_hand)}{late})")


def late_words(standing: StudentStanding) -> str:
    """The late days used and left, or that the course has no budget of them."""
    if standing.late_days_budget is None:
        return ("Late days: no late days budget in this course; work handed in late gets the "
                "course's late penalty.")
    used = sum(row.late_days_used for row in standing.assignments)
    left = max(0, standing.late_days_budget - used)
    return f"Late days: {used} used, {left} left of {standing.late_days_budget}."


def standing_html(standing: StudentStanding) -> str:
    """The "Where do I stand" table and the late days' sentence."""
    budget = standing.late_days_budget is not None
    rows = "".join(
        f"<tr><td>{html.escape(row.assignment)}</td><td>{html.escape(str(row.state))}</td>"
        f"<td>{html.escape(score_words(row))}</td>"
        f"<td>{row.late_days_used if budget else '-'}</td><td>{row.open_requests}</td></tr>"
        for row in standing.assignments)
    return ('<h2>Where do I stand</h2><table><caption>Every assignment of the course'
            '</caption><thead><tr><th scope="col">Assignment</th><th scope="col">State</th>'
            '<th scope="col">Score</th><th scope="col">Late days used</th><th scope="col">'
            f"Open regrade requests</th></tr></thead><tbody>{rows}</tbody></table>"
            f"<p>{html.escape(late_words(standing))}</p>")


def regrade_form(settings: Settings, assignment: str, xsrf: str) -> str:
    """The form that asks for a regrade of one item of `assignment` (its feedback is out)."""
    items = request_items(settings, assignment)
    if not items:
        return ""
    name = html.escape(assignment)
    options = "".join(f'<option value="{html.escape(item)}">{html.escape(item)} '
                      f"({html.escape(kind)})</option>" for item, kind in items.items())
    return (f'<form method="post" action="regrade">{xsrf}<input type="hidden" '
            f'name="assignment" value="{name}"><p><label>Which item of {name}: <select '
            f'name="item">{options}</select></label></p><p><label>Your message (at most '
            f'{MAX_MESSAGE:,} characters):<br><textarea name="message" rows="4" cols="60" '
            f'maxlength="{MAX_MESSAGE}" required></textarea></label></p><button type="submit">'
            f"Ask for a regrade ({name})</button></form>")


def requests_html(requests: list[AskedRegrade]) -> str:
    """The student's regrade requests: state, the staff's answer, whether the score changed."""
    if not requests:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(r.assignment)}</td><td>{html.escape(r.item)}</td>"
        f"<td>{html.escape(r.asked_at[:16].replace('T', ' '))} UTC</td>"
        f'<td class="typed">{shown_on_page(r.message)}</td>'
        f"<td>{html.escape(str(r.state))}</td>"
        f'<td class="typed">{shown_on_page(r.answer)}</td>'
        f"<td>{('yes' if r.changed else 'no') if r.state == RequestState.ANSWERED else ''}"
        "</td></tr>" for r in requests)
    return ('<h2>My regrade requests</h2><table><thead><tr><th scope="col">Assignment</th>'
            '<th scope="col">Item</th><th scope="col">Asked</th><th scope="col">Message</th>'
            '<th scope="col">State</th><th scope="col">Answer</th><th scope="col">Score '
            f"changed</th></tr></thead><tbody>{rows}</tbody></table>")

"""An extension granted after a student's feedback went out, said by `make extensions`.

The page keeps showing what went out (requests.py), and a grade the extension changed
(a late penalty taken off) is given out and pushed again by the grading service
(recorded.py); the instructor is told of each such student when the extensions are
applied.
"""

import datetime

from ..settings import Settings
from .due_feedback import Pair, due_dates
from .recorded import recorded_grades
from .store import FEEDBACK_SENT, Store


def extensions_after_feedback(settings: Settings, store: Store) -> list[str]:
    """A line for each student whose own due date (their extension counted) now lies after
    the moment their feedback went out: the extension was granted after it. Their points
    stay shown on the page (requests.py), and a grade the extension changed is given out
    and pushed again by the service (`changed_since_sent`)."""
    released: dict[Pair, datetime.datetime] = {}
    for release in store.releases():
        pair = (release.student, release.assignment)
        released[pair] = min(release.released, released.get(pair, release.released))
    if not released:
        return []
    due = due_dates(settings, released)
    grades = recorded_grades(settings, {a for _, a in released})
    sent = store.sent_scores(FEEDBACK_SENT)
    lines = []
    for pair, moment in sorted(released.items()):
        own_due = due.get(pair)
        if own_due is None or own_due <= moment:
            continue
        grade, shown = grades.get(pair), sent.get(pair)
        change = ("; the gradebook's grade is unchanged" if grade is None or shown is None
                  or abs(grade.score - shown) <= 1e-9 else
                  f"; the gradebook's grade went from {shown:g} to {grade.score:g}: the "
                  "grading service gives out their feedback and pushes their grade again")
        lines.append(f"{pair[0]} {pair[1]}: this extension was granted after their feedback "
                     f"went out ({moment:%Y-%m-%d %H:%M} UTC): what they were shown stays "
                     f"shown{change}")
    return lines

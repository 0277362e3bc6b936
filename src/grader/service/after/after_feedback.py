"""An extension granted after a student's feedback went out, said by `make extensions`.

The page keeps showing what went out (requests.py), and a grade the extension changed
(a late penalty taken off) is given out and pushed again by the grading service
(recorded.py); the instructor is told of each such student when the extensions are
applied.
"""

import datetime

from ...recording import apply_extensions
from ...settings import Settings
from .due_feedback import Pair, due_dates
from .recorded import recorded_grades
from ..queue.store import FEEDBACK_SENT, Store


def extensions_applied(settings: Settings, store: Store, path: str,
                       despite_public_solutions: bool = False) -> list[str]:
    """`make extensions`: the extensions file at `path` applied to the gradebook
    (recording.apply_extensions, which refuses one that reaches past an assignment's public
    solutions unless `despite_public_solutions`), its lines, then a line for each student
    whose extension changed after their feedback went out (`after_feedback`)."""
    released: dict[Pair, datetime.datetime] = {}
    for release in store.releases():
        pair = (release.student, release.assignment)
        released[pair] = max(release.released, released.get(pair, release.released))
    before = due_dates(settings, released) if released else {}
    lines = apply_extensions(settings, path, despite_public_solutions)
    if not released:
        return lines
    after = due_dates(settings, released)
    changed = {pair: moment for pair, moment in released.items()
               if before.get(pair) != after.get(pair)}
    return lines + after_feedback(settings, store, changed)


def after_feedback(settings: Settings, store: Store,
                   changed: dict[Pair, datetime.datetime]) -> list[str]:
    """A line for each student whose extension `changed` after their feedback went out
    ({pair: when it last went out}): what they were shown stays shown on the page
    (requests.py), and a grade the extension changed is given out and pushed again by the
    service (recorded.changed_since_sent)."""
    grades = recorded_grades(settings, {a for _, a in changed})
    sent = store.sent_scores(FEEDBACK_SENT)
    lines = []
    for pair, moment in sorted(changed.items()):
        grade, shown = grades.get(pair), sent.get(pair)
        change = ("; the gradebook's grade is unchanged" if grade is None or shown is None
                  or abs(grade.score - shown) <= 1e-9 else
                  f"; the gradebook's grade went from {shown:g} to {grade.score:g}: the "
                  "grading service gives out their feedback and pushes their grade again")
        lines.append(f"{pair[0]} {pair[1]}: this extension was granted after their feedback "
                     f"went out ({moment:%Y-%m-%d %H:%M} UTC): what they were shown stays "
                     f"shown{change}")
    return lines

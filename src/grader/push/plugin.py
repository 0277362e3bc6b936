"""`GradePush`: a grade push as one plugin class, chosen by ``c.GradePush.plugin_class``.

As nbgrader's export (``c.ExportApp.plugin_class`` naming an `ExportPlugin`),
the push command calls one class and never names an LMS: the class that
``c.GradePush.plugin_class`` names in nbgrader_config.py (a dotted name, or the
class itself; Canvas's REST API by default, `CanvasGradePush`; LTI AGS is
``grader.lti.ags_push.AgsGradePush``). A plugin says who a student is in its
LMS (`user_id`), what the LMS holds (`open`, `held`) and sends one row (`send`);
the rest is the push's own, the same for every LMS: what each student's grade
and comment are (plan.py), only what differs sent, a refused token stopping it,
and the typed report (`PushReport`: the `PushRow`s with their `PushOutcome`,
`PushCounts`, the lines printed).
"""

from collections.abc import Callable, Collection
from dataclasses import dataclass

from traitlets import TraitError, Type
from traitlets.config import Configurable
from traitlets.utils.importstring import import_item

from ..lms import GRADE_PUSH_PLATFORM, LmsRefused, LmsRequestFailed, LmsSubmission, LmsUnavailable
from ..reports import AssignmentGrades, Person, read_grades
from ..settings import CourseError, Settings
from .plan import PushCounts, PushRow, lms_user_id, only_students, plan_rows, shared_refusals
from .send import table, write_rows


DEFAULT_PUSH = "grader.push.canvas.CanvasGradePush"  # the push of GRADE_PUSH_PLATFORM


@dataclass
class PushReport:
    """What a push did: each student's row and outcome, the rows counted, the lines to print."""

    rows: list[PushRow]
    counts: PushCounts | None  # None: a dry run
    lines: list[str]

    @property
    def status(self) -> int:
        """0: all pushed (or a dry run), 1: some students failed or share a user id."""
        return 1 if self.counts and (self.counts.failed or self.counts.shared) else 0


class GradePush(Configurable):
    """One LMS's grade push; subclasses fill in `open`, `held` and `send`."""

    plugin_class = Type(DEFAULT_PUSH, klass="grader.push.plugin.GradePush",
                        help="the grade push the push-grades command runs: a GradePush "
                        "subclass, as a dotted name (default: the REST API of "
                        f"{GRADE_PUSH_PLATFORM.title}; docs/lti.md names the one of LTI AGS)"
                        ).tag(config=True)

    title = "the LMS"  # the LMS's name in the report
    written = "student(s) written"  # the report's words for the rows sent
    would_write = "student(s) would be written"  # and for those a dry run would send
    missing = "not in the LMS or without a user id"  # and for the rows with a problem
    refused_by = "the LMS answered 401"  # why the rows after a refused token were not sent
    no_user_id = ""  # what a student without a user id is told ("": plan.py's words)

    def prepare(self, settings: Settings) -> None:
        """Read the LMS's settings of the course (CourseError for one to fix): before the
        gradebook is read."""

    def user_id(self, person: Person) -> str:
        """The student's user id in the LMS (who is there)."""
        return lms_user_id(person)

    def open(self, grades: AssignmentGrades, dry_run: bool) -> list[str]:
        """Find the LMS's side of the assignment (its id, its line item); the report's
        first lines. May raise LmsRefused, LmsUnavailable, LmsRequestFailed."""
        raise NotImplementedError(f"{type(self).__name__}.open")

    def who(self, people: dict[str, Person], students: Collection[str] | None
            ) -> dict[str, Person]:
        """The people pushed: those of `students` (all when None), with anyone holding
        their user id."""
        return only_students(people, students, self.user_id)

    def held(self, people: dict[str, Person], grades: AssignmentGrades
             ) -> dict[str, LmsSubmission]:
        """{user id: what the LMS holds} of the assignment (what the LMS holds)."""
        raise NotImplementedError(f"{type(self).__name__}.held")

    def planned(self, rows: list[PushRow]) -> None:
        """Adjust what each row sends, where the LMS writes a grade and comment together."""

    def send(self, row: PushRow, grades: AssignmentGrades) -> str:
        """Send one row; what was written ("grade and comment")."""
        raise NotImplementedError(f"{type(self).__name__}.send")

    def finished(self, rows: list[PushRow], grades: AssignmentGrades) -> None:
        """After the rows were written (what the plugin keeps of it)."""

    def push(self, people: dict[str, Person], grades: AssignmentGrades, dry_run: bool = False,
             students: Collection[str] | None = None) -> PushReport:
        """The push of `grades` to the students `people` (of `students` only, when given),
        or its dry run, which writes nothing. CourseError when nothing could be written
        or when the LMS refused the token midway (with what was sent until then)."""
        try:
            lines = self.open(grades, dry_run)
            people = self.who(people, students)
            held = self.held(people, grades)
        except (LmsRefused, LmsUnavailable, LmsRequestFailed) as error:
            raise CourseError(f"{error}; nothing was written") from None
        rows = plan_rows(people, grades, held, self.title, self.user_id, self.no_user_id)
        self.planned(rows)
        if dry_run:
            return PushReport(rows, None, lines + table(rows, False, self.title) + [
                f"dry run: nothing written ({sum(r.writes for r in rows)} {self.would_write})"
            ] + shared_refusals(rows, self.title))
        refused = write_rows(rows, lambda row: self.send(row, grades), self.refused_by)
        self.finished(rows, grades)
        counts = PushCounts.of(rows)
        lines += table(rows, True, self.title)
        lines.append(f"{counts.sent} {self.written}, {counts.up_to_date} up to date, "
                     f"{counts.missing} {self.missing}, {counts.failed} failed"
                     + (": run the push again to finish them" if counts.failed else ""))
        lines += shared_refusals(rows, self.title)
        if refused:
            raise CourseError("\n".join(lines + [refused]))
        return PushReport(rows, counts, lines)


def configured_push(settings: Settings) -> GradePush:
    """The grade push c.GradePush.plugin_class names (Canvas's by default); CourseError
    for a name that is no GradePush class."""
    try:
        chosen = GradePush(config=settings.config).plugin_class
    except (ImportError, TraitError) as error:
        raise CourseError(f"c.GradePush.plugin_class: {error} (a GradePush class, as a dotted "
                          f"name)") from None
    return chosen(config=settings.config)


def push_with(plugin: GradePush, settings: Settings, assignment: str, dry_run: bool = False,
              students: Collection[str] | None = None) -> tuple[list[str], int]:
    """(the lines to print, 0 all pushed or 1 some failed) of `plugin`'s push of
    `assignment` with the grades `make grades` exports (of `students` only, when given)."""
    plugin.prepare(settings)
    people, [grades] = read_grades(settings, [assignment])
    report = plugin.push(people, grades, dry_run, students)
    return report.lines, report.status


def push_configured(settings: Settings, assignment: str, dry_run: bool = False,
                    students: Collection[str] | None = None) -> tuple[list[str], int]:
    """`push_with` the grade push of c.GradePush.plugin_class."""
    return push_with(configured_push(settings), settings, assignment, dry_run, students)


# the pushes c.GradingService.push_final_grades may name: each class by its dotted name
FINAL_PUSHES = {GRADE_PUSH_PLATFORM.name: DEFAULT_PUSH, "lti": "grader.lti.ags_push.AgsGradePush"}
FinalPush = Callable[..., tuple[list[str], int]]  # (settings, assignment, *, students)


def final_push(dotted: str) -> FinalPush:
    """The push of the class `dotted` names, as the grading service calls it."""
    def push(settings: Settings, assignment: str, *, students: Collection[str]
             ) -> tuple[list[str], int]:
        return push_with(import_item(dotted)(config=settings.config), settings, assignment,
                         students=students)
    return push


def final_pushes() -> dict[str, FinalPush]:
    """{name: push} of every push c.GradingService.push_final_grades may name."""
    return {name: final_push(dotted) for name, dotted in FINAL_PUSHES.items()}

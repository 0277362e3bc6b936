"""The students of a regrade graded again against the current release, in memory.

The same pieces as an autograding run (the assignment prepared once, the warm
templates shared by the workers, one engine), but nothing is recorded: each
`StudentResult` is returned to the caller, who compares it with the student's
report part and, only when told to apply, hands the changed ones to the single
writer. Every student chosen is graded whole: the checks run against answers
that live in the student's sandboxed kernel, so the student's cells run again;
what is shared between students (the templates, the checks' set-up) is made once.
"""

import os
import sys

from ..engines import engine
from ..plan import HandIn, refusal, refused_result
from ..recording import check_released
from ..results import StudentResult
from ..sandbox import require_sandbox
from ..settings import CourseError, Limits, Settings
from ..worker import (Job, close_templates, prepare_assignment, prepare_machine,
                      private_work_root, read_job, remove_left_overs)


def hand_ins_of(settings: Settings, assignment: str, students: list[str] | None) -> list[HandIn]:
    """The hand-ins of `students` (every student with a submission when None or empty);
    CourseError naming the students without a submission."""
    notebooks = settings.instructor_notebooks(assignment)
    handed_in = settings.students(assignment)
    if students:
        unknown = sorted(set(students) - set(handed_in))
        if unknown:
            raise CourseError(f"no submission of {assignment} from: {', '.join(unknown)} "
                              f"(STUDENTS=...); nothing was regraded")
        handed_in = [s for s in handed_in if s in students]
    return [HandIn(student, assignment, os.path.join(settings.submitted, student, assignment),
                   notebooks) for student in handed_in]


def grade_again(settings: Settings, assignment: str, limits: Limits, hand_ins: list[HandIn],
                jobs: int = 1) -> dict[str, StudentResult]:
    """{student: StudentResult} of `hand_ins` graded against the current release; writes
    nothing of the course's."""
    require_sandbox()
    check_released(settings, assignment, settings.instructor_notebooks(assignment))
    prepared = prepare_assignment(settings, assignment, limits)

    def prepare(hand_in: HandIn) -> Job:
        return read_job(prepared, hand_in.student, hand_in.submitted_dir)

    results: dict[str, StudentResult] = {}
    remove_left_overs()
    with private_work_root():
        try:
            gradable = []
            for hand_in in hand_ins:
                reason = refusal(settings, hand_in)
                if reason:
                    results[hand_in.student] = refused_result(hand_in, reason)
                else:
                    gradable.append(hand_in)
            if gradable:
                prepare_machine(prepared, jobs)
            with engine(jobs) as grading:
                print(f"regrading {assignment}: {len(hand_ins)} submission(s), {grading.where}",
                      file=sys.stderr)
                for hand_in, result in grading.graded(gradable, prepare):
                    results[hand_in.student] = result
        finally:
            close_templates()
    return results

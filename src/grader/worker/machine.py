"""What a run starts once per machine, before its workers: the warm templates and the checks.

`prepare_machine` starts one template per notebook of the assignment, in this
process, with a control channel for each local worker, while a thread builds
the checks' set-up (the instructor's set-up cells, a model among them). The
workers forked afterwards share both: the start-up is paid once per run, not
once per worker, and the machine holds one template per notebook however many
workers it runs. Each worker takes its channel with `adopt_templates`. What it
starts is kept with the assignment's release (caches.py); a process that runs
for longer prepares again for each assignment or release it grades.
"""

import gc
import threading

from ..plan import build_plan
from .assignment import Assignment
from .caches import (instructor_notebook, one_torch_thread, prepare_checkers, warm_assignment,
                     warm_template)
from .execution import code_cell_indices, leading_setup, prelude_cells


def prepare_machine(assignment: Assignment, workers: int) -> None:
    """The templates of `assignment`'s notebooks (one control channel per worker, and
    this process's own) and the checks' set-up, both ready when this returns.

    Called again in the same process (another assignment, or a new release of this
    one), it first lets go of what the previous call froze (see the end).
    """
    warm_assignment(assignment)  # an older release of it dropped now, its templates stopped
    if gc.get_freeze_count():
        # what an earlier preparation froze may be garbage now (a dropped release's
        # checkers): unfrozen and collected here, so that only what is alive is frozen again
        gc.unfreeze()
        gc.collect()
    failed = []
    preludes = []
    for name in assignment.instructor_texts:
        plan = build_plan(instructor_notebook(assignment, name), None)
        preludes.append(prelude_cells(plan, leading_setup(plan, code_cell_indices(plan))))
    package_copy = assignment.package_copy()

    def checks():
        try:
            prepare_checkers(assignment)
        except BaseException as error:  # noqa: BLE001 (raised again below, in this thread)
            failed.append(error)

    builder = threading.Thread(target=checks, name="checks' set-up")
    builder.start()  # after the work above, which its imports would slow down
    try:
        for prelude in preludes:
            # started from this thread, which lives as long as the run: a sandbox ends
            # with the thread that started it
            warm_template(assignment, package_copy, prelude, channels=workers + 1)
    finally:
        builder.join()  # no thread may be running when the workers are forked
    if failed:
        raise failed[0]
    # one torch thread in this thread too, which the workers are forked from (the setting
    # is the calling thread's): each worker is one core's work
    one_torch_thread(assignment.package)
    # what the workers inherit is never collected: their collections do not walk torch and
    # the checks' set-up, and copy none of those pages. Frozen once per preparation: a
    # process that prepares again unfreezes first (above), so nothing stays frozen for good
    gc.freeze()

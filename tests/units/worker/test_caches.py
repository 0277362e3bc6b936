"""What a process keeps warm lives as long as the assignment's release (worker/caches.py),
for every assignment it grades, as long as the machine's memory holds them.

No sandbox starts: templates and checkers are stand-ins that remember how they
were made and whether they were stopped, each taking TEMPLATE_MIB of memory, and
the machine's available memory is what a test says (plenty unless it says otherwise).
"""

import dataclasses
import os
import pickle
import re
import signal
import subprocess
import sys
import types

import nbformat
import pytest

from grader.plan import build_plan
from grader.settings import Limits
from grader.worker import Assignment, caches

NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
PRELUDE = [("setup", "import torch")]
MEASURED = caches.resident_mib, caches.available_mib  # as the module measures
TEMPLATE_MIB = 1024.0  # what a template of the course's assignments takes, about
MADE = []  # every stand-in template made, in order


class StandInTemplate:
    def __init__(self, limits, package, package_copy, prelude, channels):
        self.made_with, self.stopped = (limits, package, package_copy, prelude), False
        self.channels = channels
        MADE.append(self)

    def serves(self, channels):  # as Template's, in the process that started it
        return channels <= self.channels

    def has_channel(self, channel):
        return 1 <= channel < self.channels

    def adopt(self, channel):
        self.adopted = channel

    def alive(self):
        return not self.stopped

    def close(self):
        self.stopped = True


class StandInChecker:
    def __init__(self, setup, solutions, package):
        self.made_with = (setup, solutions, package)


@pytest.fixture
def machine_memory(monkeypatch):
    """machine_memory(mib): the machine has `mib` MiB for templates; what it has available
    is that less what the stand-in templates not stopped take."""
    free = {"mib": 0.0}

    def available():
        return free["mib"] - TEMPLATE_MIB * sum(not t.stopped for t in MADE)

    def set_memory(mib):
        free["mib"] = mib

    monkeypatch.setattr(caches, "available_mib", available)
    return set_memory


@pytest.fixture(autouse=True)
def stand_ins(monkeypatch, machine_memory):
    monkeypatch.setattr(caches, "Template", StandInTemplate)
    monkeypatch.setattr(caches, "Checker", StandInChecker)
    monkeypatch.setattr(caches, "resident_mib", lambda template: TEMPLATE_MIB)
    machine_memory(64 * 1024.0)
    MADE.clear()
    refused = caches.templates_refused()
    caches.refuse_templates(None)
    caches.close_templates()
    yield
    caches.close_templates()
    caches.refuse_templates(refused)


def assignment(name="hw", text=NOTEBOOK, timeout=60.0, **limits):
    return Assignment(name, {name: text}, Limits(timeout=timeout, **limits), "gptcourse")


def test_a_template_is_reused_for_every_student_of_the_same_release():
    first = caches.warm_template(assignment(), None, PRELUDE)
    assert caches.warm_template(assignment(), None, PRELUDE) is first
    # the budgets make no template: another budget finds the same one
    assert caches.warm_template(assignment(notebook_budget=99.0), None, PRELUDE) is first
    assert caches.warm_template(assignment(student_budget=99.0), None, PRELUDE) is first
    assert caches.warm_templates() == [first]


def test_a_template_for_more_workers_than_the_one_cached_serves_is_started_again():
    # an earlier run of this process had one worker; this one has two
    alone = caches.warm_template(assignment(), None, PRELUDE)
    shared = caches.warm_template(assignment(), None, PRELUDE, channels=3)
    assert shared is not alone and not alone.alive() and shared.alive()
    assert shared.serves(3) and not alone.serves(2)
    # a run with as many workers or fewer finds it
    assert caches.warm_template(assignment(), None, PRELUDE, channels=2) is shared
    assert caches.warm_template(assignment(), None, PRELUDE) is shared
    assert caches.warm_templates() == [shared]


def test_a_worker_adopts_the_templates_with_a_channel_for_it_and_lets_go_of_the_others():
    shared = caches.warm_template(assignment("hw"), None, PRELUDE, channels=3)
    alone = caches.warm_template(assignment("other"), None, PRELUDE)  # an earlier grading's
    caches.adopt_templates(2)
    assert shared.adopted == 2 and not hasattr(alone, "adopted")
    assert alone.stopped  # let go of (a stand-in records it as stopped)
    assert caches.warm_templates() == [shared]


def test_a_new_release_of_the_assignment_stops_the_old_templates_and_drops_its_checkers():
    old = assignment()
    template = caches.warm_template(old, None, PRELUDE)
    plan = build_plan(nbformat.reads(NOTEBOOK, as_version=4), None)
    checker = caches.make_checker(old, plan, None)
    edited = assignment(text=NOTEBOOK.replace("[]", '[{"cell_type": "markdown", "id": "a", '
                                                     '"metadata": {}, "source": "new"}]'))
    newer = caches.warm_template(edited, None, PRELUDE)
    assert newer is not template and template.stopped and not newer.stopped
    assert caches.make_checker(edited, plan, None) is not checker
    assert caches.warm_templates() == [newer]


def test_other_limits_are_another_release():
    template = caches.warm_template(assignment(), None, PRELUDE)
    other = caches.warm_template(assignment(timeout=30.0), None, PRELUDE)
    assert template.stopped and caches.warm_templates() == [other]


def test_a_checker_is_reused_within_a_release():
    hw = assignment()
    plan = build_plan(nbformat.reads(NOTEBOOK, as_version=4), None)
    first = caches.make_checker(hw, plan, None)
    assert caches.make_checker(assignment(), plan, None) is first
    assert first.made_with == ([], [], "gptcourse")


def test_templates_refused_on_this_machine_are_not_tried_again_until_allowed():
    caches.refuse_templates("no user namespaces")
    assert caches.templates_refused() == "no user namespaces"
    assert caches.warm_template(assignment(), None, PRELUDE) is None
    caches.refuse_templates(None)
    assert caches.templates_refused() is None
    assert caches.warm_template(assignment(), None, PRELUDE) is not None


def test_closing_stops_the_templates_and_keeps_the_release():
    hw = assignment()
    template = caches.warm_template(hw, None, PRELUDE)
    caches.close_templates()
    assert template.stopped and caches.warm_templates() == []
    again = caches.warm_template(hw, None, PRELUDE)
    assert again is not template and caches.warm_templates() == [again]


def test_a_release_is_what_the_assignment_is_made_of():
    hw = assignment()
    assert caches.release_key(hw) == caches.release_key(dataclasses.replace(hw))
    assert caches.release_key(hw) != caches.release_key(assignment(text=NOTEBOOK + " "))


def test_three_assignments_graded_in_turn_start_each_template_once():
    """The grading service of a course with three released assignments: switching between
    them rebuilds nothing."""
    names = ["three-parameters", "three-logits-to-text", "three-sampling"]
    first = {name: caches.warm_template(assignment(name), None, PRELUDE) for name in names}
    for _ in range(3):
        for name in names:
            assert caches.warm_template(assignment(name), None, PRELUDE) is first[name]
    assert MADE == list(first.values()) and not any(t.stopped for t in MADE)
    assert caches.warm_templates() == list(first.values())


def test_where_memory_holds_two_assignments_the_one_graded_least_recently_goes_first(
        machine_memory, capsys):
    machine_memory(2.5 * TEMPLATE_MIB)
    names = ["two-0", "two-1", "two-2"]
    made = {name: caches.warm_template(assignment(name), None, PRELUDE) for name in names}
    assert made[names[0]].stopped
    assert caches.warm_templates() == [made[name] for name in names[1:]]
    assert not any(made[name].stopped for name in names[1:])
    note = capsys.readouterr().err
    assert note.startswith("note: two-2's templates need about 1,024 MiB and this machine has "
                           "512 MiB available, too little to keep 3 assignments warm: two-0's "
                           "templates are closed to make room; grading two-0 again starts its "
                           "1 template(s) again (")
    assert note.count("note:") == 1


def test_where_memory_holds_one_assignment_each_switch_starts_a_template_and_says_so(
        machine_memory, capsys):
    machine_memory(1.5 * TEMPLATE_MIB)
    for name in ["one-0", "one-1", "one-0"]:
        caches.warm_template(assignment(name), None, PRELUDE)
    assert len(MADE) == 3 and [t.stopped for t in MADE] == [True, True, False]
    notes = capsys.readouterr().err.splitlines()
    assert [re.match(r"note: (\S+)'s templates need", line).group(1) for line in notes] == [
        "one-1", "one-0"]
    assert all("too little to keep 2 assignments warm" in line for line in notes)


def test_where_the_memory_is_not_known_nothing_is_dropped(monkeypatch):
    monkeypatch.setattr(caches, "available_mib", lambda: None)
    made = [caches.warm_template(assignment(f"unknown-{n}"), None, PRELUDE) for n in range(4)]
    assert caches.warm_templates() == made and not any(t.stopped for t in made)


def test_the_memory_a_template_takes_counts_its_sandbox_and_what_runs_in_it():
    resident_mib, available_mib = MEASURED
    # 64 MiB held by a child of the process, as a template's Python runs inside bubblewrap
    holder = subprocess.Popen([sys.executable, "-c",
                               "import subprocess, sys; subprocess.run([sys.executable, '-c', "
                               "'import time; block = b\"x\" * (64 << 20); print(1, flush=True);"
                               " time.sleep(60)'])"], stdout=subprocess.PIPE,
                              start_new_session=True)
    try:
        assert holder.stdout.readline() == b"1\n"
        template = types.SimpleNamespace(kernel=types.SimpleNamespace(process=holder))
        assert resident_mib(template) > 64
    finally:
        os.killpg(holder.pid, signal.SIGKILL)  # the holder and its child
        holder.wait()
    assert resident_mib(StandInTemplate(None, None, None, None, 1)) == 0.0
    assert available_mib() > 0


def test_an_instructor_notebook_is_parsed_once_per_release_and_again_for_a_new_one(
        monkeypatch):
    parsed = []
    reads = nbformat.reads
    monkeypatch.setattr(nbformat, "reads",
                        lambda text, *args, **kwargs: parsed.append(text) or reads(text, *args,
                                                                                   **kwargs))
    text = NOTEBOOK.replace("[]", '[{"cell_type": "markdown", "id": "a", "metadata": {}, '
                                  '"source": "first"}]')
    first = caches.instructor_notebook(assignment("parsed", text), "parsed")
    # each student's Job brings its own copy of the assignment, pickled
    copy = pickle.loads(pickle.dumps(assignment("parsed", text)))
    assert caches.instructor_notebook(copy, "parsed") is first
    assert first.cells[0].source == "first" and len(parsed) == 1
    edited = assignment("parsed", text.replace("first", "edited"))
    assert caches.instructor_notebook(edited, "parsed").cells[0].source == "edited"
    assert len(parsed) == 2

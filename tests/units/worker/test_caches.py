"""What a process keeps warm lives as long as the assignment's release (worker/caches.py).

No sandbox starts: templates and checkers are stand-ins that remember how they
were made and whether they were stopped.
"""

import dataclasses

import nbformat
import pytest

from grader.plan import build_plan
from grader.settings import Limits
from grader.worker import Assignment, caches

NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
PRELUDE = [("setup", "import torch")]


class StandInTemplate:
    def __init__(self, limits, package, package_copy, prelude, channels):
        self.made_with, self.stopped = (limits, package, package_copy, prelude), False

    def alive(self):
        return not self.stopped

    def close(self):
        self.stopped = True


class StandInChecker:
    def __init__(self, setup, solutions, package):
        self.made_with = (setup, solutions, package)


@pytest.fixture(autouse=True)
def stand_ins(monkeypatch):
    monkeypatch.setattr(caches, "Template", StandInTemplate)
    monkeypatch.setattr(caches, "Checker", StandInChecker)
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
    # the notebook's budget makes no template: another budget finds the same one
    assert caches.warm_template(assignment(notebook_budget=99.0), None, PRELUDE) is first
    assert caches.warm_templates() == [first]


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


def test_the_assignment_graded_least_recently_goes_first():
    names = [f"hw{n}" for n in range(caches.MAX_WARM_ASSIGNMENTS + 1)]
    made = {name: caches.warm_template(assignment(name), None, PRELUDE) for name in names}
    assert made[names[0]].stopped
    assert caches.warm_templates() == [made[name] for name in names[1:]]
    assert not any(made[name].stopped for name in names[1:])


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

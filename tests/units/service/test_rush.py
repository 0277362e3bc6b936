"""The deadline rush that benchmarks/service.py hands to the service (testsupport)."""

import json

from testsupport.course import ROOT, assignments
from testsupport.synthetic_batch import rush_hand_ins


def test_each_student_hands_in_every_assignment_in_turn():
    names = sorted(assignments(ROOT))
    rush = rush_hand_ins(ROOT, names, 7)
    assert [(student, assignment, kind) for student, assignment, _, kind in rush] == [
        ("s001", names[0], "correct"), ("s001", names[1], "correct"),
        ("s002", names[0], "partial"), ("s002", names[1], "partial"),
        ("s003", names[0], "empty"), ("s003", names[1], "empty"),
        ("s004", names[0], "correct")]


def test_the_hand_ins_are_the_notebooks_of_their_assignment_answered_by_kind():
    names = sorted(assignments(ROOT))
    rush = rush_hand_ins(ROOT, names, 3 * len(names))
    for student, assignment, files, kind in rush:
        assert list(files) == [f"{assignment.replace('-', '_')}.ipynb"]
        assert json.loads(files[list(files)[0]])["nbformat"] == 4
    by_kind = {(assignment, kind): files for _, assignment, files, kind in rush}
    for assignment in names:
        kinds = [by_kind[assignment, kind] for kind in ("correct", "partial", "empty")]
        assert len({json.dumps(files, sort_keys=True, default=bytes.hex) for files in kinds}) == 3

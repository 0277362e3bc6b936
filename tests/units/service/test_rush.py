"""The deadline rush that benchmarks/service.py hands to the service (testsupport)."""

import json

from testsupport.course import ROOT, assignments
from testsupport.synthetic_batch import rush_hand_ins


def test_each_student_hands_in_every_assignment_in_turn():
    names = sorted(assignments(ROOT))
    count = 3 * len(names) + 1
    rush = rush_hand_ins(ROOT, names, count)
    kinds = ["correct", "partial", "empty"]
    assert [(student, assignment, kind) for student, assignment, _, kind in rush] == [
        (f"s{number // len(names) + 1:03d}", names[number % len(names)],
         kinds[number // len(names) % 3]) for number in range(count)]
    assert rush[-1][0] == "s004" and rush[-1][3] == "correct"


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

"""Which release the service grades against: a changed release/<assignment>/ noticed once it
has settled, an assignment released after the start seen as new, edits to solutions/ that are
not released changing nothing; and an assignment whose new release cannot be graded kept as
it was released before."""

import os
import threading

import nbformat

from grader.service.queue.release_watch import released_assignments
from grader.service.queue.release_watch import (ReleaseWatch, release_agrees, release_fingerprints,
                                          release_folder, watch_releases)
from grader.settings import load
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK


class Looks:
    """Fingerprints to be seen one look after another (the last one again once used up)."""

    def __init__(self, *seen):
        self.seen = list(seen)

    def __call__(self, settings):
        return self.seen.pop(0) if len(self.seen) > 1 else self.seen[0]


def always(settings, names):
    return True


FIRST = {"tiny": (("tiny.ipynb", 100, 1),)}
SECOND = {"tiny": (("tiny.ipynb", 120, 2),)}


def test_a_changed_release_is_switched_to_once_it_is_the_same_for_two_looks():
    watch = ReleaseWatch(None, look=Looks(FIRST, FIRST, SECOND, SECOND, SECOND), agrees=always)
    assert watch.changed() is False  # as prepared
    assert watch.changed() is False  # changed, maybe still being written
    assert watch.changed() is True and watch.changes == ["tiny"]
    watch.taken()
    assert watch.changed() is False


def test_a_release_written_in_steps_waits_for_the_last_step():
    half = {"tiny": (("tiny.ipynb", 50, 2),)}
    watch = ReleaseWatch(None, agrees=always, look=Looks(FIRST, {}, {}, half, SECOND, SECOND))
    assert [watch.changed() for _ in range(5)] == [False, False, False, False, True]
    assert watch.last == SECOND


def test_a_release_folder_removed_is_no_change_and_the_same_one_back_neither():
    watch = ReleaseWatch(None, agrees=always, look=Looks(FIRST, {}, {}, {}, FIRST, FIRST))
    assert [watch.changed() for _ in range(5)] == [False] * 5
    watch.taken()
    assert watch.prepared == FIRST


def test_a_release_is_switched_to_only_once_the_gradebook_records_it():
    answers = [False, False, True]
    watch = ReleaseWatch(None, look=Looks(FIRST, SECOND),
                         agrees=lambda settings, names: answers.pop(0))
    assert [watch.changed() for _ in range(4)] == [False, False, False, True]
    assert watch.changes == ["tiny"]


def test_an_assignment_released_after_the_start_is_a_change():
    watch = ReleaseWatch(None, agrees=always, look=Looks(FIRST, {**FIRST, **{"other": ()}}))
    assert [watch.changed(), watch.changed()] == [False, True]
    assert watch.changes == ["other"]


def test_the_watch_ends_the_release_at_a_change_or_at_stop():
    stop, ending = threading.Event(), threading.Event()
    watch_releases(ReleaseWatch(None, Looks(FIRST, SECOND), always), stop, ending, 0.01)
    assert ending.is_set() and not stop.is_set()
    stop.set()
    ending = threading.Event()
    watch_releases(ReleaseWatch(None, Looks(FIRST), always), stop, ending, 60.0)  # at once
    assert ending.is_set()


def test_the_fingerprint_follows_the_release_folder_not_solutions(tiny_course):
    settings = load(tiny_course)
    folder = release_folder(settings, ASSIGNMENT)
    assert folder == os.path.join(tiny_course, "release", ASSIGNMENT)
    before = release_fingerprints(settings)
    assert [name for name, _, _ in before[ASSIGNMENT]] == [f"{NOTEBOOK}.ipynb"]
    with open(os.path.join(tiny_course, "source", ASSIGNMENT, f"{NOTEBOOK}.ipynb"), "a"):
        os.utime(os.path.join(tiny_course, "source", ASSIGNMENT, f"{NOTEBOOK}.ipynb"))
    assert release_fingerprints(settings) == before
    with open(os.path.join(folder, "data.csv"), "w") as handle:
        handle.write("x\n1\n")
    after = release_fingerprints(settings)
    assert [name for name, _, _ in after[ASSIGNMENT]] == ["data.csv", f"{NOTEBOOK}.ipynb"]
    os.remove(os.path.join(folder, "data.csv"))


def test_solutions_that_differ_from_the_release_hold_the_switch_and_keep_the_earlier_release(
        tiny_course, capsys):
    settings = load(tiny_course)
    prepared = released_assignments(settings)
    assert list(prepared) == [ASSIGNMENT]
    path = os.path.join(tiny_course, "source", ASSIGNMENT, f"{NOTEBOOK}.ipynb")
    original = nbformat.read(path, as_version=4)
    edited = nbformat.from_dict(original)
    edited.cells[-1].source = edited.cells[-1].source.replace("42", "41")
    nbformat.write(edited, path)
    try:
        assert release_agrees(settings, [ASSIGNMENT, "gone"]) is False
        assert released_assignments(settings, prepared) == prepared
        assert released_assignments(settings) == {}
    finally:
        nbformat.write(original, path)
    assert release_agrees(settings, [ASSIGNMENT, "gone"]) is True
    err = capsys.readouterr().err
    assert f"serve: {ASSIGNMENT} is not graded against its new release: solutions/" in err
    assert f"serve: {ASSIGNMENT} is not graded: solutions/" in err


def test_a_hand_in_of_an_assignment_released_since_goes_back_and_ends_the_release(
        tiny_course, tmp_path):
    from grader.service.queue.loop import Service
    from grader.service.queue.store import JobState, Store

    store = Store(str(tmp_path / "queue.db"))
    service = Service(load(tiny_course), store)
    job = store.hand_in("ada", ASSIGNMENT, {f"{NOTEBOOK}.ipynb": b"{}"}, "submit")
    assert service.placed(store.claim(service.name, 60)) is None
    assert store.job(job.id).state == JobState.WAITING and store.job(job.id).attempts == 0
    assert service.ending.is_set() and service.handed_in_for == {ASSIGNMENT}
    service.looked_at = {ASSIGNMENT}  # prepared since, and not graded: refused
    assert service.placed(store.claim(service.name, 60)) is None
    refused = store.job(job.id)
    assert (refused.state, refused.reason) == (
        JobState.REFUSED, f"{ASSIGNMENT!r} is not an assignment this service grades (none)")

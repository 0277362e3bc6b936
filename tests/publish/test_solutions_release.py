"""`make release-solutions ASSIGNMENT=name`: refused while any student, extensions included,
may still hand in, and for an assignment nobody has a due date for; after the latest due date,
the solutions go into the bundle without their hidden tests, and stay there at every later
`make publish`."""

import datetime
import json
import os

import pytest
from nbgrader.api import Gradebook

from grader.publish import SecretKind, solution_notebooks
from grader.publish.bundle import bundle_fragments
from grader.publish.leak_scan import FragmentIndex, scan_bytes
from grader.publish.solutions_policy import RECORD_FILE
from grader.recording import apply_extensions, set_due_date
from grader.settings import load
from testsupport.course import release_assignments
from testsupport.publishing import SITE, bundle_files, grader, left_over_folders, publishing_copy

NOW = datetime.datetime.now(datetime.timezone.utc)
CLASS_DUE = NOW - datetime.timedelta(days=2)


def extensions(course, bob_hours):
    path = os.path.join(course, "extensions.csv")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(f"student_id,assignment,extra_hours,new_due,note\n"
                     f"bob,parameters,{bob_hours},,\ncarol,parameters,12,,\n")
    apply_extensions(load(course), path)


@pytest.fixture(scope="module")
def course(bundle, tmp_path_factory):
    """A copy of the course released, parameters due two days ago; bob has 72 hours more
    (his due date is tomorrow), carol 12; logits-to-text has no due date."""
    course = release_assignments(publishing_copy(str(tmp_path_factory.mktemp("due") / "c")))
    settings = load(course)
    set_due_date(settings, "parameters", f"{CLASS_DUE:%Y-%m-%d %H:%M:%S} UTC")
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student in ("alice", "bob", "carol"):
            gb.update_or_create_student(student)
    extensions(course, 72)
    return course


def test_before_the_latest_due_date_nothing_is_released_and_the_date_is_named(course):
    done = grader(course, "release-solutions", "parameters", "--site", SITE)
    bob_due = (CLASS_DUE + datetime.timedelta(hours=72)).replace(microsecond=0, tzinfo=None)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: the solutions of parameters stay private until {bob_due:%Y-%m-%d %H:%M:%S} "
        f"UTC, the latest due date (bob's, with an extension): a student may still hand in "
        f"until then; nothing was released")
    assert not os.path.exists(os.path.join(course, RECORD_FILE))
    assert not os.path.exists(os.path.join(course, "_publish"))


def test_an_assignment_nobody_has_a_due_date_for_is_refused(course):
    done = grader(course, "release-solutions", "logits-to-text", "--site", SITE)
    assert done.returncode == 2
    assert "nobody has a due date for logits-to-text in the gradebook" in done.stderr
    assert "make release ASSIGNMENT=logits-to-text DUEDATE=" in done.stderr
    assert not os.path.exists(os.path.join(course, RECORD_FILE))


@pytest.fixture(scope="module")
def released(course):
    """parameters' solutions released once bob's extension is 24 hours (his due date was
    yesterday): the command's output."""
    extensions(course, 24)
    done = grader(course, "release-solutions", "parameters", "--site", SITE)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return done


def test_after_it_the_solutions_are_in_the_bundle_without_hidden_tests(course, released):
    assert "the solutions of parameters are public from now on" in released.stdout
    folder = os.path.join(course, "_publish", "solutions")
    assert sorted(os.listdir(folder)) == ["parameters"]
    [name] = os.listdir(os.path.join(folder, "parameters"))
    text = open(os.path.join(folder, "parameters", name), encoding="utf-8").read()
    assert text == solution_notebooks(load(course), "parameters")[name]
    sources = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
    assert "out_head_params = my_model.out_head.weight.numel()" in sources  # a solution
    hidden = [f for f in bundle_fragments(load(course), ["parameters", "logits-to-text"])
              if f.kind in (SecretKind.HIDDEN_TEST, SecretKind.CANARY)]
    assert scan_bytes(name, text.encode(), FragmentIndex(hidden)) == []
    record = open(os.path.join(course, RECORD_FILE), encoding="utf-8").read().splitlines()
    latest = (CLASS_DUE + datetime.timedelta(hours=24)).replace(microsecond=0, tzinfo=None)
    assert record[0] == "assignment,latest_due_utc,released_utc"
    assert record[1].startswith(f"parameters,{latest:%Y-%m-%d %H:%M:%S},")
    page = open(os.path.join(course, "_publish", "students.html"), encoding="utf-8").read()
    assert f'href="solutions/parameters/{name}"' in page


def test_a_later_publish_keeps_them_and_adds_no_others(course, released):
    before = bundle_files(os.path.join(course, "_publish", "solutions"))
    done = grader(course, "publish", "--site", SITE)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "the solutions of parameters" in done.stdout
    assert bundle_files(os.path.join(course, "_publish", "solutions")) == before
    assert left_over_folders(course) == []

"""`make release-solutions ASSIGNMENT=name`: refused while any student, extensions included,
may still hand in for points under the course's late policy (nbgrader's "zero": until their
own due date), and for an assignment nobody has a due date for; after it, the solutions go
into the bundle without their hidden tests, and stay there at every later `make publish`.
Then `make extensions` refuses an extension past them unless told, and a release despite a
student who can still hand in names them in the record."""

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


def bob_due(hours):
    return f"{(CLASS_DUE + datetime.timedelta(hours=hours)).replace(microsecond=0):%Y-%m-%d %H:%M:%S}"


def test_before_the_latest_due_date_nothing_is_released_and_the_date_is_named(course):
    done = grader(course, "release-solutions", "parameters", "--site", SITE)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: the solutions of parameters stay private until {bob_due(72)} UTC, the last "
        f"moment anyone can earn points on it under the course's late policy (a notebook "
        f"handed in after its due date scores 0, a minute late or days late): 1 student can "
        f"still hand it in for points: bob until {bob_due(72)} UTC (due {bob_due(72)} UTC); "
        f"nothing was released\nto release them all the same, while they can still hand in "
        f"for points, name every one: make release-solutions ASSIGNMENT=parameters "
        f"DESPITE_OPEN_STUDENTS=bob")
    assert not os.path.exists(os.path.join(course, RECORD_FILE))
    assert not os.path.exists(os.path.join(course, "_publish"))


def test_an_override_that_names_the_wrong_students_is_refused(course):
    done = grader(course, "release-solutions", "parameters", "--site", SITE,
                  "--despite-open-students", "carol")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: DESPITE_OPEN_STUDENTS must name exactly the students who can still hand "
        f"parameters in for points, and 1 can: bob until {bob_due(72)} UTC (due {bob_due(72)} "
        f"UTC); named, but not among them: carol; not named: bob; nothing was released")
    assert not os.path.exists(os.path.join(course, RECORD_FILE))


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
    assert record[0] == "assignment,latest_due_utc,released_utc,open_students"
    assert record[1].startswith(f"parameters,{bob_due(24)},") and record[1].endswith(",")
    assert (f"(the last moment anyone could earn points on it was {bob_due(24)} UTC)"
            in released.stdout)
    page = open(os.path.join(course, "_publish", "students.html"), encoding="utf-8").read()
    assert f'href="solutions/parameters/{name}"' in page


def test_a_later_publish_keeps_them_and_adds_no_others(course, released):
    before = bundle_files(os.path.join(course, "_publish", "solutions"))
    done = grader(course, "publish", "--site", SITE)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "the solutions of parameters" in done.stdout
    assert bundle_files(os.path.join(course, "_publish", "solutions")) == before
    assert left_over_folders(course) == []


def test_an_extension_past_the_public_solutions_is_refused_unless_told(course, released):
    path = os.path.join(course, "extensions.csv")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("student_id,assignment,extra_hours,new_due,note\n"
                     "bob,parameters,72,,\ncarol,parameters,12,,\n")
    refused = grader(course, "extensions", path)
    assert refused.returncode == 2
    assert refused.stderr.startswith("error: 1 extension(s) would let a student earn points "
                                     "after the solutions went out")
    assert (f"bob, parameters: the extensions let bob hand it in for points until "
            f"{bob_due(72)} UTC (due {bob_due(72)} UTC), after its solutions went out") in (
        refused.stderr)
    with Gradebook(load(course).db_url, "gptcourse") as gb:
        assert gb.find_submission("parameters", "bob").extension == datetime.timedelta(hours=24)
    told = grader(course, "extensions", path, "--despite-public-solutions")
    assert told.returncode == 0, told.stderr[-4000:]
    assert told.stderr.startswith("warning: granted after the solutions went out, as "
                                  "--despite-public-solutions says: bob, parameters")
    assert f"bob parameters: extension of 72 h, due {bob_due(72)} UTC" in told.stdout


def test_a_release_despite_an_open_student_names_them_in_the_record(course, released):
    """After bob's 72 hours were granted, releasing again needs his name."""
    assert grader(course, "release-solutions", "parameters", "--site", SITE).returncode == 2
    done = grader(course, "release-solutions", "parameters", "--site", SITE,
                  "--despite-open-students", "bob")
    assert done.returncode == 0, done.stderr[-4000:]
    assert (f"warning: the solutions of parameters went out while 1 student(s) can still hand "
            f"it in for points, as --despite-open-students says: bob until {bob_due(72)} UTC "
            f"(due {bob_due(72)} UTC)") in done.stderr
    record = open(os.path.join(course, RECORD_FILE), encoding="utf-8").read().splitlines()
    assert record[1].startswith(f"parameters,{bob_due(12)},")  # carol's, the last not named
    assert record[1].endswith(f",bob until {bob_due(72)} UTC (due {bob_due(72)} UTC)")

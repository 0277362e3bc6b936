"""Is a class's LMS download put where `nbgrader collect` puts submissions: each student's
latest notebook with its time, every other file listed with its reason, nothing collected
before lost, and a record of what came from the LMS? And does the roster read Canvas's
gradebook export as Canvas writes it? (Nothing is graded here.)"""

import csv
import datetime
import os
import unicodedata

import pytest

from grader.intake import ArchiveError, collect_zip
from grader.reports import import_roster, parse_roster
from grader.settings import CourseError, load
from testsupport.lms_download import (canvas_gradebook_export, canvas_name, moodle_name,
                                      raw_zip, symlink_entry, with_info, write_zip)
from testsupport.tiny_course import ASSIGNMENT, correct, fill, make_course, released

STUDENTS = [  # (first, last, canvas id, sis user id, sis login id = course id, section)
    ("Alice", "Liddell", 101, "S-1", "alice", "A"),
    ("Bob", "Builder", 102, "S-2", "bob", "B"),
    ("José María", "Núñez", 103, "S-3", "José María", "A"),
]
NOON = datetime.datetime(2026, 1, 15, 12, 0, 0)


def at(hours):
    return NOON + datetime.timedelta(hours=hours)


@pytest.fixture
def course(tmp_path):
    folder = make_course(str(tmp_path / "course"))
    export = tmp_path / "canvas-gradebook.csv"
    export.write_text(canvas_gradebook_export(STUDENTS), encoding="utf-8")
    import_roster(load(folder), str(export))
    return folder


def submitted(course, student, name="tiny.ipynb"):
    path = os.path.join(course, "course-data", "submitted", student, ASSIGNMENT, name)
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def manifest(course):
    with open(os.path.join(course, "course-data", "lms", ASSIGNMENT + ".csv"),
              encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def canvas_class(course, tmp_path, zip_name="canvas.zip"):
    """A Canvas download: alice twice (the second upload renamed -1), bob late with a
    browser-renamed file, and files that are not anyone's submission of tiny."""
    nb = released(course)
    partial = fill(nb, {"answer_answer": "answer = 42\n"})
    return write_zip(str(tmp_path / zip_name), [
        (canvas_name("Alice", "Liddell", 101, 5001, "tiny.ipynb"), partial, at(-2)),
        (canvas_name("Alice", "Liddell", 101, 5002, "tiny-1.ipynb"), correct(nb), at(-1)),
        (canvas_name("Bob", "Builder", 102, 5003, "tiny (1).ipynb", late=True), correct(nb),
         at(3)),
        (canvas_name("Nobody", "Here", 999, 5004, "tiny.ipynb"), correct(nb), at(-1)),
        (canvas_name("Bob", "Builder", 102, 5005, "notes.pdf"), b"%PDF-1.4", at(-1)),
        (canvas_name("Bob", "Builder", 102, 5006, "parameters.ipynb"), correct(nb), at(-1)),
        ("tiny.ipynb", correct(nb), at(-1)),
    ])


def test_the_canvas_gradebook_export_is_read_as_canvas_writes_it(tmp_path):
    export = tmp_path / "export.csv"
    export.write_text(canvas_gradebook_export(STUDENTS), encoding="utf-8")
    notes = []
    people = parse_roster(str(export), notes)
    assert [(p.id, p.first_name, p.last_name, p.section, p.lms_user_id) for p in people] == [
        ("alice", "Alice", "Liddell", "A", "101"), ("bob", "Bob", "Builder", "B", "102"),
        ("José María", "José María", "Núñez", "A", "103")]
    assert notes == [f"{export}, line 2: Canvas's Points Possible row, skipped",
                     f"{export}, line 6: Canvas's test student (Student, Test), skipped"]


def test_a_canvas_export_row_without_the_course_id_is_refused_with_its_line(tmp_path):
    export = tmp_path / "export.csv"
    export.write_text(canvas_gradebook_export(STUDENTS + [("Eve", "Nosis", 104, "", "", "A")]),
                      encoding="utf-8")
    with pytest.raises(CourseError, match=r"line 6: 'Nosis, Eve' has no SIS Login ID.*104"):
        parse_roster(str(export))


def test_a_canvas_export_without_the_sis_login_column_says_which_column(tmp_path):
    export = tmp_path / "export.csv"
    export.write_text("Student,ID,SIS User ID,Section\n\"Doe, Jane\",1,S-1,A\n",
                      encoding="utf-8")
    with pytest.raises(CourseError, match="SIS Login ID missing"):
        parse_roster(str(export))


def test_a_canvas_download_puts_each_latest_notebook_in_place_and_lists_the_rest(course,
                                                                                tmp_path):
    zip_path = canvas_class(course, tmp_path)
    nb = released(course)
    outcome = collect_zip(load(course), ASSIGNMENT, zip_path, "canvas")
    lines = outcome.report_lines()
    assert (outcome.collected, outcome.replaced, outcome.kept, outcome.skipped) == (2, 0, 0, 5)
    assert (outcome.not_notebooks, outcome.not_named, outcome.not_on_roster,
            outcome.not_of_assignment, outcome.older_attempts) == (1, 1, 1, 1, 1)
    assert outcome.manifest == "course-data/lms/tiny.csv" and outcome.other_lms is None
    assert sorted(os.listdir(os.path.join(course, "course-data", "submitted"))) == [
        "alice", "bob"]
    for student in ("alice", "bob"):
        folder = os.path.join(course, "course-data", "submitted", student, ASSIGNMENT)
        assert sorted(os.listdir(folder)) == ["timestamp.txt", "tiny.ipynb"]
        assert '"answer = 42\\n"' in submitted(course, student)
    assert '"def double(x):' in submitted(course, "alice")  # the second attempt, complete
    assert correct(nb)["cells"][2]["source"] in submitted(course, "alice").replace("\\n", "\n")
    assert submitted(course, "alice", "timestamp.txt") == "2026-01-15 11:00:00"
    assert submitted(course, "bob", "timestamp.txt") == "2026-01-15 15:00:00"
    assert "collected alice: tiny.ipynb from 'liddellalice_101_5002_tiny-1.ipynb' " \
           "(submitted 2026-01-15 11:00:00 UTC)" in lines
    assert "collected bob: tiny.ipynb from 'builderbob_late_102_5003_tiny (1).ipynb' " \
           "(submitted 2026-01-15 15:00:00 UTC, late)" in lines
    skipped = sorted(line for line in lines if line.startswith("skipped"))
    assert skipped == sorted([
        "skipped 'liddellalice_101_5001_tiny.ipynb': an older attempt of tiny.ipynb by alice "
        "('liddellalice_101_5002_tiny-1.ipynb' is later)",
        "skipped 'herenobody_999_5004_tiny.ipynb': Canvas user 999 (herenobody) is not on the "
        "roster (no student with that lms_user_id (Canvas's ID column))",
        "skipped 'builderbob_102_5005_notes.pdf': not a notebook (.ipynb)",
        "skipped 'builderbob_102_5006_parameters.ipynb': 'parameters.ipynb' is not a notebook "
        "of tiny (its notebooks: tiny.ipynb)",
        "skipped 'tiny.ipynb': not named as Canvas names a submission ({name}_{late_}{user id}_"
        "{attachment id}_{file name})"])
    assert lines[-1].startswith(f"tiny: 2 student(s) collected from {zip_path} (0 replacing "
                                f"an earlier collect), 0 kept as collected before, 5 file(s) "
                                f"skipped; the manifest: course-data/lms/tiny.csv")
    assert manifest(course) == [
        {"student_id": "alice", "lms": "canvas", "lms_user_id": "101", "attachment_id": "5002",
         "lms_file_name": "liddellalice_101_5002_tiny-1.ipynb",
         "submitted_at": "2026-01-15 11:00:00", "late": "false", "notebook": "tiny.ipynb"},
        {"student_id": "bob", "lms": "canvas", "lms_user_id": "102", "attachment_id": "5003",
         "lms_file_name": "builderbob_late_102_5003_tiny (1).ipynb",
         "submitted_at": "2026-01-15 15:00:00", "late": "true", "notebook": "tiny.ipynb"}]
    leftovers = os.listdir(os.path.join(course, "course-data", "lms"))
    assert leftovers == ["tiny.csv"]  # the folder nbgrader collected from is gone


def test_collecting_again_keeps_what_is_newer_and_replaces_only_with_a_line(course, tmp_path):
    settings = load(course)
    collect_zip(settings, ASSIGNMENT, canvas_class(course, tmp_path), "canvas")
    again = collect_zip(settings, ASSIGNMENT, canvas_class(course, tmp_path, "again.zip"))
    assert (again.collected, again.kept, again.manifest) == (0, 2, "")
    assert "kept alice's tiny already collected (2026-01-15 11:00:00 UTC): the zip's, " \
           "2026-01-15 11:00:00 UTC, is not later" in again.lines
    before = manifest(course)
    nb = released(course)
    newer = write_zip(str(tmp_path / "newer.zip"), [
        (canvas_name("Alice", "Liddell", 101, 6001, "tiny-2.ipynb"),
         fill(nb, {"double_answer": "def double(x):\n    return x + x\n"}), at(5))])
    replacing = collect_zip(settings, ASSIGNMENT, newer)
    assert (replacing.collected, replacing.replaced, replacing.kept) == (1, 1, 0)
    lines = replacing.report_lines()
    backup = os.path.join("course-data", "lms", "replaced", ASSIGNMENT, "alice 2026-01-15 110000")
    assert (f"replaced alice's tiny collected before (2026-01-15 11:00:00 UTC) with the zip's, "
            f"2026-01-15 17:00:00 UTC; the earlier one is kept in {backup}") in lines
    assert "return x + x" in submitted(course, "alice")
    assert sorted(os.listdir(os.path.join(course, backup))) == ["timestamp.txt", "tiny.ipynb"]
    rows = manifest(course)
    assert rows[1] == before[1]  # bob's row kept
    assert (rows[0]["attachment_id"], rows[0]["submitted_at"]) == ("6001", "2026-01-15 17:00:00")


def test_canvas_late_flag_decides_against_the_due_date(course, tmp_path):
    from grader.recording import set_due_date

    settings = load(course)
    set_due_date(settings, ASSIGNMENT, "2026-01-15 12:30:00 UTC")
    nb = released(course)
    zip_path = write_zip(str(tmp_path / "c.zip"), [
        (canvas_name("Alice", "Liddell", 101, 1, "tiny.ipynb", late=True), correct(nb), at(0)),
        (canvas_name("Bob", "Builder", 102, 2, "tiny.ipynb"), correct(nb), at(2))])
    lines = collect_zip(settings, ASSIGNMENT, zip_path).lines
    assert submitted(course, "alice", "timestamp.txt") == "2026-01-15 12:30:01"
    assert submitted(course, "bob", "timestamp.txt") == "2026-01-15 12:30:00"
    assert ("'liddellalice_late_101_1_tiny.ipynb': Canvas flags it late but the zip dates it "
            "2026-01-15 12:00:00 UTC, not after the due date 2026-01-15 12:30:00 UTC: taken as "
            "handed in one second after the due date") in lines


def test_a_moodle_download_is_matched_by_full_name_in_folders_or_not(course, tmp_path):
    settings = load(course)
    nb = released(course)
    zip_path = write_zip(str(tmp_path / "moodle.zip"), [
        (moodle_name("Alice", "Liddell", 2041633, "tiny.ipynb", folders=True), correct(nb),
         at(-1)),
        (moodle_name("José María", "Núñez", 2041634, "tiny-1.ipynb"), correct(nb), at(-2)),
        (moodle_name("Someone", "Else", 2041635, "tiny.ipynb"), correct(nb), at(-2)),
        ("Participant 2041636_2041636_assignsubmission_file_tiny.ipynb", correct(nb), at(-2)),
    ])
    outcome = collect_zip(settings, ASSIGNMENT, zip_path, "moodle")
    lines = outcome.lines
    assert (outcome.collected, outcome.not_on_roster, outcome.skipped) == (2, 2, 2)
    assert sorted(os.listdir(os.path.join(course, "course-data", "submitted"))) == [
        "José María", "alice"]
    rows = [(r["student_id"], r["lms_user_id"], r["lms_file_name"]) for r in manifest(course)]
    assert rows == [
        ("José María", "2041634", "José María Núñez_2041634_assignsubmission_file_tiny-1.ipynb"),
        ("alice", "2041633", "Alice Liddell_2041633_assignsubmission_file_/tiny.ipynb")]
    assert ("skipped 'Someone Else_2041635_assignsubmission_file_tiny.ipynb': Moodle's "
            "'Someone Else' is not on the roster (no student with that first_name and "
            "last_name)") in lines
    assert any(line.startswith("skipped 'Participant 2041636") and "blind marking" in line
               for line in lines)


def test_a_moodle_name_two_students_share_is_refused(course, tmp_path):
    settings = load(course)
    twins = tmp_path / "twins.csv"
    twins.write_text("id,first_name,last_name\nalice2,Alice,Liddell\n", encoding="utf-8")
    import_roster(settings, str(twins))
    zip_path = write_zip(str(tmp_path / "moodle.zip"), [
        (moodle_name("Alice", "Liddell", 7, "tiny.ipynb"), correct(released(course)), at(-1))])
    lines = collect_zip(settings, ASSIGNMENT, zip_path, "moodle").lines
    assert ("skipped 'Alice Liddell_7_assignsubmission_file_tiny.ipynb': Moodle's 'Alice "
            "Liddell' matches 2 students of the roster (alice, alice2)") in lines
    assert not os.path.exists(os.path.join(course, "course-data", "submitted", "alice2"))


def test_a_hostile_zip_writes_nothing_at_all(course, tmp_path):
    data = raw_zip([with_info(canvas_name("Alice", "Liddell", 101, 1, "tiny.ipynb")),
                    symlink_entry(canvas_name("Bob", "Builder", 102, 2, "tiny.ipynb"))])
    zip_path = tmp_path / "hostile.zip"
    zip_path.write_bytes(data)
    with pytest.raises(ArchiveError, match="'builderbob_102_2_tiny.ipynb' is a symbolic link"):
        collect_zip(load(course), ASSIGNMENT, str(zip_path))
    assert os.listdir(os.path.join(course, "course-data", "submitted")) == []
    assert not os.path.exists(os.path.join(course, "course-data", "lms"))


def test_collecting_without_a_roster_says_to_import_one(tmp_path):
    course = make_course(str(tmp_path / "bare"))
    with pytest.raises(CourseError, match="make roster ROSTER="):
        collect_zip(load(course), ASSIGNMENT, str(tmp_path / "x.zip"))


def test_a_zip_of_the_other_lms_is_named_as_such(course, tmp_path):
    zip_path = write_zip(str(tmp_path / "moodle.zip"), [
        (moodle_name("Alice", "Liddell", 7, "tiny.ipynb"), correct(released(course)), at(-1)),
        ("readme.txt", b"hello", at(-1))])
    outcome = collect_zip(load(course), ASSIGNMENT, zip_path, "canvas")
    assert (outcome.not_named, outcome.not_notebooks, outcome.other_lms.name) == (1, 1, "moodle")
    lines = outcome.report_lines()
    assert lines[-2] == ("no notebook of the zip is named as Canvas names submissions: is it "
                         "Moodle's download (LMS=moodle)?")
    assert lines[-1].startswith("tiny: 0 student(s) collected")


def test_an_unknown_lms_is_refused_naming_the_known_ones(course, tmp_path):
    with pytest.raises(CourseError, match=r"LMS='blackboard': the LMS is canvas or moodle"):
        collect_zip(load(course), ASSIGNMENT, str(tmp_path / "x.zip"), "blackboard")


def test_a_notebook_named_as_the_lms_names_them_asks_about_no_other_lms(course, tmp_path):
    zip_path = write_zip(str(tmp_path / "mixed.zip"), [
        (canvas_name("Alice", "Liddell", 101, 1, "tiny.ipynb"), correct(released(course)), at(-1)),
        ("tiny.ipynb", correct(released(course)), at(-1))])
    outcome = collect_zip(load(course), ASSIGNMENT, zip_path)
    assert (outcome.collected, outcome.not_named, outcome.other_lms) == (1, 1, None)
    assert not any(line.startswith("no notebook of the zip") for line in outcome.report_lines())


def nfd(text):
    return unicodedata.normalize("NFD", text)


def test_a_moodle_name_a_mac_wrote_decomposed_is_the_rosters_composed_name(course, tmp_path):
    settings = load(course)
    roster = tmp_path / "nunez.csv"
    roster.write_text("id,first_name,last_name\njnunez,José,Núñez\n", encoding="utf-8")
    import_roster(settings, str(roster))
    entry = nfd("José Núñez_2041634_assignsubmission_file_tiny.ipynb")
    assert entry != unicodedata.normalize("NFC", entry)  # as a Mac re-zip writes it
    zip_path = write_zip(str(tmp_path / "mac.zip"), [
        (entry, correct(released(course)), at(-1)),
        (nfd("JOSÉ MARÍA  NÚÑEZ_2041635_assignsubmission_file_tiny.ipynb"),
         correct(released(course)), at(-1))])
    outcome = collect_zip(settings, ASSIGNMENT, zip_path, "moodle")
    assert (outcome.collected, outcome.skipped) == (2, 0)
    assert [(r["student_id"], r["lms_user_id"]) for r in manifest(course)] == [
        ("José María", "2041635"), ("jnunez", "2041634")]


def test_a_name_that_matches_nobody_is_told_the_closest_roster_names(course, tmp_path):
    zip_path = write_zip(str(tmp_path / "moodle.zip"), [
        (moodle_name("Alise", "Lidell", 7, "tiny.ipynb"), correct(released(course)), at(-1))])
    lines = collect_zip(load(course), ASSIGNMENT, zip_path, "moodle").lines
    assert lines == [
        "skipped 'Alise Lidell_7_assignsubmission_file_tiny.ipynb': Moodle's 'Alise Lidell' is "
        "not on the roster (no student with that first_name and last_name); the closest on "
        "the roster: Alice Liddell (alice)"]


def test_a_canvas_user_not_on_the_roster_is_told_the_students_of_a_near_name(course,
                                                                           tmp_path):
    zip_path = write_zip(str(tmp_path / "canvas.zip"), [
        (canvas_name("Alice", "Liddel", 777, 1, "tiny.ipynb"), correct(released(course)),
         at(-1))])
    lines = collect_zip(load(course), ASSIGNMENT, zip_path, "canvas").lines
    assert lines == [
        "skipped 'liddelalice_777_1_tiny.ipynb': Canvas user 777 (liddelalice) is not on the "
        "roster (no student with that lms_user_id (Canvas's ID column)); the closest on the "
        "roster: Alice Liddell (alice, lms_user_id 101)"]


def two_alices(course, tmp_path, name="twins.zip"):
    nb = released(course)
    return write_zip(str(tmp_path / name), [
        (moodle_name("Alice", "Liddell", 2041633, "tiny.ipynb"), correct(nb), at(-2)),
        (moodle_name("Alice", "Liddell", 2041699, "tiny.ipynb"), released(course), at(-1)),
        (moodle_name("Bob", "Builder", 2041634, "tiny.ipynb"), correct(nb), at(-1))])


def test_two_moodle_participants_of_one_name_are_never_one_student(course, tmp_path):
    outcome = collect_zip(load(course), ASSIGNMENT, two_alices(course, tmp_path), "moodle")
    assert (outcome.collected, outcome.two_people, outcome.older_attempts) == (1, 2, 0)
    assert outcome.refused
    assert sorted(os.listdir(os.path.join(course, "course-data", "submitted"))) == ["bob"]
    lines = outcome.report_lines()
    assert ("skipped 'Alice Liddell_2041699_assignsubmission_file_tiny.ipynb': 2 people of "
            "Moodle (participant ids 2041633, 2041699) match alice of the roster by first_name "
            "and last_name: none of their files is collected; write the participant id of the "
            "one who is alice in the roster's lms_user_id column (make roster), or take the "
            "other's files out of the zip, and collect again") in lines
    assert lines[-1] == ("tiny: 2 file(s) refused: two people of Moodle match one student of "
                         "the roster (the lines above name their ids and what to do)")


def test_the_participant_id_on_the_roster_tells_which_alice_is_ours(course, tmp_path):
    settings = load(course)
    roster = tmp_path / "ids.csv"
    roster.write_text("id,first_name,last_name,lms_user_id\nalice,Alice,Liddell,2041633\n",
                      encoding="utf-8")
    import_roster(settings, str(roster))
    outcome = collect_zip(settings, ASSIGNMENT, two_alices(course, tmp_path), "moodle")
    assert (outcome.collected, outcome.two_people, outcome.refused) == (2, 0, False)
    assert '"def double(x):' in submitted(course, "alice")  # hers, not the later empty one
    assert ("skipped 'Alice Liddell_2041699_assignsubmission_file_tiny.ipynb': Moodle's 'Alice "
            "Liddell', participant id 2041699, is not alice of the roster, whose lms_user_id "
            "is 2041633") in outcome.lines
    assert [r["lms_user_id"] for r in manifest(course)] == ["2041633", "2041634"]


def test_another_participant_of_the_same_name_later_replaces_nothing(course, tmp_path):
    settings = load(course)
    nb = released(course)
    collect_zip(settings, ASSIGNMENT, write_zip(str(tmp_path / "first.zip"), [
        (moodle_name("Alice", "Liddell", 2041633, "tiny.ipynb"), correct(nb), at(-2))]),
        "moodle")
    later = collect_zip(settings, ASSIGNMENT, write_zip(str(tmp_path / "later.zip"), [
        (moodle_name("Alice", "Liddell", 2041699, "tiny.ipynb"), nb, at(5))]), "moodle")
    assert (later.collected, later.replaced, later.two_people) == (0, 0, 1)
    assert ("(participant ids 2041633, 2041699) (an earlier collect took participant id "
            "2041633) match alice") in later.lines[0]
    assert '"def double(x):' in submitted(course, "alice")
    assert manifest(course)[0]["lms_user_id"] == "2041633"


def test_collect_zip_exits_non_zero_when_two_people_match_one_student(course, tmp_path,
                                                                       capsys):
    from grader.cli import main

    status = main(["collect-zip", ASSIGNMENT, two_alices(course, tmp_path), "--lms", "moodle",
                   "--course", course])
    assert status == 1
    assert "2 file(s) refused: two people of Moodle" in capsys.readouterr().out


@pytest.mark.parametrize("file_name", ["Copy of tiny.ipynb", "Copy_of_tiny.ipynb",
                                       "Copy of tiny (1).ipynb"])
def test_colabs_copy_of_the_notebook_is_collected(course, tmp_path, file_name):
    zip_path = write_zip(str(tmp_path / "colab.zip"), [
        (canvas_name("Alice", "Liddell", 101, 1, file_name), correct(released(course)), at(-1))])
    outcome = collect_zip(load(course), ASSIGNMENT, zip_path, "canvas")
    assert (outcome.collected, outcome.skipped) == (1, 0)
    assert manifest(course)[0]["notebook"] == "tiny.ipynb"


"""The rehearsal of a class that hands in through its LMS (grader.rehearsal.lms): the class as
the LMS knows it, the file names its download gives, and a notebook as Colab saves it."""

import json
import shutil

from grader.reports import parse_roster
from grader.rehearsal.lms import STUDENTS, as_colab_saves, canvas_export, canvas_file_name
from testsupport.course import notebook_file


def test_the_download_names_a_file_by_sortable_name_late_flag_and_ids():
    assert canvas_file_name("Dave", "Diaz", 10004, 70030, "parameters.ipynb", late=True) == (
        "diazdave_late_10004_70030_parameters.ipynb")
    assert canvas_file_name("José", "O'Brien-Núñez", 7, 8, "a (1).ipynb", late=False) == (
        "obriennúñezjosé_7_8_a (1).ipynb")


def test_the_class_is_four_students_one_late_one_partial():
    assert {s: (kind, hours) for s, (_, _, _, kind, hours) in STUDENTS.items()} == {
        "alice": ("correct", -20.0), "bob": ("partial", -3.0), "carol": ("correct", -0.5),
        "dave": ("correct", 25.0)}


def test_the_gradebook_export_is_a_roster_of_the_class_without_the_test_student(tmp_path):
    path = tmp_path / "export.csv"
    canvas_export(str(path), ["parameters", "logits-to-text"])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == ("Student,ID,SIS User ID,SIS Login ID,Section,parameters (900),"
                        "logits-to-text (901),Current Score")
    assert lines[1] == "    Points Possible,,,,,10.00,10.00,(read only)"
    assert lines[2] == '"Archer, Alice",10001,60001,alice,Section 1,,,'
    assert lines[-1] == '"Student, Test",99999,,,Section 1,,,'
    roster = parse_roster(str(path))
    assert [(p.id, p.first_name, p.last_name) for p in roster] == [
        (student, first, last) for student, (first, last, _, _, _) in STUDENTS.items()]


def test_a_notebook_saved_by_colab_has_its_metadata_and_ids_in_every_cell(tmp_path):
    path = tmp_path / "parameters.ipynb"
    shutil.copy(notebook_file("exercises", "parameters"), path)
    with open(path, encoding="utf-8") as handle:
        cells = len(json.load(handle)["cells"])
    as_colab_saves(str(path))
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert (nb["nbformat"], nb["nbformat_minor"]) == (4, 0)
    assert nb["metadata"]["colab"] == {"provenance": [], "name": "parameters.ipynb"}
    assert [c["metadata"]["id"] for c in nb["cells"]] == [f"c{n:04d}colab" for n in range(cells)]
    assert not any("id" in c for c in nb["cells"])
    assert all(c["outputs"] == [] and c["execution_count"] is None
               for c in nb["cells"] if c["cell_type"] == "code")

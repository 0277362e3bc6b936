"""Does each LMS's class read its download's file names as the LMS writes them, and is a
renamed copy the notebook it copies?"""

import unicodedata

import pytest

from grader.lms import PLATFORMS, comparable_name, platform, released_notebook
from testsupport.lms_download import canvas_name, moodle_name

NAMES = [  # (what it is, lms, entry name, (student name, lms id, attachment id, late, file))
    ("a Canvas submission", "canvas", "doejane_12345_67890_parameters.ipynb",
     ("doejane", "12345", "67890", False, "parameters.ipynb")),
    ("a late Canvas submission uploaded again", "canvas",
     "doejane_late_12345_67891_parameters-1.ipynb",
     ("doejane", "12345", "67891", True, "parameters-1.ipynb")),
    ("a Canvas file a browser renamed", "canvas", "doejane_12345_67892_parameters (1).ipynb",
     ("doejane", "12345", "67892", False, "parameters (1).ipynb")),
    ("a Canvas file whose own name has underscores", "canvas",
     "smithbob_7_8_logits_to_text.ipynb", ("smithbob", "7", "8", False, "logits_to_text.ipynb")),
    ("a Moodle submission", "moodle", "Jane Doe_2041633_assignsubmission_file_parameters.ipynb",
     ("Jane Doe", "2041633", "", False, "parameters.ipynb")),
    ("a Moodle submission in folders", "moodle",
     "Jane Doe_2041633_assignsubmission_file_/parameters.ipynb",
     ("Jane Doe", "2041633", "", False, "parameters.ipynb")),
    ("a Moodle name with an underscore", "moodle",
     "Mary_Ann Lee_17_assignsubmission_file_logits_to_text.ipynb",
     ("Mary_Ann Lee", "17", "", False, "logits_to_text.ipynb")),
]
NOT_NAMES = [  # (what it is, lms, entry name)
    ("a file named by the student only", "canvas", "parameters.ipynb"),
    ("a Canvas name without the attachment id", "canvas", "doejane_12345_parameters.ipynb"),
    ("a Moodle online text, not a file", "moodle",
     "Jane Doe_2041633_assignsubmission_onlinetext_onlinetext.html"),
    ("a Canvas name given as Moodle's", "moodle", "doejane_12345_67890_parameters.ipynb"),
    ("a Moodle name given as Canvas's", "canvas",
     "Jane Doe_2041633_assignsubmission_file_parameters.ipynb"),
]


@pytest.mark.parametrize("lms, entry, parts", [row[1:] for row in NAMES],
                         ids=[row[0] for row in NAMES])
def test_an_lms_file_name_is_read_as_the_lms_writes_it(lms, entry, parts):
    name = platform(lms).read_name(entry)
    assert (name.student_name, name.lms_user_id, name.attachment_id, name.late,
            name.file_name) == parts
    assert name.entry == entry and name.lms == lms


@pytest.mark.parametrize("lms, entry", [row[1:] for row in NOT_NAMES],
                         ids=[row[0] for row in NOT_NAMES])
def test_a_name_the_lms_does_not_write_matches_nothing(lms, entry):
    assert platform(lms).read_name(entry) is None


@pytest.mark.parametrize("lms, entry", [row[1:3] for row in NAMES], ids=[row[0] for row in NAMES])
def test_a_name_is_read_by_its_own_lms_only(lms, entry):
    assert [p.name for p in PLATFORMS.values() if p.read_name(entry)] == [lms]


@pytest.mark.parametrize("first, last, user_id, attachment_id, file_name, late", [
    ("Dave", "Diaz", 10004, 70031, "parameters.ipynb", True),
    ("José María", "Núñez", 103, 5, "tiny (1).ipynb", False),
])
def test_a_name_canvas_writes_is_read_back_as_written(first, last, user_id, attachment_id,
                                                      file_name, late):
    canvas = platform("canvas")
    entry = canvas.download_name(first, last, user_id, attachment_id, file_name, late)
    assert entry == canvas_name(first, last, user_id, attachment_id, file_name, late)
    name = canvas.read_name(entry)
    assert (name.lms_user_id, name.attachment_id, name.file_name, name.late) == (
        str(user_id), str(attachment_id), file_name, late)


@pytest.mark.parametrize("folders", [False, True])
def test_a_name_moodle_writes_is_read_back_as_written(folders):
    moodle = platform("moodle")
    entry = moodle_name("Jane", "Doe", 2041633, "parameters.ipynb", folders=folders)
    name = moodle.read_name(entry)
    assert (name.student_name, name.lms_user_id, name.file_name) == (
        "Jane Doe", "2041633", "parameters.ipynb")
    assert moodle.download_name("Jane", "Doe", 2041633, "parameters.ipynb", folders) == entry


@pytest.mark.parametrize("file_name, notebook", [
    ("parameters.ipynb", "parameters.ipynb"),
    ("parameters-1.ipynb", "parameters.ipynb"),
    ("parameters-12.ipynb", "parameters.ipynb"),
    ("parameters (1).ipynb", "parameters.ipynb"),
    ("parameters(2).ipynb", "parameters.ipynb"),
    ("logits_to_text-3.ipynb", "logits_to_text.ipynb"),
    ("Copy of parameters.ipynb", "parameters.ipynb"),  # Colab's File, Save a copy
    ("Copy_of_parameters.ipynb", "parameters.ipynb"),  # the same, spaces made underscores
    ("Copy of Copy of parameters.ipynb", "parameters.ipynb"),
    ("Copy of parameters (1).ipynb", "parameters.ipynb"),
    ("Copy_of_parameters-2.ipynb", "parameters.ipynb"),
    ("Copy of other.ipynb", None),
    ("parameters_final.ipynb", None),
    ("parameters-1.py", None),
    ("other.ipynb", None),
])
def test_renamed_copies_are_the_released_notebook(file_name, notebook):
    assert released_notebook(file_name, ["logits_to_text.ipynb", "parameters.ipynb"]) == notebook


def test_a_notebook_whose_own_name_ends_in_a_number_is_not_a_copy():
    assert released_notebook("part-1.ipynb", ["part.ipynb", "part-1.ipynb"]) == "part-1.ipynb"


def test_a_name_in_any_unicode_form_and_case_is_the_same_name():
    composed = "José Núñez"
    decomposed = unicodedata.normalize("NFD", composed)
    assert decomposed != composed
    assert comparable_name(decomposed) == comparable_name(composed) == "josé núñez"
    assert comparable_name("  JOSÉ\tNÚÑEZ ") == comparable_name(composed)
    assert comparable_name("Jose Nunez") != comparable_name(composed)  # accents still count


def test_a_decomposed_file_name_is_the_composed_notebook():
    notebook = "résumé.ipynb"
    assert released_notebook(unicodedata.normalize("NFD", notebook), [notebook]) == notebook

"""Does the grader read an LMS download's file names as Canvas and Moodle write them, and
does it refuse a zip that tries to escape, before anything of it is written?"""

import datetime
import zipfile

import pytest

from grader.lms import MAX_ENTRY_BYTES, ArchiveError, read_lms_name, released_notebook
from grader.lms.archive import checked_entries, open_archive
from testsupport.lms_download import (bomb_zip, encrypted_zip, raw_zip, symlink_entry,
                                      utc_extra, with_info, write_zip)

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
    name = read_lms_name(lms, entry)
    assert (name.student_name, name.lms_user_id, name.attachment_id, name.late,
            name.file_name) == parts
    assert name.entry == entry and name.lms == lms


@pytest.mark.parametrize("lms, entry", [row[1:] for row in NOT_NAMES],
                         ids=[row[0] for row in NOT_NAMES])
def test_a_name_the_lms_does_not_write_matches_nothing(lms, entry):
    assert read_lms_name(lms, entry) is None


@pytest.mark.parametrize("file_name, notebook", [
    ("parameters.ipynb", "parameters.ipynb"),
    ("parameters-1.ipynb", "parameters.ipynb"),
    ("parameters-12.ipynb", "parameters.ipynb"),
    ("parameters (1).ipynb", "parameters.ipynb"),
    ("parameters(2).ipynb", "parameters.ipynb"),
    ("logits_to_text-3.ipynb", "logits_to_text.ipynb"),
    ("parameters_final.ipynb", None),
    ("parameters-1.py", None),
    ("other.ipynb", None),
])
def test_renamed_copies_are_the_released_notebook(file_name, notebook):
    assert released_notebook(file_name, ["logits_to_text.ipynb", "parameters.ipynb"]) == notebook


def test_a_notebook_whose_own_name_ends_in_a_number_is_not_a_copy():
    assert released_notebook("part-1.ipynb", ["part.ipynb", "part-1.ipynb"]) == "part-1.ipynb"


# --- the zip checked whole ---------------------------------------------------------

NOTEBOOK = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
GOOD = ("doejane_12345_67890_tiny.ipynb", b"{}")
HOSTILE = [  # (what it is, zip bytes, words the refusal must hold)
    ("a '../' entry", raw_zip([with_info("doejane_1_2_tiny.ipynb"),
                               with_info("../../home/x/.bashrc")]), "'..'"),
    ("a '..' hidden behind a backslash", raw_zip([with_info("a\\..\\..\\x.ipynb")]), "'..'"),
    ("an absolute entry", raw_zip([with_info("/etc/cron.d/x")]), "absolute path"),
    ("a Windows drive", raw_zip([with_info("C:/Windows/x.ipynb")]), "absolute path"),
    ("a symbolic link", raw_zip([with_info(*GOOD), symlink_entry("doejane_1_3_tiny.ipynb")]),
     "symbolic link"),
    ("a device file", raw_zip([with_info("dev", create_system=3,
                                         external_attr=0o020644 << 16)]),
     "not a plain file"),
    ("an entry listed twice", raw_zip([with_info(*GOOD), with_info(*GOOD)]), "twice"),
    ("a zip bomb", bomb_zip(MAX_ENTRY_BYTES + 2**20), "MAX_ENTRY_BYTES"),
    ("an encrypted entry", encrypted_zip(raw_zip([with_info(*GOOD)])), "encrypted"),
    ("not a zip at all", b"PK but not a zip" + b"x" * 100, "not a zip file"),
]


@pytest.mark.parametrize("data, words", [row[1:] for row in HOSTILE],
                         ids=[row[0] for row in HOSTILE])
def test_a_hostile_zip_is_refused_whole_naming_the_entry(tmp_path, data, words):
    path = tmp_path / "download.zip"
    path.write_bytes(data)
    with pytest.raises(ArchiveError) as refused:
        with open_archive(str(path)) as archive:
            checked_entries(archive, str(path))
    assert words in str(refused.value) and str(path) in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["download.zip"]  # nothing written


def test_the_total_size_of_a_zip_is_capped(tmp_path, monkeypatch):
    import grader.lms.archive as archive_module

    monkeypatch.setattr(archive_module, "MAX_TOTAL_BYTES", 100)
    path = write_zip(str(tmp_path / "d.zip"), [
        (f"doejane_1_{n}_tiny.ipynb", b"x" * 60, datetime.datetime(2026, 1, 15)) for n in (2, 3)])
    with pytest.raises(ArchiveError, match=r"MAX_TOTAL_BYTES.*doejane_1_3_tiny.ipynb"):
        with open_archive(path) as archive:
            checked_entries(archive, path)


def test_a_missing_zip_is_named(tmp_path):
    with pytest.raises(ArchiveError, match="no such file"):
        open_archive(str(tmp_path / "nowhere.zip"))


def test_an_entry_time_is_read_as_utc_and_from_the_extra_field_where_there_is_one(tmp_path):
    path = str(tmp_path / "d.zip")
    with zipfile.ZipFile(path, "w") as archive:
        plain = zipfile.ZipInfo("a_1_2_tiny.ipynb", (2026, 1, 15, 12, 0, 0))
        archive.writestr(plain, b"{}")
        stamped = zipfile.ZipInfo("a_1_3_tiny.ipynb", (2026, 1, 15, 14, 0, 0))  # local time
        stamped.extra = utc_extra(datetime.datetime(2026, 1, 15, 13, 30, 5))
        archive.writestr(stamped, b"{}")
        archive.writestr(zipfile.ZipInfo("folder/", (2026, 1, 1, 0, 0, 0)), b"")
    with open_archive(path) as archive:
        entries = checked_entries(archive, path)
    assert [(e.name, e.modified) for e in entries] == [
        ("a_1_2_tiny.ipynb", datetime.datetime(2026, 1, 15, 12, 0, 0)),
        ("a_1_3_tiny.ipynb", datetime.datetime(2026, 1, 15, 13, 30, 5))]

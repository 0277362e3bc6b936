"""Does the grader refuse an LMS download that tries to escape, before anything of it is
written, and read each entry's time as the LMS server wrote it?"""

import datetime
import zipfile

import pytest

from grader.intake import MAX_ENTRY_BYTES, ArchiveError
from grader.intake.archive import checked_entries, open_archive
from testsupport.lms_download import (bomb_zip, encrypted_zip, raw_zip, symlink_entry,
                                      utc_extra, with_info, write_zip)

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
    import grader.intake.archive as archive_module

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

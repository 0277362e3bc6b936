"""The leak scan's record of clean files (grader.publish.scan_record): a file found clean is
not searched again while its bytes, the secrets and the scanner are the same; a changed
file, a new secret or a changed scanner has it searched again; a file that leaks or cannot
be searched is never recorded; a damaged record costs only time; the record holds digests,
never a secret's or a file's text."""

import gzip
import json

import pytest

from grader.publish import Fragment, SecretKind, leak_scan, squeeze
from grader.publish.decoding import MAX_EXPANDED
from grader.publish.scan_record import CleanFiles, scan_key

HIDDEN = "assert count_tied_parameters(GPTModel(unseen_cfg)) == unseen_count, 'wrong count'"
OTHER = "assert model_size_mib(GPTModel(any_cfg)) == expected_mib, 'wrong size in MiB'"


def fragment(text, grade_id="count_tied_parameters_unseen_configs"):
    return Fragment(squeeze(text), SecretKind.HIDDEN_TEST, "parameters", "parameters.ipynb",
                    grade_id, True)


@pytest.fixture
def searched(monkeypatch):
    """The paths the scan searched, in order (scan_bytes is counted, not changed)."""
    paths = []
    search = leak_scan.scan_bytes

    def counted(path, data, index):
        paths.append(path)
        return search(path, data, index)

    monkeypatch.setattr(leak_scan, "scan_bytes", counted)
    return paths


def scan(folder, fragments, record):
    return leak_scan.scan_folder(str(folder), fragments,
                                 CleanFiles(str(record), scan_key(fragments)))


@pytest.fixture
def site(tmp_path):
    folder = tmp_path / "bundle"
    (folder / "book").mkdir(parents=True)
    (folder / "book" / "intro.html").write_text("<p>nothing secret</p>")
    (folder / "book" / "counting.html").write_text("<pre>count_parameters(model)</pre>")
    return folder


def test_a_file_found_clean_is_not_searched_again_and_a_changed_one_is(site, tmp_path,
                                                                      searched):
    record = tmp_path / "clean-files.json"
    assert scan(site, [fragment(HIDDEN)], record) == []
    assert searched == ["book/counting.html", "book/intro.html"]
    searched.clear()
    assert scan(site, [fragment(HIDDEN)], record) == []
    assert searched == []
    (site / "book" / "counting.html").write_text(f"<pre>{HIDDEN}</pre>")
    [leak] = scan(site, [fragment(HIDDEN)], record)
    assert (leak.path, searched) == ("book/counting.html", ["book/counting.html"])


def test_a_new_secret_or_a_changed_scanner_has_every_file_searched_again(site, tmp_path,
                                                                        searched, monkeypatch):
    record = tmp_path / "clean-files.json"
    (site / "book" / "size.html").write_text(f"<pre>{OTHER}</pre>")
    assert scan(site, [fragment(HIDDEN)], record) == []
    searched.clear()
    [leak] = scan(site, [fragment(HIDDEN), fragment(OTHER, "model_size_mib_any_model")],
                  record)
    assert leak.path == "book/size.html" and len(searched) == 3
    searched.clear()
    assert scan(site, [fragment(HIDDEN)], record) == []  # the record is of the last secrets
    assert len(searched) == 3
    searched.clear()
    code = tmp_path / "leak_scan.py"
    code.write_text("# the scanner, changed\n")
    monkeypatch.setattr("grader.publish.scan_record.SCANNER", (str(code),))
    assert scan(site, [fragment(HIDDEN)], record) == []
    assert len(searched) == 3


def test_a_leaking_or_unsearchable_file_is_searched_every_time(site, tmp_path, searched):
    record = tmp_path / "clean-files.json"
    (site / "notes.txt").write_text(HIDDEN)
    (site / "data.gz").write_bytes(gzip.compress(b"\0" * (MAX_EXPANDED + 1)))
    for expected in (["data.gz", "notes.txt", "book/counting.html", "book/intro.html"],
                     ["data.gz", "notes.txt"]):  # the two clean pages are recorded
        searched.clear()
        found = scan(site, [fragment(HIDDEN)], record)
        assert sorted(leak.path for leak in found) == ["data.gz", "notes.txt"]
        assert sorted(searched) == sorted(expected)


def test_a_damaged_record_costs_a_full_scan_and_is_written_again(site, tmp_path, searched):
    record = tmp_path / "clean-files.json"
    record.write_text("{not json")
    assert scan(site, [fragment(HIDDEN)], record) == []
    assert len(searched) == 2
    kept = json.loads(record.read_text())
    assert sorted(kept) == ["clean", "key"] and len(kept["clean"]) == 2


def test_the_record_holds_digests_never_a_secrets_or_a_files_text(site, tmp_path):
    record = tmp_path / "clean-files.json"
    scan(site, [fragment(HIDDEN)], record)
    text = record.read_text()
    for secret in ("count_tied_parameters", squeeze(HIDDEN), "nothing secret", "count_parameters"):
        assert secret not in text
    kept = json.loads(text)
    assert all(len(d) == 64 and int(d, 16) >= 0 for d in kept["clean"] + [kept["key"]])

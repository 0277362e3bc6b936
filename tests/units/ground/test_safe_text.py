"""Does student-made text come out of the one set of cleaners safe to write, show and store?"""

import pytest

from grader.safe_text import (capped, file_name, one_line, shown_id, spreadsheet_cell,
                              student_id_problem, without_controls, writable)


def test_a_lone_surrogate_becomes_an_escape_and_any_value_text():
    assert writable("caf\udce9") == "caf\\udce9"
    assert writable(12) == "12"
    assert file_name(b"caf\xe9.ipynb") == "caf\\udce9.ipynb"


def test_a_cap_is_always_given_and_cuts_before_escaping():
    assert capped("abcdef", 3) == "abc"
    assert capped("\udce9" * 4, 2) == "\\udce9\\udce9"


@pytest.mark.parametrize("text, layout_kept, one", [
    ("a\tb\nc", "a\tb\nc", "abc"),
    ("a\rb\x00c\x1bd", "abcd", "abcd"),
    ("a\x85b\u2028c\u2029d\x7f", "abcd", "abcd"),
])
def test_one_set_of_control_characters_with_or_without_the_layout(text, layout_kept, one):
    assert without_controls(text) == layout_kept
    assert one_line(text) == one


def test_a_spreadsheet_never_reads_a_student_cell_as_a_formula():
    assert spreadsheet_cell("=HYPERLINK(\"x\")\n") == "'=HYPERLINK(\"x\")"
    assert spreadsheet_cell("-rf") == "'-rf"
    assert spreadsheet_cell("ada") == "ada"


@pytest.mark.parametrize("student, problem", [
    ("ada", None),
    ("", "is empty"),
    ("new\nline", "holds control characters"),
    ("tab\there", "holds control characters"),
    ("sep\u2028arator", "holds control characters"),
    ("-rf", "starts with '-' (it would be read as an option)"),
    (" ada", "starts or ends with white space"),
    ("a/b", "is not a folder name"),
    ("..", "is not a folder name"),
])
def test_one_student_id_check_serves_the_submissions_and_the_roster(student, problem):
    assert student_id_problem(student) == problem


def test_an_id_with_control_characters_is_shown_with_escapes():
    assert shown_id("new\nline") == "'new\\nline'"
    assert shown_id("ada") == "ada"


@pytest.mark.parametrize("url, scheme", [
    ("https://example.org/a", "https"), ("#section", ""), ("notes/page.html", ""),
    ("da&#x09;ta:text/html,x", "data"), ("da\tta:text/html,x", "data"),
    ("  DATA:text/html,x", "data"), ("%64ata:text/html,x", "data"),
    ("&amp;#x64;ata:x", "data"), ("java\nscript:alert(1)", "javascript"),
    ("\x01mailto:a@example.org", "mailto"), (":no-scheme", None)])
def test_the_scheme_of_a_url_is_read_after_every_decoding_a_browser_does(url, scheme):
    from grader.safe_text import url_scheme

    assert url_scheme(url) == scheme

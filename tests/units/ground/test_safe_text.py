"""Does student-made text come out of the one set of cleaners safe to write, show and store?"""

import pytest

from grader.safe_text import (capped, file_name, one_line, shown_on_page, quoted, shown, shown_id,
                              spreadsheet_cell,
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


@pytest.mark.parametrize("text, one_line_shown, layout_kept", [
    ("plain text, café — ok", "plain text, café — ok", "plain text, café — ok"),
    ("a\x1b[2Jb", "a\\x1b[2Jb", "a\\x1b[2Jb"),
    ("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\x07", "\\x1b]52;c;aGk=\\x07"),
    ("\x9b31m\x7f\x00", "\\x9b31m\\x7f\\x00", "\\x9b31m\\x7f\\x00"),
    ("a\tb\nc\rd", "a\\x09b\\x0ac\\x0dd", "a\tb\nc\\x0dd"),
    ("\u202eabc\u202c \u2066x\u2069 z\u200bw \ufeff", "\\u202eabc\\u202c \\u2066x\\u2069 "
     "z\\u200bw \\ufeff", "\\u202eabc\\u202c \\u2066x\\u2069 z\\u200bw \\ufeff"),
    ("line\u2028sep \U000e0041 \ud800", "line\\u2028sep \\U000e0041 \\ud800",
     "line\\u2028sep \\U000e0041 \\ud800"),
    ("no\xa0break", "no\xa0break", "no\xa0break"),  # a space of another width shows as one
])
def test_every_character_that_would_act_shows_as_its_escape(text, one_line_shown,
                                                              layout_kept):
    assert shown(text) == one_line_shown
    assert shown(text, keep_layout=True) == layout_kept


def test_no_character_a_terminal_or_browser_acts_on_passes_shown():
    """Every C0 and C1 control, DEL, format character (bidi, zero-width, tags), line or
    paragraph separator, surrogate and unassigned code point comes out escaped."""
    import sys
    import unicodedata

    acting = [chr(code) for code in range(sys.maxunicode + 1)
              if unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Cn")]
    assert len(acting) > 800_000
    for keep_layout, kept in ((False, ""), (True, "\n\t")):
        escaped = [c for c in acting if c not in kept]
        out = shown("".join(escaped), keep_layout=keep_layout)  # one text: one pass
        # each character became one escape, a backslash and ASCII letters and digits
        assert out.count("\\") == len(escaped) and out.isascii() and out.isprintable()
        assert shown("".join(escaped[::9973]), keep_layout=keep_layout) == "".join(
            shown(c, keep_layout=keep_layout) for c in escaped[::9973])  # as one by one


def test_a_quoted_text_keeps_each_line_in_its_margin_and_is_cut_saying_where():
    forged = quoted("fine\n\nStudent bob \u2014 score 2/2\n\x1b[2J", "see nb.ipynb")
    assert forged == ["  \u2502 fine", "  \u2502", "  \u2502 Student bob \u2014 score 2/2",
                      "  \u2502 \\x1b[2J"]
    long = quoted("x" * 10_000_000, "see nb.ipynb")
    assert long == ["  \u2502 " + "x" * 4_000,
                    "  \u2026 (9,996,000 more characters: see nb.ipynb)"]
    many = quoted("\n".join(f"line {n}" for n in range(100)), "see nb.ipynb")
    assert len(many) == 41 and many[39] == "  \u2502 line 39"
    assert many[40] == f"  \u2026 ({sum(len(f'line {n}') + 1 for n in range(40, 100)):,} more " \
                       "characters: see nb.ipynb)"


def test_a_page_shows_the_escapes_as_text_and_no_markup():
    assert shown_on_page("<b>\u202ex</b>\n\x1b") == "&lt;b&gt;\\u202ex&lt;/b&gt;\n\\x1b"


def test_an_id_that_would_act_is_shown_as_its_repr():
    assert shown_id("ada") == "ada"
    assert shown_id("bob\u202e") == "'bob\\u202e'"

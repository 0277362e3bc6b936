"""Text a student controls, made safe to write, show and store: one rule for each need.

Student ids, file names, messages, outputs and cell sources come from
submissions. Before the grader writes any of them into a notebook, a report,
a CSV file or a terminal line, it passes through one of these functions:

- `writable`: any text as valid UTF-8 (a lone surrogate becomes an escape);
- `capped`: `writable`, cut to an explicit number of characters;
- `without_controls`: control characters removed, newlines and tabs kept
  (a message or an output of several lines);
- `one_line`: every control character removed, newlines and tabs too
  (a spreadsheet cell, a line of summary.txt);
- `spreadsheet_cell`: `one_line`, and never read as a formula;
- `student_id_problem` and `shown_id`: the one check of a student id, and how
  an id that fails it is shown;
- `url_scheme`: the scheme a browser reads in a link a student wrote, after
  every decoding that could hide it.

Control characters are one set, `CONTROL`: C0, DEL, C1 and the Unicode line
and paragraph separators.
"""

import html
import os
import re
import urllib.parse
from typing import Any

CONTROL_CHARACTERS = "[\x00-\x1f\x7f-\x9f\u2028\u2029]"  # C0, DEL, C1, line/paragraph separators
CONTROL = re.compile(CONTROL_CHARACTERS)
CONTROL_BUT_LAYOUT = re.compile("(?![\t\n])" + CONTROL_CHARACTERS)  # newlines and tabs kept
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CsvValue = str | int | float | None  # what a cell of a CSV file is written from


def writable(text: str) -> str:
    """`text` (made a string if it is not one) that can always be written as UTF-8: lone
    surrogates become \\udXXX escapes."""
    if not isinstance(text, str):
        text = str(text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def capped(text: str, cap: int) -> str:
    """The first `cap` characters of `text`, writable as UTF-8."""
    return writable(str(text)[:cap])


def without_controls(text: str) -> str:
    """`text`, writable, with control characters removed but newlines and tabs kept."""
    return CONTROL_BUT_LAYOUT.sub("", writable(text))


def one_line(text: str | None) -> str:
    """`text` as one line of plain text: every control character (tab, CR, newline,
    NUL, ...) removed; None is the empty string."""
    return CONTROL.sub("", "" if text is None else str(text))


def spreadsheet_safe(value: CsvValue) -> CsvValue:
    """A CSV cell that no spreadsheet reads as a formula: '=1+2' becomes \"'=1+2\"."""
    if isinstance(value, str) and value[:1] in FORMULA_STARTS:
        return "'" + value
    return value


def spreadsheet_cell(text: str | None) -> str:
    """`text` safe as a spreadsheet cell: one line, and never read as a formula."""
    return spreadsheet_safe(one_line(text))


def writable_record(value: object) -> Any:
    """`value` with every string in it writable as UTF-8, recursively (lists, dicts; a
    tuple becomes a list): a JSON value of the same shape."""
    if isinstance(value, str):
        return writable(value)
    if isinstance(value, dict):
        return {writable_record(k): writable_record(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [writable_record(v) for v in value]
    return value


def file_name(name: str | bytes) -> str:
    """A file name from os.listdir (bytes or surrogate-escaped str) as printable UTF-8 text."""
    return writable(os.fsdecode(name))


def shown_value(value: object, limit: int = 60) -> str:
    """The repr of a value a submission holds, writable and at most about `limit` characters."""
    text = writable(repr(value))
    return text if len(text) <= limit else text[:limit] + "..."


def student_id_problem(student: str) -> str | None:
    """Why `student` cannot be a student id, or None.

    nbgrader, the reports and shells need a plain line of text that is a
    folder name and is not read as an option. The words complete a sentence
    that begins with the id: "student id 'a\\nb' holds control characters".
    """
    if not student.strip():
        return "is empty"
    if CONTROL.search(student):
        return "holds control characters"
    if student.startswith("-"):
        return "starts with '-' (it would be read as an option)"
    if student.strip() != student:
        return "starts or ends with white space"
    if "/" in student or student in (".", ".."):
        return "is not a folder name"
    return None


def shown_id(student: str) -> str:
    """A student id for a report line: one with control characters written with escapes."""
    return repr(student) if CONTROL.search(student) else student


URL_SCHEME = re.compile(r"([a-z][a-z0-9+.-]*):")
URL_IGNORED = re.compile(r"[\x00-\x20\x7f-\xa0\s]+")  # what browsers drop or skip in a URL
MAX_URL_DECODINGS = 8  # entities or %-escapes nested deeper than this are no link


def url_scheme(url: str) -> str | None:
    """The scheme ("https", "data", ...) a browser would read in `url`, "" for a link within
    the page or relative to it, None when it cannot be told.

    `url` is decoded as a browser or a later reader might decode it: HTML entities
    (``da&#x09;ta:``) and %-escapes, repeatedly, then white space and control
    characters removed wherever they stand (a browser drops tabs and newlines inside
    a URL and spaces around it). What is left before the first ``:`` is the scheme,
    unless a ``/``, ``?`` or ``#`` comes first.
    """
    text = writable(url)
    for _ in range(MAX_URL_DECODINGS):
        decoded = urllib.parse.unquote(html.unescape(text))
        if decoded == text:
            break
        text = decoded
    else:
        return None
    text = URL_IGNORED.sub("", text).lower()
    match = URL_SCHEME.match(text)
    if match:
        return match.group(1)
    if ":" in text.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]:
        return None  # a colon where a scheme would stand, after something no scheme holds
    return ""

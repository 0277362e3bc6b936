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
  every decoding that could hide it;
- `shown`: the one rule for showing student text at a terminal or on a page:
  every character that would act rather than show (ESC and every other C0 or
  C1 control, DEL, a bidi override, a zero-width or other invisible format
  character, a line separator, a lone surrogate) written as its escape, `\x1b`,
  `\u202e`; newlines and tabs kept only when asked;
- `shown_on_page`: `shown` for an HTML page, layout kept, then HTML-escaped;
- `quoted`: a student's text of several lines as the grader's terminal shows it:
  `shown`, every line behind the same mark (so none can pass for a line of the
  grader's own), cut after `QUOTED_LINES` lines or `QUOTED_CHARS` characters with
  a sentence that says how much more there is and where the whole is kept.

Control characters are one set, `CONTROL`: C0, DEL, C1 and the Unicode line
and paragraph separators.
"""

import html
import os
import re
import unicodedata
import urllib.parse
from typing import Any

CONTROL_CHARACTERS = "[\x00-\x1f\x7f-\x9f\u2028\u2029]"  # C0, DEL, C1, line/paragraph separators
CONTROL = re.compile(CONTROL_CHARACTERS)
CONTROL_BUT_LAYOUT = re.compile("(?![\t\n])" + CONTROL_CHARACTERS)  # newlines and tabs kept
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CsvValue = str | int | float | None  # what a cell of a CSV file is written from
QUOTE_MARK = "  \u2502 "  # "  │ ": what opens each line of a student's text at the terminal
QUOTED_LINES = 40  # of a student's text shown at the terminal, at most
QUOTED_CHARS = 4_000


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
    """A student id for a report line: one that holds a character that would not show as
    itself (a control, a bidi override, a zero-width space) written as its repr, escaped."""
    return student if student.isprintable() else repr(student)


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


def _escape(character: str) -> str:
    code = ord(character)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _shows_as_itself(character: str, keep_layout: bool) -> bool:
    """Whether a terminal or a browser shows `character` as a glyph or a space: printable
    as Python reads Unicode (no C0, C1, DEL, format, separator, surrogate or unassigned
    character), a space of any width, and with `keep_layout` a newline or a tab."""
    if character.isprintable():
        return True
    if character in "\n\t":
        return keep_layout
    return unicodedata.category(character) == "Zs"


def shown(text: str, keep_layout: bool = False) -> str:
    """`text` (made a string if it is not one) safe to print at a terminal or put on a page:
    every character that would act instead of showing (ESC, CSI U+009B, DEL, a bidi
    override U+202E, a zero-width space, a carriage return, ...) written as its escape
    (``\\x1b``, ``\\u202e``); with `keep_layout`, newlines and tabs stay. A backslash
    the student typed stays a backslash: an escape shown can be told from the character
    only by reading the text, never by what the terminal does."""
    text = text if isinstance(text, str) else str(text)
    if text.isprintable():  # the common case, at C speed
        return text
    return "".join(c if _shows_as_itself(c, keep_layout) else _escape(c) for c in text)


def shown_on_page(text: str) -> str:
    """`text` for an HTML page: `shown` with its lines and tabs kept, then escaped as HTML
    (a browser shows an escape where a bidi override or a control would act)."""
    return html.escape(shown(text, keep_layout=True))


def quoted(text: str, where: str, lines: int = QUOTED_LINES, chars: int = QUOTED_CHARS,
           mark: str = QUOTE_MARK) -> list[str]:
    """The lines that show a student's `text` at the terminal: each line of it `shown` behind
    `mark`, so that no line of the student's can pass for one of the grader's; after `lines`
    lines or `chars` characters the rest is left out and a last line, not marked, says how
    many characters more there are and `where` the whole text is kept."""
    text = text if isinstance(text, str) else str(text)
    head = text[:chars]
    kept = head.split("\n")[:lines]
    shown_chars = sum(map(len, kept)) + len(kept) - 1
    out = [(mark + shown(line)).rstrip() if line.strip() else mark.rstrip() for line in kept]
    rest = len(text) - min(shown_chars, len(text))
    if rest > 0:
        out.append(f"  \u2026 ({rest:,} more characters: {where})")
    return out

"""Every byte of a folder searched for secret fragments (fragments.py): the leak scan.

Each file is read as text and searched in every form a fragment can take there:

- as it is (a page's source, a notebook, a Python file);
- as a page shows it: tags taken out and HTML's escapes undone, twice (``&amp;lt;``),
  so code that Pygments split into one <span> per token is whole again;
- as a JSON or JavaScript string holds it: the escapes of strings undone (``\\n``,
  ``\\"``, ``\\u00e9``), which covers notebooks, the search index (searchindex.js) and
  the JSON a page embeds; a notebook is also read as JSON, each cell's lines joined;
- with its percent-escapes undone (a link's query), and each of those as a page shows it,
  where it holds markup.

Before that, the layers a file can hold text under are undone (decoding.py), each layer
searched the same way: archives (a wheel, a zip, a tar, gzip/bzip2/xz data) known by
their first bytes whatever their name, a PDF's compressed streams and zlib data in any
binary file, a PDF's pages' text, base64 (data: URIs, long runs anywhere in text), UTF-16
and UTF-32. A leak names the file (``a.whl!pkg/mod.py`` inside an archive) and the layers
it was found under (``book.pdf > stream of object 12 (zlib)``); a file that cannot be
searched (a zip bomb) is a leak too, with the reason. Every form is squeezed (no
whitespace) before the search, which a `FragmentIndex` makes quick (the bundle holds tens
of megabytes of scripts).
"""

import html
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .decoding import (MAX_LAYERS, NULS_OUT, Budget, Unsearchable, archive_members,
                       base64_runs, is_image, pdf_texts, percent_decoded, wide_texts,
                       zlib_streams)
from .fragments import Fragment, squeeze
from .scan_record import CleanFiles

TAG = re.compile(r"<[^>]*>")
GRAM = 12  # characters of the pieces a FragmentIndex looks up
INDEXED = 24  # fragments this long or longer are indexed; shorter ones searched one by one
ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
SIMPLE_ESCAPES = (("\\n", "\n"), ("\\t", "\t"), ("\\r", "\r"), ('\\"', '"'), ("\\/", "/"),
                  ("\\'", "'"), ("\\\\", "\\"))


class FragmentIndex:
    """The fragments, found in a text without searching it once for each.

    Every GRAM-character piece of every fragment of at least INDEXED characters is
    indexed. Where a text holds such a fragment, it holds one of its pieces beginning at
    a multiple of step = INDEXED - GRAM + 1; so only those pieces of the text are looked
    up, and only the fragments that own a piece found are searched for, exactly. The few
    shorter fragments (the canaries) are searched for one by one.
    """

    def __init__(self, fragments: list[Fragment]):
        self.fragments = fragments
        self.short = [f for f in fragments if len(f.squeezed) < INDEXED]
        self.owners: dict[str, set[int]] = {}
        for number, fragment in enumerate(fragments):
            text = fragment.squeezed
            if len(text) >= INDEXED:
                for start in range(len(text) - GRAM + 1):
                    self.owners.setdefault(text[start:start + GRAM], set()).add(number)
        self.step = INDEXED - GRAM + 1

    def found_in(self, text: str) -> list[Fragment]:
        pieces = {text[i:i + GRAM] for i in range(0, max(1, len(text) - GRAM + 1), self.step)}
        candidates = set().union(*(self.owners[p] for p in pieces & self.owners.keys()))
        found = [self.fragments[n] for n in sorted(candidates)
                 if self.fragments[n].squeezed in text]
        return found + [f for f in self.short if f.squeezed in text]


@dataclass(frozen=True)
class Leak:
    """A fragment found in a file, or a file that cannot be searched (`fragment` None, the
    `refusal` says why): its path in the folder (``a.whl!pkg/mod.py`` inside an archive),
    and `how` the layers it was found under were decoded ('' for none)."""

    path: str
    fragment: Fragment | None
    how: str = ""
    refusal: str = ""

    def line(self) -> str:
        where = f"{self.path} > {self.how}" if self.how else self.path
        return f"{where}: {self.refusal if self.fragment is None else self.fragment.where()}"


def page_text(text: str) -> str:
    """`text` as a browser shows it, tags out and escapes undone; twice, for markup shown as
    text (escaped once more)."""
    for _ in range(2):
        text = html.unescape(TAG.sub("", text))
    return text


def unescaped(text: str) -> str:
    """`text` with the escapes of JSON and JavaScript strings undone (\\n, \\", \\u00e9...)."""
    text = ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text) if "\\u" in text else text
    for escape, character in SIMPLE_ESCAPES:
        text = text.replace(escape, character)
    return text


def json_strings(value: Any) -> Iterator[str]:
    """Every string of a parsed JSON value; a list of strings (a cell's lines) joined."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            yield "".join(value)
        else:
            for item in value:
                yield from json_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from json_strings(item)


def text_forms(text: str) -> list[tuple[str, str]]:
    """[(how, squeezed form)] of the forms `text` may hold a fragment in (module docstring);
    `how` is '' or 'percent-encoded'."""
    forms = [("", text)]
    if "\\" in text:
        forms.append(("", unescaped(text)))
    if text.lstrip()[:1] in ("{", "["):
        try:
            forms.append(("", "\n".join(json_strings(json.loads(text)))))
        except ValueError:
            pass
    decoded = percent_decoded(text)
    if decoded is not None:
        forms.append(("percent-encoded", decoded))
    forms += [(how, page_text(form)) for how, form in list(forms) if "<" in form or "&" in form]
    return [(how, squeeze(form)) for how, form in forms]


def joined(*hows: str) -> str:
    """The layers' names one after the other: 'a > b'."""
    return " > ".join(how for how in hows if how)


class FileScan:
    """One published file searched, through every layer it holds, within one `Budget`."""

    def __init__(self, index: FragmentIndex):
        self.index, self.budget, self.leaks = index, Budget(), []

    def search_bytes(self, path: str, how: str, data: bytes, depth: int = 0) -> None:
        """The leaks in `data`: its archives opened first, all the way down (so that a zip bomb
        is refused before anything is searched), then each file's text in every encoding and
        what its zlib streams inflate to."""
        if self.budget.exceeded:
            return  # the file is refused, and said so once
        try:
            for path, how, data, depth in self.unpacked(path, how, data, depth):
                try:
                    texts, binary = [("", data.decode("utf-8"))], False
                except UnicodeDecodeError:
                    texts, binary = [("", data.decode("utf-8", errors="replace"))], True
                self.search_texts(path, how, texts + wide_texts(data), depth, binary)
                if binary and not is_image(data) and depth < MAX_LAYERS:
                    for layer in zlib_streams(data, self.budget) + pdf_texts(data, self.budget):
                        self.search_bytes(path, joined(how, layer.name), layer.data, depth + 1)
        except Unsearchable as refusal:
            if not any(leak.fragment is None for leak in self.leaks):
                at, at_how = refusal.where or (path, how)
                self.leaks.append(Leak(at, None, at_how, str(refusal)))

    def unpacked(self, path: str, how: str, data: bytes, depth: int
                 ) -> list[tuple[str, str, bytes, int]]:
        """[(path, how, bytes, depth)] of the files `data` holds: itself, or the files of the
        archives it is, to the last; a member's name follows its archive's (a.zip!b.txt)."""
        try:
            members = archive_members(data, self.budget)
            if members is not None and depth >= MAX_LAYERS:
                raise Unsearchable(f"an archive inside {MAX_LAYERS} other layers: it cannot "
                                   f"be searched, so it is not published")
        except Unsearchable as refusal:
            refusal.where = refusal.where or (path, how)
            raise
        if members is None:
            return [(path, how, data, depth)]
        files = []
        for layer in members:
            inner = f"!{layer.name}" if layer.member else ""
            files += self.unpacked(path, how + inner, layer.data, depth + 1) if how else \
                self.unpacked(path + inner, how, layer.data, depth + 1)
        return files

    def search_texts(self, path: str, how: str, texts: list[tuple[str, str]], depth: int,
                     binary: bool = False) -> None:
        """The leaks in `texts` ([(encoding, text)] of one layer) and in their base64; a
        `binary` layer's bytes (not UTF-8) are searched as they are, without the forms of
        markup or escapes, unless read as UTF-16 or UTF-32 (a text file)."""
        forms = [(joined(encoding, form_how), form) for encoding, text in texts
                 for form_how, form in (
                     [("", squeeze(text))] if binary and encoding in ("", NULS_OUT)
                     else text_forms(text))]
        for fragment in self.index.found_in("\0".join(form for _, form in forms)):
            where = next(form_how for form_how, form in forms if fragment.squeezed in form)
            self.leaks.append(Leak(path, fragment, joined(how, where)))
        if depth >= MAX_LAYERS:
            return
        seen: set[str] = set()
        for encoding, text in texts:
            holders = [(encoding, text)]
            if "\\/" in text:  # JSON's escaped slashes
                holders.append((encoding, text.replace("\\/", "/")))
            decoded = percent_decoded(text)
            if decoded is not None:
                holders.append((joined(encoding, "percent-encoded"), decoded))
            for text_how, holder in holders:
                for layer in base64_runs(holder, self.budget, seen):
                    self.search_bytes(path, joined(how, text_how, layer.name), layer.data,
                                      depth + 1)


def scan_bytes(path: str, data: bytes, index: FragmentIndex) -> list[Leak]:
    """The leaks in one file's `data`, named `path`."""
    scan = FileScan(index)
    scan.search_bytes(path, "", data)
    return scan.leaks


def scan_folder(folder: str, fragments: list[Fragment], clean: CleanFiles | None = None
                ) -> list[Leak]:
    """Every leak in the files under `folder`, by path (relative to it); symbolic links are
    followed to their files, as a web server would serve them. With `clean` (the course's
    record, scan_record.py), a file whose bytes were found clean before is not searched
    again, and each file found clean now is recorded."""
    index, leaks = FragmentIndex(fragments), []
    for base, folders, files in os.walk(folder, followlinks=True):
        folders.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            with open(path, "rb") as handle:
                data = handle.read()
            digest = CleanFiles.digest(data) if clean is not None else ""
            if digest and digest in clean:
                continue
            found = scan_bytes(os.path.relpath(path, folder), data, index)
            if digest and not found:
                clean.add(digest)
            leaks += found
    if clean is not None:
        clean.save()
    return leaks

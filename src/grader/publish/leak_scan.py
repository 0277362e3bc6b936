"""Every byte of a folder searched for secret fragments (fragments.py): the leak scan.

Each file is read as text and searched in every form a fragment can take there:

- as it is (a page's source, a notebook, a Python file);
- as a page shows it: tags taken out and HTML's escapes undone, twice (``&amp;lt;``),
  so code that Pygments split into one <span> per token is whole again;
- as a JSON or JavaScript string holds it: the escapes of strings undone (``\\n``,
  ``\\"``, ``\\u00e9``), which covers notebooks, the search index (searchindex.js) and
  the JSON a page embeds; a notebook is also read as JSON, each cell's lines joined;
- and each of those as a page shows it, where it holds markup.

Archives (a wheel, a zip, a tar, gzip/bzip2/xz data), known by their first bytes
whatever their name, are opened in memory and their files searched the same way, to
any depth. Every form is squeezed (no whitespace) before the search, which a
`FragmentIndex` makes quick (the bundle holds tens of megabytes of scripts).
"""

import bz2
import gzip
import html
import io
import json
import lzma
import os
import re
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .fragments import Fragment, squeeze

TAG = re.compile(r"<[^>]*>")
MAX_DEPTH = 4  # archives inside archives
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
    """A fragment found in a file: its path in the folder (``a.whl!pkg/mod.py`` inside an
    archive) and what it is."""

    path: str
    fragment: Fragment

    def line(self) -> str:
        return f"{self.path}: {self.fragment.where()}"


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


def text_forms(text: str) -> str:
    """The squeezed forms `text` may hold a fragment in (module docstring), one after the
    other, apart."""
    forms = [text]
    if "\\" in text:
        forms.append(unescaped(text))
    if text.lstrip()[:1] in ("{", "["):
        try:
            forms.append("\n".join(json_strings(json.loads(text))))
        except ValueError:
            pass
    forms += [page_text(form) for form in list(forms) if "<" in form or "&" in form]
    return "\0".join(squeeze(form) for form in forms)


def archive_members(data: bytes) -> list[tuple[str, bytes]] | None:
    """[(name, bytes)] of the files of an archive or compressed stream, or None when `data`
    is neither (known by its first bytes)."""
    try:
        if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                return [(i.filename, archive.read(i)) for i in archive.infolist()
                        if not i.is_dir()]
        if data[:2] == b"\x1f\x8b":
            return [("(gzip)", gzip.decompress(data))]
        if data[:3] == b"BZh":
            return [("(bzip2)", bz2.decompress(data))]
        if data[:6] == b"\xfd7zXZ\x00":
            return [("(xz)", lzma.decompress(data))]
        if data[257:262] == b"ustar":
            with tarfile.open(fileobj=io.BytesIO(data)) as archive:
                return [(m.name, archive.extractfile(m).read()) for m in archive.getmembers()
                        if m.isfile()]
    except (zipfile.BadZipFile, OSError, EOFError, lzma.LZMAError, tarfile.TarError,
            ValueError) as error:
        return [("(unreadable archive)", str(error).encode())]
    return None


def scan_bytes(path: str, data: bytes, index: FragmentIndex, depth: int = 0) -> list[Leak]:
    """The leaks in one file's `data` (an archive's files searched in turn)."""
    members = archive_members(data) if depth < MAX_DEPTH else None
    if members is not None:
        leaks = []
        for name, member in members:
            inner = f"{path}!{name}" if not name.startswith("(") else path
            leaks += scan_bytes(inner, member, index, depth + 1)
        return leaks
    forms = text_forms(data.decode("utf-8", errors="replace"))
    return [Leak(path, fragment) for fragment in index.found_in(forms)]


def scan_folder(folder: str, fragments: list[Fragment]) -> list[Leak]:
    """Every leak in the files under `folder`, by path (relative to it); symbolic links are
    followed to their files, as a web server would serve them."""
    index, leaks = FragmentIndex(fragments), []
    for base, folders, files in os.walk(folder, followlinks=True):
        folders.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            with open(path, "rb") as handle:
                data = handle.read()
            leaks += scan_bytes(os.path.relpath(path, folder), data, index)
    return leaks

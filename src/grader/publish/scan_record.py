"""The leak scan's record of the files it found clean, so that the same bytes are not
searched again for the same secrets.

`make publish` scans the bundle it writes, then `make publish-repo` scans the same bundle
before it pushes, and the next publish finds most files unchanged. Searching a file is
costly (the whole-book PDF's pages are read as text, every layer is undone), so each
file found clean is recorded by the SHA-256 of its bytes, under a key of what the scan
searched for: the secret fragments, the scanner's own code and its PDF reader's version.
A file is searched again whenever its bytes, the solutions, the rubrics or the scanner
change; a file with a leak, or one that could not be searched, is never recorded, so it
is searched every time.

The record holds digests only, no text of a file or of a secret, in the course's private
data folder (course-data/publish/clean-files.json); removing it costs one full scan.
"""

import hashlib
import importlib.metadata
import json
import os
import tempfile

from ..settings import Settings
from .fragments import Fragment

MOST_FILES = 100_000  # digests kept; the oldest go first
SCANNER = ("leak_scan.py", "decoding.py", "fragments.py", "scan_record.py")  # the scan's code


def clean_files(settings: Settings, fragments: list[Fragment]) -> "CleanFiles":
    """The course's record of clean files for a scan for `fragments`."""
    return CleanFiles(os.path.join(settings.data, "publish", "clean-files.json"),
                      scan_key(fragments))


def scan_key(fragments: list[Fragment]) -> str:
    """The digest of what a scan searches for and how: every fragment's text, the scanner's
    modules as they are on disk and the version of the PDF reader it reads pages with (a
    change to any of them makes every file searched again)."""
    key = hashlib.sha256(f"pypdfium2 {importlib.metadata.version('pypdfium2')}".encode())
    for module in SCANNER:
        with open(os.path.join(os.path.dirname(__file__), module), "rb") as handle:
            key.update(hashlib.sha256(handle.read()).digest())
    for text in sorted(f"{f.kind}\0{f.squeezed}" for f in fragments):
        key.update(text.encode("utf-8") + b"\0\0")
    return key.hexdigest()


class CleanFiles:
    """The digests of the files found clean under `key`, read from the record at `path`
    (an unreadable record or one of another key counts as empty) and written back by
    `save`."""

    def __init__(self, path: str, key: str):
        self.path, self.key, self.digests = path, key, {}
        try:
            with open(path, encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError):
            return
        if isinstance(record, dict) and record.get("key") == key \
                and isinstance(record.get("clean"), list):
            self.digests = dict.fromkeys(d for d in record["clean"] if isinstance(d, str))

    @staticmethod
    def digest(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()

    def __contains__(self, digest: str) -> bool:
        return digest in self.digests

    def add(self, digest: str) -> None:
        self.digests[digest] = None

    def save(self) -> None:
        """Writes the record (whole, then renamed over the old one); a folder that cannot
        be written only costs the next scan its time."""
        kept = list(self.digests)[-MOST_FILES:]
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=os.path.dirname(self.path),
                                                 prefix=".clean-files-")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump({"key": self.key, "clean": kept}, out)
                os.replace(temporary, self.path)
            finally:
                if os.path.exists(temporary):
                    os.remove(temporary)
        except OSError:
            return

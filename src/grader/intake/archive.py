"""An LMS download read safely: the whole zip checked before anything of it is written.

nbgrader's own extractor (`nbgrader.utils.unzip`) writes every entry where its
name points; here a zip is refused whole, with the entry named, when any entry
is a path trick (an absolute name, a `..` part), a symbolic link or another
special file, encrypted, listed twice, or larger than the caps below (a zip
bomb), or when the file is not a zip at all. Only then are the entries read,
each within its declared size (zipfile checks the size and the CRC as it reads).
"""

import datetime
import stat
import struct
import zipfile
from dataclasses import dataclass

from ..settings import CourseError

MAX_ENTRY_BYTES = 64 * 2**20  # one file, uncompressed: a notebook with outputs fits
MAX_TOTAL_BYTES = 1024 * 2**20  # every file together, uncompressed
MAX_ENTRIES = 20000
EXTENDED_TIMESTAMP = 0x5455  # the zip extra field holding a Unix time, UTC


class ArchiveError(CourseError):
    """A zip refused whole: nothing of it was written."""


@dataclass(frozen=True)
class ArchiveEntry:
    """One file of the zip, checked."""

    name: str  # as written in the zip, '/' between folders
    size: int  # uncompressed bytes
    modified: datetime.datetime  # naive UTC, as nbgrader keeps times

    @property
    def base_name(self) -> str:
        return self.name.rsplit("/", 1)[-1]


def entry_problem(info: zipfile.ZipInfo) -> str | None:
    """Why the zip entry `info` makes the whole zip unsafe, or None."""
    name = info.filename
    parts = name.replace("\\", "/").split("/")
    if "\x00" in name:
        return "has a NUL character in its name"
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return "has an absolute path"
    if ".." in parts:
        return "points outside the folder it is extracted to ('..')"
    kind = stat.S_IFMT(info.external_attr >> 16)
    if info.create_system == 3 and kind == stat.S_IFLNK:
        return "is a symbolic link"
    if info.create_system == 3 and kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "is not a plain file or folder"
    if info.flag_bits & 0x1:
        return "is encrypted"
    if info.file_size > MAX_ENTRY_BYTES:
        return (f"would unpack to {info.file_size} bytes, more than the cap of "
                f"{MAX_ENTRY_BYTES} (MAX_ENTRY_BYTES)")
    return None


def entry_time(info: zipfile.ZipInfo) -> datetime.datetime:
    """When the entry was last changed, naive UTC: the extra field's Unix time where the
    zip has one, else the entry's date and time, which a zip keeps without a zone (read
    as UTC, as the LMS servers write it)."""
    extra = info.extra
    while len(extra) >= 4:
        kind, size = struct.unpack("<HH", extra[:4])
        body = extra[4:4 + size]
        if kind == EXTENDED_TIMESTAMP and len(body) >= 5 and body[0] & 0x1:
            seconds = struct.unpack("<i", body[1:5])[0]
            return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).replace(
                tzinfo=None)
        extra = extra[4 + size:]
    return datetime.datetime(*info.date_time)


def open_archive(path: str) -> zipfile.ZipFile:
    """The zip at `path`, opened; ArchiveError if it cannot be read as one."""
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ArchiveError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ArchiveError(f"{path} is a folder, not the LMS's zip") from None
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise ArchiveError(f"{path} is not a zip file ({error}); download the submissions "
                           f"again from the LMS") from None


def checked_entries(archive: zipfile.ZipFile, path: str) -> list[ArchiveEntry]:
    """[ArchiveEntry] of every file of `archive` (folders left out), after checking every
    entry; ArchiveError naming the first unsafe entry."""
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise ArchiveError(f"{path}: {len(infos)} entries, more than the cap of {MAX_ENTRIES} "
                           f"(MAX_ENTRIES); refused, nothing written")
    seen, total, entries = set(), 0, []
    for info in infos:
        problem = entry_problem(info)
        if problem is None and info.filename in seen:
            problem = "is in the zip twice"
        if problem:
            raise ArchiveError(f"{path}: the entry {info.filename!r} {problem}; the zip is "
                               f"refused and nothing was written")
        seen.add(info.filename)
        total += info.file_size
        if total > MAX_TOTAL_BYTES:
            raise ArchiveError(f"{path}: its files would unpack to more than the cap of "
                               f"{MAX_TOTAL_BYTES} bytes (MAX_TOTAL_BYTES), reached at "
                               f"{info.filename!r}; refused, nothing written")
        if not info.is_dir():
            entries.append(ArchiveEntry(info.filename, info.file_size, entry_time(info)))
    return entries


def read_entries(archive: zipfile.ZipFile, path: str, names: list[str]) -> dict[str, bytes]:
    """{name: bytes} of the named entries, each read within its declared size; ArchiveError
    for an entry whose data is damaged (a wrong size or CRC)."""
    contents = {}
    for name in names:
        info = archive.getinfo(name)
        try:
            with archive.open(info) as handle:
                data = handle.read(info.file_size + 1)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError,
                NotImplementedError, RuntimeError, EOFError) as error:
            raise ArchiveError(f"{path}: the entry {name!r} cannot be read ({error}); the zip "
                               f"is refused and nothing was written") from None
        if len(data) != info.file_size:
            raise ArchiveError(f"{path}: the entry {name!r} does not hold the size it declares; "
                               f"the zip is refused and nothing was written")
        contents[name] = data
    return contents

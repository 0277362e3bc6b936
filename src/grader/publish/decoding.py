"""The layers a published file can hold text under, undone in memory: the leak scan's decoders
(leak_scan.py searches what they give).

- ``archive_members``: archives and compressed data, known by their first bytes whatever
  their name: zip (a wheel), tar, gzip, bzip2, xz;
- ``zlib_streams``: zlib data inside a binary file, as a PDF's FlateDecode streams hold its
  pages' text, its fonts and its attached files (a stream of an image is left: pixels);
- ``pdf_texts``: a PDF's pages' text as a reader extracts it (PDFium), for a page a browser
  printed glyph by glyph;
- ``base64_runs``: base64 in text, a ``data:`` URI's or any run of at least MIN_BASE64
  characters (a notebook's output, an inline source map, a JSON value);
- ``percent_decoded``: text with its ``%XX`` escapes undone (a link's query), twice;
- ``wide_texts``: a file's bytes read as UTF-16 and UTF-32, little- and big-endian, and
  with the NUL bytes taken out (text of UTF-16 or UTF-32 at any offset of a binary file).

Whatever is unpacked from one published file counts against its `Budget`, MAX_EXPANDED
bytes: a zip bomb, or a stream that inflates without end, is read no further than that and
raises `Unsearchable`, as does an archive nested deeper than MAX_LAYERS layers, one whose
members cannot be read (encrypted) and a PDF encrypted with a password: what cannot be
searched is not published.
"""

import base64
import binascii
import bz2
import gzip
import io
import lzma
import re
import tarfile
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass

MAX_LAYERS = 6  # decodings inside one another (an archive, a stream, base64) in one file
MAX_EXPANDED = 64 * 2 ** 20  # bytes unpacked from one published file, all layers together
MIN_BASE64 = 32  # characters: the base64 of 24 bytes, MIN_CHARS of fragments.py
MIN_INFLATED = 16  # bytes a zlib stream must give to be searched (shorter: a chance header)
PDFIUM_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD: PDFium could not open the file without one
ZLIB_HEADER = re.compile(rb"\x78[\x01\x5e\x9c\xda]")
PDF_OBJECT = re.compile(rb"(\d+)\s+\d+\s+obj\b")
BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{%d,}=*"
                        r"(?:(?:\r?\n|\\n)[A-Za-z0-9+/]{4,}=*)*" % MIN_BASE64)
DATA_URI = re.compile(r"data:[^,;\s\"'<>]*(?:;[^,;\s\"'<>]*)*;base64,$", re.IGNORECASE)
PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
NULS_OUT = "UTF-16 or UTF-32 (NUL bytes out)"
BYTE_ORDER_MARKS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
# pixels, not text: searched as they are, never inflated or read as UTF-16
IMAGES = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"RIFF")


class Unsearchable(Exception):
    """A layer that cannot be searched, and why, in a sentence: the file is not published.
    `where`: the (path, how) of the archive it was found in, once known."""

    where: tuple[str, str] | None = None


@dataclass
class Budget:
    """What may still be unpacked from one published file, in bytes."""

    left: int = MAX_EXPANDED
    exceeded: bool = False

    def count(self, size: int, what: str) -> None:
        """`size` more bytes unpacked; Unsearchable when that is more than is left (a reader
        asks for one byte more than is left, so an endless stream stops there)."""
        if size > self.left:
            self.exceeded, self.left = True, 0
            raise Unsearchable(f"{what} unpacks to more than {MAX_EXPANDED // 2 ** 20} MiB "
                               f"(a zip bomb?): it cannot be searched, so it is not published")
        self.left -= size

    def take(self, data: bytes, what: str) -> bytes:
        """`data`, unpacked, counted (`count`)."""
        self.count(len(data), what)
        return data


@dataclass(frozen=True)
class Layer:
    """Bytes found inside others: an archive's `member` (named as a path) or a decoding
    (`name` says which and where)."""

    name: str
    data: bytes
    member: bool = False


def is_image(data: bytes) -> bool:
    return data.startswith(IMAGES)


def gzip_file(data: io.BytesIO) -> gzip.GzipFile:
    return gzip.GzipFile(fileobj=data)


def archive_members(data: bytes, budget: Budget) -> list[Layer] | None:
    """The files of an archive or compressed data, or None when `data` is neither (known by
    its first bytes) or cannot be opened as what its first bytes say (then it is searched as
    it is, as any file)."""
    try:
        if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = []
                for info in archive.infolist():
                    if not info.is_dir():
                        try:
                            with archive.open(info) as member:
                                read = member.read(budget.left + 1)
                        except (zipfile.BadZipFile, zlib.error, EOFError) as error:
                            raise Unsearchable(  # the archive opens: a member is damaged
                                f"the archive's member {info.filename} cannot be read "
                                f"({error}): it cannot be searched, so it is not published"
                            ) from None
                        members.append(Layer(info.filename, budget.take(
                            read, f"the archive's member {info.filename}"), member=True))
                return members
        for magic, opener, name in ((b"\x1f\x8b", gzip_file, "gzip data"),
                                    (b"BZh", bz2.BZ2File, "bzip2 data"),
                                    (b"\xfd7zXZ\x00", lzma.LZMAFile, "xz data")):
            if data.startswith(magic):
                with opener(io.BytesIO(data)) as stream:
                    return [Layer(f"({name})", budget.take(stream.read(budget.left + 1),
                                                           name))]
        if data[257:262] == b"ustar":
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
                members = []
                for info in archive.getmembers():
                    if info.isfile():
                        if info.size > budget.left:
                            budget.count(info.size, f"the archive's member {info.name}")
                        read = archive.extractfile(info).read(budget.left + 1)
                        members.append(Layer(info.name, budget.take(
                            read, f"the archive's member {info.name}"), member=True))
                return members
    except (RuntimeError, NotImplementedError) as error:  # encrypted, or an unknown method
        raise Unsearchable(f"an archive whose members cannot be read ({error}): it cannot "
                           f"be searched, so it is not published") from None
    except (zipfile.BadZipFile, OSError, EOFError, lzma.LZMAError, tarfile.TarError,
            ValueError, zlib.error):
        return None
    return None


def pdf_stream_name(data: bytes, start: int) -> str | None:
    """'stream of object N (zlib)' when the zlib data at `start` opens a PDF stream; '' when
    it opens one of an image (not searched); None when no PDF stream opens there."""
    if not data[max(0, start - 8):start].rstrip(b"\r\n").endswith(b"stream"):
        return None
    opened = data.rfind(b" obj", 0, start)
    head = data[max(0, opened - 24):start] if opened >= 0 else b""
    if b"/Image" in head or b"/Subtype/Image" in head.replace(b" ", b""):
        return ""
    number = PDF_OBJECT.search(head)
    return f"stream of object {int(number.group(1))} (zlib)" if number else "a stream (zlib)"


def zlib_streams(data: bytes, budget: Budget) -> list[Layer]:
    """The zlib data that inflates, anywhere in `data` (a binary file's: text holds none):
    each a Layer named for the PDF stream it is or for where it starts."""
    layers, after, view = [], 0, memoryview(data)
    for found in ZLIB_HEADER.finditer(data):
        start = found.start()
        if start < after:
            continue  # inside a stream already inflated
        name = pdf_stream_name(data, start)
        if name == "":
            continue
        inflater = zlib.decompressobj()
        try:
            inflated = inflater.decompress(view[start:], budget.left + 1)
        except zlib.error:
            continue
        if len(inflated) < MIN_INFLATED:
            continue
        what = name or f"zlib data at byte {start}"
        layers.append(Layer(what, budget.take(inflated, f"the {what}")))
        if inflater.eof:
            after = len(data) - len(inflater.unused_data)
    return layers


def pdf_texts(data: bytes, budget: Budget) -> list[Layer]:
    """The text of each page of a PDF as a reader extracts it (PDFium, the PDF engine of
    Chromium, through pypdfium2), and again with its ligatures made letters: a page printed
    by a browser draws its text glyph by glyph, which no stream holds as it reads. [] when
    `data` is no PDF or PDFium cannot read it (its streams are still inflated); Unsearchable
    when it is encrypted with a password."""
    if b"%PDF-" not in data[:1024]:
        return []
    # imported here: only a PDF needs it
    import pypdfium2
    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as error:
        if error.err_code == PDFIUM_PASSWORD_ERROR:
            raise Unsearchable("a PDF encrypted with a password: it cannot be searched, so "
                               "it is not published") from None
        return []
    try:
        layers = []
        for number, page in enumerate(document, 1):
            text = page.get_textpage().get_text_range()
            letters = unicodedata.normalize("NFKC", text)  # the fi of "configuration"
            layers.append(Layer(f"page {number}'s text", budget.take(
                (text if letters == text else f"{text}\n{letters}").encode(),
                f"page {number}'s text")))
        return layers
    except pypdfium2.PdfiumError:  # a damaged page: its streams are still inflated
        return []
    finally:
        document.close()


def base64_runs(text: str, budget: Budget, seen: set[str]) -> list[Layer]:
    """The bytes of every base64 run of `text` (lines of it joined) not in `seen` (the runs
    decoded already, to which they are added), each named for where it is: a data: URI or a
    run at a character."""
    layers = []
    for found in BASE64_RUN.finditer(text):
        run = re.sub(r"\r?\n|\\n", "", found.group()).rstrip("=")
        run = run[:-1] if len(run) % 4 == 1 else run  # a last character that encodes nothing
        if run in seen:
            continue
        seen.add(run)
        try:
            data = base64.b64decode(run + "=" * (-len(run) % 4))
        except (binascii.Error, ValueError):
            continue
        uri = DATA_URI.search(text, max(0, found.start() - 200), found.start())
        name = ("a data: URI (base64)" if uri else
                f"base64 at character {found.start()}")
        layers.append(Layer(name, budget.take(data, f"the {name}")))
    return layers


def percent_decoded(text: str) -> str | None:
    """`text` with its %XX escapes (and + for a space) undone, twice for %25; None when it
    has none."""
    if "%" not in text or not PERCENT.search(text):
        return None
    decoded = text
    for _ in range(2 if "%25" in text else 1):
        decoded = PERCENT.sub(lambda escapes: bytes.fromhex(escapes.group().replace("%", ""))
                              .decode("utf-8", errors="replace"), decoded.replace("+", " "))
    return decoded


def wide_texts(data: bytes) -> list[tuple[str, str]]:
    """[(encoding, text)] of `data` with NUL bytes (text of UTF-8 holds none): with them taken
    out, which reads UTF-16 or UTF-32 text of ASCII at any offset of a binary file; and read
    as UTF-16 and UTF-32, little- and big-endian, when it opens with their byte-order mark or
    a quarter of it is NUL bytes, as in a file of such text without the mark."""
    if b"\0" not in data or is_image(data):
        return []
    texts = []
    if data.startswith(BYTE_ORDER_MARKS) or data.count(0) * 4 >= len(data):
        texts = [(encoding.upper().replace("-LE", " LE").replace("-BE", " BE"),
                  data.decode(encoding, errors="replace"))
                 for encoding in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")]
    return texts + [(NULS_OUT, data.replace(b"\0", b"").decode("utf-8", errors="replace"))]

"""The bytes of the hand-ins, each file stored once under its SHA-256.

``blobs/<first two hex digits>/<digest>``: folders 0700, files 0600 (students never
read them), each written whole or not at all; a copy damaged on disk is written again
when the same bytes come in, and never read back as if it were whole.
"""

import contextlib
import hashlib
import os
from collections.abc import Callable, Mapping

from .queue_database import StoreError


def hand_in_digest(files: dict[str, str]) -> str:
    """The digest of a hand-in: SHA-256 over its files' names and their digests, sorted."""
    listing = "\n".join(f"{name}\0{digest}" for name, digest in sorted(files.items()))
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def file_digest(path: str) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def write_blob(blobs: str, content: bytes, owned: Callable[[str], None]) -> str:
    """Write `content` under its SHA-256 in the folder `blobs` (once; whole or not at all),
    each folder and file made given to the course's owner by `owned`; returns the digest."""
    digest = hashlib.sha256(content).hexdigest()
    folder = os.path.join(blobs, digest[:2])
    path = os.path.join(folder, digest)
    if os.path.isfile(path) and file_digest(path) == digest:
        return digest  # one damaged on disk is written again, whole
    os.makedirs(folder, mode=0o700, exist_ok=True)
    owned(folder)
    partial = f"{path}.{os.getpid()}.partial"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        owned(partial)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
        raise
    return digest


def read_blobs(blobs: str, files: Mapping[str, str], what: str) -> dict[str, bytes]:
    """{name: bytes} of `files` ({name: digest}) of the hand-in `what`, from `blobs`;
    StoreError when one is missing or no longer has the SHA-256 it was stored under."""
    contents = {}
    for name, digest in files.items():
        path = os.path.join(blobs, digest[:2], digest)
        try:
            with open(path, "rb") as handle:
                content = handle.read()
        except FileNotFoundError:
            raise StoreError(f"the stored copy of {name} of {what} is missing "
                             f"from {blobs}; hand it in again") from None
        if hashlib.sha256(content).hexdigest() != digest:
            raise StoreError(f"the stored copy of {name} of {what} is damaged on "
                             "disk (its SHA-256 is no longer the one it was handed in "
                             "with); not graded: hand the same notebook in again")
        contents[name] = content
    return contents

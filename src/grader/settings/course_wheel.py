"""The students' wheel of the course package, built so that two builds give the same bytes.

`make release` writes the wheel's sha256 into the released notebooks' install line
(release_lines.py) and `make publish` puts the wheel on the site: each builds it here,
and pip refuses a wheel whose hash is not the line's, so the two builds must agree to
the byte. What would make them differ is taken out:

- the build reads a fresh copy of the sources (pyproject.toml, its readme and licence
  files, src/), so nothing an earlier build left in build/ or *.egg-info enters it;
- ``pip wheel --no-deps --no-build-isolation --no-index``: the setuptools of the course's
  lock, nothing fetched;
- ``SOURCE_DATE_EPOCH`` is fixed, and every entry is then written again with the same
  time stamp and permissions (a checkout's umask decides those), uncompressed, in the
  order the build wrote them (deflate's bytes depend on the zlib build).

The wheel holds only what the root pyproject.toml packages: the students' package.
"""

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass

from .errors import CourseError

PACKAGES_FOLDER = "packages"  # where the wheel lies in the published site
FIXED_EPOCH = 315532800  # 1980-01-01 00:00 UTC, the earliest time a zip entry holds
ENTRY_TIME = (1980, 1, 1, 0, 0, 0)
ENTRY_MODE = 0o100644  # a regular file, readable by all
BUILD_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "MANIFEST.in")
LICENSE_PATTERNS = ("LICEN[CS]E*", "COPYING*", "NOTICE*", "AUTHORS*")
LEFT_BY_BUILDS = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


@dataclass(frozen=True)
class CourseWheel:
    """A built wheel: its file, sha256, project name and version."""

    path: str
    sha256: str
    name: str
    version: str

    @property
    def filename(self) -> str:
        return os.path.basename(self.path)

    def requirement(self, site: str) -> str:
        """pip's line that installs this wheel from the site at `site`, its hash pinned."""
        return (f"{self.name} @ {site.rstrip('/')}/{PACKAGES_FOLDER}/{self.filename}"
                f"#sha256={self.sha256}")


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def copy_sources(root: str, dest: str) -> None:
    """What setuptools reads to build the root's distribution, copied from `root` to `dest`."""
    pyproject = os.path.join(root, "pyproject.toml")
    try:
        with open(pyproject, "rb") as handle:
            project = tomllib.load(handle).get("project", {})
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise CourseError(f"{pyproject} cannot be read: {error}") from None
    readme = project.get("readme")
    readme = readme.get("file") if isinstance(readme, dict) else readme
    names = set(BUILD_FILES) | ({readme} if isinstance(readme, str) else set())
    for pattern in LICENSE_PATTERNS:
        names |= {os.path.basename(p) for p in glob.glob(os.path.join(root, pattern))}
    for name in sorted(names):
        if os.path.isfile(os.path.join(root, name)):
            shutil.copy(os.path.join(root, name), os.path.join(dest, name))
    shutil.copytree(os.path.join(root, "src"), os.path.join(dest, "src"), ignore=LEFT_BY_BUILDS)


def rewrite_reproducibly(path: str) -> None:
    """The wheel at `path` written again: every entry with the same time stamp and
    permissions, stored, in the same order (its RECORD hashes the contents, which stay)."""
    with zipfile.ZipFile(path) as source:
        entries = [(info.filename, source.read(info)) for info in source.infolist()]
    fresh = path + ".tmp"
    with zipfile.ZipFile(fresh, "w", zipfile.ZIP_STORED) as target:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=ENTRY_TIME)
            info.external_attr = ENTRY_MODE << 16
            info.create_system = 3  # unix, whatever system built it
            target.writestr(info, data)
    os.replace(fresh, path)


def build_course_wheel(root: str, dest: str) -> CourseWheel:
    """The wheel of the course at `root` (its root pyproject.toml), built into `dest`."""
    os.makedirs(dest, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="course-wheel-") as work:
        sources, built = os.path.join(work, "sources"), os.path.join(work, "built")
        os.makedirs(sources)
        copy_sources(root, sources)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
        env.update(SOURCE_DATE_EPOCH=str(FIXED_EPOCH), PIP_DISABLE_PIP_VERSION_CHECK="1")
        result = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
             "--no-index", "--no-cache-dir", "--quiet", "--wheel-dir", built, sources],
            capture_output=True, text=True, env=env, cwd=work, timeout=600)
        wheels = sorted(glob.glob(os.path.join(built, "*.whl")))
        if result.returncode != 0 or len(wheels) != 1:
            output = (result.stdout + result.stderr).strip()[-3000:]
            raise CourseError(f"the course package's wheel could not be built from {root} "
                              f"(pip wheel --no-deps .):\n{output}")
        rewrite_reproducibly(wheels[0])
        target = os.path.join(dest, os.path.basename(wheels[0]))
        shutil.move(wheels[0], target)
    return read_course_wheel(target)


def read_course_wheel(path: str) -> CourseWheel:
    """The `CourseWheel` of the wheel file at `path` (name and version from its file name)."""
    name, version = os.path.basename(path).split("-")[:2]
    return CourseWheel(path, file_sha256(path), name, version)

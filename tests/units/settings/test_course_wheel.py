"""The students' wheel (grader.settings.course_wheel): two builds give the same bytes, so the
hash `make release` writes is the hash of the wheel `make publish` serves."""

import hashlib
import io
import os
import shutil
import zipfile

import pytest

from grader.settings.course_wheel import (ENTRY_MODE, ENTRY_TIME, CourseWheel,
                                          build_course_wheel, rewrite_reproducibly)
from testsupport.course import ROOT

ENTRIES = [("pkg/__init__.py", b"x = 1\n"), ("pkg/data.txt", b"d" * 5000),
           ("pkg-1.0.dist-info/RECORD", b"pkg/__init__.py,,\n")]


def a_wheel(path, time, mode, compression):
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in ENTRIES:
            info = zipfile.ZipInfo(name, date_time=time)
            info.external_attr = mode << 16
            info.compress_type = compression
            archive.writestr(info, data)


def test_entries_are_written_again_alike_in_the_order_the_build_wrote_them(tmp_path):
    first, second = tmp_path / "a.whl", tmp_path / "b.whl"
    a_wheel(first, (2026, 12, 3, 14, 5, 0), 0o100664, zipfile.ZIP_DEFLATED)
    a_wheel(second, (1999, 1, 1, 0, 0, 0), 0o100600, zipfile.ZIP_STORED)
    assert first.read_bytes() != second.read_bytes()
    for path in (first, second):
        rewrite_reproducibly(str(path))
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(io.BytesIO(first.read_bytes())) as archive:
        infos = archive.infolist()
        assert [(i.filename, archive.read(i)) for i in infos] == ENTRIES
    assert {(i.date_time, i.external_attr >> 16, i.compress_type) for i in infos} == {
        (ENTRY_TIME, ENTRY_MODE, zipfile.ZIP_STORED)}
    assert sorted(os.listdir(tmp_path)) == ["a.whl", "b.whl"]


def test_the_requirement_pins_the_wheel_by_its_address_and_hash():
    wheel = CourseWheel("/x/gptcourse-1.0.0-py3-none-any.whl", "c" * 64, "gptcourse", "1.0.0")
    assert wheel.requirement("https://uni-ml.github.io/gpt/") == (
        f"gptcourse @ https://uni-ml.github.io/gpt/packages/gptcourse-1.0.0-py3-none-any.whl"
        f"#sha256={'c' * 64}")


@pytest.mark.slow  # two builds of the wheel, a few seconds each
def test_two_builds_from_two_checkouts_give_the_same_bytes(tmp_path):
    """The second checkout's files have other times and permissions, and an earlier build's
    leftovers: none of it reaches the wheel."""
    other = tmp_path / "checkout"
    other.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "LICENSE-content"):
        shutil.copy(os.path.join(ROOT, name), other / name)
    shutil.copytree(os.path.join(ROOT, "src"), other / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for base, _, names in os.walk(other / "src"):
        for name in names:
            os.chmod(os.path.join(base, name), 0o600)
            os.utime(os.path.join(base, name), (1_900_000_000, 1_900_000_000))
    (other / "src" / "gptcourse.egg-info").mkdir()
    (other / "src" / "gptcourse.egg-info" / "top_level.txt").write_text("gptcourse\nstale\n")
    one = build_course_wheel(ROOT, str(tmp_path / "one"))
    two = build_course_wheel(str(other), str(tmp_path / "two"))
    assert one.filename == two.filename
    with open(one.path, "rb") as a, open(two.path, "rb") as b:
        assert a.read() == b.read()
    assert one.sha256 == two.sha256 == hashlib.sha256(open(one.path, "rb").read()).hexdigest()
    with zipfile.ZipFile(one.path) as archive:
        assert "gptcourse/model.py" in archive.namelist()

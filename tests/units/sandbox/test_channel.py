"""How a sandbox's end is told (grader.sandbox.channel), in plain words."""

from grader.sandbox import death_reason
from grader.settings import Limits


def test_death_reasons_are_plain_words():
    limits = Limits(timeout=60, memory_mib=1024)
    assert death_reason(-11, limits) == "kernel died (segmentation fault)"
    assert death_reason(128 + 9, limits).startswith("kernel died (killed")
    assert "1024 MiB" in death_reason(-9, limits)
    assert death_reason(0, limits).startswith("kernel exited (exit status 0)")

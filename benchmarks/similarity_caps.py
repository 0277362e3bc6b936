"""What one notebook at the caps costs the similarity report, in time and memory.

A class of five: four students of the synthetic class (testsupport/similar_students.py)
and one whose notebook is as large as the report's caps let it be (300 added cells of
about 88,000 characters, 27 MB; testsupport.similar_students.notebook_at_the_caps).
Prints the time of reading the answer cells and of fingerprinting and comparing, the
peak memory of the process and how much of the large notebook was compared. Never
fails because the machine is slow.

    .venv/bin/python benchmarks/similarity_caps.py [CELLS [CHARACTERS]]
"""

import json
import os
import resource
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "src"))

from testsupport.course import copy_course  # noqa: E402
from testsupport.hand_in import hand_in  # noqa: E402
from testsupport.similar_students import (hand_in_each, notebook_at_the_caps,  # noqa: E402
                                          synthetic_class, timed_comparison)


def main(cells: int = 300, chars: int = 88_000) -> None:
    with tempfile.TemporaryDirectory() as base:
        course = copy_course(os.path.join(base, "course"))
        notebooks, _ = synthetic_class(honest=4)
        hand_in_each(course, dict(list(notebooks.items())[:4]))
        large = json.dumps(notebook_at_the_caps(cells, chars))
        hand_in(course, "at-the-caps", "parameters", {"parameters.ipynb": large})
        answers, comparison, read_seconds, compare_seconds = timed_comparison(course)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    kept = comparison.fingerprints["at-the-caps"]
    print(f"similarity report, a class of {len(answers.students)}, one notebook of {cells} "
          f"cells of {chars:,} characters ({len(large) / 1e6:.1f} MB)")
    print(f"  read the answer cells        {read_seconds:7.2f} s")
    print(f"  fingerprint, compare pairs   {compare_seconds:7.2f} s")
    print(f"  peak memory of the process   {peak:7.0f} MiB")
    print(f"  of the large notebook: {sum(len(c.source) for c in answers.students['at-the-caps']):,} "
          f"characters compared, {len(kept.grams):,} k-grams kept")


if __name__ == "__main__":
    main(*(int(value) for value in sys.argv[1:3]))

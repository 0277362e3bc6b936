"""How long the similarity report takes for a class of 200 students.

A copy of the course with 194 honest students and 6 planted copies (the synthetic
class of testsupport/similar_students.py, made larger) handed in; then the three
steps of `make similarity` for one assignment, timed apart: reading the answer cells,
fingerprinting and comparing every pair, writing the CSV and the page. Prints a table;
never fails because the machine is slow.

    .venv/bin/python benchmarks/similarity.py [STUDENTS]
"""

import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "src"))

from grader.similarity.report import render_similarity, similarity_rows  # noqa: E402
from testsupport.course import copy_course  # noqa: E402
from testsupport.similar_students import (COPIED, hand_in_each, synthetic_class,  # noqa: E402
                                          timed_comparison)


def main(students: int = 200) -> None:
    with tempfile.TemporaryDirectory() as base:
        course = copy_course(os.path.join(base, "course"))
        notebooks, planted = synthetic_class(honest=students - len(COPIED))
        hand_in_each(course, notebooks)
        answers, comparison, read_seconds, compare_seconds = timed_comparison(course)
        compared = time.perf_counter()
        similarity_rows(comparison)
        render_similarity(comparison)
        written_seconds = time.perf_counter() - compared
    flagged = {(p.student_a, p.student_b) for p in comparison.pairs if p.above_threshold}
    copies = {tuple(sorted(pair)) for pair in planted}
    print(f"similarity report, {len(answers.students)} students, "
          f"{len(comparison.pairs)} pairs, {sum(len(c) for c in answers.students.values())} cells")
    print(f"  read the answer cells        {read_seconds:6.2f} s")
    print(f"  fingerprint, compare pairs   {compare_seconds:6.2f} s")
    print(f"  CSV rows and page            {written_seconds:6.2f} s")
    print(f"  in all                       {read_seconds + compare_seconds + written_seconds:6.2f} s")
    honest = next(p for p in comparison.pairs if (p.student_a, p.student_b) not in copies)
    lowest_copy = min(p.similarity for p in comparison.pairs
                      if (p.student_a, p.student_b) in copies)
    print(f"  planted copies flagged {len(flagged & copies)}/{len(copies)}, "
          f"other pairs flagged {len(flagged - copies)} (threshold {comparison.threshold}); "
          f"lowest copy {lowest_copy:.2f}, highest other pair {honest.similarity:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)

"""How long the grading page takes to group the explain answers of a class, and how well.

The synthetic class of testsupport/explain_class.py (three lines of reasoning written in
each student's own numbers, one in fifteen blank, one copied), at 300 and 1,000 answers.
Each student's values are computed as rubrics/parameters.yaml computes them; building a
model per student is slow, so the class's students take the values of DISTINCT real ones
in turn (the grouping reads the text and the values alike, whoever they came from).
Prints the seconds to import scikit-learn (once per process), to group, to normalise
alone and to look for integrity flags, and the purity of the groups, with the students'
values and without. Never fails because the machine is slow.

    .venv/bin/python benchmarks/grouping.py [DISTINCT]
"""

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "src"))

from grader.grading_page import group_answers, integrity_flags, normalise  # noqa: E402
from testsupport.explain_class import PUBLIC, purity, student_values, synthetic_class  # noqa: E402

SIZES = (300, 1000)


def main(distinct: int = 100) -> None:
    started = time.perf_counter()
    values = [student_values(f"s{number:02d}") for number in range(1, distinct + 1)]
    print(f"values of {distinct} students (their models on the meta device) "
          f"{time.perf_counter() - started:6.2f} s")
    started = time.perf_counter()
    import sklearn.cluster  # noqa: F401  (what the first grouping of a process pays)
    import sklearn.feature_extraction.text  # noqa: F401
    print(f"import scikit-learn                       {time.perf_counter() - started:6.2f} s")
    for size in SIZES:
        answers, reasoning = synthetic_class(lambda s: values[int(s[1:]) % distinct], size)
        started = time.perf_counter()
        for answer in answers:
            normalise(answer.text, answer.values)
        normalised = time.perf_counter() - started
        started = time.perf_counter()
        groups = group_answers(answers)
        grouped = time.perf_counter() - started
        started = time.perf_counter()
        integrity_flags(answers, PUBLIC)
        flagged = time.perf_counter() - started
        raw = purity(group_answers(answers, by_values=False), reasoning)
        print(f"{size} answers: grouped in {grouped:.2f} s (normalising {normalised:.2f} s of "
              f"it), {len(groups)} groups, purity {purity(groups, reasoning):.3f} "
              f"(raw text {raw:.3f}); integrity flags {flagged:.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)

"""The similarity wing: which students' answers look alike, as evidence for a person to read.

- ``fingerprints.py``: code normalised (names, literals, comments, dead code)
  and winnowed into fingerprints, as MOSS does.
- ``answers.py``: each student's answer cells read defensively, and the
  instructor's code that everyone shares.
- ``comparison.py``: every pair compared, shared code and idioms discounted.
- ``report.py``: `write_similarity`, reports/similarity-<assignment>.csv and .html.
"""

from .answers import AnswerCell, ClassAnswers, read_class
from .comparison import Comparison, Pair, compare_class
from .report import write_similarity

__all__ = ["AnswerCell", "ClassAnswers", "Comparison", "Pair", "compare_class", "read_class",
           "write_similarity"]

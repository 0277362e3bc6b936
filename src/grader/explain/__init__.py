"""The explain wing: the written answer a person grades, by its rubric (docs/explain-questions.md).

- ``answers.py``: the assignment's explain cell, each student's answer to it and their own
  values (the rubric's placeholders), and their AI declaration (`declaration_of`).
- ``grading.py``: `grade_explain`, a sitting at the terminal: the class in a seeded order
  that stays the same, items applied by key, the score and the composed comment written into
  nbgrader's gradebook, resumed where it stopped, everyone regraded (and recorded) when an
  item's points change.
- ``defense.py``: `write_defense_sheets`, three questions per student about their own model
  and code, one printable page each.
"""

from .answers import ExplainCell, declaration_of, explain_cell, student_answer, student_values
from .defense import write_defense_sheets
from .grading import (composed_comment, grade_explain, grading_order, read_state, score_of,
                      state_path, write_state)

__all__ = ["ExplainCell", "composed_comment", "declaration_of", "explain_cell", "grade_explain",
           "grading_order", "read_state", "score_of", "state_path", "student_answer",
           "student_values", "write_defense_sheets", "write_state"]

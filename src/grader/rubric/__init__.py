"""The rubric wing: the rubric of an explain question, kept as data in rubrics/<assignment>.yaml.

- ``loading.py``: `load_rubric` reads and checks one file (`Rubric`, its `RubricItem`s),
  refusing a bad one with a `RubricError` that names the file and the line; `filled`
  writes a student's own values into an item's words.
"""

from .loading import (RUBRICS_FOLDER, Rubric, RubricError, RubricItem, filled, load_rubric,
                      placeholders_of, rubric_path)

__all__ = ["RUBRICS_FOLDER", "Rubric", "RubricError", "RubricItem", "filled", "load_rubric",
           "placeholders_of", "rubric_path"]

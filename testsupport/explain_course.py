"""A class whose explain answers wait for a person: a copy of the course with a gradebook
of parameters submissions (as autograde leaves them: the explain cell waiting for a
manual score) and each student's notebook holding the answer a test gives."""

import functools
import json
import os

from testsupport.course import copy_course

ASSIGNMENT, NOTEBOOK, CELL = "parameters", "parameters", "explain_tying"


@functools.lru_cache(maxsize=None)
def own_values(student, salt):
    """{untied, tied, head, vocab_size, emb_dim} of the student's own model, from the
    course package (what rubrics/parameters.yaml's values compute)."""
    import torch

    from gptcourse import GPTModel, count_output_head, count_parameters, student_config

    config = student_config(student, salt)
    with torch.device("meta"):
        model = GPTModel(config)
    untied, head = count_parameters(model), count_output_head(model)
    return {"untied": untied, "tied": untied - head, "head": head,
            "vocab_size": config["vocab_size"], "emb_dim": config["emb_dim"]}


def explain_course(folder, answers, extra_config="", declarations=None):
    """The course copied to `folder` with `answers` ({student: text}) handed in for
    parameters' explain cell, and `declarations` ({student: text}) in a cell of their AI
    declaration; `extra_config` appended to its nbgrader_config.py. Returns the folder."""
    from nbgrader.api import Gradebook

    from grader.settings import load

    copy_course(folder, ("rubrics",))
    if extra_config:
        with open(os.path.join(folder, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
            handle.write("\n" + extra_config + "\n")
    settings = load(folder)
    with open(f"{folder}/exercises/{ASSIGNMENT}/{NOTEBOOK}.ipynb", encoding="utf-8") as handle:
        released = json.load(handle)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.add_assignment(ASSIGNMENT)
        gb.add_notebook(NOTEBOOK, ASSIGNMENT)
        gb.add_grade_cell(CELL, NOTEBOOK, ASSIGNMENT, max_score=2, cell_type="markdown")
        gb.add_solution_cell(CELL, NOTEBOOK, ASSIGNMENT)
        for student in answers:
            gb.add_student(student)
            gb.add_submission(ASSIGNMENT, student)
    for student, text in answers.items():
        nb = json.loads(json.dumps(released))
        cell = next(c for c in nb["cells"] if c["metadata"]["nbgrader"].get("grade_id") == CELL)
        cell["source"] = text
        if student in (declarations or {}):
            nb["cells"].append({"cell_type": "markdown", "id": "ai-declaration",
                                "metadata": {"nbgrader": {"grade_id": "ai_declaration",
                                                          "grade": False, "solution": False,
                                                          "locked": False}},
                                "source": declarations[student]})
        path = f"{settings.submitted}/{student}/{ASSIGNMENT}/{NOTEBOOK}.ipynb"
        os.makedirs(os.path.dirname(path))
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(nb, handle)
    return folder

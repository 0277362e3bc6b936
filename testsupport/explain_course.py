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


def explain_course(folder, answers, extra_config="", declarations=None, checks_passed=False,
                   code=None):
    """The course copied to `folder` with `answers` ({student: text}) handed in for
    parameters' explain cell, and `declarations` ({student: text}) in a cell of their AI
    declaration; `extra_config` appended to its nbgrader_config.py; `code`, when given,
    the source of every answer cell of code. With `checks_passed`,
    the notebook's checks are in the gradebook too, each passed with its points, and each
    notebook is in autograded/, as autograde leaves them (what `nbgrader generate_feedback`
    reads). Returns the folder."""
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
        checks = {m["grade_id"]: m["points"] for m in
                  (c["metadata"].get("nbgrader", {}) for c in released["cells"])
                  if checks_passed and m.get("grade") and m["grade_id"] != CELL}
        for check, points in checks.items():
            gb.add_grade_cell(check, NOTEBOOK, ASSIGNMENT, max_score=points, cell_type="code")
        for cell in released["cells"] if checks_passed else ():
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("solution") and meta["grade_id"] != CELL:
                gb.add_solution_cell(meta["grade_id"], NOTEBOOK, ASSIGNMENT)
        for student in answers:
            gb.add_student(student)
            gb.add_submission(ASSIGNMENT, student)
            for check, points in checks.items():
                gb.find_grade(check, NOTEBOOK, ASSIGNMENT, student).auto_score = points
        gb.db.commit()
    for student, text in answers.items():
        nb = json.loads(json.dumps(released))
        for cell in nb["cells"]:
            meta = cell["metadata"]["nbgrader"]
            if meta.get("grade_id") == CELL:
                cell["source"] = text
            elif code is not None and meta.get("solution") and cell["cell_type"] == "code":
                cell["source"] = code
        if student in (declarations or {}):
            nb["cells"].append({"cell_type": "markdown", "id": "ai-declaration",
                                "metadata": {"nbgrader": {"grade_id": "ai_declaration",
                                                          "grade": False, "solution": False,
                                                          "locked": False}},
                                "source": declarations[student]})
        for kept in (settings.submitted, settings.autograded)[:2 if checks_passed else 1]:
            path = f"{kept}/{student}/{ASSIGNMENT}/{NOTEBOOK}.ipynb"
            os.makedirs(os.path.dirname(path))
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(nb, handle)
    return folder


LMS_IDS = {"cyd": "101", "dan": "102"}


def class_of_two(folder, extra_config="", checks_passed=False):
    """explain_course at `folder` for cyd and dan, each answer written with the student's
    own untied and tied counts and head matrix, and their LMS user ids (LMS_IDS) in its
    roster, as `make roster` reads them. Returns the course's settings."""
    from grader.cli import main
    from grader.settings import load
    from testsupport.course import ROOT

    salt = load(ROOT).variant_salt
    answers = {}
    for student in LMS_IDS:
        counts = own_values(student, salt)
        answers[student] = (f"Untied {counts['untied']:,} and tied {counts['tied']:,}: the "
                            f"head's [{counts['vocab_size']}, {counts['emb_dim']}] matrix.")
    explain_course(folder, answers, extra_config, checks_passed=checks_passed)
    roster = os.path.join(folder, "roster-in.csv")
    with open(roster, "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,lms_user_id\n" + "".join(
            f"{s},{s.title()},Test,{lms}\n" for s, lms in LMS_IDS.items()))
    if main(["roster", roster, "--course", folder]) != 0:
        raise RuntimeError(f"the roster of {folder} was refused (see above)")
    return load(folder)

"""What grading left in a gradebook, read back (SQLite or PostgreSQL)."""

import os


def sqlite_url(course):
    """The URL of a course folder's own SQLite gradebook."""
    return "sqlite:///" + os.path.join(course, "course-data", "gradebook.db")


def gradebook_scores(gradebook, assignment, course_id=None):
    """{student: {grade_id: auto_score}} of the checks of every submission of ``assignment``
    (of the course ``course_id`` where the gradebook names one). An explain cell, which a
    person grades (its auto_score None until then), is left out: manual_grades reads it.

    ``gradebook``: a database URL, or a course folder, whose own SQLite gradebook is read.
    """
    from nbgrader.api import Gradebook

    db_url = gradebook if "://" in gradebook else sqlite_url(gradebook)
    scores = {}
    with Gradebook(db_url, **({"course_id": course_id} if course_id else {})) as gb:
        for submission in gb.assignment_submissions(assignment):
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    if grade.cell.cell_type == "markdown":  # an explain cell: a person grades it
                        continue
                    scores.setdefault(submission.student.id, {})[grade.cell.name] = grade.auto_score
    return scores


def manual_grades(gradebook, assignment):
    """{student: {grade_id: (manual_score, comment)}} of the explain cells of ``assignment``."""
    from nbgrader.api import Gradebook

    db_url = gradebook if "://" in gradebook else sqlite_url(gradebook)
    found = {}
    with Gradebook(db_url) as gb:
        for submission in gb.assignment_submissions(assignment):
            for notebook in submission.notebooks:
                comments = {c.cell.name: c.manual_comment for c in notebook.comments}
                for grade in notebook.grades:
                    if grade.cell.cell_type == "markdown":
                        found.setdefault(submission.student.id, {})[grade.cell.name] = (
                            grade.manual_score, comments.get(grade.cell.name))
    return found


def gradebook_rows(db_url, assignment):
    """What the gradebook holds for ``assignment``, read with plain SQL.

    {"submissions": [(student, rows)], "notebooks": [(student, notebook, rows)],
    "grades": {(student, notebook, grade_id): (auto_score, max_score)},
    "grade_rows": number of grade rows}: a student graded twice shows up as a
    count above 1 or as more grade rows than cells.
    """
    from sqlalchemy import create_engine, text

    engine = create_engine(db_url)
    try:
        with engine.connect() as db:
            submissions = db.execute(text(
                "SELECT s.student_id, count(*) FROM submitted_assignment s"
                " JOIN assignment a ON a.id = s.assignment_id WHERE a.name = :a"
                " GROUP BY s.student_id ORDER BY s.student_id"), {"a": assignment}).all()
            notebooks = db.execute(text(
                "SELECT s.student_id, n.name, count(*) FROM submitted_notebook sn"
                " JOIN submitted_assignment s ON s.id = sn.assignment_id"
                " JOIN assignment a ON a.id = s.assignment_id"
                " JOIN notebook n ON n.id = sn.notebook_id WHERE a.name = :a"
                " GROUP BY s.student_id, n.name ORDER BY s.student_id, n.name"),
                {"a": assignment}).all()
            grades = db.execute(text(
                "SELECT s.student_id, n.name, c.name, g.auto_score,"
                " coalesce(gc.max_score, tc.max_score) FROM grade g"
                " JOIN submitted_notebook sn ON sn.id = g.notebook_id"
                " JOIN submitted_assignment s ON s.id = sn.assignment_id"
                " JOIN assignment a ON a.id = s.assignment_id"
                " JOIN notebook n ON n.id = sn.notebook_id"
                " JOIN base_cell c ON c.id = g.cell_id"
                " LEFT JOIN grade_cells gc ON gc.id = c.id"
                " LEFT JOIN task_cells tc ON tc.id = c.id WHERE a.name = :a"),
                {"a": assignment}).all()
    finally:
        engine.dispose()
    return {
        "submissions": [tuple(row) for row in submissions],
        "notebooks": [tuple(row) for row in notebooks],
        "grades": {(s, nb, cell): (score, top) for s, nb, cell, score, top in grades},
        "grade_rows": len(grades),
    }

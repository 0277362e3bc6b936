"""The short grade report: per student and notebook what happened, per question who passed."""

import os

from .record import read_student_parts


def load_records(settings, assignment):
    return read_student_parts(settings.reports, assignment)


def notebook_state(result):
    """graded / missing / unreadable / failed (graded, but a cell crashed or timed out)."""
    if result["status"] != "graded":
        return result["status"]
    if any(t["status"] in ("timeout", "died", "not run") for t in result["tests"]):
        return "failed"
    return "graded"


def summarise(settings, assignment):
    records = load_records(settings, assignment)
    lines = [f"# {assignment}: {len(records)} submission(s)", ""]
    passed, seen = {}, {}
    for record in records:
        for result in record["notebooks"]:
            score = sum(t["points"] for t in result["tests"])
            total = sum(t["max_points"] for t in result["tests"])
            state = notebook_state(result)
            detail = f" ({result['message']})" if result["message"] else ""
            lines.append(f"{record['student']}\t{result['notebook']}\t{state}\t"
                         f"{score:g}/{total:g}{detail}")
            for test in result["tests"]:
                key = (result["notebook"], test["grade_id"])
                seen[key] = seen.get(key, 0) + 1
                passed[key] = passed.get(key, 0) + (test["status"] == "passed")
    lines += ["", "question\tpassed"]
    for key in sorted(seen):
        lines.append(f"{key[0]}/{key[1]}\t{passed[key]}/{seen[key]} "
                     f"({100 * passed[key] / seen[key]:.0f}%)")
    return "\n".join(lines) + "\n"


def write_summary(settings, assignments):
    text = "\n".join(summarise(settings, a) for a in assignments)
    os.makedirs(settings.reports, exist_ok=True)
    with open(os.path.join(settings.reports, "summary.txt"), "w", encoding="utf-8") as handle:
        handle.write(text)
    return text

"""Does the hardened autograder survive every broken, hostile or cheating submission?

One session-scoped batch: every case in testsupport/bad_submissions.py plus honest
students, handed in to the tiny course and graded in ONE run with two workers
and a 3-second cell timeout. Each test then checks one thing about that run.
"""

import json
import os
import socket
import threading

import pytest

from testsupport import tiny_course as fx
from testsupport.bad_submissions import ALL, NONE, RED_TEAM, cases, outside_targets
from testsupport.course import run_grader
from testsupport.gradebook import gradebook_scores
from testsupport.hand_in import hand_in

HONEST = {"honest-1": ALL, "honest-2": ALL, "untouched": NONE}
# ids nbgrader and the reports cannot take: refused for that student alone
REFUSED_IDS = {"new\nline": "holds control characters",
               "-looks-like-an-option": "starts with '-'"}
RERUN = ["honest-1", "infinite-loop", "os-exit", "patch-torch-equal", "not-json",
         "test-cells-moved-up", "protocol-hijack-thread", "frame-expected-values"]


class Listener:
    """A TCP port on the host's loopback that counts connections."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while self.running:
            try:
                conn, _ = self.sock.accept()
                self.connections += 1
                conn.close()
            except OSError:
                pass

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()


def package_hashes():
    import gptcourse

    return fx.tree_hashes(os.path.dirname(gptcourse.__file__))


@pytest.fixture(scope="session")
def batch(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("hostile") / "course")
    fx.make_course(root)
    released = fx.released(root)
    listener = Listener()
    all_cases = cases(root, listener.port)
    for case in all_cases:
        hand_in(root, case.name, fx.ASSIGNMENT, case.files(released))
    hand_in(root, "honest-1", fx.ASSIGNMENT, {"tiny.ipynb": fx.correct(released)})
    hand_in(root, "honest-2", fx.ASSIGNMENT, {"tiny.ipynb": fx.correct(released)})
    hand_in(root, "untouched", fx.ASSIGNMENT, {"tiny.ipynb": released})
    for student in REFUSED_IDS:
        hand_in(root, student, fx.ASSIGNMENT, {"tiny.ipynb": fx.correct(released)})
    submitted = os.path.join(root, "course-data", "submitted")
    before, package_before = fx.tree_hashes(submitted), package_hashes()
    result = run_grader(root, fx.ASSIGNMENT, "--jobs", "2", "--timeout", "3", "--memory-mib",
                        "1536")
    listener.close()
    yield {
        "root": root, "cases": {c.name: c for c in all_cases}, "result": result,
        "scores": gradebook_scores(root, fx.ASSIGNMENT), "report": fx.report(root),
        "before": before, "after": fx.tree_hashes(submitted),
        "package_before": package_before, "package_after": package_hashes(),
        "connections": listener.connections,
    }


def autograded(batch, student):
    path = os.path.join(batch["root"], "course-data", "autograded", student, "tiny", "tiny.ipynb")
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def printed(batch, student):
    nb = autograded(batch, student)
    return "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))


def report_text(batch, student):
    return " | ".join(str(row["message"]) for row in batch["report"][student])


def test_the_whole_batch_is_processed_and_exits_zero(batch):
    assert batch["result"].returncode == 0, batch["result"].stderr[-3000:]
    expected = set(batch["cases"]) | set(HONEST)
    assert set(batch["scores"]) == expected
    assert set(batch["report"]) == expected | {shown(student) for student in REFUSED_IDS}


def test_honest_students_in_the_same_run_get_exactly_what_they_earned(batch):
    for student, earned in HONEST.items():
        assert batch["scores"][student] == earned, student


CASE_NAMES = [c.name for c in cases("/course", 1)]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_each_case_earns_exactly_its_honest_work_and_is_explained(batch, name):
    case = batch["cases"][name]
    scores = batch["scores"][name]
    assert scores == case.earns, report_text(batch, name)
    assert sum(scores.values()) <= sum(ALL.values())
    text = report_text(batch, name)
    if case.reason:  # "a|b": either wording (a memory eater on a loaded machine may time out first)
        assert any(reason in text for reason in case.reason.split("|")), text
    if case.note:
        notes = [r["message"] for r in batch["report"][name] if r["status"] == "note"]
        assert any(case.note in n for n in notes), notes


def shown(student):
    return repr(student) if "\n" in student else student


def test_report_rows_agree_with_the_gradebook(batch):
    for student, rows in batch["report"].items():
        if student in {shown(s) for s in REFUSED_IDS}:
            continue
        for row in rows:
            if row["status"] != "note":
                assert batch["scores"][student][row["grade_id"]] == row["points"], (student, row)


def test_a_reply_forged_in_a_scratch_cell_is_blamed_on_that_cell_alone(batch):
    notes = [r["message"] for r in batch["report"]["forged-reply-scratch-cell"]
             if r["status"] == "note"]
    channel = [n for n in notes if "grader's channel" in n]
    assert len(channel) == 1 and channel[0].startswith("cell 4 (added by the student): "), notes
    assert not [r for r in batch["report"]["forged-reply-scratch-cell"]
                if r["status"] not in ("passed", "note")]


def test_the_process_limit_is_named_on_every_later_check_it_stops(batch):
    rows = {r["grade_id"]: r for r in batch["report"]["process-limit-daemons"] if r["grade_id"]}
    assert rows["ones_values"]["status"] == "died"
    assert "the code ended the process" not in rows["ones_values"]["message"]
    assert rows["answer_value"]["status"] == "passed"  # after a restart, no fork needed


def test_no_message_repeats_the_status_it_is_shown_with(batch):
    for student, rows in batch["report"].items():
        for row in rows:
            assert not str(row["message"]).startswith(f"{row['status']}: "), (student, row)


def test_submitted_files_are_kept_byte_for_byte(batch):
    assert batch["after"] == batch["before"]


def test_huge_output_never_reaches_the_autograded_notebook_or_report(batch):
    for student in ("million-lines", "huge-outputs"):
        path = os.path.join(batch["root"], "course-data", "autograded", student, "tiny",
                            "tiny.ipynb")
        assert os.path.getsize(path) < 200_000, student
    assert "more bytes of output dropped" in printed(batch, "million-lines")


def test_instructor_files_are_invisible_in_the_sandbox(batch):
    output = printed(batch, "read-instructor-files")
    line = next(x for x in output.splitlines() if x.startswith("VISIBLE"))
    assert line == "VISIBLE [] []", line


def test_nothing_outside_the_sandbox_can_be_written(batch):
    existing, new = outside_targets(batch["root"])
    output = printed(batch, "write-outside")
    assert "WROTE" not in output and "OPENED FOR WRITING" not in output, output
    for path in new:
        assert not os.path.exists(path), path
    assert batch["package_after"] == batch["package_before"]


def test_planted_startup_files_never_run(batch):
    assert "PLANTED RAN" not in printed(batch, "planted-startup-files")


def test_the_sandbox_has_no_network(batch):
    output = printed(batch, "network")
    assert "NETWORK" in output and "CONNECTED" not in output, output
    assert batch["connections"] == 0


def test_the_environment_does_not_reveal_the_grader(batch):
    line = next(x for x in printed(batch, "detect-grader-environment").splitlines()
                if x.startswith("ENV"))
    names = json.loads(line[4:])  # the sorted list of names the cell printed
    assert not [n for n in names if "GRADER" in n.upper() or "NBGRADER" in n.upper()]
    assert "HOME" in names and "PATH" in names


def test_grading_again_gives_identical_scores_and_reports(batch):
    result = run_grader(batch["root"], fx.ASSIGNMENT, "--jobs", "2", "--timeout", "3",
                        "--memory-mib", "1536", "--students", ",".join(RERUN))
    assert result.returncode == 0, result.stderr[-3000:]
    scores, report = gradebook_scores(batch["root"], fx.ASSIGNMENT), fx.report(batch["root"])
    assert scores == batch["scores"]
    for student in RERUN:
        assert report[student] == batch["report"][student], student


def test_feedback_shows_messages_but_no_hidden_test_code(batch):
    import subprocess
    import sys

    root = batch["root"]
    for student in ("honest-1", "patch-torch-equal", "infinite-loop"):
        subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", "tiny",
                        "--student", student, "--force"], cwd=root, env=fx.nbgrader_env(),
                       check=True, capture_output=True)
    def html(student):
        path = os.path.join(root, "course-data", "feedback", student, "tiny", "tiny.html")
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    for student in ("honest-1", "patch-torch-equal", "infinite-loop"):
        page = html(student)
        assert fx.HIDDEN_MARK not in page
        assert "for value in (21, -7, 0)" not in page
        assert "Check that double doubles numbers it has not seen" in page
    assert "ones(n) should hold n ones" in html("patch-torch-equal")
    assert "timed out after 3 seconds" in html("infinite-loop")


def every_output(batch, student):
    """All text the autograded notebook's cells show: printed output, results and errors."""
    nb = autograded(batch, student)
    parts = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts.append(str(output.get("data", "")))
            parts += [str(output.get("evalue", ""))] + list(output.get("traceback", []))
    return "\n".join(parts)


@pytest.mark.parametrize("name", RED_TEAM)
def test_red_team_attacks_see_no_hidden_test(batch, name):
    for text in (every_output(batch, name), report_text(batch, name)):
        assert fx.HIDDEN_MARK not in text
        assert "for value in (21, -7, 0)" not in text and "expected = 2 * value" not in text


def test_names_a_check_defines_never_reach_the_kernel(batch):
    assert "LEAKED []" in printed(batch, "hidden-test-names-copied-back")


def test_a_runner_patched_to_claim_success_earns_nothing_for_the_functions_it_answers(batch):
    assert "PATCHED Runner True" in printed(batch, "patch-the-runner")  # the patch took hold
    assert batch["scores"]["patch-the-runner"] == batch["cases"]["patch-the-runner"].earns


def test_a_hijacked_channel_sees_only_requests_for_answers(batch):
    output = printed(batch, "protocol-hijack-thread")
    assert '"op": "describe"' in output  # the hijacker printed what it was asked
    assert "assert" not in output and "double(value)" not in output


def test_a_student_id_that_would_break_the_reports_is_refused_alone(batch):
    for student, why in REFUSED_IDS.items():
        assert student not in batch["scores"]
        rows = batch["report"][shown(student)]
        assert any(why in row["message"] and row["message"].endswith("; not graded")
                   for row in rows), rows
    assert batch["scores"]["=1+2"] == ALL  # an odd but harmless id is graded as usual


def test_report_files_are_safe_to_open_in_a_spreadsheet(batch):
    import csv

    path = os.path.join(batch["root"], "course-data", "reports", "tiny.csv")
    with open(path, encoding="utf-8", newline="") as handle:
        text = handle.read()
    assert "\x00" not in text and "\r" not in text.replace("\r\n", "") and "\x1b" not in text
    rows = list(csv.reader(text.splitlines()))
    cells = [cell for row in rows[1:] for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "@") or c.startswith("-") and
                not c.lstrip("-").replace(".", "").isdigit()], rows
    assert "'=1+2" in cells and "'@SUM(1)" in cells


def test_a_checks_calls_leave_no_trace_in_later_cells(batch):
    text = printed(batch, "record-what-checks-pass")
    assert "SEEN []" in text and "FILE False" in text
    assert "21" not in text and "-7" not in text


def test_a_huge_answer_cell_is_not_run_and_keeps_the_graded_notebook_small(batch):
    path = os.path.join(batch["root"], "course-data", "autograded", "huge-answer-cell", "tiny",
                        "tiny.ipynb")
    assert os.path.getsize(path) < 1 << 20

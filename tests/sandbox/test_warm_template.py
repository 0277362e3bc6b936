"""The warm template: each student still gets a fresh sandbox, and the same grades.

A run keeps one template per notebook for the machine (torch imported, the
instructor's leading set-up cells run) and forks it for every student, on a
control channel per worker. These
tests play two students in a row on one template, the first doing everything
it can to leave something behind or reach the template, and check that the
second sees a sandbox as fresh as a new one; then they grade real notebooks
both ways and compare every recorded result.
"""

import json
import os

import pytest

from grader.worker import caches
from grader.settings import load
from grader.worker import blocked_functions
from grader.worker import Assignment, grade_student, read_instructor_notebooks, read_job
from grader.sandbox import ForkedKernel, Template, bwrap_available
from grader.settings import Limits
from testsupport.course import ROOT
from testsupport.honest_students import CASES, solved

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is installed by make test")

LIMITS = Limits(timeout=30)
PRELUDE = [("setup", "import torch\nimport gptcourse\ntorch.manual_seed(0)\n"
                     "weights = torch.ones(3)\nnotes = ['set-up']\nprint('prelude ran')")]

# what the first student does to the sandbox it was given
LEAVE_TRACES = """
import os, subprocess, gptcourse, torch
for folder in ("/tmp", "/home/student", "/dev/shm", "."):
    with open(os.path.join(folder, "left-behind.txt"), "w") as handle:
        handle.write("from the student before")
weights.mul_(7)
notes.append("student one")
gptcourse.GPT_CONFIG_124M["emb_dim"] = 1
torch.manual_seed(99)
subprocess.Popen(["sleep", "300"], start_new_session=True)
"""

# what the second student looks at
LOOK_AROUND = """
import glob, os, gptcourse, torch
def sleeping():
    found = []
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(path, "rb") as handle:
                if handle.read().startswith(b"sleep"):
                    found.append(path)
        except OSError:
            pass
    return found
seen = {
    "files": sorted(glob.glob("/tmp/*") + glob.glob("/dev/shm/*") + glob.glob("*")
                    + [p for p in glob.glob(os.environ["HOME"] + "/*") if p != os.getcwd()]),
    "weights": weights.tolist(),
    "notes": notes,
    "emb_dim": gptcourse.GPT_CONFIG_124M["emb_dim"],
    "random": torch.rand(1).item(),
    "sleeping": sleeping(),
}
"""


def start(template, workdir):
    kernel = ForkedKernel(template, str(workdir), LIMITS)
    kernel.start(60)
    return kernel


def value(kernel, name):
    from grader.checks import decode

    reply, outcome = kernel.request({"op": "get", "name": name}, 30)
    assert reply is not None and "value" in reply, outcome
    return decode(reply["value"])


def run(kernel, code):
    outcome = kernel.execute("extra", code, 30)
    assert outcome.status == "ok", (outcome.message, outcome.stderr[-2000:])
    return outcome


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    made = Template(LIMITS, "gptcourse", None, PRELUDE)
    yield made
    made.close()


def fresh_view(template, workdir):
    kernel = start(template, workdir)
    try:
        run(kernel, LOOK_AROUND)
        return value(kernel, "seen")
    finally:
        kernel.kill()


def test_the_prelude_runs_once_in_the_template_and_its_output_is_kept(template):
    assert [o.status for o in template.outcomes] == ["ok"]
    assert template.outcomes[0].stdout == "prelude ran\n"


def test_a_student_graded_after_another_finds_a_sandbox_as_fresh_as_the_first(template, tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 3\n")
    before = fresh_view(template, tmp_path)
    first = start(template, tmp_path)
    try:
        run(first, LEAVE_TRACES)
        assert value(first, "notes") == ["set-up", "student one"]
        assert "'/tmp/left-behind.txt'" in run(first, "import glob; print(glob.glob('/tmp/*'))").stdout
    finally:
        first.kill()
    after = fresh_view(template, tmp_path)
    assert after == before
    assert "helper.py" in after["files"]  # this student's own file, copied in
    assert not [f for f in after["files"] if "left-behind" in f]
    assert after["weights"] == [1.0, 1.0, 1.0]
    assert after["notes"] == ["set-up"]
    assert after["emb_dim"] == 768
    assert after["sleeping"] == []


def test_a_student_cannot_reach_the_template_or_regain_privileges(template, tmp_path):
    kernel = start(template, tmp_path)
    try:
        run(kernel, """
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
mine = os.readlink("/proc/self")  # this process's number as /proc counts
# bubblewrap's process and the template's are hidden from /proc: try their numbers anyway
others = sorted(({p for p in os.listdir("/proc") if p.isdigit()} | {"1", "2", "3"}) - {mine})
attempts = {}
for pid in others:
    try:
        with open(f"/proc/{pid}/mem", "rb") as handle:
            attempts[pid] = "read memory"
    except OSError as error:
        attempts[pid] = errno.errorcode[error.errno]
def kill(pid):
    try:
        os.kill(int(pid), 9)
        return "killed"
    except OSError as error:
        return errno.errorcode[error.errno]
killed = {pid: kill(pid) for pid in others if pid != "1"}
umount = libc.umount2(b"/tmp", 2)
umount_error = errno.errorcode[ctypes.get_errno()]
capabilities = open("/proc/self/status").read().split("CapEff:")[1].split()[0]
""")
        attempts = value(kernel, "attempts")
        assert len(attempts) >= 2  # at least the template and the fork's parent
        assert set(attempts.values()) <= {"EACCES", "EPERM", "ENOENT", "ESRCH"}, (attempts, value(kernel, "mine"))
        assert set(value(kernel, "killed").values()) <= {"ESRCH", "EPERM"}
        assert value(kernel, "umount") == -1
        assert value(kernel, "umount_error") == "EPERM"
        assert value(kernel, "capabilities") == "0000000000000000"
    finally:
        kernel.kill()
    assert template.alive()
    assert fresh_view(template, tmp_path)["notes"] == ["set-up"]


def test_a_students_proc_lists_only_its_own_processes(template, tmp_path):
    """Neither the template nor bubblewrap's own process, nor their command lines, can be
    seen from a student's sandbox: /proc lists the student's processes alone."""
    kernel = start(template, tmp_path)
    try:
        run(kernel, """
import os, subprocess, time
mine = os.readlink("/proc/self")
child = subprocess.Popen(["sleep", "30"])
for _ in range(200):  # until the child has become `sleep`
    listed = sorted(p for p in os.listdir("/proc") if p.isdigit())
    commands = {}
    for pid in listed:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            commands[pid] = handle.read().replace(b"\\0", b" ").decode().strip()
    if "sleep 30" in commands.values():
        break
    time.sleep(0.05)
child.kill()
child.wait()
""")
        mine, listed, commands = (value(kernel, name) for name in ("mine", "listed", "commands"))
        assert len(listed) == 2 and mine in listed, commands
        assert [commands[pid] for pid in listed if pid != mine] == ["sleep 30"], commands
        assert not [c for c in commands.values() if "bwrap" in c], commands
    finally:
        kernel.kill()


def test_a_fork_that_exits_or_is_killed_says_so_and_the_template_goes_on(template, tmp_path):
    kernel = start(template, tmp_path)
    outcome = kernel.execute("extra", "import os\nos._exit(3)", 30)
    assert (outcome.status, outcome.message) == (
        "died", "kernel exited (exit status 3): the code ended the process")
    kernel.kill()
    kernel = start(template, tmp_path)
    outcome = kernel.execute("extra", "import time\ntime.sleep(30)", 1)
    assert outcome.status == "timeout"
    assert kernel.process is None  # killed, with everything it started
    assert template.alive()
    assert fresh_view(template, tmp_path)["weights"] == [1.0, 1.0, 1.0]


# ---------------------------------------------------------------- one template per machine

# a set-up with tensors large enough to be moved into the template's memory file
LARGE_PRELUDE = [("setup", "import torch\ntorch.manual_seed(0)\n"
                           "layer = torch.nn.Linear(1024, 512)\n"
                           "embedding = torch.nn.Embedding(600, 512)\n"
                           "head = torch.nn.Linear(512, 600, bias=False)\n"
                           "head.weight = embedding.weight  # tied, as weight tying does\n"
                           "total = float(layer.weight.double().sum())")]

LOOK_AT_LARGE = """
import torch
seen = {
    "total": float(layer.weight.double().sum()),
    "bytes": [layer.weight.untyped_storage().nbytes(), embedding.weight.untyped_storage().nbytes()],
    "separate": layer.weight.untyped_storage().data_ptr() != layer.bias.untyped_storage().data_ptr(),
    "tied": head.weight is embedding.weight,
    "mapped": any("set-up tensors" in line for line in open("/proc/self/maps")),
}
"""


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    made = Template(LIMITS, "gptcourse", None, LARGE_PRELUDE, channels=2)
    yield made
    made.close()


def test_a_template_serves_as_many_workers_as_it_has_control_channels_for(shared):
    # started for one worker beside the process that started it: two channels in all
    assert [shared.serves(n) for n in (1, 2, 3)] == [True, True, False]
    pid = os.fork()
    if pid == 0:  # a grading worker forked from that process: its template serves it alone
        os._exit(0 if shared.serves(3) else 1)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def test_the_set_ups_large_tensors_reach_every_fork_unchanged_and_writes_stay_in_the_fork(
        shared, tmp_path):
    first = start(shared, tmp_path)
    try:
        run(first, LOOK_AT_LARGE)
        seen = value(first, "seen")
        total = value(first, "total")
        run(first, "with torch.no_grad():\n    layer.weight.mul_(0)\n    embedding.weight.add_(1)")
        assert value(first, "seen")["total"] == total  # seen was computed before the write
        run(first, LOOK_AT_LARGE)
        assert value(first, "seen")["total"] == 0.0
    finally:
        first.kill()
    assert seen == {"total": total, "bytes": [1024 * 512 * 4, 600 * 512 * 4], "separate": True,
                    "tied": True, "mapped": True}
    # the very values the set-up makes here, with no template and no warm-up beside it
    import torch

    torch.manual_seed(0)
    assert total == float(torch.nn.Linear(1024, 512).weight.detach().double().sum())
    second = start(shared, tmp_path)
    try:
        run(second, LOOK_AT_LARGE)
        assert value(second, "seen") == seen  # the first student's writes never left its fork
    finally:
        second.kill()


def _cgroup_members(groups):
    members = set()
    for folder in groups.paths:
        with open(f"{folder}/cgroup.procs", encoding="utf-8") as handle:
            members |= {int(pid) for pid in handle.read().split()}
    return members


def test_a_worker_forked_from_the_grader_gets_forks_on_its_own_channel_in_its_own_cgroups(
        shared, tmp_path):
    import os

    from grader.sandbox import SandboxCgroups

    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # a grading worker, as the process pool forks it
        report = {}
        try:
            os.close(read)
            shared.adopt(1)
            kernel = start(shared, tmp_path)
            run(kernel, "answer = 6 * 7")
            report["answer"] = value(kernel, "answer")
            groups = shared.student_cgroups()
            report["in_own"] = groups is not None and kernel.process.pid in _cgroup_members(groups)
            report["fork"] = kernel.process.pid
            kernel.kill()
            shared.close()  # lets go of the template: it is the grader's to stop
        except BaseException as error:  # noqa: BLE001 (reported to the test below)
            report["error"] = repr(error)
        finally:
            os.write(write, json.dumps(report).encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as handle:
        report = json.loads(handle.read() or "{}")
    os.waitpid(child, 0)
    assert "error" not in report, report["error"]
    assert report["answer"] == 42
    assert shared.alive()  # the worker's end did not stop it
    own = start(shared, tmp_path)  # the grader's own channel still works
    try:
        run(own, "answer = 1")
        assert value(own, "answer") == 1
        groups = shared.student_cgroups()
        if SandboxCgroups.available()[0]:
            assert report["in_own"] is True
            assert own.process.pid in _cgroup_members(groups)
            assert own.process.pid not in _cgroup_members(shared.kernel.cgroups)
        else:  # no cgroups here: each fork has the per-process limits only
            assert groups is None and report["in_own"] is False
    finally:
        own.kill()


HOLD_PROCESSES = """
import os, time
held = []
for _ in range(100):
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    held.append(pid)
count = len(held)
"""


def test_one_workers_student_holding_processes_takes_none_from_another_workers_student(
        shared, tmp_path):
    """100 processes each, at once, under a limit of 128 per student: both get them all."""
    import os

    assert LIMITS.max_processes == 128
    read, write = os.pipe()
    go_read, go_write = os.pipe()
    child = os.fork()
    if child == 0:  # a worker whose student holds 100 processes until the other one is done
        report = {}
        try:
            os.close(read)
            os.close(go_write)
            shared.adopt(1)
            (tmp_path / "one").mkdir()
            kernel = start(shared, tmp_path / "one")
            run(kernel, HOLD_PROCESSES)
            report["count"] = value(kernel, "count")
            os.write(write, json.dumps(report).encode() + b"\n")
            os.read(go_read, 1)
            kernel.kill()
            shared.close()
        except BaseException as error:  # noqa: BLE001 (reported to the test below)
            os.write(write, json.dumps({"error": repr(error)}).encode() + b"\n")
        finally:
            os._exit(0)
    os.close(write)
    os.close(go_read)
    reports = os.fdopen(read)
    try:
        first = json.loads(reports.readline() or "{}")
        assert first == {"count": 100}, first
        (tmp_path / "two").mkdir()
        kernel = start(shared, tmp_path / "two")
        try:
            run(kernel, HOLD_PROCESSES)
            assert value(kernel, "count") == 100
        finally:
            kernel.kill()
    finally:
        os.write(go_write, b"g")
        os.close(go_write)
        reports.close()
        os.waitpid(child, 0)


# ---------------------------------------------------------------- same grades both ways

STYLES = ["parameters-imports-cell-at-top", "parameters-imports-cell-after-setup",
          "parameters-helper-module-beside-the-notebook", "logits-to-text-as-written"]


def _graded(tmp_path, warm):
    """{student: record without timings} for a few honest styles and one partial notebook."""
    settings = load(ROOT)
    results = {}
    saved = caches.templates_refused()
    caches.close_templates()
    caches.refuse_templates(None if warm else "switched off for the comparison")
    try:
        for name in STYLES + ["partial"]:
            assignment = CASES[name].assignment if name in CASES else "logits-to-text"
            folder = tmp_path / name / assignment
            folder.mkdir(parents=True)
            if name in CASES:
                files = CASES[name].handed_in()
            else:
                nb = solved(assignment)
                for cell in nb["cells"]:
                    if "def generate_text_simple" in "".join(cell["source"]):
                        cell["source"] = "def generate_text_simple(model, idx, n, size):\n    return idx\n"
                files = {"logits_to_text.ipynb": json.dumps(nb).encode()}
            for file_name, data in files.items():
                (folder / file_name).write_bytes(data)
            notebooks = settings.instructor_notebooks(assignment)
            prepared = Assignment(assignment, read_instructor_notebooks(notebooks), LIMITS,
                                  settings.package, blocked_functions(settings, notebooks))
            record = grade_student(read_job(prepared, name, str(folder)))
            record.seconds = 0.0  # the one thing that differs: how long it took
            for notebook in record.notebooks:
                notebook.seconds = 0.0
            results[name] = record
    finally:
        caches.close_templates()
        caches.refuse_templates(saved)
    return results


def test_a_warm_fork_grades_exactly_as_a_kernel_started_from_nothing(tmp_path):
    warm = _graded(tmp_path / "warm", True)
    cold = _graded(tmp_path / "cold", False)
    assert set(warm) == set(cold) == set(STYLES) | {"partial"}
    for name in warm:
        assert warm[name] == cold[name], name
    partial = {t.grade_id: t.points for t in warm["partial"].notebooks[0].tests}
    assert partial["next_token_ids_shape_and_dtype"] > 0
    assert partial["generate_text_simple_batches"] == 0


def test_a_worker_grades_on_the_template_the_machine_started_for_it(tmp_path):
    """prepare_machine starts the templates before the workers; a student's notebook finds
    its notebook's template by the same key (limits, package copy, prelude) and starts none."""
    from grader.worker import prepare_machine

    settings = load(ROOT)
    name = "logits-to-text-as-written"
    case = CASES[name]
    folder = tmp_path / case.assignment
    folder.mkdir()
    for file_name, data in case.handed_in().items():
        (folder / file_name).write_bytes(data)
    notebooks = settings.instructor_notebooks(case.assignment)
    prepared = Assignment(case.assignment, read_instructor_notebooks(notebooks), LIMITS,
                          settings.package, blocked_functions(settings, notebooks))
    saved = caches.templates_refused()
    caches.close_templates()
    caches.refuse_templates(None)
    try:
        prepare_machine(prepared, 1)
        started = caches.warm_templates()
        assert len(started) == len(notebooks) == 1
        record = grade_student(read_job(prepared, name, str(folder)))
        assert caches.warm_templates() == started and started[0].alive()
        assert record.points == record.max_points > 0
    finally:
        caches.close_templates()
        caches.refuse_templates(saved)


# ---------------------------------------------------------------- what a fork costs

COUNT_ZOMBIES = """
import glob
def fields(path):
    with open(path) as handle:
        return handle.read().rsplit(")", 1)[1].split()  # state, parent, ...
me = open("/proc/self/stat").read().split()[0]  # this kernel, as this /proc numbers it
zombies = 0
for path in glob.glob("/proc/[0-9]*/stat"):
    try:
        state, parent = fields(path)[:2]
    except OSError:
        continue
    zombies += parent == me and state == "Z"
"""


def test_a_checks_children_are_reaped_and_the_templates_objects_are_never_collected(
        template, tmp_path):
    import base64
    import io

    from grader.checks import decode
    from grader.checks.values import ArgumentPickler

    kernel = start(template, tmp_path)
    try:
        run(kernel, "import gc\nfrozen = gc.get_freeze_count()\n"
                    "def twice(x):\n    return 2 * x")
        # torch's objects and the set-up's, made in the template: a student's collection
        # never walks them (nor copies their pages into its fork)
        assert value(kernel, "frozen") > 10_000
        for number in range(20):  # twenty checks, each calling the answer in a fork
            stream = io.BytesIO()
            ArgumentPickler(stream, {}).dump(((number,), {}))
            reply, outcome = kernel.request(
                {"op": "call", "name": "twice", "overrides": [],
                 "args": base64.b64encode(stream.getvalue()).decode()}, 30)
            assert reply is not None and decode(reply["value"]) == 2 * number, outcome
            reply, outcome = kernel.request({"op": "end"}, 30)
            assert reply is not None and reply.get("ended") is True, outcome
        # the children that answered are reaped after their ends, before the kernel
        # does anything else: none is left for the cell that comes next
        run(kernel, COUNT_ZOMBIES)
        assert value(kernel, "zombies") == 0
    finally:
        kernel.kill()

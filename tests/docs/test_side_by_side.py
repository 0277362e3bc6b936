"""CONTRIBUTING.md's rule for the tests run side by side: a file stays whole on one worker,
the site's tests share one, the publishing tests another, the hub's tests another, and the
files that take one costly session set-up share one, so it is made once
(tests/conftest.py); the site is built by one of them while the other waits."""

import importlib.util
import multiprocessing
import os
import time

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def conftest():
    spec = importlib.util.spec_from_file_location("tests_conftest",
                                                  os.path.join(TESTS, "conftest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_file_is_its_own_unit_and_the_shared_folders_are_one_each():
    share_of = conftest().share_of
    assert share_of("units/publish/test_leak_scan.py") == "units/publish/test_leak_scan.py"
    assert share_of("units/publish/test_fragments.py") == "units/publish/test_fragments.py"
    assert share_of("book/test_accessibility.py") == share_of("book/test_print.py") == "site"
    assert share_of("publish/test_bundle.py") == share_of("publish/test_install_line.py") == "publish"
    assert share_of("hub/test_jupyterhub.py") == share_of("hub/test_pod_standin.py") == "hub"


def test_the_files_that_take_one_costly_set_up_share_a_worker_so_it_is_made_once():
    share_of = conftest().share_of
    assert (share_of("instructor/test_rehearsal.py") == share_of("instructor/test_feedback_page.py")
            == "rehearsal")
    assert (share_of("scale/test_parallel_grading.py") == share_of("scale/test_dask_grading.py")
            == share_of("scale/test_postgres_gradebook.py") == "serial_sqlite_run")
    assert share_of("package/test_model.py") == share_of("package/test_counting.py") == "model_124m"
    # a file that makes its own fixture of the name, or takes none, stays its own unit
    assert share_of("instructor/test_rehearsal_lms.py") == "instructor/test_rehearsal_lms.py"
    assert share_of("instructor/test_assignments.py") == "instructor/test_assignments.py"


def test_a_set_up_is_found_in_any_function_of_a_file_and_not_where_the_file_makes_it():
    setups_taken = conftest().setups_taken
    assert setups_taken("def test_a(rehearsal, tmp_path):\n    pass\n") == ["rehearsal"]
    assert setups_taken("import pytest\n@pytest.fixture\ndef run(serial_sqlite_run):\n"
                        "    return 1\n") == ["serial_sqlite_run"]
    assert setups_taken("@pytest.fixture(scope='module')\ndef rehearsal(tmp_path):\n    pass\n"
                        "def test_b(rehearsal):\n    pass\n") == []
    assert setups_taken("def test_c(tiny_course):\n    'the rehearsal'\n") == []


def test_the_scheduler_puts_every_test_of_a_unit_in_the_same_scope():
    module = conftest()

    class Option:
        loadscopereorder = True

    class Config:
        option = Option()

        def getvalue(self, name):
            return None

    made = []

    class Recording:
        def __init__(self, config, log):
            made.append(config)

    import xdist.scheduler
    original = xdist.scheduler.LoadScopeScheduling
    xdist.scheduler.LoadScopeScheduling = Recording
    try:
        scheduler = module.pytest_xdist_make_scheduler(Config(), None)
    finally:
        xdist.scheduler.LoadScopeScheduling = original
    split = type(scheduler)._split_scope
    assert split(scheduler, "tests/book/test_print.py::test_a[x]") == "site"
    assert split(scheduler, "tests/publish/test_bundle.py::test_b") == "publish"
    assert split(scheduler, "tests/hub/test_lti_login.py::test_c") == "hub"
    assert split(scheduler, "tests/instructor/test_feedback_page.py::test_f[x]") == "rehearsal"
    assert (split(scheduler, "tests/units/publish/test_leak_scan.py::test_d")
            == split(scheduler, "tests/units/publish/test_leak_scan.py::test_e")
            == "units/publish/test_leak_scan.py")
    assert made and made[0].option.loadscopereorder is False  # units keep collection order


def test_every_long_unit_named_first_is_a_unit_of_the_tests():
    module = conftest()
    units = set(module.ONE_WORKER.values()) | set(module.SHARED_SETUPS)
    for directory, _, files in os.walk(TESTS):
        units |= {module.share_of(os.path.relpath(os.path.join(directory, name), TESTS))
                  for name in files if name.startswith("test_") and name.endswith(".py")}
    assert set(module.LONGEST_FIRST) <= units, set(module.LONGEST_FIRST) - units
    order = module.LONGEST_FIRST
    assert order.index("publish") > order.index("site")  # it reads the site the first builds


def test_the_long_units_are_handed_out_first_each_whole_and_in_its_order():
    module = conftest()

    class Item:
        def __init__(self, nodeid):
            self.nodeid, self.path, self.markers = nodeid, os.path.join(TESTS, nodeid[6:].split(
                "::")[0]), []

        def add_marker(self, marker):
            self.markers.append(marker.name)

    collected = ["tests/book/test_print.py::test_a", "tests/docs/test_links.py::test_b",
                 "tests/hub/test_jupyterhub.py::test_c", "tests/package/test_model.py::test_d",
                 "tests/publish/test_bundle.py::test_e", "tests/book/test_print.py::test_f",
                 "tests/submissions/test_honest_students.py::test_g",
                 "tests/scale/test_dask_grading.py::test_h", "tests/units/test_house.py::test_i",
                 "tests/instructor/test_assignments.py::test_j",
                 "tests/hub/test_pod_standin.py::test_k"]
    items = [Item(nodeid) for nodeid in collected]
    module.pytest_collection_modifyitems(None, items)
    assert [item.nodeid.rsplit("_", 1)[1] for item in items] == [
        "a", "f", "c", "k", "g", "j", "e", "h", "b", "d", "i"]
    assert [item.nodeid for item in items if item.markers] == [
        item.nodeid for item in items if not item.nodeid.startswith(
            ("tests/docs/", "tests/package/", "tests/units/"))]


def _build_counted(folder):
    """A course stand-in: one file, and a line in builds.txt beside the copies per build."""
    time.sleep(0.3)  # long enough for the other process to ask while this one builds
    os.makedirs(folder)
    with open(os.path.join(folder, "made.txt"), "w", encoding="utf-8") as handle:
        handle.write(f"made by {os.getpid()}")
    with open(os.environ["BUILDS_FILE"], "a", encoding="utf-8") as handle:
        handle.write("built\n")
    return folder


def test_two_workers_asking_for_one_course_at_once_release_it_once(tmp_path, monkeypatch):
    from testsupport.course import SHARED_RELEASES, released_once

    (tmp_path / "shared").mkdir()
    monkeypatch.setenv(SHARED_RELEASES, str(tmp_path / "shared"))
    monkeypatch.setenv("BUILDS_FILE", str(tmp_path / "builds.txt"))
    key = ("side-by-side test", str(tmp_path))
    fork = multiprocessing.get_context("fork")  # two test workers of one run
    workers = [fork.Process(target=released_once, args=(key, _build_counted,
                                                        str(tmp_path / f"copy{n}")))
               for n in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert (tmp_path / "builds.txt").read_text() == "built\n"
    made = [(tmp_path / f"copy{n}" / "made.txt").read_text() for n in range(2)]
    assert made[0] == made[1] and made[0].startswith("made by ")


def test_a_release_that_failed_is_made_again_by_the_next_to_ask(tmp_path, monkeypatch):
    from testsupport.course import SHARED_RELEASES, released_once

    (tmp_path / "shared").mkdir()
    monkeypatch.setenv(SHARED_RELEASES, str(tmp_path / "shared"))
    monkeypatch.setenv("BUILDS_FILE", str(tmp_path / "builds.txt"))
    key = ("failing release", str(tmp_path))

    def broken(folder):
        os.makedirs(folder)
        raise RuntimeError("generate_assignment failed")

    fork = multiprocessing.get_context("fork")
    first = fork.Process(target=released_once, args=(key, broken, str(tmp_path / "first")))
    first.start()
    first.join(60)
    assert first.exitcode != 0 and not (tmp_path / "first").exists()
    released_once(key, _build_counted, str(tmp_path / "second"))
    assert (tmp_path / "builds.txt").read_text() == "built\n"
    assert (tmp_path / "second" / "made.txt").read_text() == f"made by {os.getpid()}"


def test_the_summary_adds_each_units_seconds_and_each_workers():
    module = conftest()
    assert module.unit_of("tests/book/test_print.py::test_a[x]") == "site"
    assert module.unit_of("instructor/test_feedback_page.py::test_b") == "rehearsal"
    lines = module.units_summary({("gw0", "site"): 100.0, ("gw1", "units/test_a.py"): 5.5,
                                  ("gw1", "rehearsal"): 40.0, ("gw0", "rehearsal"): 2.0},
                                 longest=2)
    assert lines == ["seconds per worker: gw0 102, gw1 46", "   100.0s  site",
                     "    42.0s  rehearsal"]


def _build_site_stand_in(root, log):
    from testsupport.course import site_build_lock

    with site_build_lock(root):
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"start {os.getpid()}\n")
        time.sleep(0.3)  # the other worker asks meanwhile
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"end {os.getpid()}\n")


def test_the_site_is_built_by_one_worker_at_a_time(tmp_path):
    """The site's tests and the publishing tests run `make book` in the same course on two
    workers: the second to ask waits until the first has finished."""
    log = tmp_path / "builds.log"
    fork = multiprocessing.get_context("fork")
    workers = [fork.Process(target=_build_site_stand_in, args=(str(tmp_path), str(log)))
               for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0, 0]
    lines = log.read_text().split()
    assert lines[0::2] == ["start", "end", "start", "end"]
    assert lines[1] == lines[3] and lines[5] == lines[7] and lines[1] != lines[5]


def test_the_first_process_of_a_run_on_workers_imports_no_nbgrader():
    """The controller of `pytest -n 2` only hands the tests out: neither loading the tests'
    conftest nor configuring it imports nbgrader there; a process that runs tests (a
    worker, or a run without workers) makes nbgrader ask alembic once."""
    import subprocess
    import sys
    import types

    configures = (
        "import importlib.util, sys, types\n"
        f"spec = importlib.util.spec_from_file_location('c', {os.path.join(TESTS, 'conftest.py')!r})\n"
        "conftest = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(conftest)\n"
        "conftest.pytest_configure(types.SimpleNamespace(\n"
        "    option=types.SimpleNamespace(numprocesses=2)))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('nbgrader', 'torch')))\n"
        "conftest.pytest_configure(types.SimpleNamespace(\n"
        "    workerinput={}, option=types.SimpleNamespace(numprocesses=2)))\n"
        "import nbgrader.api\n"
        "print(nbgrader.api.get_alembic_version.cache_info().maxsize)\n")
    # the run's folder of released courses exists already, as the workers inherit it
    env = {**os.environ, conftest().SHARED_RELEASES: os.path.dirname(TESTS)}
    done = subprocess.run([sys.executable, "-c", configures], cwd=os.path.dirname(TESTS),
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["[]", "None"]  # nothing imported; then cached, unbounded

    runs_tests = conftest().runs_tests
    namespace = types.SimpleNamespace
    assert runs_tests(namespace(workerinput={}, option=namespace(numprocesses=2)))
    assert not runs_tests(namespace(option=namespace(numprocesses=2)))
    assert runs_tests(namespace(option=namespace(numprocesses=0)))
    assert runs_tests(namespace(option=namespace()))


def test_new_gradebooks_of_one_test_process_ask_alembic_for_its_version_once(tmp_path,
                                                                             monkeypatch):
    import subprocess

    import nbgrader.api
    import nbgrader.dbutil
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine, text

    asked = []
    real = subprocess.check_output

    def counted(args, *rest, **options):
        asked.append(args[0])
        return real(args, *rest, **options)

    monkeypatch.setattr(nbgrader.api.sp, "check_output", counted)
    versions = []
    for n in range(3):
        url = f"sqlite:///{tmp_path / f'gradebook{n}.db'}"
        with nbgrader.api.Gradebook(url, "course"):
            pass
        with create_engine(url).connect() as connection:
            versions += connection.execute(text("SELECT version_num FROM alembic_version")).all()
    assert asked.count("alembic") <= 1
    head = ScriptDirectory(nbgrader.dbutil.ALEMBIC_DIR).get_current_head()
    assert [row[0] for row in versions] == [head] * 3

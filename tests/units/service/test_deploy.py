"""The deploy/ examples start the service with a command line the grader takes, and the
course over HTTP gives the page no scope on a student's server."""

import json
import pathlib
import shlex
import subprocess
import sys

import pytest
import yaml
from traitlets.config import Config

from grader.cli import build_parser

DEPLOY = pathlib.Path(__file__).resolve().parents[3] / "deploy"


def serve_arguments(command, name="serve"):
    assert command[1:4] == ["-m", "grader", name], command
    return build_parser().parse_args(command[3:])


def test_the_systemd_unit_runs_serve_with_arguments_it_takes():
    lines = (DEPLOY / "grader-serve.service").read_text().splitlines()
    [start] = [line for line in lines if line.startswith("ExecStart=")]
    args = serve_arguments(shlex.split(start[len("ExecStart="):]))
    assert (args.command, args.workers, args.course) == ("serve", 2, "/srv/course")
    assert "KillSignal=SIGTERM" in lines and "TimeoutStopSec=40" in lines


def test_the_systemd_unit_waits_until_the_service_is_warm():
    lines = (DEPLOY / "grader-serve.service").read_text().splitlines()
    [post] = [line for line in lines if line.startswith("ExecStartPost=")]
    shell, flag, script = shlex.split(post[len("ExecStartPost="):])
    assert (shell, flag) == ("/bin/sh", "-c")
    until = shlex.split(script.split(";")[0])
    assert until[0] == "until" and until[-1] == ">/dev/null"
    args = serve_arguments(until[1:-1], "queue")
    assert (args.status, args.json, args.course) == (True, False, "/srv/course")


def test_the_jupyterhub_entry_runs_serve_with_arguments_it_takes():
    class Config:  # what jupyterhub_config.py's `c` is, for the lines it sets
        class JupyterHub:
            services = None
            load_roles = None

    namespace = {"c": Config}
    exec((DEPLOY / "jupyterhub_service.py").read_text(), namespace)
    entry, page, staff, reader = Config.JupyterHub.services
    args = serve_arguments(entry["command"])
    assert (entry["name"], args.workers, args.course) == ("grader", 2, "/srv/course")
    args = serve_arguments(page["command"], "page")
    assert (page["name"], args.port, args.course) == ("grading", 10101, "/srv/course")
    assert page["url"] == "http://127.0.0.1:10101"
    helper = serve_arguments(reader["command"], "home-reader")
    assert (reader["name"], helper.course, "url" in reader) == ("home-reader", "/srv/course",
                                                               False)
    assert (helper.socket, helper.page_account) == (args.home_reader, page["user"])
    role, course_staff, staff_page = Config.JupyterHub.load_roles
    assert "access:services!service=grading" in role["scopes"]
    staff_args = serve_arguments(staff["command"], "grading-page")
    assert (staff["name"], staff["user"], staff_args.hub, staff_args.port) == (
        "staff-grading", "grader", "gptcourse-graders", 10102)
    assert staff["url"] == "http://127.0.0.1:10102"
    assert (course_staff["groups"], course_staff["scopes"]) == (
        ["gptcourse-graders"], ["access:services!service=staff-grading"])
    assert (staff_page["services"], staff_page["scopes"]) == (
        ["staff-grading"], ["read:groups!group=gptcourse-graders"])


def test_over_http_the_page_holds_no_scope_and_each_server_may_reach_the_page():
    class Config:  # jupyterhub_config.py's `c`, for what the two files set
        class JupyterHub:
            services = load_roles = load_groups = None

        class Spawner:
            pass

    namespace = {"c": Config}
    exec((DEPLOY / "jupyterhub_service.py").read_text(), namespace)
    exec((DEPLOY / "jupyterhub_http.py").read_text(), namespace)
    roles = Config.JupyterHub.load_roles
    # none of the students' page's; the staff's page reaches its own group's names alone
    assert [role["name"] for role in roles] == ["user", "course-staff", "staff-grading-page"]
    assert roles[1]["groups"] == ["gptcourse-instructors"]
    assert roles[2]["scopes"] == ["read:groups!group=gptcourse-instructors"]
    on_servers = [scope for role in roles for scope in role["scopes"]
                  if scope.split("!")[0] in ("access:servers", "read:servers", "servers",
                                             "admin:servers")]
    assert on_servers == []
    assert roles[0]["scopes"] == ["self", "access:services!service=grading",
                                  "read:services!service=grading"]
    assert not hasattr(Config.Spawner, "pre_spawn_hook")
    assert Config.Spawner.server_token_scopes == [
        "users:activity!user", "access:servers!server", "read:users:groups!user",
        "access:services!service=grading", "read:services!service=grading"]
    page = [s for s in Config.JupyterHub.services if s["name"] == "grading"][0]
    assert page["user"] == "grader"
    assert [s["name"] for s in Config.JupyterHub.services] == [
        "grader", "grading", "staff-grading"]  # no root
    staff = [s for s in Config.JupyterHub.services if s["name"] == "staff-grading"][0]
    assert serve_arguments(staff["command"], "grading-page").hub == "gptcourse-instructors"


def hub_services(*files):
    """The hub's services after `files` of deploy/, in order, as jupyterhub_config.py runs
    them."""
    class Config:
        class JupyterHub:
            services = load_roles = load_groups = None

        class Spawner:
            pass

    namespace = {"c": Config}
    for name in files:
        exec((DEPLOY / name).read_text(), namespace)
    return Config.JupyterHub.services


def students_pages(services):
    return [s for s in services if s["command"][1:4] == ["-m", "grader", "page"]]


@pytest.mark.parametrize("files", [("jupyterhub_service.py",),
                                   ("jupyterhub_service.py", "jupyterhub_http.py")])
def test_no_deploy_file_starts_a_students_page_as_root(files):
    """A hub service without "user" runs as the hub's account, root."""
    pages = students_pages(hub_services(*files))
    assert [(page["name"], page.get("user", "root")) for page in pages] == [
        ("grading", "grader")]


def test_the_hubs_courses_start_no_page_as_root(tmp_path):
    courses = {"python": "/opt/gptcourse/.venv/bin/python", "courses": [
        {"name": "ml", "folder": "/srv/courses/ml", "page_port": 10101}]}
    (tmp_path / "courses.yaml").write_text(json.dumps(courses))
    for name in ("jupyterhub_courses.py", "hub_courses.py"):
        (tmp_path / name).write_text((DEPLOY / name).read_text())
    config = Config()
    path = tmp_path / "jupyterhub_courses.py"
    exec(compile(path.read_text(), str(path), "exec"),
         {"get_config": lambda: config, "__file__": str(path)})
    pages = students_pages(config.JupyterHub.services)
    assert [(page["name"], page.get("user", "root")) for page in pages] == [
        ("grading-ml", "grader")]


def test_the_page_on_kubernetes_runs_as_no_root():
    [deployment] = [d for d in yaml.safe_load_all((DEPLOY / "kubernetes" / "grader.yaml")
                                                  .read_text())
                    if d and d.get("kind") == "Deployment"]
    spec = deployment["spec"]["template"]["spec"]
    [page] = [c for c in spec["containers"] if c["command"][:4] == ["python", "-m", "grader",
                                                                    "page"]]
    assert (spec["securityContext"]["runAsNonRoot"], spec["securityContext"]["runAsUser"]) == (
        True, 2000)
    assert page.get("securityContext", {}).get("runAsUser", 2000) != 0


def test_the_students_servers_run_the_hand_in_panel():
    config = json.loads((DEPLOY / "student" / "jupyter_server_config.json").read_text())
    extensions = config["ServerApp"]["jpserver_extensions"]
    assert extensions["grader.student_server"] is True
    assert extensions["nbgrader.server_extensions.formgrader"] is False


@pytest.mark.slow
def test_the_panel_imports_nothing_of_the_grader_but_itself():
    """The students' image installs the grader with --no-deps: the panel may load only
    what jupyter_server brings."""
    listed = subprocess.run(
        [sys.executable, "-c",
         "import json, sys, grader.student_server; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True).stdout
    loaded = set(json.loads(listed))
    assert {m for m in loaded if m.split(".")[0] == "grader"} == {"grader",
                                                                "grader.student_server"}
    assert not {m.split(".")[0] for m in loaded} & {
        "nbgrader", "sqlalchemy", "matplotlib", "canvasapi", "pylti1p3", "jwt",
        "cryptography", "requests", "IPython", "gptcourse", "torch", "numpy"}

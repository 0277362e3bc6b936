"""The deploy/ examples start the service with a command line the grader takes."""

import pathlib
import shlex

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
    entry, page = Config.JupyterHub.services
    args = serve_arguments(entry["command"])
    assert (entry["name"], args.workers, args.course) == ("grader", 2, "/srv/course")
    args = serve_arguments(page["command"], "page")
    assert (page["name"], args.port, args.course) == ("grading", 10101, "/srv/course")
    assert page["url"] == "http://127.0.0.1:10101"
    [role] = Config.JupyterHub.load_roles
    assert "access:services!service=grading" in role["scopes"]

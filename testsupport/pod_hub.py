"""A real JupyterHub on 127.0.0.1 as Zero to JupyterHub runs one, on one machine.

The hub is configured by deploy/jupyterhub_courses.py from a courses.yaml written
here (two tiny courses, deploy/courses.yaml's form), with what a test must change: free
ports, the hub's own logins (DummyAuthenticator: the students have no account here),
and testsupport.pod_spawner.PodSpawner, which starts each student's server in a
bubblewrap "pod": one uid for every student (the pods' account, gptc-pod-RUN), a disk
of their own at /home/jovyan, nothing else of the machine. Each pod runs the students'
image as deploy/ gives it: its Jupyter settings are deploy/student/jupyter_server_config.json
(the hand-in panel, grader.student_server, switched on), and it reaches the course's
page through the hub's proxy (COURSE_GRADING_URL, as values.yaml's http://proxy-public).

The courses' services (the page, with c.HubTransport.transport = "http", and `grader
serve`) run as the course's account (gptc-pages-RUN), which owns the course folders and
can read no student's disk (the pods' folder is the pods' account's, mode 0700). Each
page runs under `strace -f -e trace=%file`, so that a test reads every path it named.

Both accounts are made for one run (their names end in its process id, so that runs on
one machine never share one), carry testsupport.hub.ACCOUNT_MARK and are removed by
`stop`, with every process and sandbox started here.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import time

import yaml

from grader.recording import set_due_date
from grader.service import course_store
from grader.settings import load
from testsupport.course import ROOT
from testsupport.hub import (DEPLOY, SITE_PACKAGES, VENV_BIN, ensure_account, install_proxy,
                             readable_by_all, readable_environment, remove_accounts)
from testsupport.hub_browser import answering, stop, wait_for
from testsupport.network import free_port
from testsupport.pod_spawner import stop_pods
from testsupport.tiny_course import ASSIGNMENT, make_course

PASSWORD = "pod-stand-in-5"
STRACE = shutil.which("strace") or "/usr/bin/strace"
COURSE_SETTINGS = """
c.CourseDirectory.course_id = {name!r}
c.HubTransport.transport = "http"
c.HubTransport.students_group = "{name}-students"
c.HubTransport.instructors_group = "{name}-instructors"
c.GradingService.feedback_check_seconds = 1
c.Execute.timeout = 120  # a cell may wait for the test (see test_pod_standin.py)
"""
CONFIG = """\
import sys
c = get_config()
sys.path.insert(0, {root!r})
from testsupport.pod_spawner import PodSpawner
load_subconfig({courses!r})
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = PodSpawner
c.PodSpawner.pods = {pods!r}
c.PodSpawner.pod_account = {pod_account!r}
c.PodSpawner.image = {environment!r}
c.Spawner.cmd = [{singleuser!r}]
# the students' image: its Jupyter settings (the hand-in panel on), and the hub's proxy,
# where the panel reaches the course's page
c.Spawner.environment = {{"JUPYTER_CONFIG_PATH": {image_settings!r},
                         "COURSE_GRADING_URL": "http://127.0.0.1:{port}"}}
c.Spawner.default_url = "/tree"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
# a test leaves nothing running: the hub stops its proxy and servers as it stops
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
for service in c.JupyterHub.services:  # every path each page names, written down
    if service["name"].startswith("grading-"):
        service["command"] = [{strace!r}, "-f", "-qq", "-e", "trace=%file", "-o",
                              {audit!r} + "/" + service["name"], *service["command"]]
"""


class PodHub:
    """Two courses on a hub whose students' servers are pods (see the module)."""

    def __init__(self, courses):
        """`courses`: {name: {"students": [...], "instructors": [...]}}."""
        self.courses = courses
        self.base = tempfile.mkdtemp(prefix="gptcourse-pods-")
        os.chmod(self.base, 0o755)
        self.pods = os.path.join(self.base, "pods")
        self.audit = os.path.join(self.base, "audit")
        self.state = os.path.join(self.base, "hub")
        same_disk = os.stat(self.base).st_dev == os.stat(SITE_PACKAGES).st_dev
        self.environment = (os.path.join(self.base, "python") if same_disk else
                            tempfile.mkdtemp(prefix="pods-python-",
                                             dir=os.path.join(ROOT, ".hub-deps")))
        self.folders = {}
        self.process = self.account = None
        run = os.getpid()
        self.names = {"pod": (f"gptc-pod-{run}", f"gptc-pods-{run}"),
                      "course": (f"gptc-pages-{run}", f"gptc-pages-g-{run}")}
        self.log_path = os.path.join(self.base, "hub.log")

    def start(self):
        if not readable_by_all(os.path.dirname(self.environment)):
            raise AssertionError(f"{os.path.dirname(self.environment)} is not readable by "
                                 "other accounts: the pods and the course's account run "
                                 "the Python made there")
        proxy = install_proxy()
        os.makedirs(self.environment, exist_ok=True)
        python = os.path.join(readable_environment(self.environment), "bin", "python")
        self.pod = ensure_account(*self.names["pod"])
        self.account = ensure_account(*self.names["course"])
        owner = ":".join(self.names["course"])
        os.makedirs(self.pods, mode=0o700)
        os.chown(self.pods, self.pod.pw_uid, self.pod.pw_gid)
        os.chmod(self.pods, 0o700)
        for folder in (self.audit, os.path.join(self.base, "courses")):
            os.makedirs(folder, mode=0o700)
            os.chown(folder, self.account.pw_uid, self.account.pw_gid)
        self.port, self.api_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        listed = []
        for name, people in self.courses.items():
            folder = make_course(os.path.join(self.base, "courses", name))
            with open(os.path.join(folder, "nbgrader_config.py"), "a",
                      encoding="utf-8") as handle:
                handle.write(COURSE_SETTINGS.format(name=name))
            set_due_date(load(folder), ASSIGNMENT, "2030-01-01 17:00:00 UTC")
            subprocess.run(["chown", "-R", owner, folder], check=True)
            self.folders[name] = folder
            listed.append({"name": name, "folder": folder, "account": self.account.pw_name,
                           "page_port": free_port(), **people})
        settings = os.path.join(self.base, "deploy")
        os.makedirs(settings)
        for name in ("jupyterhub_courses.py", "hub_courses.py"):
            shutil.copy(os.path.join(DEPLOY, name), settings)
        with open(os.path.join(settings, "courses.yaml"), "w", encoding="utf-8") as handle:
            yaml.safe_dump({"python": python, "courses": listed}, handle)
        image_settings = os.path.join(self.environment, "jupyter")
        os.makedirs(image_settings)
        shutil.copy(os.path.join(DEPLOY, "student", "jupyter_server_config.json"),
                    image_settings)
        os.chmod(image_settings, 0o755)
        os.makedirs(self.state, mode=0o700)
        config = os.path.join(self.state, "jupyterhub_config.py")
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(CONFIG.format(
                root=ROOT, courses=os.path.join(settings, "jupyterhub_courses.py"),
                port=self.port, hub_port=free_port(), api_port=self.api_port, proxy=proxy,
                password=PASSWORD, pods=self.pods, pod_account=self.pod.pw_name,
                environment=self.environment, strace=STRACE, audit=self.audit,
                image_settings=image_settings,
                singleuser=os.path.join(os.path.dirname(python), "jupyterhub-singleuser")))
        # the pods and the services run the image's Python as it is (its own copy of src/),
        # never what this process was pointed at (PYTHONPATH: the grading sandbox binds
        # the course package where the image's Python finds it)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("JUPYTER", "GPTCOURSE_")) and k != "PYTHONPATH"}
        env["PATH"] = os.pathsep.join([VENV_BIN, env.get("PATH", "/usr/bin:/bin")])
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [os.path.join(VENV_BIN, "jupyterhub"), "-f", config], cwd=self.state, env=env,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for("the hub answers", lambda: self.running()
                 and answering(self.url + "/hub/health"), 180)
        return self

    def running(self):
        if self.process.poll() is not None:
            raise AssertionError(f"jupyterhub exited ({self.process.returncode}):\n"
                                 f"{self.log()}")
        return True

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as handle:
            return handle.read()[-8000:]

    def store(self, name):
        settings = load(self.folders[name])
        return course_store(settings.data, settings.db_url)

    def set_due(self, name, text):
        """The course's due date set as its own account would (its gradebook stays its own)."""
        set_due_date(load(self.folders[name]), ASSIGNMENT, text)
        subprocess.run(["chown", "-R", ":".join(self.names["course"]),
                        os.path.join(self.folders[name], "course-data")], check=True)

    def proxies(self):
        """The pids of this hub's proxy (its command line names the proxy's API port)."""
        found = []
        mark = f"\0--api-port\0{self.api_port}\0".encode()
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/cmdline", "rb") as handle:
                        line = handle.read()
                except OSError:
                    continue
                if b"configurable-http-proxy" in line and mark in line + b"\0":
                    found.append(int(name))
        return found

    def services(self, kind=None, course=None):
        """{pid: command line} of the courses' services running as the course's account (`kind`:
        "serve" or "page"; `course`: its name)."""
        found = {}
        if self.account is None:
            return found
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                if os.stat(f"/proc/{name}").st_uid != self.account.pw_uid:
                    continue
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    words = handle.read().decode(errors="replace").split("\0")
            except OSError:
                continue
            if words[0] == STRACE or "grader" not in words or self.base not in " ".join(words):
                continue
            if kind and kind not in words:
                continue
            if course and self.folders[course] not in words:
                continue
            found[int(name)] = words
        return found

    def stop(self):
        """The hub stopped while its servers and services are killed (it would give each
        seconds to stop), then its proxy, sandboxes and accounts."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            stop_pods(self.pods)
            for pid in self.services():
                try:
                    os.killpg(os.getpgid(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if self.process is None or self.process.poll() is not None:
                if not self.services():
                    break
            time.sleep(0.2)
        if self.process is not None:
            stop(self.process)  # SIGKILL if it still runs
        for pid in self.proxies():
            os.kill(pid, signal.SIGKILL)
        stop_pods(self.pods)
        remove_accounts([account for account, _ in self.names.values()],
                        [group for _, group in self.names.values()])
        shutil.rmtree(self.base, ignore_errors=True)
        shutil.rmtree(self.environment, ignore_errors=True)

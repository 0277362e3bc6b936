"""A real JupyterHub for the browser test, set up from the files in deploy/.

The hub runs deploy/jupyterhub_config.py as it is, loaded by a short test
configuration that changes only what a test on a shared machine must change:
free ports on 127.0.0.1, configurable-http-proxy from .hub-deps/ (npm), and the
exchange in a temporary folder instead of /srv/nbgrader/exchange (the one line
rewritten in the copied student/ and grader/ settings), and the servers' Python
environment, made from .venv where every account can run it. The accounts are real
Unix accounts made here (useradd, idempotent; the password set with chpasswd)
and log in through PAM; every account made here carries ACCOUNT_MARK in its
comment field, and an existing account without it is never touched.
"""

import grp
import os
import pwd
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.request

from testsupport.course import MAKE_FILES, ROOT, copy_course
from testsupport.network import free_port

DEPLOY = os.path.join(ROOT, "deploy")
VENV_BIN = os.path.dirname(os.path.abspath(sys.executable))
SITE_PACKAGES = sysconfig.get_paths()["purelib"]
PROXY = os.path.join(ROOT, ".hub-deps", "node_modules", ".bin", "configurable-http-proxy")
PROXY_PACKAGE = "configurable-http-proxy@5"
DOCUMENTED_EXCHANGE = 'c.Exchange.root = "/srv/nbgrader/exchange"'
ACCOUNT_MARK = "gptcourse hub test account"
GRADER = "gptc-grader"
STUDENTS = ("gptc-alice", "gptc-bob", "gptc-carol", "gptc-dave")
PASSWORD = "course-hub-test-7"
START_SECONDS = 120  # the hub's own start, bounded


class HubError(RuntimeError):
    pass


def _run(*args, **kwargs):
    result = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise HubError(f"{' '.join(args)} failed ({result.returncode}):\n"
                       f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return result


def install_proxy():
    """configurable-http-proxy from npm into .hub-deps/ (git-ignored), if missing."""
    if not os.access(PROXY, os.X_OK):
        _run("npm", "install", "--prefix", os.path.join(ROOT, ".hub-deps"), "--no-audit",
             "--no-fund", "--silent", PROXY_PACKAGE)
    return PROXY


def ensure_account(name, group):
    """A Unix account `name` in `group` with a fresh, empty home; never someone else's."""
    _run("groupadd", "-f", group)
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        _run("useradd", "--create-home", "--shell", "/bin/bash", "--comment", ACCOUNT_MARK,
             "--groups", group, name)
        entry = pwd.getpwnam(name)
    if entry.pw_gecos != ACCOUNT_MARK:
        raise HubError(f"account {name} exists and was not made by this test; not touching it")
    if name not in grp.getgrnam(group).gr_mem:
        _run("usermod", "--append", "--groups", group, name)
    _run("chpasswd", input=f"{name}:{PASSWORD}\n")
    shutil.rmtree(entry.pw_dir, ignore_errors=True)
    os.makedirs(entry.pw_dir)
    os.chown(entry.pw_dir, entry.pw_uid, entry.pw_gid)
    os.chmod(entry.pw_dir, 0o700)
    return entry


def remove_homes(names):
    for name in names:
        entry = pwd.getpwnam(name)
        if entry.pw_gecos == ACCOUNT_MARK:
            shutil.rmtree(entry.pw_dir, ignore_errors=True)


def remove_accounts(names, groups):
    """The accounts `names` made here (ACCOUNT_MARK), their homes, then the `groups`; an
    account of the same name not made here is left alone."""
    for name in names:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        if entry.pw_gecos == ACCOUNT_MARK:
            _run("userdel", name)
            shutil.rmtree(entry.pw_dir, ignore_errors=True)
    for group in groups:
        try:
            grp.getgrnam(group)
        except KeyError:
            continue
        _run("groupdel", group)


def chown_tree(path, entry):
    for directory, folders, files in os.walk(path):
        for name in [directory] + [os.path.join(directory, f) for f in folders + files]:
            os.lchown(name, entry.pw_uid, entry.pw_gid)


def copy_settings(destination, exchange):
    """deploy/ copied to `destination`, with the exchange line pointing at `exchange`."""
    shutil.copytree(DEPLOY, destination)
    for role in ("student", "grader"):
        path = os.path.join(destination, role, "nbgrader_config.py")
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if text.count(DOCUMENTED_EXCHANGE) != 1:
            raise HubError(f"deploy/{role}/nbgrader_config.py no longer has the line "
                           f"{DOCUMENTED_EXCHANGE!r} that the test moves to a temporary folder")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text.replace(DOCUMENTED_EXCHANGE, f"c.Exchange.root = {exchange!r}"))
    for directory, _, files in os.walk(destination):
        os.chmod(directory, 0o755)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)


def grader_course(home, entry, environment):
    """The repository's course files into ~/gptcourse, owned by the grader account."""
    course = os.path.join(home, "gptcourse")
    os.makedirs(course)
    copy_course(course, extra=MAKE_FILES)
    chown_tree(course, entry)
    # make's .venv: the repository's packages, run by an interpreter every account can run
    os.symlink(environment, os.path.join(course, ".venv"))
    return course


def link_tree(source, target):
    """`source` hard-linked into `target` (a new folder), as `cp -al` does, except that a
    file that vanishes on the way is passed over: another test process may be writing
    a module's cached bytecode into the same environment (a temporary file, then renamed)."""
    for folder, names, files in os.walk(source):
        here = os.path.join(target, os.path.relpath(folder, source))
        os.makedirs(here, exist_ok=True)
        shutil.copystat(folder, here, follow_symlinks=False)
        for name in names + files:
            path = os.path.join(folder, name)
            try:
                if os.path.islink(path):
                    os.symlink(os.readlink(path), os.path.join(here, name))
                elif name in files:
                    os.link(path, os.path.join(here, name))
            except FileNotFoundError:
                continue
        names[:] = [name for name in names if not os.path.islink(os.path.join(folder, name))]


def readable_by_all(path):
    path = os.path.abspath(path)
    while path != "/":
        if os.stat(path).st_mode & 0o005 != 0o005:
            return False
        path = os.path.dirname(path)
    return True


def readable_environment(folder):
    """A Python environment every account can run, with everything of the repository's .venv.

    .venv's interpreter may live where only its owner can read (a Python built in
    root's home), and so may the repository: then that installation is hard-linked
    into `folder` (no copy of the bytes) and the copied interpreter finds its
    library beside itself. .venv's packages, settings and data are hard-linked
    too, the course's src/ copied, since the servers run as the students and the
    grading sandbox binds only the environment's own folders. `folder` lies on
    .venv's file system. The commands are copied with their first line pointing here.
    """
    version = "%d.%d" % sys.version_info[:2]
    base = os.path.realpath(sys.base_prefix)
    venv = os.path.dirname(VENV_BIN)
    interpreter = os.path.join(base, "bin", f"python{version}")
    if not readable_by_all(interpreter):
        copy = os.path.join(folder, "base")
        link_tree(base, copy)
        interpreter = os.path.join(copy, "bin", f"python{version}")
        os.remove(interpreter)  # a file of its own, not a link to the original, to patch
        shutil.copy2(os.path.join(base, "bin", f"python{version}"), interpreter)
        if _run("patchelf", "--print-rpath", interpreter).stdout.strip():
            _run("patchelf", "--set-rpath", "$ORIGIN/../lib", interpreter)
    environment = os.path.join(folder, "env")
    _run(interpreter, "-m", "venv", "--without-pip", environment)
    site_packages = os.path.join(environment, "lib", f"python{version}", "site-packages")
    shutil.rmtree(site_packages)
    link_tree(SITE_PACKAGES, site_packages)
    for name in ("etc", "share"):  # the servers' and lab's settings, extensions, kernels
        link_tree(os.path.join(venv, name), os.path.join(environment, name))
    # the editable course package (gptcourse, grader): a copy of this tree's src/, found
    # through its own .pth, also when .venv was installed from another copy of the
    # repository (its .pth then names that copy's src/, which the servers must not run)
    # With its bytecode (`make setup` compiles src/; copied with their times, the files
    # stay valid): the accounts cannot write here, and each of their processes would
    # compile the grader's modules again.
    source = os.path.join(ROOT, "src")
    shutil.copytree(source, os.path.join(folder, "src"),
                    ignore=shutil.ignore_patterns("*.egg-info"))
    for name in os.listdir(site_packages):
        path = os.path.join(site_packages, name)
        if name.startswith("__editable__") and name.endswith(".pth"):
            with open(path, encoding="utf-8") as handle:
                named = handle.read().strip()
            points_here = named == source or all(
                os.path.isdir(os.path.join(named, package)) for package in ("gptcourse",
                                                                             "grader"))
            if points_here:
                os.remove(path)  # a hard link: never written to
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(os.path.join(folder, "src") + "\n")
    python = os.path.join(environment, "bin", "python")
    shebangs = {"#!" + os.path.join(VENV_BIN, name) for name in ("python", "python3")}
    for name in os.listdir(VENV_BIN):
        source = os.path.join(VENV_BIN, name)
        target = os.path.join(environment, "bin", name)
        if os.path.islink(source) or not os.path.isfile(source) or os.path.exists(target):
            continue
        with open(source, "rb") as handle:
            first, rest = handle.readline(), handle.read()
        if first.decode(errors="replace").strip() not in shebangs:
            continue
        with open(target, "wb") as handle:
            handle.write(b"#!" + python.encode() + b"\n" + rest)
        os.chmod(target, 0o755)
    # make's stamp: this environment is installed (make must not try pip as the grader)
    open(os.path.join(environment, ".installed"), "w").close()
    for directory in (folder, os.path.join(folder, "src")):
        os.chmod(directory, 0o755)
    return environment


TEST_CONFIG = """\
# The documented hub, with what a test on a shared machine must change.
c = get_config()
load_subconfig({settings!r})
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
"""


class Hub:
    """A running JupyterHub with its accounts, exchange and course folder."""

    def __init__(self):
        self.base = tempfile.mkdtemp(prefix="gptcourse-hub-")
        os.chmod(self.base, 0o755)
        self.exchange = os.path.join(self.base, "exchange")
        self.settings = os.path.join(self.base, "deploy")
        self.state = os.path.join(self.base, "hub")
        # the servers' Python beside the rest if hard links reach .venv from there
        same_disk = os.stat(self.base).st_dev == os.stat(SITE_PACKAGES).st_dev
        self.environment = (os.path.join(self.base, "python") if same_disk
                            else os.path.join(ROOT, ".hub-deps", "python"))
        self.process = None
        self.log_path = os.path.join(self.base, "hub.log")
        self.accounts = {}

    def start(self):
        if not readable_by_all(os.path.dirname(self.environment)):
            raise HubError(f"{os.path.dirname(self.environment)} is not readable by other "
                           f"accounts, and hard links cannot reach .venv from {self.base}")
        proxy = install_proxy()
        shutil.rmtree(self.environment, ignore_errors=True)
        os.makedirs(self.environment)
        self.python = readable_environment(self.environment)
        self.bin = os.path.join(self.python, "bin")
        os.makedirs(self.exchange)
        os.chmod(self.exchange, 0o777)  # nbgrader's documented exchange: anyone reads and writes
        copy_settings(self.settings, self.exchange)
        self.accounts[GRADER] = ensure_account(GRADER, "gptcourse-graders")
        for name in STUDENTS:
            self.accounts[name] = ensure_account(name, "gptcourse-students")
        grader = self.accounts[GRADER]
        self.course = grader_course(grader.pw_dir, grader, self.python)
        os.makedirs(self.state, mode=0o700)
        self.port = free_port()
        config = os.path.join(self.state, "test_config.py")
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(TEST_CONFIG.format(
                settings=os.path.join(self.settings, "jupyterhub_config.py"), port=self.port,
                hub_port=free_port(), api_port=free_port(), proxy=proxy))
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("JUPYTER", "GPTCOURSE_"))}
        env["PATH"] = os.pathsep.join([self.bin, VENV_BIN, env.get("PATH", "/usr/bin:/bin")])
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [os.path.join(VENV_BIN, "jupyterhub"), "-f", config], cwd=self.state, env=env,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise HubError(f"jupyterhub exited ({self.process.returncode}):\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/hub/health", timeout=5) as response:
                    if response.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.5)
        raise HubError(f"jupyterhub did not answer within {START_SECONDS} s:\n{self.log()}")

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as handle:
            return handle.read()[-6000:]

    def as_grader(self, *command, check=True, timeout=900):
        """`command` in ~/gptcourse as the grader account, with its server's environment."""
        entry = self.accounts[GRADER]
        env = {"HOME": entry.pw_dir, "USER": GRADER, "LANG": "C.UTF-8",
               "PATH": self.bin + ":/usr/local/bin:/usr/bin:/bin",
               "JUPYTER_CONFIG_PATH": os.path.join(self.settings, "grader")}
        result = subprocess.run(
            ["runuser", "-u", GRADER, "--", "env", "-i",
             *[f"{k}={v}" for k, v in env.items()], *command],
            cwd=self.course, capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise HubError(f"{' '.join(command)} as {GRADER} failed ({result.returncode}):\n"
                           f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        return result

    def stop(self):
        """Stop the hub (it stops the proxy and every server), then whatever is left."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        for entry in self.accounts.values():  # servers and kernels the hub started
            for pid in _processes_of(entry.pw_uid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        remove_homes(self.accounts)
        shutil.rmtree(self.base, ignore_errors=True)
        shutil.rmtree(self.environment, ignore_errors=True)


def _processes_of(uid):
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    pids.append(int(name))
            except FileNotFoundError:
                pass
    return pids


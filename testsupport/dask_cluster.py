"""A Dask cluster on 127.0.0.1 for the tests: `dask scheduler` and `dask worker` processes.

The workers run as WORKER_ACCOUNT, an unprivileged system account made here if
missing (useradd --system, marked with ACCOUNT_MARK; an existing account
without the mark is never used), each in a working folder of its own that only
it can enter, with a Python environment every account can run (made from .venv
as the JupyterHub test makes its servers' one).
"""

import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from grader.dask_tls import CA_FILE, CERT_FILE, KEY_FILE, make_certificates
from testsupport.course import ROOT
from testsupport.hub import SITE_PACKAGES, readable_by_all, readable_environment
from testsupport.network import free_port

WORKER_ACCOUNT = "gptc-worker"
ACCOUNT_MARK = "gptcourse Dask test worker"
START_SECONDS = 180  # the scheduler's and the workers' start, bounded


class ClusterError(RuntimeError):
    pass


def worker_account():
    """The pwd entry of WORKER_ACCOUNT, made if missing (needs root)."""
    if os.geteuid() != 0:
        raise ClusterError("the Dask test runs its workers as another account: run it as root")
    try:
        entry = pwd.getpwnam(WORKER_ACCOUNT)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                        "--shell", "/usr/sbin/nologin", "--comment", ACCOUNT_MARK,
                        WORKER_ACCOUNT], check=True, capture_output=True, timeout=60)
        entry = pwd.getpwnam(WORKER_ACCOUNT)
    if entry.pw_gecos != ACCOUNT_MARK:
        raise ClusterError(f"account {WORKER_ACCOUNT} exists and was not made by this test")
    return entry


def worker_python(base):
    """An interpreter with .venv's packages that every account can run.

    .venv's own when it and the repository are readable by everyone; otherwise a
    copy made of hard links in `base` (or under .hub-deps/ when hard links
    cannot reach .venv from there).
    """
    real = os.path.realpath(sys.executable)
    if all(readable_by_all(p) for p in (real, SITE_PACKAGES, os.path.join(ROOT, "src"))):
        return sys.executable
    folder = os.path.join(base, "python")
    if os.stat(base).st_dev != os.stat(SITE_PACKAGES).st_dev:
        folder = os.path.join(ROOT, ".hub-deps", "dask-python")
        shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    os.chmod(folder, 0o755)
    if not readable_by_all(folder):
        raise ClusterError(f"{folder} is not reachable by other accounts")
    return os.path.join(readable_environment(folder), "bin", "python")


def _session_processes(session):
    """{pid: uid} of the live processes in session `session`."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{name}/status") as handle:
                uid = next(int(line.split()[1]) for line in handle if line.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            found[int(name)] = uid
    return found


class DaskCluster:
    """A `dask scheduler` (as this user) and `dask worker`s (as `account`) on 127.0.0.1,
    over TLS with certificates of `python -m grader dask-certs` in `certs` (the grader's
    --tls-folder), as docs/scaling.md starts them."""

    def __init__(self, account=None):
        self.account = account
        self.account_uid = account.pw_uid if account else os.geteuid()
        # in the system's temporary folder: the account must reach the workers' folders
        self.base = tempfile.mkdtemp(prefix="gptcourse-dask-")
        os.chmod(self.base, 0o755)
        self.python = worker_python(self.base) if account else sys.executable
        self.certs = os.path.join(self.base, "certs")
        make_certificates(self.certs)
        os.chmod(self.certs, 0o755)
        os.chown(os.path.join(self.certs, KEY_FILE), self.account_uid, -1)  # the workers' to read
        self.scheduler = None
        self.workers = {}  # address -> Popen
        self.address = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def tls_options(self):
        """The --tls-* options of `dask scheduler` and `dask worker`."""
        return ["--tls-ca-file", os.path.join(self.certs, CA_FILE),
                "--tls-cert", os.path.join(self.certs, CERT_FILE),
                "--tls-key", os.path.join(self.certs, KEY_FILE)]

    def security(self):
        """What a client of this cluster connects with."""
        from distributed import Security

        return Security(tls_ca_file=os.path.join(self.certs, CA_FILE),
                        tls_client_cert=os.path.join(self.certs, CERT_FILE),
                        tls_client_key=os.path.join(self.certs, KEY_FILE),
                        require_encryption=True)

    def _log(self, name):
        return open(os.path.join(self.base, name + ".log"), "w")

    def start(self, workers):
        port = free_port()
        self.address = f"tls://127.0.0.1:{port}"
        self.scheduler = subprocess.Popen(
            [self.python, "-m", "dask", "scheduler", "--protocol", "tls", "--host", "127.0.0.1",
             "--port", str(port), "--no-dashboard", *self.tls_options()],
            cwd=self.base, stdout=self._log("scheduler"), stderr=subprocess.STDOUT,
            start_new_session=True)
        self._wait_for_port(port)
        for number in range(workers):
            self.add_worker(f"worker-{number}")
        if workers:
            from distributed import Client

            with Client(self.address, timeout=START_SECONDS, set_as_default=False,
                        security=self.security()) as client:
                client.wait_for_workers(workers, timeout=START_SECONDS)

    def _wait_for_port(self, port):
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.scheduler.poll() is not None:
                raise ClusterError(f"dask scheduler exited:\n{self.log('scheduler')}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise ClusterError(f"dask scheduler did not listen within {START_SECONDS} s")

    def add_worker(self, name):
        """One `dask worker --nthreads 1` in a working folder only it can enter."""
        workdir = os.path.join(self.base, name)
        os.makedirs(workdir, mode=0o700)
        os.chown(workdir, self.account_uid, self.account.pw_gid if self.account else -1)
        port = free_port()
        env = {"PATH": os.path.dirname(self.python) + os.pathsep + "/usr/bin:/bin",
               "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8"}
        as_account = ({"user": self.account.pw_uid, "group": self.account.pw_gid,
                       "extra_groups": []} if self.account else {})
        process = subprocess.Popen(
            [self.python, "-m", "dask", "worker", self.address, "--nthreads", "1",
             "--nworkers", "1", "--host", "127.0.0.1", "--worker-port", str(port),
             "--no-dashboard", "--local-directory", workdir, "--name", name,
             "--death-timeout", "60", "--protocol", "tls", *self.tls_options()],
            cwd=workdir, env=env, stdout=self._log(name), stderr=subprocess.STDOUT,
            start_new_session=True, **as_account)
        self.workers[f"tls://127.0.0.1:{port}"] = process

    def worker_addresses(self):
        return [address for address, process in self.workers.items() if process.poll() is None]

    def worker_owners(self):
        """The uids of every process of every running worker (nanny, worker, sandboxes)."""
        return [uid for process in self.workers.values() if process.poll() is None
                for uid in _session_processes(process.pid).values()]

    def kill_worker(self, address):
        """SIGKILL to the worker, its nanny and what they started: a machine lost."""
        process = self.workers[address]
        for pid in _session_processes(process.pid):
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        process.wait(timeout=60)

    def log(self, name):
        try:
            with open(os.path.join(self.base, name + ".log")) as handle:
                return handle.read()[-4000:]
        except OSError:
            return ""

    def stop(self):
        for process in list(self.workers.values()) + [self.scheduler]:
            if process is None:
                continue
            for pid in _session_processes(process.pid):
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self.base, ignore_errors=True)

"""A throw-away PostgreSQL server for the gradebook tests and the grading benchmark.

``TemporaryPostgres`` runs Debian's ``postgresql`` server binaries (installing the
package with apt when they are missing) in a fresh data directory, as the
unprivileged ``postgres`` user when started by root (the server refuses to run as
root), listening on 127.0.0.1 only, on a free port, with a random password. It
hands out SQLAlchemy URLs for new databases and removes everything when stopped::

    with TemporaryPostgres() as server:
        url = server.create_database("gradebook")   # postgresql+psycopg2://...
        ...

Any failure to install or start the server raises ``PostgresError`` with the
server's log: a caller that needs PostgreSQL fails rather than runs without it.
"""

import glob
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time

from testsupport.network import free_port

SERVER_GLOB = "/usr/lib/postgresql/*/bin/postgres"
DEBIAN_PACKAGE = "postgresql"


class PostgresError(RuntimeError):
    """PostgreSQL could not be installed, started or used."""


def server_bin_dir(install=True):
    """The bin directory of the newest installed PostgreSQL server; installs it if missing.

    Only Debian's versioned directories count: ``pg_ctl`` or ``postgres`` found on
    PATH may be client wrappers or links and say nothing about which server runs.
    """
    found = _installed_servers()
    if not found and install:
        _apt_install(DEBIAN_PACKAGE)
        found = _installed_servers()
    if not found:
        raise PostgresError(
            f"no PostgreSQL server found ({SERVER_GLOB}); install Debian's "
            f"'{DEBIAN_PACKAGE}' package (make system does it)"
        )
    return os.path.dirname(found[-1])


def _installed_servers():
    def version(path):
        name = path.split(os.sep)[-3]
        return tuple(int(part) for part in name.split(".") if part.isdigit())

    paths = [p for p in glob.glob(SERVER_GLOB) if os.access(p, os.X_OK)]
    return sorted(paths, key=version)


def _apt_install(package):
    if os.geteuid() != 0:
        raise PostgresError(
            f"Debian's '{package}' package is missing and only root can install it: "
            f"run 'make system' as root, or 'apt-get install {package}'"
        )
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for command in (["apt-get", "update", "-qq"],
                    ["apt-get", "install", "-y", "-qq", "--no-install-recommends", package]):
        result = subprocess.run(command, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise PostgresError(
                f"'{' '.join(command)}' failed with status {result.returncode}:\n"
                f"{result.stderr[-3000:]}"
            )


def _default_account():
    try:
        pwd.getpwnam("postgres")
        return "postgres"
    except KeyError:
        return "nobody"


class TemporaryPostgres:
    """A PostgreSQL server in a temporary directory, owned by an unprivileged user.

    ``start()`` returns once the server accepts connections; ``stop()`` shuts it down
    and deletes its data. ``halt()`` stops it at once, as a crash or an immediate
    shutdown would, keeping its data; ``resume()`` starts it again on the same data
    and port. Usable as a context manager.
    """

    superuser = "postgres"

    def __init__(self, run_as=None, start_timeout=60.0):
        # root may not run the server: it runs as `run_as`, by default the package's
        # `postgres` account (or `nobody`); anyone else runs it as themselves
        self.run_as = (run_as or _default_account()) if os.geteuid() == 0 else None
        self.start_timeout = start_timeout
        self.password = secrets.token_hex(16)
        self.port = None
        self.directory = None
        self.process = None

    # --- lifecycle ----------------------------------------------------------------
    def start(self):
        bin_dir = server_bin_dir()
        self.directory = tempfile.mkdtemp(prefix="gradebook-postgres-")
        data = os.path.join(self.directory, "data")
        password_file = os.path.join(self.directory, "password")
        with open(password_file, "w") as handle:
            handle.write(self.password + "\n")
        if self.run_as:
            account = pwd.getpwnam(self.run_as)
            for path in (self.directory, password_file):
                os.chown(path, account.pw_uid, account.pw_gid)
        self._run([os.path.join(bin_dir, "initdb"), "-D", data, "-U", self.superuser,
                   "--auth=scram-sha-256", f"--pwfile={password_file}",
                   "--encoding=UTF8", "--locale=C", "--no-sync"], "initdb")
        os.remove(password_file)

        for _ in range(3):  # another process may take the free port first
            self.port = free_port()
            self._launch()
            if self._wait_ready():
                return self
            if self.process.poll() is None:
                break  # running but not answering: a port clash would have exited
        self._failed_to_start()

    def _launch(self):
        with open(os.path.join(self.directory, "server.log"), "ab") as log:
            self.process = subprocess.Popen(
                [os.path.join(server_bin_dir(), "postgres"),
                 "-D", os.path.join(self.directory, "data"), "-p", str(self.port),
                 "-c", "listen_addresses=127.0.0.1",
                 "-c", "unix_socket_directories=",
                 "-c", "fsync=off", "-c", "max_connections=100"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                **self._user_args(),  # same process group: Ctrl-C stops it too
            )

    def _failed_to_start(self):
        log_tail = self._log_tail(os.path.join(self.directory, "server.log"))
        self.stop()
        raise PostgresError(f"PostgreSQL did not start (waited up to "
                            f"{self.start_timeout:.0f} s); server log:\n{log_tail}")

    def halt(self):
        """Stops the server at once (immediate shutdown: every connection cut, no
        checkpoint); its data stay for `resume`."""
        self.process.send_signal(signal.SIGQUIT)
        self.process.wait(timeout=60)

    def resume(self):
        """Starts the server halted by `halt` again, on the same data and port."""
        self._launch()
        if not self._wait_ready():
            self._failed_to_start()
        return self

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.directory:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    # --- databases ----------------------------------------------------------------
    def url(self, database="postgres"):
        """The SQLAlchemy URL of ``database`` on this server (psycopg2 driver)."""
        return (f"postgresql+psycopg2://{self.superuser}:{self.password}"
                f"@127.0.0.1:{self.port}/{database}")

    def create_database(self, name, template=None):
        """Creates database ``name``, empty or a copy of database ``template``; returns its URL."""
        for given in (name, template or "x"):
            if not given.replace("_", "").isalnum():
                raise ValueError(f"database name {given!r}: use letters, digits and _ only")
        connection = self.connect()
        try:
            connection.autocommit = True
            with connection.cursor() as cursor:
                copy = f' TEMPLATE "{template}"' if template else ""
                cursor.execute(f'CREATE DATABASE "{name}"{copy}')
        finally:
            connection.close()
        return self.url(name)

    def connect(self, database="postgres"):
        """A psycopg2 connection to ``database`` as the superuser."""
        import psycopg2

        return psycopg2.connect(host="127.0.0.1", port=self.port, user=self.superuser,
                                password=self.password, dbname=database, connect_timeout=5)

    # --- helpers ------------------------------------------------------------------
    def _user_args(self):
        if not self.run_as:
            return {}
        account = pwd.getpwnam(self.run_as)
        return {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": [],
                "env": {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                        "HOME": self.directory, "LC_ALL": "C"}}

    def _run(self, command, what):
        result = subprocess.run(command, capture_output=True, text=True,
                                stdin=subprocess.DEVNULL, **self._user_args())
        if result.returncode != 0:
            self.stop()
            raise PostgresError(f"{what} failed with status {result.returncode}:\n"
                                f"{result.stdout[-2000:]}{result.stderr[-2000:]}")

    def _wait_ready(self):
        import psycopg2

        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                self.connect().close()
                return True
            except psycopg2.OperationalError:
                time.sleep(0.1)
        return False

    @staticmethod
    def _log_tail(log_path):
        try:
            with open(log_path, errors="replace") as log:
                return log.read()[-3000:]
        except OSError as error:
            return f"(no server log: {error})"

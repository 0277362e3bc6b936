"""A stand-in for Zero to JupyterHub's pods on one machine: each student's server in a
bubblewrap sandbox of its own.

As KubeSpawner's pods on Kubernetes, every student's server here

- runs as one unprivileged uid, the same for every student (z2jh's uid 1000): the
  account `pod_account`;
- has a disk of its own, mounted at the same path for everyone (`/home/jovyan`): the
  folder `pods/<username>` of this machine, which no other student's sandbox mounts;
- sees an image and nothing else of the machine: /usr, /etc and the servers' Python
  environment read-only, its own /tmp, /proc and /dev; no other home, no course folder,
  no repository;
- lives in namespaces of its own (user, pid, ipc, uts) and dies with its sandbox, but
  shares the machine's network, as a pod shares the cluster's: it listens on 127.0.0.1,
  where the hub's proxy reaches it.

    c.JupyterHub.spawner_class = PodSpawner
    c.PodSpawner.pods = "/srv/pods"     # owned by pod_account, mode 0700
    c.PodSpawner.pod_account = "jovyan"
    c.PodSpawner.image = "/opt/python"  # the image's Python, bound read-only
    c.Spawner.cmd = ["/opt/python/env/bin/jupyterhub-singleuser"]

`pod_processes(pods)` finds the sandboxes started for one `pods` folder (their command
line names it), so that a test stops its own and no one else's.
"""

import os
import pwd
import signal
import time

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Unicode

HOME = "/home/jovyan"  # every student's home, inside their own sandbox


def image_binds(environment):
    """bubblewrap arguments for the pod's file system: the machine's system read-only, the
    Python environment `environment` read-only at its own path, nothing else."""
    args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for name in ("bin", "lib", "lib32", "lib64", "sbin"):
        path = os.path.join("/", name)
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args + ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                   "--ro-bind", environment, environment]


class PodSpawner(LocalProcessSpawner):
    """A student's server in a sandbox "pod" of its own: one uid for all, a home of its
    own at /home/jovyan, the machine's network (see the module's docstring)."""

    pods = Unicode(config=True, help="the folder of the students' disks, one folder each")
    pod_account = Unicode(config=True, help="the account every student's server runs as")
    image = Unicode(config=True, help="the folder of the Python the servers run (the image)")
    bwrap = Unicode("bwrap", config=True, help="bubblewrap's command")

    def disk(self):
        """The student's own disk (made on their first start), owned by the pod's uid."""
        account = pwd.getpwnam(self.pod_account)
        path = os.path.join(self.pods, self.user.name)
        if not os.path.isdir(path):
            os.mkdir(path, 0o700)
            os.chown(path, account.pw_uid, account.pw_gid)
        return path

    def pod_command(self):
        return [self.bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc",
                "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent",
                "--hostname", "pod", *image_binds(self.image),
                "--bind", self.disk(), HOME, "--chdir", HOME, "--",
                "/bin/sh", "-c"]

    async def start(self):
        # the server's command, as LocalProcessSpawner makes it, run by sh in the pod
        self.shell_cmd = self.pod_command()
        self.notebook_dir = HOME
        return await super().start()

    def make_preexec_fn(self, name):
        account = pwd.getpwnam(self.pod_account)

        def preexec():
            os.chdir("/")
            os.setgroups([])
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)

        return preexec

    def user_env(self, env):
        env["USER"] = "jovyan"
        env["HOME"] = HOME
        env["SHELL"] = "/bin/sh"
        env["PATH"] = os.pathsep.join([os.path.join(self.image, "env", "bin"),
                                       "/usr/bin", "/bin"])
        return env

    def move_certs(self, paths):
        return paths  # internal TLS is not used with this spawner


def pod_processes(pods):
    """The pids of the sandboxes started for the folder `pods` (bubblewrap's command line
    names a student's disk under it); their servers die with them."""
    found = []
    marker = os.path.join(pods, "").encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                if marker in handle.read():
                    found.append(int(name))
        except OSError:
            continue
    return found


def stop_pods(pods, seconds=60):
    """Every sandbox of `pods` killed, and gone (their servers with them)."""
    deadline = time.monotonic() + seconds
    while pod_processes(pods) and time.monotonic() < deadline:
        for pid in pod_processes(pods):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.2)

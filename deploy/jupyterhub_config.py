"""The course's JupyterHub (docs/jupyterhub.md): run `jupyterhub -f jupyterhub_config.py`.

The machine's own accounts log in with their passwords (PAM); each gets a
JupyterLab server of its own, started as that account (local processes).
Members of the Unix group gptcourse-graders get the settings in grader/, the
members of gptcourse-students those in student/: the folder is handed to each
server as JUPYTER_CONFIG_PATH.
"""

import grp
import os

c = get_config()  # noqa: F821 (JupyterHub defines get_config when it loads this file)

HERE = os.path.dirname(os.path.abspath(__file__))
STUDENTS = "gptcourse-students"
GRADERS = "gptcourse-graders"

# Put an HTTPS reverse proxy in front; the hub itself listens on this machine only.
c.JupyterHub.bind_url = "http://127.0.0.1:8000"
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {STUDENTS, GRADERS}
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.default_url = "/lab"


def settings_folder(spawner):
    """grader/ for a member of gptcourse-graders, student/ for everyone else."""
    graders = grp.getgrnam(GRADERS).gr_mem
    return os.path.join(HERE, "grader" if spawner.user.name in graders else "student")


c.Spawner.environment = {"JUPYTER_CONFIG_PATH": settings_folder}

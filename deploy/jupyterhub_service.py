# The grading service on JupyterHub: add these lines to jupyterhub_config.py, with the
# course folder of your hub. The hub starts both services with itself, restarts one that
# dies and stops them (SIGTERM) when it stops.
# - "grader" grades each hand-in as it arrives; it listens on nothing: it reads the
#   exchange the students submit to, and the queue the page writes to.
# - "grading" is the students' page, /services/grading/ (HubOAuth: who asks is the hub's
#   login). It runs as the hub's own account, root, since "Check my notebook" reads the
#   notebook a student last saved in their home; it listens on 127.0.0.1 only.
COURSE = "/srv/course"
PYTHON = f"{COURSE}/.venv/bin/python"
PAGE_PORT = 10101

c.JupyterHub.services = [  # noqa: F821 (c is JupyterHub's config object)
    {
        "name": "grader",
        "command": [PYTHON, "-m", "grader", "serve", "--workers", "2", "--course", COURSE],
        "cwd": COURSE,
        "user": "grader",  # the account that owns course-data/ (not a student's)
        "environment": {"PATH": f"{COURSE}/.venv/bin:/usr/bin:/bin"},
    },
    {
        "name": "grading",
        "url": f"http://127.0.0.1:{PAGE_PORT}",
        "command": [PYTHON, "-m", "grader", "page", "--port", str(PAGE_PORT),
                    "--course", COURSE],
        "cwd": COURSE,
        "oauth_no_confirm": True,
        "display": True,
    },
]
# every user may open the page (it shows each student only their own hand-ins)
c.JupyterHub.load_roles = [  # noqa: F821
    {"name": "user", "scopes": ["self", "access:services!service=grading"]},
]

# The grading service as a JupyterHub managed service: the hub starts it with itself,
# restarts it if it dies and stops it (SIGTERM) when the hub stops. Add these lines to
# jupyterhub_config.py, with the course folder and the grader's account of your hub.
# The service listens on nothing: it reads the exchange the hub's students submit to.
COURSE = "/srv/course"

c.JupyterHub.services = [  # noqa: F821 (c is JupyterHub's config object)
    {
        "name": "grader",
        "command": [f"{COURSE}/.venv/bin/python", "-m", "grader", "serve",
                    "--workers", "2", "--course", COURSE],
        "cwd": COURSE,
        "user": "grader",  # the account that owns course-data/ (not a student's)
        "environment": {"PATH": f"{COURSE}/.venv/bin:/usr/bin:/bin"},
    },
]

# The grading service on JupyterHub: add these lines to jupyterhub_config.py, with the
# course folder of your hub. The hub starts both services with itself, restarts one that
# dies and stops them (SIGTERM) when it stops.
# - "grader" grades each hand-in as it arrives; it listens on nothing: it reads the
#   exchange the students submit to, and the queue the page writes to.
# - "grading" is the students' page, /services/grading/ (HubOAuth: who asks is the hub's
#   login), which every student reaches; it listens on 127.0.0.1 only and runs as the
#   course's own account, never root.
# - "home-reader" reads, for "Check my notebook", the notebook a student last saved in
#   their home, which the page's account may not read: as the student (a child process
#   with the student's uid and group, for one request), only ~/ASSIGNMENT/NOTEBOOK.ipynb
#   of the course's notebooks, and it answers the page's account alone, on a socket that
#   account owns (grader/service/page/home_reader.py). It starts as root, to become a
#   student, and listens on nothing else.
#
# - "staff-grading" is the staff's grading page of the explain answers,
#   /services/staff-grading/ (docs/grading-page.md): HubOAuth too, and only the course's
#   graders (c.GradingPage.graders, else the members of GRADERS) are let in. It runs as
#   the course's account and opens no home.
#
# Which account runs what:
#   the hub (jupyterhub)       root: it starts the students' servers as the students
#   "grader" (serve)           grader: owns course-data/, reads the exchange
#   "grading" (the page)       grader: reads and writes the queue, no student's home
#   "home-reader"              root, becoming the student for each read; no network
#   "staff-grading"            grader: reads the submitted notebooks, writes the gradebook
#   a student's server         the student
import grp

COURSE = "/srv/course"
PYTHON = f"{COURSE}/.venv/bin/python"
PAGE_PORT = 10101
STAFF_PORT = 10102
GRADERS = "gptcourse-graders"  # the staff's group (the machine's, or the hub's)
HOME_READER = "/run/gptcourse/home-reader.sock"  # the page's account alone opens it

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
                    "--home-reader", HOME_READER, "--course", COURSE],
        "cwd": COURSE,
        "user": "grader",  # the course's account, not root: the page opens no home
        "oauth_no_confirm": True,
        "display": True,
    },
    {
        "name": "staff-grading",
        "url": f"http://127.0.0.1:{STAFF_PORT}",
        "command": [PYTHON, "-m", "grader", "grading-page", "--hub", GRADERS,
                    "--port", str(STAFF_PORT), "--course", COURSE],
        "cwd": COURSE,
        "user": "grader",  # the course's account, not root
        "oauth_no_confirm": True,
        "display": True,
    },
    {
        "name": "home-reader",
        "command": [PYTHON, "-m", "grader", "home-reader", "--socket", HOME_READER,
                    "--page-account", "grader", "--course", COURSE],
        "cwd": COURSE,  # no "user": the hub's root, to read each notebook as its student
        "environment": {"PATH": f"{COURSE}/.venv/bin:/usr/bin:/bin"},
    },
]
# the staff's hub group holds the machine's group of that name (PAM logs in its accounts)
try:
    c.JupyterHub.load_groups = {  # noqa: F821
        GRADERS: {"users": sorted(grp.getgrnam(GRADERS).gr_mem)}}
except KeyError:  # no such group on this machine: the hub's own group, filled by an admin
    pass
# every user may open the page (it shows each student only their own hand-ins); the
# staff's group alone opens the grading page, which may read that group's members
c.JupyterHub.load_roles = [  # noqa: F821
    {"name": "user", "scopes": ["self", "access:services!service=grading"]},
    {"name": "course-staff", "groups": [GRADERS],
     "scopes": ["access:services!service=staff-grading"]},
    {"name": "staff-grading-page", "services": ["staff-grading"],
     "scopes": [f"read:groups!group={GRADERS}"]},
]

"""Several courses (or terms) on one JupyterHub, from one list (docs/several-courses.md).

A course is a course folder and two hub groups: ``<name>-students`` and
``<name>-instructors``. `hub_settings` turns the list of courses (courses.yaml) into
what the hub loads at its start:

- ``services``: per course, its grading service (``grader-<name>``, listening on
  nothing, as the course folder's own account) and its page (``grading-<name>``,
  ``/services/grading-<name>/`` on the hub, on its own port of 127.0.0.1);
- ``load_groups``: the two groups of each course with their members (a student in two
  courses is in both courses' groups);
- ``load_roles``: per course, the role of its page, which may reach the servers of that
  course's students and no one else's (``access:servers!group=<name>-students``) and read
  their state and groups, and the role of its members, who may open that page and no
  other course's.

Every scope of a course's roles names that course's groups or services only.
`server_access_scopes` says which pages' scopes a student's server lets in: those of
the student's own courses.
"""

import re

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,38}[a-z0-9]$")  # a group, service and path part


def groups_of(name):
    return f"{name}-students", f"{name}-instructors"


def checked(courses):
    """The courses as given, each name and port checked; ValueError saying which is wrong."""
    names, ports = set(), set()
    for number, course in enumerate(courses, 1):
        name = str(course.get("name", ""))
        if not NAME.match(name):
            raise ValueError(f"course {number}: name {name!r} is not lower-case letters, "
                             f"digits and '-' (it names hub groups, services and a URL)")
        if name in names:
            raise ValueError(f"course {number}: {name} is listed twice")
        port = course.get("page_port")
        if not isinstance(port, int) or not 1024 <= port <= 65535 or port in ports:
            raise ValueError(f"course {name}: page_port {port!r} is not a free port number "
                             f"above 1023 of its own")
        if not str(course.get("folder", "")).startswith("/"):
            raise ValueError(f"course {name}: folder {course.get('folder')!r} is not an "
                             f"absolute path")
        names.add(name)
        ports.add(port)
    return courses


def hub_settings(courses, python="/opt/gptcourse/.venv/bin/python", workers=2):
    """{"services": [...], "load_groups": {...}, "load_roles": [...]} for the courses."""
    services, groups, roles = [], {}, []
    for course in checked(courses):
        name, folder, port = course["name"], course["folder"], course["page_port"]
        students, instructors = groups_of(name)
        groups[students] = {"users": sorted(course.get("students", []))}
        groups[instructors] = {"users": sorted(course.get("instructors", []))}
        environment = {"PATH": f"{python.rsplit('/', 1)[0]}:/usr/bin:/bin"}
        services.append({
            "name": f"grader-{name}",
            "command": [python, "-m", "grader", "serve", "--workers", str(workers),
                        "--course", folder],
            "cwd": folder, "user": course.get("account", "grader"),
            "environment": environment,
        })
        services.append({
            "name": f"grading-{name}",
            "url": f"http://127.0.0.1:{port}",
            "command": [python, "-m", "grader", "page", "--port", str(port),
                        "--instructors", instructors, "--course", folder],
            "cwd": folder, "user": course.get("account", "grader"),
            "environment": environment,
            "oauth_no_confirm": True, "display": True,
        })
        roles.append({
            "name": f"{name}-page",
            "description": f"the page of {name}: its students' servers, no one else's",
            "scopes": [f"access:servers!group={students}", f"read:servers!group={students}",
                       f"read:users:groups!group={students}",
                       f"read:users:groups!group={instructors}"],
            "services": [f"grading-{name}"],
        })
        roles.append({
            "name": f"{name}-members",
            "description": f"the students and instructors of {name} open its page",
            "scopes": [f"access:services!service=grading-{name}"],
            "groups": [students, instructors],
        })
    return {"services": services, "load_groups": groups, "load_roles": roles}


def server_access_scopes(user_groups, courses):
    """The scopes of the pages a student's server lets in beside the hub's own: one per
    course whose students' group holds the student. A Jupyter server compares a token's
    scopes as written and does not look a group up, so the page's
    ``access:servers!group=<name>-students`` must be listed on the server itself."""
    return [f"access:servers!group={groups_of(course['name'])[0]}" for course in courses
            if groups_of(course["name"])[0] in user_groups]

"""Two courses on one real JupyterHub: deploy/jupyterhub_courses.py loaded into JupyterHub's
own application, which creates the groups, services and roles in its database as at its
start (its proxy, spawners and services are not started). JupyterHub's own scope checks
then say who reaches what: a student of two courses is in both; each course's page
reaches its own students' servers and no one else's; a student or an instructor of one
course opens that course's page only."""

import asyncio
import shutil

import pytest
import yaml
from jupyterhub import orm, scopes
from jupyterhub.app import JupyterHub
from traitlets.config import Config

from testsupport.course import ROOT

COURSES = {"python": "/opt/gptcourse/.venv/bin/python", "courses": [
    {"name": "ml-2026-fall", "folder": "/srv/courses/ml-2026-fall", "page_port": 10101,
     "students": ["alice", "carol"], "instructors": ["ines"]},
    {"name": "nlp-2026-fall", "folder": "/srv/courses/nlp-2026-fall", "page_port": 10102,
     "students": ["bob", "carol"], "instructors": ["nora"]},
]}
PEOPLE = ("alice", "bob", "carol", "ines", "nora")


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hub-courses")
    for name in ("jupyterhub_courses.py", "hub_courses.py"):
        shutil.copy(f"{ROOT}/deploy/{name}", folder / name)
    (folder / "courses.yaml").write_text(yaml.safe_dump(COURSES))
    config = Config()
    config.JupyterHub.load_roles = [{"name": "user", "scopes": ["self"]}]
    path = folder / "jupyterhub_courses.py"
    exec(compile(path.read_text(), str(path), "exec"),
         {"get_config": lambda: config, "__file__": str(path)})
    config.JupyterHub.db_url = f"sqlite:///{folder}/jupyterhub.sqlite"
    config.JupyterHub.cookie_secret_file = str(folder / "cookie_secret")
    config.JupyterHub.pid_file = str(folder / "jupyterhub.pid")
    config.JupyterHub.authenticator_class = "dummy"
    config.Authenticator.allow_all = True
    app = JupyterHub(config=config)
    asyncio.run(app.initialize([]))
    yield app
    app.db.close()


def scopes_of(hub, kind, name):
    return scopes.parse_scopes(scopes.get_scopes_for(kind.find(hub.db, name)))


def may(hub, parsed, scope, user):
    """Whether `parsed` (parse_scopes) grants `scope` on `user`'s account and servers, as
    JupyterHub's own check of a scope's filter says."""
    if scope not in parsed:
        return False
    return scopes.check_scope_filter(parsed[scope], orm.User.find(hub.db, user), "user")


def test_every_listed_person_is_in_their_courses_groups_and_carol_in_both(hub):
    groups = {name: sorted(g.name for g in orm.User.find(hub.db, name).groups)
              for name in PEOPLE}
    assert groups == {"alice": ["ml-2026-fall-students"], "bob": ["nlp-2026-fall-students"],
                      "carol": ["ml-2026-fall-students", "nlp-2026-fall-students"],
                      "ines": ["ml-2026-fall-instructors"],
                      "nora": ["nlp-2026-fall-instructors"]}


def test_each_courses_page_reaches_its_own_students_servers_and_no_one_elses(hub):
    reach = {}
    for course in ("ml-2026-fall", "nlp-2026-fall"):
        page = scopes_of(hub, orm.Service, f"grading-{course}")
        reach[course] = sorted(p for p in PEOPLE if may(hub, page, "access:servers", p))
        assert sorted(p for p in PEOPLE if may(hub, page, "read:servers", p)) == reach[course]
        # nothing else: no server started or stopped, no user listed, no admin
        assert not {"servers", "admin:users", "admin:servers", "list:users", "users",
                    "tokens"} & set(page)
    assert reach == {"ml-2026-fall": ["alice", "carol"], "nlp-2026-fall": ["bob", "carol"]}
    ml_page = scopes.get_scopes_for(orm.Service.find(hub.db, "grading-ml-2026-fall"))
    assert not any("nlp" in scope for scope in ml_page)


def test_the_course_services_that_grade_have_no_scope_at_all(hub):
    for course in ("ml-2026-fall", "nlp-2026-fall"):
        assert scopes.get_scopes_for(orm.Service.find(hub.db, f"grader-{course}")) == set()


def test_each_person_opens_the_pages_of_their_own_courses_only(hub):
    pages = {}
    for person in PEOPLE:
        own = scopes_of(hub, orm.User, person)
        pages[person] = sorted(own.get("access:services", {}).get("service", set()))
        # and reaches no one's server but their own
        assert [p for p in PEOPLE if may(hub, own, "access:servers", p)] == [person]
    assert pages == {"alice": ["grading-ml-2026-fall"], "bob": ["grading-nlp-2026-fall"],
                     "carol": ["grading-ml-2026-fall", "grading-nlp-2026-fall"],
                     "ines": ["grading-ml-2026-fall"], "nora": ["grading-nlp-2026-fall"]}

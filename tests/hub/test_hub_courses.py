"""Two courses on one real JupyterHub: deploy/jupyterhub_courses.py loaded into JupyterHub's
own application, which creates the groups, services and roles in its database as at its
start (its proxy, spawners and services are not started). JupyterHub's own scope checks
then say who reaches what: a student of two courses is in both; no course's page reaches
anyone's server; a student or an instructor of one course opens that course's page only;
a student's server's own token, as the hub grants it at a spawn, reaches the pages of the
student's own courses and no other page or server."""

import asyncio
import inspect
import shutil

import pytest
import yaml
from jupyterhub import orm, roles, scopes
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
    """Whether `parsed` (parse_scopes) grants `scope` on `user`'s server, as JupyterHub's
    own check of a scope's filter says (by the server, its user or the user's groups)."""
    if scope not in parsed:
        return False
    server = hub.users[user].spawner.orm_spawner
    return bool(scopes.check_scope_filter(parsed[scope], server, "server"))


def server_token(hub, user):
    """The scopes the hub grants `user`'s server's own token (JUPYTERHUB_API_TOKEN) when it
    starts the server: the spawner's server_token_scopes, resolved as JupyterHub's spawn
    resolves them, within what the user holds."""
    owner = hub.users[user]
    spawner = owner.spawner
    requested = spawner.server_token_scopes
    if callable(requested):
        requested = requested(spawner)
        if inspect.isawaitable(requested):
            requested = asyncio.run(requested)
    requested = {s + f"={user}/" if s.endswith("!server") else s for s in requested}
    held = roles.roles_to_scopes(roles.get_roles_for(owner.orm_user)) | {"inherit"}
    client = hub.db.query(orm.OAuthClient).filter_by(identifier="jupyterhub").one()
    granted, _ = scopes._resolve_requested_scopes(requested, held, owner.orm_user, client,
                                                  hub.db)
    return scopes.parse_scopes(scopes.expand_scopes(granted, owner.orm_user, client))


def test_every_listed_person_is_in_their_courses_groups_and_carol_in_both(hub):
    groups = {name: sorted(g.name for g in orm.User.find(hub.db, name).groups)
              for name in PEOPLE}
    assert groups == {"alice": ["ml-2026-fall-students"], "bob": ["nlp-2026-fall-students"],
                      "carol": ["ml-2026-fall-students", "nlp-2026-fall-students"],
                      "ines": ["ml-2026-fall-instructors"],
                      "nora": ["nlp-2026-fall-instructors"]}


def test_no_courses_page_reaches_anyones_server(hub):
    for course in ("ml-2026-fall", "nlp-2026-fall"):
        page = scopes_of(hub, orm.Service, f"grading-{course}")
        for scope in ("access:servers", "read:servers", "servers", "admin:servers"):
            assert [p for p in PEOPLE if may(hub, page, scope, p)] == []
        # the page holds no scope at all: the hub tells it who asks from the asker's token
        assert scopes.get_scopes_for(orm.Service.find(hub.db, f"grading-{course}")) == set()


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


def test_a_students_server_token_reaches_the_pages_of_their_own_courses_only(hub):
    pages = {}
    for person in PEOPLE:
        token = server_token(hub, person)
        pages[person] = sorted(token.get("access:services", {}).get("service", set()))
        # it finds where those pages listen, and no other service
        assert sorted(token.get("read:services", {}).get("service", set())) == pages[person]
        # its own server only, and its owner's own groups
        assert [p for p in PEOPLE if may(hub, token, "access:servers", p)] == [person]
        assert token["read:users:groups"] == {"user": {person}}
        assert not {"servers", "admin:users", "admin:servers", "tokens", "users",
                    "list:users", "groups", "list:services"} & set(token)
    assert pages == {"alice": ["grading-ml-2026-fall"], "bob": ["grading-nlp-2026-fall"],
                     "carol": ["grading-ml-2026-fall", "grading-nlp-2026-fall"],
                     "ines": [], "nora": []}

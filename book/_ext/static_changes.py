"""Sphinx extension: a change to the site's own styles or extensions rewrites every page.

Sphinx copies ``html_static_path`` only when some page is out of date, so a build
after editing ``book/_static/course.css`` alone would keep the old stylesheet. This
marks every page out of date when a file of ``book/_static``, ``book/_ext`` or
``book/_templates`` is newer than the last build (the executed notebooks are cached, so
nothing runs again).
"""

from pathlib import Path

WATCHED = ("_static", "_ext", "_templates")


def _newest(book):
    files = [p for folder in WATCHED for p in (book / folder).rglob("*") if p.is_file()]
    return max((p.stat().st_mtime for p in files), default=0.0)


def _outdated_when_styles_changed(app, env, added, changed, removed):
    newest = _newest(Path(app.srcdir) / "book")
    previous = getattr(env, "course_static_mtime", None)
    env.course_static_mtime = newest
    if previous is not None and newest > previous:
        return sorted(env.found_docs)
    return []


def setup(app):
    app.connect("env-get-outdated", _outdated_when_styles_changed)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}

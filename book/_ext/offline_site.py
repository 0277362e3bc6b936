"""Sphinx extension: no page of the site loads a script from another host.

sphinx-thebe (which Jupyter Book always loads) adds its configuration script,
with the address of thebe on a CDN, to every page, and in this build it adds it
twice, which browsers report as an error. The course does not use thebe (the
launch buttons are plain links), so when ``launch_buttons.thebe`` is off its
scripts are dropped from every page.
"""


def _is_thebe(script):
    filename = str(getattr(script, "filename", script) or "")
    body = (getattr(script, "attributes", None) or {}).get("body", "")
    return "thebe" in filename or "THEBE_JS_URL" in body


def _drop_thebe_scripts(app, pagename, templatename, context, doctree):
    launch = app.config.html_theme_options.get("launch_buttons", {})
    if launch.get("thebe"):
        return
    context["script_files"] = [s for s in context.get("script_files", []) if not _is_thebe(s)]


def setup(app):
    app.connect("html-page-context", _drop_thebe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

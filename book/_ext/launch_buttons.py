"""Sphinx extension: one setting, ``repository.url`` in ``_config.yml``, turns the
repository, Binder and Colab buttons on.

- Empty (the default): the site has no repository or launch buttons; every page
  still offers its executed notebook (``.ipynb``, with the outputs and values of the
  build: book/_ext/executed_notebooks.py) in the download menu.
- A GitHub address: the repository button and the launch buttons of
  ``launch_buttons`` point at it. Binder and Colab open the page's paired notebook,
  ``book/<page>.ipynb``, committed beside the page.
- A placeholder (``example-org``, ``your-org``, ...): the build stops with a message
  that says what to set, so no published site links to a repository that is not there.
"""

import shutil
from pathlib import Path
from urllib.parse import urlparse

from sphinx.errors import ConfigError

from executed_notebooks import write_executed_notebook

PLACEHOLDER_OWNERS = {"example", "example-org", "your-org", "your-name", "org", "owner", "user"}
LAUNCH_KEYS = ("binderhub_url", "colab_url", "jupyterhub_url", "deepnote_url", "jupyterlite_url")


def placeholder_reason(url):
    """Why ``url`` cannot be the course's repository, or None when it can."""
    parsed = urlparse(url)
    parts = [p for p in parsed.path.split("/") if p]
    if parsed.scheme != "https" or parsed.hostname != "github.com" or len(parts) < 2:
        return "it is not a GitHub repository address (https://github.com/OWNER/REPOSITORY)"
    if parts[0].lower() in PLACEHOLDER_OWNERS or "example" in parts[0].lower():
        return f"{parts[0]!r} is a placeholder, not the owner of a real repository"
    return None


def _apply_repository_setting(app, config):
    options = config.html_theme_options
    url = (options.get("repository_url") or "").strip()
    if not url:
        options.pop("repository_url", None)
        options["use_repository_button"] = False
        launch = dict(options.get("launch_buttons") or {})
        for key in LAUNCH_KEYS:
            launch[key] = ""
        options["launch_buttons"] = launch
        return
    reason = placeholder_reason(url)
    if reason:
        raise ConfigError(
            f"_config.yml: repository.url is {url!r}, and {reason}. Set it to the "
            "course's repository on GitHub, or leave it empty (url: \"\") to build the "
            "site without repository and launch buttons.")
    options["use_repository_button"] = True


def _offer_the_notebook(app, pagename, templatename, context, doctree):
    """Put the executed notebook in the download menu, with or without launch buttons.

    sphinx-book-theme copies myst-nb's copy into ``_sources`` only when a launch button
    is on, and in cache mode myst-nb's copy has no outputs; this writes the page with
    the build's outputs and its values filled in.
    """
    if not str(context.get("sourcename", "")).endswith(".md"):
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    if not write_executed_notebook(app, pagename, target):
        executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
        if not executed.exists():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def _keep_the_executed_notebook(app, pagename, templatename, context, doctree):
    """With launch buttons on, sphinx-book-theme has just copied myst-nb's notebook, without
    outputs, over the one written above: write it again."""
    if app.config.html_theme_options.get("repository_url") and \
            str(context.get("sourcename", "")).endswith(".md"):
        write_executed_notebook(app, pagename, Path(app.outdir) / "_sources" / f"{pagename}.ipynb")


def setup(app):
    app.connect("config-inited", _apply_repository_setting)
    # before sphinx-book-theme builds the header buttons (priority 501)
    app.connect("html-page-context", _offer_the_notebook, priority=500)
    # after sphinx-book-theme's launch buttons (priority 501)
    app.connect("html-page-context", _keep_the_executed_notebook, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

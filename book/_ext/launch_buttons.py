"""Sphinx extension: one setting, ``repository.url`` in ``_config.yml``, turns the
repository, Binder and Colab buttons on.

- Empty (the default): the site has no repository or launch buttons; every page
  still offers its executed notebook (``.ipynb``, with the outputs and values of the
  build: book/_ext/executed_notebooks.py) in the download menu.
- A GitHub address: the repository button and the launch buttons of
  ``launch_buttons`` point at it. Binder and Colab open the page's paired notebook,
  ``book/<page>.ipynb``, in that repository. It must be the public repository of the
  course's bundle (``make publish-repo``, which holds ``book/<page>.ipynb`` beside each
  page and nothing of solutions/; docs/publishing.md), since Binder and Colab need it
  readable by every reader.
- This course's own repository (a git remote of the checkout being built), which holds
  solutions/: the build stops with a message that says what to set instead.
- A placeholder (``example-org``, ``your-org``, ...): the build stops with a message
  that says what to set, so no published site links to a repository that is not there.
"""

import re
import shutil
import subprocess
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


def repository_key(url):
    """'host/owner/repository', lowercased, of a web address or git remote, or None."""
    scp = re.fullmatch(r"[\w.-]+@([\w.-]+):(.+)", url.strip())  # git@github.com:owner/repo.git
    host, path = (scp.group(1), scp.group(2)) if scp else (urlparse(url).hostname or "",
                                                          urlparse(url).path)
    parts = [p for p in path.split("/") if p]
    if not host or len(parts) < 2:
        return None
    return f"{host}/{parts[0]}/{re.sub(r'[.]git$', '', parts[1])}".lower()


def own_remote(folder, url):
    """The git remote of the checkout at ``folder`` that ``url`` names, or None."""
    try:
        found = subprocess.run(["git", "-C", str(folder), "config", "--get-regexp",
                                r"^remote\..*\.(url|pushurl)$"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    remotes = [line.split(None, 1)[1] for line in found.stdout.splitlines() if " " in line]
    return next((r for r in remotes if repository_key(r) == repository_key(url)), None)


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
            "public repository of the course's bundle on GitHub (make publish-repo), or leave "
            "it empty (url: \"\") to build the site without repository and launch buttons.")
    remote = own_remote(app.srcdir, url)
    if remote:
        raise ConfigError(
            f"_config.yml: repository.url is {url!r}, this course's own repository (git "
            f"remote {remote!r}), which holds solutions/ and every hidden test: Binder and "
            "Colab would need it readable by every reader. Set it to a separate public "
            "repository that holds the bundle only (make publish-repo REMOTE=...; "
            "docs/publishing.md), or leave it empty.")
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

"""Sphinx extension: the site's front door, index.html, is a whole page with a language.

The book's first page is book/intro, so sphinx-external-toc writes index.html as a
single ``<meta http-equiv="Refresh">`` line: no ``<html lang>``, no title, nothing for
a reader whose browser does not follow the redirect. This writes it first (the
toc extension then leaves an existing index.html alone) as a small page in the
site's language, with a title and a link to the first page.
"""

import html
from pathlib import Path


def _write_index(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    if app.config.root_doc == "index":
        return  # the book's own first page is index.html
    target = app.builder.get_target_uri(app.config.root_doc)
    title = html.escape(app.config.html_title or app.config.project)
    language = html.escape(app.config.language or "en")
    href = html.escape(target)
    Path(app.outdir, "index.html").write_text(
        "<!DOCTYPE html>\n"
        f'<html lang="{language}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n"
        f'<meta http-equiv="Refresh" content="0; url={href}">\n'
        f'</head>\n<body>\n<p><a href="{href}">{title}</a></p>\n</body>\n</html>\n',
        encoding="utf-8")


def setup(app):
    # before sphinx-external-toc's own handler (priority 500), which then does nothing
    app.connect("build-finished", _write_index, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

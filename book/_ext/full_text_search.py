"""Sphinx extension: the site's search reads every word of every page, offline.

After the build, ``make book`` runs Pagefind over the built site: it indexes the part of
each page marked ``data-pagefind-body`` (here, a chapter's article: not the navigation,
not the search or index pages) into ``pagefind/``, a folder of the site. The search page
(``book/_templates/search.html``, ``_static/full-text-search.js``) loads that index and
searches it in the browser, so no query leaves the site. Every page's search field and
its Ctrl+K dialog send their words to the search page, as they did for Sphinx's search.
"""


def _mark_the_article(app, pagename, templatename, context, doctree):
    if pagename == "search":
        app.add_css_file("full-text-search.css")  # added here: the search page only
    if doctree is None or "body" not in context:
        return  # the search page, the index: generated, not chapters
    context["body"] = f'<div data-pagefind-body="">{context["body"]}</div>'


def setup(app):
    app.connect("html-page-context", _mark_the_article)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""Sphinx extension: the site's interactive pieces, each a script of the site's own.

A page cell writes a widget's place and its data (computed from ``gptcourse`` when the
page is executed) as ``<div class="course-widget" data-widget="NAME" ...>``; this
extension adds ``_static/widgets/NAME.js`` and the widgets' stylesheet to the pages that
hold one, and to no other page. Nothing is loaded from another host.

- ``parameter-calculator`` (the counting page): a configuration in, the parameters of
  each component, the total, its size in float32 and bfloat16 and the output head's
  share out;
- ``logits-explorer`` (the sampling page): temperature, top-k and top-p over
  last-position logits stored in the page, with draws made at build time.
"""

import re

WIDGET = re.compile(r'data-widget="([a-z-]+)"')
KNOWN = ("parameter-calculator", "logits-explorer")


def _add_widget_scripts(app, pagename, templatename, context, doctree):
    names = sorted(set(WIDGET.findall(context.get("body", ""))) & set(KNOWN))
    if not names:
        return
    app.add_css_file("widgets/widgets.css")  # added here: this page only
    for name in names:
        app.add_js_file(f"widgets/{name}.js", loading_method="defer")


def setup(app):
    app.connect("html-page-context", _add_widget_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

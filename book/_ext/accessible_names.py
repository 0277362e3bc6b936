"""Sphinx extension: every control's accessible name holds the text it shows (WCAG 2.1
success criterion 2.5.3, Label in Name; axe-core's rule label-content-name-mismatch).

A reader who uses speech input says what they see ("click Show code cell output"), so a
control named otherwise cannot be reached. Three controls of the build were named by an
``aria-label`` other than their visible text; each now takes its name from that text:

- myst-nb's hidden-output toggle, ``<summary aria-label="Toggle hidden content">`` around
  "Show code cell output": its HTML is written here without the label, so its name is
  the prompt it shows (the other prompt is ``display: none`` and not part of the name);
- the theme's search field ("Search Ctrl+K", labelled "Search") and colour-mode button
  (labelled "Color mode", its icons titled "Light", "Dark", "System Settings"): overridden
  by the templates of ``book/_templates``, which this extension puts first on the
  template path.
"""

from html import escape
from pathlib import Path

from myst_nb.sphinx_ import HideCodeCellNode

TEMPLATES = Path(__file__).resolve().parent.parent / "_templates"


def visit_hidden_cell(self, node):
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append("<summary>\n")  # named by the prompt it shows
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def depart_hidden_cell(self, node):
    self.body.append("</details>\n")


def _templates_first(app, config):
    config.templates_path = [str(TEMPLATES)] + [p for p in config.templates_path
                                                 if Path(p).resolve() != TEMPLATES]


def setup(app):
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_hidden_cell))
    app.connect("config-inited", _templates_first, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

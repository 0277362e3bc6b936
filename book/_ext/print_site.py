"""Sphinx extension: the site prints whole, and offers the whole book as one PDF.

- ``_static/print.css`` (for print only) and ``_static/print.js`` on every page: printing
  a page prints its answers and hidden outputs, in the light theme;
- the download menu of every page, beside "print this page" (.pdf), links the whole
  book, ``BOOK_PDF``, which ``book/_ext/book_pdf.py`` prints from the built site after
  the build (``make book`` runs it).
"""

BOOK_PDF = "gpt2-from-the-output-back.pdf"


def _link_the_book_pdf(app, pagename, templatename, context, doctree):
    pathto = context["pathto"]
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].append({
                "type": "link",
                "url": pathto(BOOK_PDF, 1),
                "text": "whole book .pdf",
                "tooltip": "Download the whole book, every answer open, as one PDF",
                "icon": "fas fa-book",
                "label": "download-book-pdf-button",
            })


def setup(app):
    app.add_css_file("print.css", media="print")
    app.add_js_file("print.js", loading_method="defer")
    # after sphinx-book-theme has made the download menu (priority 501)
    app.connect("html-page-context", _link_the_book_pdf, priority=510)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

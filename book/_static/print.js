/* Printing a page prints what is hidden on screen (book/_ext/print_site.py adds this
   script to every page; book/_static/print.css is its stylesheet).

   Before printing: every <details> opens (browsers that cannot open them in CSS print
   them closed otherwise), every element marked `print-reveal` loses its `hidden`, and
   the page takes the light theme, whose colours are made for paper. After printing,
   everything is put back as the reader left it. The whole-book PDF
   (book/_ext/book_pdf.py) calls window.printReveal, the same step, before it prints each
   page, and checks that nothing is left closed. */
(function () {
  "use strict";
  let restore = null;

  function beforePrint() {
    if (restore) return;
    const closed = [...document.querySelectorAll("details:not([open])")];
    const hidden = [...document.querySelectorAll(".print-reveal[hidden]")];
    const root = document.documentElement;
    const theme = {mode: root.dataset.mode, theme: root.dataset.theme};
    closed.forEach((d) => { d.open = true; });
    hidden.forEach((e) => { e.hidden = false; });
    root.dataset.theme = "light";
    restore = () => {
      closed.forEach((d) => { d.open = false; });
      hidden.forEach((e) => { e.hidden = true; });
      if (theme.theme === undefined) delete root.dataset.theme;
      else root.dataset.theme = theme.theme;
      restore = null;
    };
  }

  window.printReveal = beforePrint;
  window.addEventListener("beforeprint", beforePrint);
  window.addEventListener("afterprint", () => restore && restore());
})();

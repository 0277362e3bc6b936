/* The grading page's keys: j / k the next or previous answer, 1-9 the rubric's items of the
   answer in focus, Enter saves it. Typing in a field types; nothing is saved by a key alone
   but Enter, on the answer the grader is looking at. */
(function () {
  "use strict";
  const answers = () => [...document.querySelectorAll("article[data-student]")];
  function current() {
    const active = document.activeElement;
    return active ? active.closest("article[data-student]") : null;
  }
  function move(step) {
    const all = answers();
    if (!all.length) return;
    const at = all.indexOf(current());
    const next = all[Math.min(Math.max(at + step, 0), all.length - 1)];
    next.focus();
    next.scrollIntoView({block: "start"});
  }
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target.matches("textarea, input[type=number], input[type=text]")) return;
    const article = current();
    if (event.key === "j") { move(1); event.preventDefault(); return; }
    if (event.key === "k") { move(-1); event.preventDefault(); return; }
    if (!article) return;
    if (/^[1-9]$/.test(event.key)) {
      const box = article.querySelector(`input[data-key="${event.key}"]`);
      if (box) { box.checked = !box.checked; event.preventDefault(); }
    } else if (event.key === "Enter" && target.tagName !== "BUTTON") {
      const form = article.querySelector("form");
      if (form) { form.requestSubmit(); event.preventDefault(); }
    }
  });
  window.addEventListener("DOMContentLoaded", () => {
    const wanted = location.hash ?
      document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    const first = wanted || answers().find((a) => a.dataset.state !== "graded") || answers()[0];
    if (first) first.focus();
  });
})();

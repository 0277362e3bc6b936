/* The site's checks (book/_ext/checks.py): the reader answers, presses Check, and reads
   the feedback for that answer before the worked answer opens. Everything the check
   needs is in its data-check attribute, written when the page was built. */
(function () {
  "use strict";

  // Separators a reader may type inside a number, and units they may add after it.
  var SEPARATORS = /[\s\u00a0\u2009\u202f_',]/g;
  var UNITS = /(mib|mb|gib|gb|kib|kb|%|×|x|times|parameters?|params?|numbers?|tokens?|positions?|rows?|ids?|bytes?)$/i;
  var NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;
  // A scale after the number: 124M, 163 million, 2.5k, 1.5B.
  var SCALES = {k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, million: 1e6, b: 1e9, bn: 1e9,
                billion: 1e9};
  var SCALED = /^(.*?\d)(k|thousand|m|mn|million|b|bn|billion)$/i;
  var TRY_AGAIN = " Try again, or open the answer below.";

  function parseNumber(text) {
    var compact = text.trim().replace(SEPARATORS, "");
    var previous;
    do {  // "2,487 MiB", "23.7 %", "48x"
      previous = compact;
      compact = compact.replace(UNITS, "");
    } while (compact !== previous && compact);
    var scaled = SCALED.exec(compact);
    if (scaled && NUMBER.test(scaled[1]) && !/e/i.test(scaled[1])) {
      // "124M" is 124,000,000, written to the nearest million (0.5 on either side)
      var decimals = (scaled[1].split(".")[1] || "").length;
      var scale = SCALES[scaled[2].toLowerCase()];
      return {value: Number(scaled[1]) * scale, rounding: scale / Math.pow(10, decimals) / 2};
    }
    return NUMBER.test(compact) ? {value: Number(compact), rounding: 0} : null;
  }

  /* Whether a number written rounded ("124M") is ``expected`` to that rounding. */
  function roundsTo(read, expected) {
    return read.rounding > 0 && Math.abs(read.value - expected) <= read.rounding;
  }

  function parseShape(text) {
    var inner = text.trim().replace(/^torch\.Size\(/, "").replace(/[\[\]()]/g, " ").trim();
    // "2, 4, 50,257": dimensions after a comma and a space, thousands inside a number
    var pieces = /,\s/.test(inner) ? inner.split(/,\s+/) : inner.split(/[\s,x×*]+/);
    var dims = [];
    for (var i = 0; i < pieces.length; i++) {
      var piece = pieces[i].replace(SEPARATORS, "");
      if (piece === "") continue;
      if (!/^\d+$/.test(piece)) return null;
      dims.push(Number(piece));
    }
    return dims.length ? dims : null;
  }

  function near(given, expected, spec) {
    var allowed = spec.tolerance * (spec.relative ? Math.abs(expected) : 1);
    return Math.abs(given - expected) <= allowed + 1e-9 * Math.max(1, Math.abs(expected));
  }

  function same(given, expected, spec) {
    if (spec.kind === "number") return near(given, expected, spec);
    if (spec.kind === "shape") {
      return given.length === expected.length &&
        given.every(function (d, i) { return d === expected[i]; });
    }
    return given === expected;
  }

  /* The reader's answer, read from the form: {value} or {problem}. */
  function readAnswer(form, spec) {
    if (spec.kind === "choice") {
      var picked = form.querySelector("input[type=radio]:checked");
      if (!picked) return {problem: "Pick one of the options first."};
      return {value: Number(picked.value)};  // the option's index
    }
    var text = form.querySelector("input[type=text]").value;
    if (!text.trim()) return {problem: "Type your answer first."};
    if (spec.kind === "shape") {
      var dims = parseShape(text);
      return dims ? {value: dims}
        : {problem: "That is not a shape: type its sizes, such as 2, 4, 768."};
    }
    var number = parseNumber(text);
    return number === null
      ? {problem: "That is not a number: type digits, such as 1,234, 0.25 or 124M."}
      : {value: number.value, rounding: number.rounding};
  }

  /* [verdict, feedback HTML] for an answer. */
  function judge(value, spec, read) {
    var answer = spec.answer;
    if (same(value, answer, spec)) {
      return ["right", "<strong>Right:</strong> " + spec.right];
    }
    for (var i = 0; i < spec.mistakes.length; i++) {
      if (same(value, spec.mistakes[i].value, spec)) {
        return ["wrong", "<strong>Not quite:</strong> " + spec.mistakes[i].feedback + TRY_AGAIN];
      }
    }
    if (spec.kind === "number" && read && roundsTo(read, answer)) {
      return ["wrong", "<strong>Nearly:</strong> that is the answer rounded; type it in " +
        "full, every digit." + TRY_AGAIN];
    }
    for (var j = 0; spec.kind === "number" && read && j < spec.mistakes.length; j++) {
      if (roundsTo(read, spec.mistakes[j].value)) {
        return ["wrong", "<strong>Not quite:</strong> " + spec.mistakes[j].feedback + TRY_AGAIN];
      }
    }
    if (spec.kind === "number") {
      return ["wrong", "<strong>Not quite:</strong> that is too " +
        (value > answer ? "high" : "low") + "." + TRY_AGAIN];
    }
    return ["wrong", "<strong>Not quite.</strong>" + TRY_AGAIN];
  }

  function say(region, markup) {
    // emptied first, so that the same message said twice is announced twice
    region.innerHTML = "";
    window.setTimeout(function () { region.innerHTML = markup; }, 50);
  }

  function setUp(box) {
    var spec = JSON.parse(box.getAttribute("data-check"));
    var form = box.querySelector(".course-check-form");
    var region = box.querySelector(".course-check-feedback");
    var details = box.querySelector(".course-check-answer");
    var field = form.querySelector("input[type=text]");
    form.hidden = false;
    box.classList.add("is-waiting");  // the worked answer waits for a first attempt
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var read = readAnswer(form, spec);
      box.classList.remove("is-right", "is-wrong");
      if (read.problem) {
        say(region, read.problem);
        return;
      }
      var verdict = judge(read.value, spec, read);
      box.classList.remove("is-waiting");
      box.classList.add("is-" + verdict[0]);
      if (field) field.setAttribute("aria-invalid", verdict[0] === "wrong" ? "true" : "false");
      say(region, verdict[1]);
      if (verdict[0] === "right") details.open = true;
    });
  }

  function start() {
    // A printed page shows every worked answer: print.js opens every <details> before
    // printing and closes again, afterwards, exactly those it opened.
    document.querySelectorAll(".course-check[data-check]").forEach(setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

/* The logits explorer of the page on turning logits into text.

   The page stores, for each model and prompt, the logits of the last position (float16,
   base64, in vocabulary order), the text of the tokens it may show, and the ids that
   gptcourse's sample_next_token drew, with a generator seeded as the page's draw() seeds
   it, for every setting of the controls (the draws were made when the page was built:
   PyTorch's generator cannot be replayed here). This script applies the same steps as
   sample_next_token, in the same order: divide by the temperature; keep the top_k largest
   (ties with the k-th kept too); keep the smallest set of most likely tokens whose
   probabilities reach top_p (measured after the temperature and top-k's cut); softmax
   over what is left. */
(function () {
  "use strict";

  /* IEEE 754 half precision, little-endian, to numbers. */
  function halves(base64) {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const view = new DataView(bytes.buffer);
    const out = new Float64Array(bytes.length / 2);
    for (let i = 0; i < out.length; i++) {
      const h = view.getUint16(2 * i, true);
      const sign = h & 0x8000 ? -1 : 1, exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
      if (exponent === 0) out[i] = sign * fraction * 2 ** -24;
      else if (exponent === 31) out[i] = fraction ? NaN : sign * Infinity;
      else out[i] = sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
    }
    return out;
  }

  /* Ids from the largest score down; equal scores in id order (a stable sort, as torch's). */
  function descending(logits) {
    const order = Array.from(logits.keys());
    order.sort((a, b) => (logits[b] - logits[a]) || (a - b));
    return order;
  }

  /* What sample_next_token would draw from: per id, its probability after the temperature
     alone (tempered) and after the cuts (final, 0 when cut). */
  function reshape(dist, temperature, topK, topP) {
    const {logits, order} = dist;
    const n = logits.length;
    const scaled = new Float64Array(n);
    for (let i = 0; i < n; i++) scaled[i] = logits[i] / temperature;
    const kept = new Uint8Array(n).fill(1);
    if (topK !== null) {
      const kth = scaled[order[Math.min(topK, n) - 1]];
      for (let i = 0; i < n; i++) if (scaled[i] < kth) kept[i] = 0;
    }
    const top = scaled[order[0]];
    const weight = new Float64Array(n);
    let all = 0;
    for (let i = 0; i < n; i++) { weight[i] = Math.exp(scaled[i] - top); all += weight[i]; }
    if (topP !== null) {
      let keptSum = 0;
      for (let i = 0; i < n; i++) if (kept[i]) keptSum += weight[i];
      let before = 0;
      for (const id of order) {
        if (!kept[id]) continue;
        if (before >= topP) kept[id] = 0;  // the ids above already reach top_p
        before += weight[id] / keptSum;
      }
    }
    let keptWeight = 0, keptCount = 0;
    for (let i = 0; i < n; i++) if (kept[i]) { keptWeight += weight[i]; keptCount++; }
    return {
      tempered: (i) => weight[i] / all,
      final: (i) => (kept[i] ? weight[i] / keptWeight : 0),
      kept: (i) => kept[i] === 1,
      keptCount,
      keptMass: keptWeight / all,
    };
  }

  /* A probability as a percentage with three significant digits; below a millionth of a
     percent in powers of ten (3.14e-9%). */
  function percent(p) {
    if (p === 0) return "0%";
    const value = 100 * p;
    if (value < 1e-6) return `${value.toExponential(2)}%`;
    const digits = value >= 10 ? 1 : value >= 1 ? 2 : 2 - Math.floor(Math.log10(value));
    return `${value.toFixed(digits)}%`;
  }
  const grouped = (n) => n.toLocaleString("en-US");
  const setting = (name, value) => (value === null ? `${name} off` : `${name} ${value}`);

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function build(root) {
    const data = JSON.parse(root.querySelector("script.explorer-data").textContent);
    const uid = root.id || "logits-explorer";
    const grid = data.grid;
    const dists = data.distributions.map((d) => {
      const logits = halves(d.logits);
      return {...d, logits, order: descending(logits)};
    });
    for (const child of [...root.children]) if (!child.matches("script")) child.remove();

    const form = element("form", {class: "widget-form", novalidate: ""});
    form.addEventListener("submit", (event) => event.preventDefault());
    const field = (labelText, control, extra) => {
      const row = element("div", {class: "widget-field" + (extra ? ` ${extra}` : "")});
      row.append(element("label", {for: control.id}, labelText), control);
      form.append(row);
      return row;
    };
    const which = element("select", {id: `${uid}-model`, name: "model"});
    dists.forEach((d, i) => which.append(element("option", {value: String(i)}, d.label)));
    field("Model and prompt", which, "widget-wide");

    const temperature = element("input", {
      id: `${uid}-temperature`, name: "temperature", type: "range", min: "0",
      max: String(grid.temperatures.length - 1), step: "1"});
    const temperatureRow = field("Temperature T", temperature);
    const temperatureShown = element("output", {for: temperature.id, class: "explorer-value",
                                                id: `${uid}-temperature-value`});
    temperatureRow.querySelector("label").append(" = ", temperatureShown);
    const range = element("div", {class: "explorer-range", "aria-hidden": "true"});
    range.append(element("span", {}, String(grid.temperatures[0])),
                 element("span", {}, String(grid.temperatures[grid.temperatures.length - 1])));
    temperatureRow.append(range);

    const choices = (name, values, id) => {
      const select = element("select", {id, name});
      values.forEach((v, i) => select.append(element("option", {value: String(i)},
                                                         v === null ? "off" : String(v))));
      return select;
    };
    const topK = choices("top_k", grid.top_ks, `${uid}-top-k`);
    field("Top-k", topK);
    const topP = choices("top_p", grid.top_ps, `${uid}-top-p`);
    field("Top-p", topP);
    root.append(form);

    const status = element("p", {class: "widget-status", role: "status", "aria-live": "polite",
                                 "aria-atomic": "true", id: `${uid}-status`});
    root.append(status);

    const table = element("table", {class: "table explorer-bars"});
    const caption = element("caption");
    table.append(caption);
    const headRow = element("tr");
    for (const [text, cls] of [["rank", "explorer-rank"], ["token", ""], ["at T", ""],
                               ["drawn with", ""], ["probability", "explorer-bar-cell"]]) {
      headRow.append(element("th", {scope: "col", class: cls}, text));
    }
    const head = element("thead");
    head.append(headRow);
    const body = element("tbody");
    table.append(head, body);
    const wrap = element("div", {class: "widget-table-wrap"});
    wrap.append(table);
    root.append(wrap);
    root.append(element("p", {class: "explorer-legend"},
      "Grey bar: the probability after the temperature; blue bar: the probability a draw " +
      "uses, after top-k and top-p have cut (a struck-through token is cut)."));

    const kept = element("p", {class: "explorer-kept"});
    root.append(kept);
    const drawsIntro = element("p", {class: "explorer-draws-intro"});
    const draws = element("ul", {class: "explorer-draws", "aria-label": "the draws"});
    root.append(drawsIntro, draws);

    let pending = null;
    function announce(text) {
      clearTimeout(pending);
      pending = setTimeout(() => { status.textContent = text; }, status.textContent ? 250 : 0);
    }

    function update() {
      const dist = dists[Number(which.value)];
      const ti = Number(temperature.value), ki = Number(topK.value), pi = Number(topP.value);
      const T = grid.temperatures[ti], k = grid.top_ks[ki], p = grid.top_ps[pi];
      temperatureShown.textContent = String(T);
      temperature.setAttribute("aria-valuetext", `T = ${T}`);
      const r = reshape(dist, T, k, p);
      root.dataset.keptCount = String(r.keptCount);
      root.dataset.keptMass = String(r.keptMass);
      root.dataset.setting = JSON.stringify({model: dist.name, temperature: T, top_k: k, top_p: p});

      caption.textContent = `The ${grid.shown} most likely next tokens after ` +
        `${dist.prompt}, of ${grouped(dist.logits.length)}`;
      body.textContent = "";
      dist.order.slice(0, grid.shown).forEach((id, rank) => {
        const before = r.tempered(id), after = r.final(id), isKept = r.kept(id);
        const row = element("tr", {"data-id": String(id), "data-kept": String(isKept),
                                   "data-p-tempered": String(before),
                                   "data-p-final": String(after)});
        row.append(element("td", {class: "explorer-number explorer-rank"}, String(rank + 1)));
        const token = element("td");
        token.append(element("span", {class: "explorer-token"}, dist.tokens[id]));
        if (!isKept) token.append(element("span", {class: "visually-hidden"}, " (cut)"));
        row.append(token);
        row.append(element("td", {class: "explorer-number"}, percent(before)));
        row.append(element("td", {class: "explorer-number"}, isKept ? percent(after) : "cut"));
        const barCell = element("td", {class: "explorer-bar-cell", "aria-hidden": "true"});
        const bar = element("div", {class: "explorer-bar"});
        const widthBefore = element("span", {class: "explorer-before"});
        widthBefore.style.width = `${(100 * before).toFixed(2)}%`;
        const widthAfter = element("span", {class: "explorer-after"});
        widthAfter.style.width = `${(100 * after).toFixed(2)}%`;
        bar.append(widthBefore, widthAfter);
        barCell.append(bar);
        row.append(barCell);
        body.append(row);
      });

      kept.textContent = `Kept: ${grouped(r.keptCount)} of ${grouped(dist.logits.length)} ` +
        `tokens, holding ${percent(r.keptMass)} of the probability at T = ${T}.`;
      const index = (ti * grid.top_ks.length + ki) * grid.top_ps.length + pi;
      const ids = dist.draws[index];
      draws.dataset.ids = JSON.stringify(ids);
      drawsIntro.textContent = `${ids.length} draws with a generator seeded ${grid.seed}, ` +
        "made by sample_next_token when the page was built:";
      draws.textContent = "";
      for (const id of ids) draws.append(element("li", {"data-id": String(id)}, dist.tokens[id]));

      const first = dist.order[0];
      announce(`${dist.label}; T = ${T}, ${setting("top-k", k)}, ${setting("top-p", p)}: ` +
        `${grouped(r.keptCount)} of ${grouped(dist.logits.length)} tokens kept. ` +
        `The most likely, ${dist.tokens[first]}, is drawn with probability ` +
        `${percent(r.final(first))}. Draws: ${ids.map((id) => dist.tokens[id]).join(", ")}.`);
    }

    for (const control of [which, temperature, topK, topP]) {
      control.addEventListener("input", update);
      control.addEventListener("change", update);
    }
    temperature.value = String(grid.temperatures.indexOf(1));
    update();
    root.dataset.ready = "true";
  }

  function start() {
    document.querySelectorAll('.course-widget[data-widget="logits-explorer"]').forEach(build);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

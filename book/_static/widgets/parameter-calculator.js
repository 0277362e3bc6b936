/* The parameter calculator of the counting page.

   A configuration in (vocab_size, emb_dim, n_layers, n_heads, context_length, qkv_bias,
   a tied output head), the parameters of each component of gptcourse's GPTModel out,
   with the total, its size in float32 and bfloat16 (MiB, 2**20 bytes) and the output
   head's share. The defaults and the four GPT-2 sizes are the page's data, written when
   the page was built from gptcourse (data-config). Counts are exact (BigInt).

   Per block: attention has query, key and value (emb_dim x emb_dim, biases only with
   qkv_bias) and an output projection with its bias; the feed-forward layer goes to
   4 x emb_dim and back, both with biases; two layer norms of a scale and a shift. */
(function () {
  "use strict";

  const FIELDS = [
    {key: "vocab_size", label: "Vocabulary size", hint: "vocab_size"},
    {key: "emb_dim", label: "Width", hint: "emb_dim"},
    {key: "n_layers", label: "Blocks", hint: "n_layers"},
    {key: "n_heads", label: "Attention heads", hint: "n_heads"},
    {key: "context_length", label: "Context length", hint: "context_length"},
  ];
  const LARGEST = 10 ** 9;  // per field: far beyond any model, small enough to stay exact
  const MIB = 1048576n;

  const grouped = (n) => BigInt(n).toLocaleString("en-US");

  /* count * bytes / 2**20 with two decimals, rounded half to even (as Python's format). */
  function mib(count, bytes) {
    const hundredths = count * BigInt(bytes) * 100n;
    let q = hundredths / MIB;
    const twice = 2n * (hundredths % MIB);
    if (twice > MIB || (twice === MIB && q % 2n === 1n)) q += 1n;
    return `${grouped(q / 100n)}.${(q % 100n).toString().padStart(2, "0")}`;
  }

  /* part / total as a percentage with two decimals, rounded half to even. */
  function percent(part, total) {
    const scaled = part * 10000n;
    let q = scaled / total;
    const twice = 2n * (scaled % total);
    if (twice > total || (twice === total && q % 2n === 1n)) q += 1n;
    return `${q / 100n}.${(q % 100n).toString().padStart(2, "0")}%`;
  }

  /* The counts of gptcourse's GPTModel(cfg), component by component. */
  function count(cfg) {
    const V = BigInt(cfg.vocab_size), d = BigInt(cfg.emb_dim), L = BigInt(cfg.n_layers);
    const C = BigInt(cfg.context_length);
    const attention = 4n * d * d + d + (cfg.qkv_bias ? 3n * d : 0n);
    const feedForward = (d * 4n * d + 4n * d) + (4n * d * d + d);
    const norms = 2n * (2n * d);
    const parts = {
      "token embedding": V * d,
      "position embedding": C * d,
      "attention": L * attention,
      "feed-forward": L * feedForward,
      "layer norms": L * norms,
      "final norm": 2n * d,
      "output head": cfg.tied ? 0n : d * V,
    };
    const total = Object.values(parts).reduce((a, b) => a + b, 0n);
    return {parts, perBlock: {attention, "feed-forward": feedForward, "layer norms": norms},
            total, untiedHead: d * V};
  }

  function formulas(cfg) {
    const d = grouped(cfg.emb_dim);
    return {
      "token embedding": `${grouped(cfg.vocab_size)} × ${d}`,
      "position embedding": `${grouped(cfg.context_length)} × ${d}`,
      "attention": `4 × ${d}² + ${d}` + (cfg.qkv_bias ? ` + 3 × ${d} (biases)` : ""),
      "feed-forward": `8 × ${d}² + 5 × ${d}`,
      "layer norms": `2 × 2 × ${d}`,
      "final norm": `2 × ${d}`,
      "output head": cfg.tied ? "the token embedding's matrix" : `${d} × ${grouped(cfg.vocab_size)}`,
    };
  }

  /* The configuration in the form, or [null, field, message] naming what is wrong. */
  function readForm(inputs, boxes) {
    const cfg = {};
    for (const field of FIELDS) {
      const raw = inputs[field.key].value.trim();
      if (!/^[0-9]+$/.test(raw) || Number(raw) < 1) {
        return [null, field.key, `${field.hint} must be a whole number of at least 1, ` +
                `not ${raw === "" ? "empty" : `“${raw}”`}.`];
      }
      if (Number(raw) > LARGEST) {
        return [null, field.key, `${field.hint} must be at most ${grouped(LARGEST)}.`];
      }
      cfg[field.key] = Number(raw);
    }
    if (cfg.emb_dim % cfg.n_heads !== 0) {
      return [null, "n_heads", `n_heads = ${cfg.n_heads} does not divide emb_dim = ` +
              `${cfg.emb_dim}: each head takes an equal share of the width.`];
    }
    cfg.qkv_bias = boxes.qkv_bias.checked;
    cfg.tied = boxes.tied.checked;
    return [cfg, null, null];
  }

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function build(root) {
    const data = JSON.parse(root.dataset.config);
    const uid = root.id || "parameter-calculator";
    root.textContent = "";

    const form = element("form", {class: "widget-form", novalidate: ""});
    form.addEventListener("submit", (event) => event.preventDefault());
    const presetRow = element("div", {class: "widget-field widget-wide"});
    const presetId = `${uid}-preset`;
    presetRow.append(element("label", {for: presetId}, "Start from"));
    const preset = element("select", {id: presetId});
    for (const name of Object.keys(data.presets)) preset.append(element("option", {value: name}, name));
    preset.append(element("option", {value: ""}, "your own configuration"));
    presetRow.append(preset);
    form.append(presetRow);

    const inputs = {};
    for (const field of FIELDS) {
      const row = element("div", {class: "widget-field"});
      const id = `${uid}-${field.key}`;
      const label = element("label", {for: id});
      label.append(`${field.label} `, element("code", {}, field.hint));
      const input = element("input", {id, name: field.key, type: "number", min: "1",
                                      step: "1", inputmode: "numeric", required: ""});
      inputs[field.key] = input;
      row.append(label, input);
      form.append(row);
    }
    const boxes = {};
    for (const [key, text, code] of [["qkv_bias", "Biases on query, key and value", "qkv_bias"],
                                     ["tied", "Output head tied to the token embedding", null]]) {
      const row = element("div", {class: "widget-field widget-check"});
      const id = `${uid}-${key}`;
      const box = element("input", {id, name: key, type: "checkbox"});
      const label = element("label", {for: id});
      label.append(text);
      if (code) label.append(" ", element("code", {}, code));
      boxes[key] = box;
      row.append(box, label);
      form.append(row);
    }
    root.append(form);

    const status = element("p", {class: "widget-status", role: "status", "aria-live": "polite",
                                 "aria-atomic": "true", id: `${uid}-status`});
    root.append(status);

    const table = element("table", {class: "table widget-table"});
    table.append(element("caption", {}, "Parameters of this configuration, by component"));
    const head = element("thead");
    const headRow = element("tr");
    const columns = ["component", "one block", "blocks", "parameters", "share"];
    for (const name of columns) headRow.append(element("th", {scope: "col"}, name));
    head.append(headRow);
    table.append(head);
    const body = element("tbody");
    const cells = {};
    const components = ["token embedding", "position embedding", "attention", "feed-forward",
                        "layer norms", "final norm", "output head", "total"];
    for (const name of components) {
      const row = element("tr", {"data-component": name});
      const nameCell = element("th", {scope: "row", "data-label": columns[0]});
      const title = element("span", {}, name);
      const formula = element("span", {class: "widget-formula"});
      nameCell.append(title, formula);
      const cellsOfRow = {formula};
      row.append(nameCell);
      for (const column of columns.slice(1)) {
        const cell = element("td", {"data-label": column, "data-column": column});
        cellsOfRow[column] = cell;
        row.append(cell);
      }
      cells[name] = cellsOfRow;
      body.append(row);
    }
    table.append(body);
    const wrap = element("div", {class: "widget-table-wrap"});
    wrap.append(table);
    root.append(wrap);

    const memory = element("dl", {class: "widget-memory"});
    const memoryValues = {};
    for (const [key, text] of [["float32", "float32 (4 bytes each)"],
                               ["bfloat16", "bfloat16 (2 bytes each)"],
                               ["head", "the output head's share"]]) {
      const value = element("dd", {"data-value-of": key});
      memory.append(element("dt", {}, text), value);
      memoryValues[key] = value;
    }
    root.append(memory);

    /* The summary, read out once typing pauses rather than at every keystroke. */
    let pending = null;
    function announce(text) {
      clearTimeout(pending);
      pending = setTimeout(() => { status.textContent = text; }, status.textContent ? 250 : 0);
    }

    function setForm(cfg) {
      for (const field of FIELDS) inputs[field.key].value = String(cfg[field.key]);
      boxes.qkv_bias.checked = Boolean(cfg.qkv_bias);
    }

    function matchingPreset(cfg) {
      for (const [name, p] of Object.entries(data.presets)) {
        if (FIELDS.every((f) => p[f.key] === cfg[f.key]) && p.qkv_bias === cfg.qkv_bias) return name;
      }
      return "";
    }

    function clear(message, key) {
      for (const field of FIELDS) {
        const bad = field.key === key;
        inputs[field.key].setAttribute("aria-invalid", bad ? "true" : "false");
        if (bad) inputs[field.key].setAttribute("aria-describedby", status.id);
        else inputs[field.key].removeAttribute("aria-describedby");
      }
      if (!message) return;
      root.dataset.state = "error";
      announce(message);
      for (const name of components) {
        for (const column of columns.slice(1)) {
          cells[name][column].textContent = "–";
          cells[name][column].removeAttribute("data-value");
        }
        cells[name].formula.textContent = "";
      }
      for (const value of Object.values(memoryValues)) {
        value.textContent = "–";
        value.removeAttribute("data-value");
      }
    }

    function update() {
      const [cfg, badKey, message] = readForm(inputs, boxes);
      if (!cfg) {
        clear(message, badKey);
        return;
      }
      clear(null, null);
      root.dataset.state = "ok";
      const counts = count(cfg);
      const shown = formulas(cfg);
      const perBlock = counts.perBlock;
      for (const name of components) {
        const row = cells[name];
        const value = name === "total" ? counts.total : counts.parts[name];
        row.formula.textContent = name === "total" ? "" : shown[name];
        row["one block"].textContent = name in perBlock ? grouped(perBlock[name]) : "";
        if (name in perBlock) row["one block"].dataset.value = perBlock[name].toString();
        else row["one block"].removeAttribute("data-value");
        row.blocks.textContent = name in perBlock ? `× ${grouped(cfg.n_layers)}` : "";
        row.parameters.textContent = grouped(value);
        row.parameters.dataset.value = value.toString();
        row.share.textContent = percent(value, counts.total);
      }
      const fp32 = mib(counts.total, 4), bf16 = mib(counts.total, 2);
      memoryValues.float32.textContent = `${fp32} MiB`;
      memoryValues.float32.dataset.value = fp32;
      memoryValues.bfloat16.textContent = `${bf16} MiB`;
      memoryValues.bfloat16.dataset.value = bf16;
      const head = counts.parts["output head"];
      const headShare = percent(cfg.tied ? counts.untiedHead : head,
                                cfg.tied ? counts.total + counts.untiedHead : counts.total);
      memoryValues.head.dataset.value = cfg.tied ? "0" : headShare;
      memoryValues.head.textContent = cfg.tied
        ? `none: tied, it is the token embedding (untied it would be ${headShare})`
        : headShare;
      announce(`${grouped(counts.total)} parameters: ${fp32} MiB in float32, ` +
        `${bf16} MiB in bfloat16; ` + (cfg.tied
          ? `the output head adds nothing, tied to the token embedding.`
          : `the output head holds ${headShare} of them.`));
      preset.value = matchingPreset(cfg);
    }

    preset.addEventListener("change", () => {
      if (preset.value) setForm(data.presets[preset.value]);
      update();
    });
    for (const input of [...Object.values(inputs), ...Object.values(boxes)]) {
      input.addEventListener("input", update);
      input.addEventListener("change", update);
    }
    setForm(data.defaults);
    boxes.tied.checked = false;
    update();
    root.dataset.ready = "true";
  }

  function start() {
    document.querySelectorAll('.course-widget[data-widget="parameter-calculator"]').forEach(build);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

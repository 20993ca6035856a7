"use strict";
// The play page. Every string from the world or the player is put in the page as text (textContent, text nodes,
// attribute values), never parsed as markup. The forms come from the world's tool declarations.
(() => {
  const TOKEN = JSON.parse(document.getElementById("play-token").textContent);
  let S = JSON.parse(document.getElementById("play-state").textContent);
  const app = document.getElementById("app");
  const MAX_PICKS = 500;  // values offered per picker
  const LONG_TEXT = /(content|text|reason|message|note|solution)/;
  const picks = new Map();  // "key" or "listKey.field" -> Set of values the world has shown
  let calls = 0, busy = false, shownAt = Date.now();

  // -- building blocks ----------------------------------------------------------------
  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "text") e.textContent = v;
      else if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, String(v));
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  }
  const svg = (tag, attrs) => {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  };
  const moneyUnit = key => (/_cents$/.test(key) ? "cents" : (S.money || {})[key] || null);
  const label = key => String(key).replace(/_cents$/, "").replace(/_/g, " ");
  // The metric is shown as it stands during play: "final funds" is the funds now until the run ends.
  const metricLabel = name => label(name || "metric").replace(/^final /, "");
  const flag = name => "--" + name.replace(/_/g, "-");
  const commandName = tool => tool.replace(/_/g, " ");
  function dollars(v, unit) {
    const d = unit === "cents" ? v / 100 : v;
    return (d < 0 ? "-$" : "$") + Math.abs(d).toLocaleString("en-US", {minimumFractionDigits: 2, maximumFractionDigits: 2});
  }
  function fmt(key, v) {
    if (v === null || v === undefined) return "—";
    if (typeof v === "number") {
      const unit = moneyUnit(key);
      if (unit) return dollars(v, unit);
      return Number.isInteger(v) ? v.toLocaleString("en-US") : v.toLocaleString("en-US", {maximumFractionDigits: 4});
    }
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v === "object" && Object.keys(v).length === 0) return "none";
    if (Array.isArray(v)) return v.map(x => (x !== null && typeof x === "object" ? "(" + fmt(key, x) + ")" : fmt(key, x))).join(", ");
    if (typeof v === "object") return Object.entries(v).map(([k, x]) => label(k) + ": " + fmt(k, x)).join("; ");
    return String(v);
  }
  const isRows = v => Array.isArray(v) && v.length > 0 && v.every(x => x !== null && typeof x === "object" && !Array.isArray(x));

  function table(rows) {
    const cols = [];
    for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k) && !twin(r, k)) cols.push(k);
    const t = el("table", {class: "rows"});
    t.append(el("thead", {}, el("tr", {}, ...cols.map(c => el("th", {text: label(c), title: c})))));
    const body = el("tbody");
    for (const r of rows.slice(0, 300)) {
      body.append(el("tr", {}, ...cols.map(c => el("td", {text: fmt(c, r[c]), class: typeof r[c] === "number" ? "num" : ""}))));
    }
    t.append(body);
    if (rows.length > 300) t.append(el("caption", {text: `the first 300 of ${rows.length} rows`}));
    return t;
  }
  // A field with a *_cents twin is shown once, as the exact cents (EcoGym's "money" beside "money_cents").
  const twin = (obj, k) => !/_cents$/.test(k) && Object.prototype.hasOwnProperty.call(obj, k + "_cents");
  function kv(obj) {
    const t = el("table", {class: "kv"});
    for (const [k, v] of Object.entries(obj)) {
      if (twin(obj, k)) continue;
      const cell = el("td", {class: typeof v === "number" ? "num" : ""});
      if (isRows(v)) cell.append(table(v));
      else if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 4) cell.append(kv(v));
      else cell.textContent = fmt(k, v);
      t.append(el("tr", {"data-key": k}, el("th", {text: label(k), title: k}), cell));
    }
    return t;
  }
  function block(v) {
    if (isRows(v)) return table(v);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return kv(v);
    return el("pre", {text: fmt("", v)});
  }
  function answerView(a) {
    const r = a.result || {};
    if (a.status !== 0 && r && typeof r === "object" && "error" in r) {
      return el("div", {class: "refused"}, el("strong", {text: String(r.error)}),
        r.hint ? el("div", {class: "hint", text: String(r.hint)}) : null);
    }
    if (r && typeof r === "object" && typeof r.help === "string") return el("pre", {text: r.help});
    return block(r);
  }

  // -- what the world has shown: the pickers --------------------------------------------
  function remember(key, v) {
    if ((typeof v !== "string" && typeof v !== "number") || String(v).length > 200) return;
    let set = picks.get(key);
    if (!set) picks.set(key, set = new Set());
    if (set.size < MAX_PICKS) set.add(String(v));
  }
  function harvest(v, listKey, depth) {
    if (depth > 8 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) { for (const x of v) harvest(x, listKey, depth + 1); return; }
    for (const [k, x] of Object.entries(v)) {
      if (x !== null && typeof x === "object") harvest(x, Array.isArray(x) ? k : listKey, depth + 1);
      else { remember(k, x); if (listKey) remember(listKey + "." + k, x); }
    }
  }
  function offered(param) {
    const out = new Set(picks.get(param) || []);
    const base = param.replace(/_(id|name)$/, "");
    const field = /_id$/.test(param) ? "id" : "name";
    for (const [key, set] of picks) {
      const dot = key.indexOf(".");
      if (dot > 0 && key.slice(dot + 1) === field && key.slice(0, dot).startsWith(base)) for (const x of set) out.add(x);
    }
    return [...out];
  }

  // -- forms from the declarations ---------------------------------------------------------
  function check(tool, form) {
    const fn = tool.function, props = fn.parameters.properties || {}, req = fn.parameters.required || [];
    const args = {};
    for (const [name, p] of Object.entries(props)) {
      const input = form.elements[name];
      const raw = input.type === "checkbox" ? (input.checked ? "true" : "") : input.value;
      const where = `${flag(name)} of '${commandName(fn.name)}'`;
      if (raw === "" || raw === undefined) {
        if (req.includes(name)) return [`${where} is required.`, null];
        continue;
      }
      let v = raw;
      if (p.type === "integer") {
        if (!/^\s*-?\d+\s*$/.test(raw)) return [`${where} expects an integer, got '${raw}'.`, null];
        v = Number(raw);
      } else if (p.type === "number") {
        v = Number(raw);
        if (raw.trim() === "" || !Number.isFinite(v)) return [`${where} expects a number, got '${raw}'.`, null];
      } else if (p.type === "boolean") {
        v = raw === "true";
      } else {
        const limit = p.maxLength !== undefined ? p.maxLength : S.max_call_chars;
        if (raw.length > limit) return [`${where} is ${raw.length} characters long; the limit is ${limit}.`, null];
        if (/_id$/.test(name)) {
          const known = offered(name);
          if (known.length && !known.includes(raw)) {
            return [`${where}: '${raw}' is not an id the world has shown; pick one it offered (${known.slice(0, 5).join(", ")}${known.length > 5 ? ", ..." : ""}).`, null];
          }
        }
      }
      if (p.enum && !p.enum.includes(v)) return [`${where} must be one of ${p.enum.join(", ")}; got '${raw}'.`, null];
      if (typeof v === "number" && p.minimum !== undefined && v < p.minimum) return [`${where} must be >= ${p.minimum}; got ${v}.`, null];
      if (typeof v === "number" && p.maximum !== undefined && v > p.maximum) return [`${where} must be <= ${p.maximum}; got ${v}.`, null];
      args[name] = v;
    }
    return [null, args];
  }

  function input(tool, name, p, required) {
    const id = `f-${tool.function.name}-${name}`;
    let field;
    if (p.enum) {
      field = el("select", {name, id});
      if (!required) field.append(el("option", {value: "", text: p.default !== undefined ? `(default ${p.default})` : "—"}));
      for (const c of p.enum) field.append(el("option", {value: String(c), text: String(c)}));
    } else if (p.type === "boolean") {
      field = el("input", {type: "checkbox", name, id});
    } else if (p.type === "string" && LONG_TEXT.test(name)) {
      field = el("textarea", {name, id, rows: 2});
    } else {
      field = el("input", {name, id, type: "text", autocomplete: "off", inputmode: p.type === "string" ? "text" : "decimal"});
      if (p.type === "string") field.setAttribute("list", `dl-${name}`);
      const hint = [];
      if (p.minimum !== undefined) hint.push(`≥ ${p.minimum}`);
      if (p.maximum !== undefined) hint.push(`≤ ${p.maximum}`);
      if (p.default !== undefined) hint.push(`default ${p.default}`);
      if (hint.length) field.setAttribute("placeholder", hint.join(", "));
    }
    return el("label", {for: id, title: p.description || ""}, el("span", {text: flag(name) + (required ? " *" : "")}), field);
  }

  function buildActions() {
    const box = el("section", {class: "panel actions"}, el("h2", {text: "Actions"}));
    const adv = S.tools.find(t => t.function.name === S.advance);
    if (adv) {
      box.append(el("button", {class: "advance", id: "advance", type: "button", title: adv.function.description + " (key: n)",
        text: commandName(adv.function.name) + "  »", onclick: () => send(adv.function.name, {})}));
    }
    const buttons = el("div", {class: "buttons"});
    const forms = el("div", {class: "forms"});
    for (const tool of S.tools) {
      const fn = tool.function;
      if (fn.name === S.advance) continue;
      const props = Object.entries(fn.parameters.properties || {});
      if (!props.length) {
        buttons.append(el("button", {type: "button", class: "cmd", "data-tool": fn.name, title: fn.description,
          text: commandName(fn.name), onclick: () => send(fn.name, {})}));
        continue;
      }
      const form = el("form", {class: "cmd", "data-tool": fn.name, novalidate: ""});
      const req = fn.parameters.required || [];
      form.append(el("div", {class: "head"}, el("strong", {text: commandName(fn.name)}),
        el("span", {class: "help", text: fn.description})));
      const fields = el("div", {class: "fields"});
      for (const [name, p] of props) fields.append(input(tool, name, p, req.includes(name)));
      fields.append(el("button", {type: "submit", text: "run"}));
      form.append(fields, el("div", {class: "formerror", role: "alert"}));
      form.addEventListener("submit", ev => {
        ev.preventDefault();
        const [err, args] = check(tool, form);
        form.querySelector(".formerror").textContent = err || "";
        if (!err) send(fn.name, args);
      });
      form.addEventListener("keydown", ev => {
        if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey) && ev.target.tagName === "TEXTAREA") {
          ev.preventDefault();
          form.requestSubmit();
        }
      });
      forms.append(form);
    }
    box.append(buttons, forms);
    return box;
  }

  // -- the dynamic panels --------------------------------------------------------------------
  function chart(history, name) {
    const w = 460, h = 130, pad = 6;
    const box = svg("svg", {viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img"});
    const vals = history.map(p => p[1]).filter(v => typeof v === "number");
    if (vals.length < 1) return box;
    let lo = Math.min(...vals), hi = Math.max(...vals);
    if (hi === lo) { hi += 1; lo -= 1; }
    const x = i => pad + (history.length > 1 ? i * (w - 2 * pad) / (history.length - 1) : (w - 2 * pad) / 2);
    const y = v => h - pad - (v - lo) * (h - 2 * pad) / (hi - lo);
    box.append(svg("polyline", {points: history.map((p, i) => `${x(i)},${y(p[1])}`).join(" "), fill: "none", stroke: "#2a6f97", "stroke-width": 2}));
    const last = history.length - 1;
    box.append(svg("circle", {cx: x(last), cy: y(history[last][1]), r: 3.5, fill: "#2a6f97"}));
    const tip = svg("title", {});
    tip.textContent = `${label(name)}: ${fmt(name, lo)} to ${fmt(name, hi)} over ${history.length} points`;
    box.append(tip);
    return box;
  }

  function header() {
    const c = S.clock;
    const t = S.time || {};
    const bar = el("div", {class: "progress"}, el("i", {style: `width:${(100 * c.progress).toFixed(1)}%`}));
    const time = el("span", {id: "wall"});
    const metric = S.metric || {};
    return el("header", {},
      el("div", {class: "title"}, el("strong", {text: S.benchmark_id}),
        el("span", {text: ` preset ${S.preset} · seed ${S.seed} · player ${S.player}`})),
      el("div", {class: "clock"}, el("span", {id: "now", text: c.now.replace("T", " ")}),
        el("span", {text: " of " + c.horizon.replace("T", " ")}), bar),
      el("div", {class: "metric"}, el("span", {text: metricLabel(metric.name) + " "}),
        el("strong", {id: "metric", text: fmt(metric.name || "", metric.value)})),
      el("div", {class: "timer"}, time));
  }

  function tick() {
    const t = S.time || {}, w = document.getElementById("wall");
    if (!w) return;
    const s = (t.elapsed_s || 0) + (S.done ? 0 : (Date.now() - shownAt) / 1000);
    const mmss = x => `${Math.floor(x / 60)}:${String(Math.floor(x % 60)).padStart(2, "0")}`;
    w.textContent = t.limit_s ? `time ${mmss(s)} of ${mmss(t.limit_s)}` : `time ${mmss(s)}`;
    if (t.limit_s && s >= t.limit_s && !S.done && !busy) refresh();
  }

  function notesPanel() {
    const box = el("section", {class: "panel notes"}, el("h2", {text: "Notes"}));
    if (S.notes.world !== null) {
      box.append(el("div", {class: "sub", text: "The world's scratchpad (its scratchpad commands change it):"}),
        el("pre", {class: "scratchpad", id: "scratchpad", text: S.notes.world || "(empty)"}));
    }
    const area = el("textarea", {id: "mynotes", rows: 4, placeholder: "Your own notes, kept in the run (not shown to the world)"});
    area.value = S.notes.mine;
    const status = el("span", {class: "sub", id: "notes-status"});
    box.append(area, el("div", {}, el("button", {type: "button", id: "save-notes", text: "save notes", onclick: async () => {
      status.textContent = "";
      const r = await post("/notes", {notes: area.value});
      status.textContent = r.error ? r.error : "saved";
    }}), status));
    return box;
  }

  function statePanel() {
    const box = el("section", {class: "panel state", id: "state"}, el("h2", {text: "The world now"}));
    if (S.done) {
      box.append(el("div", {class: "ended", id: "ended",
        text: `The episode has ended (${S.status === "running" ? "stopped" : S.status}${S.ended ? ": " + S.ended : ""}). ` +
          `The run is in ${S.run_dir}.`}));
    }
    box.append(kv(S.observation));
    const m = S.metric || {};
    box.append(el("h3", {text: `${metricLabel(m.name)} over time`}), chart(m.history || [], m.name || ""));
    return box;
  }

  function answersPanel(last) {
    const box = el("section", {class: "panel answers", id: "answers"}, el("h2", {text: "Answers"}));
    const lastBox = el("div", {class: "last", id: "last"});
    if (last) lastBox.append(el("h3", {text: `${last.command || "?"} (${last.status === 0 ? "ran" : last.status === 1 ? "refused by the world" : "not run"})`}), answerView(last));
    box.append(lastBox);
    for (const [name, a] of Object.entries(S.answers || {}).reverse()) {
      if (last && name === last.command) continue;
      const again = el("button", {type: "button", class: "again", title: "run it again (recorded like any command)",
        text: "again", onclick: ev => { ev.preventDefault(); send(a.tool, a.arguments || {}); }});
      again.disabled = S.done || busy;
      const d = el("details", {"data-command": name},
        el("summary", {}, el("span", {text: `${name} · ${String(a.at).replace("T", " ")} `}), again), answerView(a));
      if (isRows(Object.values(a.result || {}).find(isRows)) || a.status !== 0) d.open = true;
      box.append(d);
    }
    return box;
  }

  function logPanel() {
    const box = el("section", {class: "panel log"}, el("h2", {text: "What you did"}));
    const ol = el("ol", {id: "log"});
    for (const e of S.log || []) {
      ol.append(el("li", {class: e.status === 0 ? "" : "bad", text: `${String(e.at).replace("T", " ")}  ${e.command}${e.status === 0 ? "" : "  ✗ " + (e.result && e.result.error ? e.result.error : "")}`}));
    }
    box.append(ol);
    return box;
  }

  let lastAnswer = null;
  const layout = {};
  function draw() {
    for (const a of Object.values(S.answers || {})) harvest(a.result, "", 0);
    if (!layout.actions) {
      layout.header = el("div", {id: "header"});
      layout.left = el("div", {class: "col left"});
      layout.actions = buildActions();
      layout.notes = notesPanel();
      layout.right = el("div", {class: "col right"});
      app.append(layout.header, el("main", {}, layout.left, el("div", {class: "col mid"}, layout.actions, layout.notes), layout.right));
    }
    layout.header.replaceChildren(header());
    layout.left.replaceChildren(statePanel(), logPanel());
    layout.right.replaceChildren(answersPanel(lastAnswer));
    const scratch = document.getElementById("scratchpad");
    if (scratch) scratch.textContent = S.notes.world || "(empty)";
    const lists = document.getElementById("lists") || app.appendChild(el("div", {id: "lists"}));
    lists.replaceChildren(...[...new Set(S.tools.flatMap(t => Object.keys(t.function.parameters.properties || {})))]
      .map(name => el("datalist", {id: `dl-${name}`}, ...offered(name).map(v => el("option", {value: v})))));
    for (const b of app.querySelectorAll(".actions button, .actions input, .actions select, .actions textarea")) b.disabled = S.done || busy;
    tick();
    document.body.dataset.calls = String(calls);
    document.body.dataset.done = S.done ? "1" : "0";
    document.body.dataset.ready = "1";
  }

  // -- talking to the server ----------------------------------------------------------------------
  async function post(path, body) {
    try {
      const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json", "X-Bizsim-Token": TOKEN},
        body: JSON.stringify(body)});
      return await r.json();
    } catch (e) {
      return {error: `the play server did not answer (${e.message}); bizsim play --resume DIR continues the run`};
    }
  }
  async function send(tool, args) {
    if (busy || S.done) return;
    const t0 = performance.now();
    busy = true;
    const r = await post("/call", {tool, arguments: args});
    busy = false;
    calls += 1;
    if (r.state) { S = r.state; shownAt = Date.now(); }
    lastAnswer = r.answer ? {command: r.answer.command || commandName(tool), status: r.answer.status, result: r.answer.result}
      : {command: commandName(tool), status: 2, result: {error: r.error || "no answer"}};
    draw();
    document.body.dataset.lastMs = (performance.now() - t0).toFixed(2);  // click to updated page (benchmarks)
    requestAnimationFrame(() => setTimeout(() => { document.body.dataset.paintMs = (performance.now() - t0).toFixed(2); }, 0));
  }
  async function refresh() {
    busy = true;
    try {
      const r = await fetch("/state", {headers: {"X-Bizsim-Token": TOKEN}});
      if (r.ok) { S = await r.json(); shownAt = Date.now(); }
    } catch (e) { /* the server is gone: the page keeps what it showed */ }
    busy = false;
    draw();
  }

  document.addEventListener("keydown", ev => {
    const tag = (ev.target && ev.target.tagName) || "";
    if (ev.key === "Escape" && ["INPUT", "TEXTAREA", "SELECT"].includes(tag)) { ev.target.blur(); return; }
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "n") { ev.preventDefault(); send(S.advance, {}); }
  });
  setInterval(tick, 1000);
  draw();
})();

"use strict";
// The play page. Every string from the world or the player is put in the page as text (textContent, text nodes,
// attribute values), never parsed as markup. The forms come from the world's command declarations (S.commands);
// which fields hold money comes from the server (S.units: bizsim.simcore.money's rule, the shell's), never from here.
(() => {
  const TOKEN = JSON.parse(document.getElementById("play-token").textContent);
  let S = JSON.parse(document.getElementById("play-state").textContent);
  const app = document.getElementById("app");
  const MAX_PICKS = 500;  // values offered per picker
  const MAX_ROWS = 300;  // rows of one answer's table drawn (the run keeps them all)
  const LONG_TEXT = /(content|text|reason|message|note|solution)/;
  const ISO = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.\d+)?)?$/;
  // An amount typed in dollars: sign, "$", thousands commas, at most two decimals (read as digits, never a float).
  const AMOUNT = /^\s*(-)?\s*\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{0,2}))?\s*$/;
  const picks = new Map();  // "key" or "listKey.field" -> Set of values the world has shown
  let calls = 0, busy = false, shownAt = Date.now();

  // -- building blocks ----------------------------------------------------------------
  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === null || v === undefined) continue;
      if (k === "text") e.textContent = v;
      else if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, String(v));
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  }
  const svg = (tag, attrs, text) => {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const moneyUnit = key => (S.units || {})[key] || null;
  const label = key => String(key).replace(/_cents$/, "").replace(/_/g, " ");
  // The metric is shown as it stands during play: "final funds" is the funds now until the run ends.
  const metricLabel = name => label(name || "metric").replace(/^final /, "");
  const commandName = tool => tool.replace(/_/g, " ");
  const grouped = digits => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  function dollars(v, unit) {
    if (unit === "cents" && Number.isInteger(v)) {  // whole cents, written from their digits: no float rounding
      const c = String(Math.abs(v)).padStart(3, "0");
      return (v < 0 ? "-$" : "$") + grouped(c.slice(0, -2)) + "." + c.slice(-2);
    }
    return (v < 0 ? "-$" : "$") + Math.abs(v).toLocaleString("en-US", {minimumFractionDigits: 2, maximumFractionDigits: 2});
  }
  // A number for a person: whole numbers as they are, others to about four significant digits (the exact value
  // is in the cell's title).
  function readable(v) {
    if (Number.isInteger(v)) return v.toLocaleString("en-US");
    const a = Math.abs(v);
    const digits = a >= 1000 ? 1 : a >= 100 ? 2 : a >= 1 ? 3 : 4;
    return v.toLocaleString("en-US", {maximumFractionDigits: digits});
  }
  // A simulated instant for a person: "2025-01-22 09:42" (a day-based world's midnight: the date alone).
  function when(iso) {
    const m = ISO.exec(String(iso));
    if (!m) return String(iso);
    return m[4] === "00" && m[5] === "00" && (m[6] || "00") === "00" ? `${m[1]}-${m[2]}-${m[3]}` : `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}`;
  }
  function weekday(iso) {
    const m = ISO.exec(String(iso));
    return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).toLocaleDateString("en-US", {weekday: "long", timeZone: "UTC"}) : "";
  }
  function fmt(key, v) {
    if (v === null || v === undefined) return "—";
    if (typeof v === "number") {
      const unit = moneyUnit(key);
      return unit ? dollars(v, unit) : readable(v);
    }
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v === "string") return ISO.test(v) ? when(v) : v;
    if (Array.isArray(v)) {
      // A short listing inside a cell (a task's requirements): its values, a row at a time, as the shell writes it.
      if (isRows(v)) return v.map(r => Object.entries(r).filter(([k]) => !twin(r, k)).map(([k, x]) => fmt(k, x)).join(" ")).join("; ");
      return v.length ? v.map(x => fmt(key, x)).join(", ") : "none";
    }
    if (Object.keys(v).length === 0) return "none";
    // A money field holding a mapping holds amounts by name (prices by product): its unit is its values'.
    const unit = moneyUnit(key);
    return Object.entries(v).map(([k, x]) => label(k) + ": " + (unit && typeof x === "number" ? dollars(x, unit) : fmt(k, x))).join("; ");
  }
  const exact = v => (typeof v === "number" && !Number.isInteger(v)) ? String(v) : (typeof v === "string" && ISO.test(v) ? `${weekday(v)} ${v}` : null);
  const isRows = v => Array.isArray(v) && v.length > 0 && v.every(x => x !== null && typeof x === "object" && !Array.isArray(x));
  // A field with a *_cents twin is shown once, as the exact cents (EcoGym's "money" beside "money_cents").
  const twin = (obj, k) => !/_cents$/.test(k) && Object.prototype.hasOwnProperty.call(obj, k + "_cents");

  function cell(tag, key, v) {
    const text = fmt(key, v);
    // A long unbroken token (a UUID) may break anywhere; other text breaks at spaces only, so a column is never
    // narrower than its longest word and the table scrolls sideways instead.
    const c = el(tag, {text, class: typeof v === "number" ? "num" : /\S{19,}/.test(text) ? "long" : /\s/.test(text) ? "" : "word"});
    // A snake_case word (data_environment) may break after its underscores: <wbr> elements, so copied text is
    // unchanged.
    if (typeof v !== "number" && /\w_\w/.test(text) && text.length > 12) {
      c.replaceChildren(...text.split(/(?<=_)/).flatMap((part, i) => (i ? [el("wbr"), part] : [part])));
    }
    const full = exact(v);
    if (full) c.title = full;
    return c;
  }
  // A listing: every column, headers wrapping, the table scrolling sideways inside its own box when it is wider.
  function table(rows) {
    const cols = [];
    for (const r of rows.slice(0, MAX_ROWS)) for (const k of Object.keys(r)) if (!cols.includes(k) && !twin(r, k)) cols.push(k);
    const t = el("table", {class: "rows"});
    t.append(el("thead", {}, el("tr", {}, ...cols.map(c => el("th", {text: label(c), title: c, scope: "col"})))));
    const body = el("tbody");
    for (const r of rows.slice(0, MAX_ROWS)) body.append(el("tr", {}, ...cols.map(c => cell("td", c, r[c]))));
    t.append(body);
    const box = el("div", {class: "tablewrap", tabindex: 0}, t);
    if (rows.length > MAX_ROWS) box.append(el("div", {class: "sub", text: `the first ${MAX_ROWS} of ${rows.length} rows`}));
    return box;
  }
  function kv(obj) {
    const t = el("tbody");
    for (const [k, v] of Object.entries(obj)) {
      if (twin(obj, k)) continue;
      let td, wide = true;
      if (isRows(v)) td = el("td", {}, table(v));
      else if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 4 && !moneyUnit(k)) td = el("td", {}, kv(v));
      else { td = cell("td", k, v); wide = false; }
      // A listing or a nested record takes the panel's whole width, under its name.
      t.append(el("tr", {"data-key": k, class: wide ? "wide" : null}, el("th", {text: label(k), title: k}), td));
    }
    return el("table", {class: "kv"}, t);
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
  // The label of a field: its flag, or for money the amount's name and "$" (typed in dollars whatever it sends).
  const fieldLabel = p => (p.unit ? label(p.name) + " ($)" : p.flag) + (p.required ? " *" : "");
  // A value typed for one field, as the command takes it; [error, value].
  function parse(p, raw, where) {
    if (p.unit) {
      const m = AMOUNT.exec(raw);
      if (!m || m[2].replace(/,/g, "").length > 15) return [`${where} expects an amount in dollars such as 12.50, got '${raw}'.`];
      if (p.type === "integer" && p.unit === "cents") {
        // Exact whole cents from the digits typed: "0.29" is 29, never the 28.999... of 0.29 * 100.
        const cents = Number(m[2].replace(/,/g, "")) * 100 + Number((m[3] || "").padEnd(2, "0"));
        if (!Number.isSafeInteger(cents)) return [`${where}: '${raw}' is too large.`];
        return [null, m[1] ? -cents : cents];
      }
      if (p.type === "number") return [null, Number((m[1] || "") + m[2].replace(/,/g, "") + "." + (m[3] || "0"))];
    }
    if (p.type === "integer") {
      if (!/^\s*-?\d+\s*$/.test(raw)) return [`${where} expects an integer, got '${raw}'.`];
      return [null, Number(raw)];
    }
    if (p.type === "number") {
      const v = Number(raw);
      if (raw.trim() === "" || !Number.isFinite(v)) return [`${where} expects a number, got '${raw}'.`];
      return [null, v];
    }
    if (p.type === "boolean") return [null, raw === "true"];
    const limit = p.maxLength !== undefined ? p.maxLength : S.max_call_chars;
    if (raw.length > limit) return [`${where} is ${raw.length} characters long; the limit is ${limit}.`];
    if (/_id$/.test(p.name)) {
      const known = offered(p.name);
      if (known.length && !known.includes(raw)) {
        return [`${where}: '${raw}' is not an id the world has shown; pick one it offered (${known.slice(0, 5).join(", ")}${known.length > 5 ? ", ..." : ""}).`];
      }
    }
    return [null, raw];
  }
  // The rows of a JSON-list argument (an order's line items), read from its row inputs into the JSON text.
  function rowsText(form, p, where) {
    const items = [];
    for (const tr of form.querySelectorAll(`tr[data-rows="${p.name}"]`)) {
      const item = {};
      let empty = true;
      for (const f of p.rows) {
        const raw = tr.querySelector(`[data-field="${f.name}"]`).value.trim();
        if (raw !== "") empty = false;
        item[f.name] = raw;
      }
      if (empty) continue;
      for (const f of p.rows) {
        const raw = item[f.name], w = `${where}, ${f.name} of row ${items.length + 1}`;
        if (raw === "") return [`${w} is required.`];
        if (f.type === "integer") {
          if (!/^-?\d+$/.test(raw)) return [`${w} expects a whole number, got '${raw}'.`];
          item[f.name] = Number(raw);
          if (f.minimum !== null && item[f.name] < f.minimum) return [`${w} must be >= ${f.minimum}; got ${raw}.`];
        } else if (f.type === "number") {
          item[f.name] = Number(raw);
          if (!Number.isFinite(item[f.name])) return [`${w} expects a number, got '${raw}'.`];
        }
      }
      items.push(item);
    }
    if (!items.length) return [null, ""];
    return [null, JSON.stringify(items)];
  }
  function check(cmd, form) {
    const args = {};
    for (const p of cmd.params) {
      const where = `${p.flag} of '${cmd.command}'`;
      let raw;
      if (p.rows) {
        const [err, text] = rowsText(form, p, where);
        if (err) return [err, null];
        raw = text;
      } else {
        const input = form.elements[p.name];
        raw = input.type === "checkbox" ? (input.checked ? "true" : "") : input.value;
      }
      if (raw === "" || raw === undefined) {
        if (p.required) return [`${where} is required.`, null];
        continue;
      }
      const [err, v] = p.rows ? [null, raw] : parse(p, raw, where);
      if (err) return [err, null];
      if (p.enum && !p.enum.includes(v)) return [`${where} must be one of ${p.enum.join(", ")}; got '${raw}'.`, null];
      const shown = x => (p.unit ? dollars(x, p.unit) : x);
      if (typeof v === "number" && p.minimum !== undefined && v < p.minimum) return [`${where} must be >= ${shown(p.minimum)}; got ${shown(v)}.`, null];
      if (typeof v === "number" && p.maximum !== undefined && v > p.maximum) return [`${where} must be <= ${shown(p.maximum)}; got ${shown(v)}.`, null];
      args[p.name] = v;
    }
    return [null, args];
  }

  function rowsField(cmd, p) {
    const body = el("tbody");
    const addRow = () => {
      body.append(el("tr", {"data-rows": p.name}, ...p.rows.map(f => el("td", {}, el("input", {
        type: "text", autocomplete: "off", "data-field": f.name, "aria-label": f.name, title: f.help,
        id: `f-${cmd.tool}-${p.name}-${f.name}-${body.children.length}`, class: f.type === "string" ? "wide" : "narrow",
        inputmode: f.type === "string" ? "text" : "numeric", list: f.type === "string" ? `dl-${f.name}` : null,
        placeholder: f.minimum !== null ? `≥ ${f.minimum}` : f.help.slice(0, 40)})))));
      more.hidden = p.max_rows !== null && body.children.length >= p.max_rows;
    };
    const more = el("button", {type: "button", class: "addrow", text: "+ row", onclick: addRow});
    const t = el("table", {class: "rowsform", id: `f-${cmd.tool}-${p.name}`},
      el("thead", {}, el("tr", {}, ...p.rows.map(f => el("th", {text: f.name + (f.minimum !== null ? ` (≥ ${f.minimum})` : ""), title: f.help})))), body);
    addRow();
    return el("div", {class: "rowsfield", title: p.description || ""}, el("span", {text: p.flag + (p.required ? " *" : "")}), t, more);
  }

  function input(cmd, p) {
    const id = `f-${cmd.tool}-${p.name}`;
    if (p.rows) return rowsField(cmd, p);
    let field;
    if (p.enum) {
      field = el("select", {name: p.name, id});
      if (!p.required) field.append(el("option", {value: "", text: p.default !== undefined ? `(default ${p.default})` : "—"}));
      for (const c of p.enum) field.append(el("option", {value: String(c), text: String(c)}));
    } else if (p.type === "boolean") {
      field = el("input", {type: "checkbox", name: p.name, id});
    } else if (p.type === "string" && LONG_TEXT.test(p.name)) {
      field = el("textarea", {name: p.name, id, rows: 2});
    } else {
      field = el("input", {name: p.name, id, type: "text", autocomplete: "off", inputmode: p.type === "string" ? "text" : "decimal"});
      if (p.type === "string") field.setAttribute("list", `dl-${p.name}`);
      const hint = [];
      const shown = x => (p.unit ? dollars(x, p.unit) : x);
      if (p.unit) hint.push("dollars, e.g. 12.50");
      if (p.minimum !== undefined) hint.push(`≥ ${shown(p.minimum)}`);
      if (p.maximum !== undefined) hint.push(`≤ ${shown(p.maximum)}`);
      if (p.default !== undefined) hint.push(`default ${shown(p.default)}`);
      if (hint.length) field.setAttribute("placeholder", hint.join(", "));
    }
    const title = (p.description || "") + (p.unit === "cents" ? " (typed in dollars, sent as exact cents)" : "");
    return el("label", {for: id, title}, el("span", {text: fieldLabel(p)}), field);
  }

  function buildActions() {
    const box = el("section", {class: "panel actions"}, el("h2", {text: "Actions"}));
    const adv = S.commands.find(c => c.tool === S.advance);
    if (adv) {
      box.append(el("button", {class: "advance", id: "advance", type: "button", title: adv.help + " (key: n)",
        text: adv.command + "  »", onclick: () => send(adv.tool, {})}));
    }
    const buttons = el("div", {class: "buttons"});
    const forms = el("div", {class: "forms"});
    for (const cmd of S.commands) {
      if (cmd.tool === S.advance) continue;
      if (!cmd.params.length) {
        buttons.append(el("button", {type: "button", class: "cmd", "data-tool": cmd.tool, title: cmd.help,
          text: cmd.command, onclick: () => send(cmd.tool, {})}));
        continue;
      }
      const form = el("form", {class: "cmd", "data-tool": cmd.tool, novalidate: ""});
      form.append(el("div", {class: "head"}, el("strong", {text: cmd.command}), el("span", {class: "help", text: cmd.help})));
      const fields = el("div", {class: "fields"});
      for (const p of cmd.params) fields.append(input(cmd, p));
      fields.append(el("button", {type: "submit", text: "run"}));
      form.append(fields, el("div", {class: "formerror", role: "alert"}));
      form.addEventListener("submit", ev => {
        ev.preventDefault();
        const [err, args] = check(cmd, form);
        form.querySelector(".formerror").textContent = err || "";
        if (!err) send(cmd.tool, args);
      });
      form.addEventListener("keydown", ev => {
        if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey) && ev.target.tagName === "TEXTAREA") {
          ev.preventDefault();
          form.requestSubmit();
        }
      });
      forms.append(form);
    }
    box.append(buttons, el("div", {class: "notnow", id: "notnow"}), forms);
    return box;
  }
  // Forms only for commands that can run now: those the world's state refuses (the day's actions spent, the
  // episode over) are hidden and named in one line.
  function showRunnable() {
    const off = [];
    for (const cmd of S.commands) {
      const runs = cmd.runs && !S.done;
      for (const e of app.querySelectorAll(`.actions [data-tool="${cmd.tool}"]`)) e.hidden = !runs;
      if (cmd.tool === S.advance) { const a = document.getElementById("advance"); if (a) a.hidden = !runs; }
      if (!runs) off.push(cmd.command);
    }
    const note = document.getElementById("notnow");
    const adv = S.commands.find(c => c.tool === S.advance);
    note.textContent = S.done ? "The episode has ended: no command runs." :
      off.length ? `Not now (the world takes them again after ${adv ? adv.command : "the next advance"}): ${off.join(", ")}.` : "";
    note.hidden = !note.textContent;
  }

  // -- the dynamic panels --------------------------------------------------------------------
  // The metric over time, with its axes: the range of values (in dollars for money) and the first and last dates.
  // An axis label: money in dollars and every figure in at most about six characters ($166.8k, 1.2M, 0.368).
  function short(name, v) {
    const unit = moneyUnit(name);
    let x = unit === "cents" ? v / 100 : v;
    const a = Math.abs(x);
    const [d, s] = a >= 1e9 ? [x / 1e9, "B"] : a >= 1e6 ? [x / 1e6, "M"] : a >= 1e4 ? [x / 1e3, "k"] : [x, ""];
    const text = Math.abs(d).toLocaleString("en-US", {maximumFractionDigits: s ? 1 : (a >= 100 ? 0 : a >= 1 ? 2 : 3)}) + s;
    return (d < 0 ? "-" : "") + (unit ? "$" : "") + text;
  }
  function chart(history, name) {
    const w = 300, h = 150, left = 62, right = 8, top = 8, bottom = 22;
    const box = svg("svg", {viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img", id: "chart"});
    const pts = history.filter(p => typeof p[1] === "number");
    if (!pts.length) return box;
    const vals = pts.map(p => p[1]);
    let lo = Math.min(...vals), hi = Math.max(...vals);
    if (hi === lo) { const d = Math.abs(hi) > 0 ? Math.abs(hi) * 0.05 : 1; hi += d; lo -= d; }
    const n = pts.length;
    const x = i => left + (n > 1 ? i * (w - left - right) / (n - 1) : (w - left - right) / 2);
    const y = v => h - bottom - (v - lo) * (h - top - bottom) / (hi - lo);
    const axis = svg("g", {class: "axis"});
    axis.append(svg("line", {x1: left, y1: top, x2: left, y2: h - bottom}), svg("line", {x1: left, y1: h - bottom, x2: w - right, y2: h - bottom}));
    for (const v of [lo, (lo + hi) / 2, hi]) {
      const text = short(name, v);
      axis.append(svg("line", {x1: left - 3, y1: y(v), x2: w - right, y2: y(v), class: "grid"}),
        svg("text", {x: left - 5, y: y(v) + 3, "text-anchor": "end", class: "ytick"}, text));
    }
    axis.append(svg("text", {x: left, y: h - 6, "text-anchor": "start", class: "xtick"}, when(pts[0][0])),
      svg("text", {x: w - right, y: h - 6, "text-anchor": "end", class: "xtick"}, when(pts[n - 1][0])));
    box.append(axis);
    box.append(svg("polyline", {points: pts.map((p, i) => `${x(i)},${y(p[1])}`).join(" "), fill: "none", stroke: "#2a6f97", "stroke-width": 2}));
    box.append(svg("circle", {cx: x(n - 1), cy: y(pts[n - 1][1]), r: 3.5, fill: "#2a6f97"}));
    box.append(svg("title", {}, `${label(name)}: ${fmt(name, lo)} to ${fmt(name, hi)}, ${n} points from ${when(pts[0][0])} to ${when(pts[n - 1][0])}`));
    return box;
  }

  function header() {
    const c = S.clock;
    const bar = el("div", {class: "progress", title: `${(100 * c.progress).toFixed(1)} % of the horizon`},
      el("i", {style: `width:${(100 * c.progress).toFixed(1)}%`}));
    const metric = S.metric || {};
    const value = el("strong", {id: "metric", text: fmt(metric.name || "", metric.value)});
    if (typeof metric.value === "number") value.title = String(metric.value);
    return el("header", {},
      el("div", {class: "title"}, el("strong", {text: S.arena ? `${S.arena.world} · seat ${S.arena.seat}` : S.benchmark_id}),
        el("span", {class: "who"}, el("span", {text: "played by "}), el("strong", {id: "player", text: S.player})),
        el("span", {class: "sub", text: `preset ${S.preset} · seed ${S.seed}`})),
      el("div", {class: "clock"}, el("span", {id: "now", "data-iso": c.now, title: `${weekday(c.now)} ${c.now}`, text: when(c.now)}),
        el("span", {text: " of " + when(c.horizon)}), bar),
      el("div", {class: "metric"}, el("span", {text: metricLabel(metric.name) + " "}), value),
      el("div", {class: "timer"}, el("span", {id: "wall"})));
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

  // An arena: which seat you play, who plays the others, whose turn it is; the standings once it is over (a rival's
  // figures are private until then).
  function arenaPanel() {
    const A = S.arena;
    const box = el("section", {class: "panel arena", id: "arena"}, el("h2", {text: `Arena: ${A.world}`}));
    const turn = A.over ? "the arena is over" : A.to_move === A.seat ? "your turn" :
      A.to_move === null ? "between turns" : `seat ${A.to_move} to move`;
    box.append(el("div", {class: "sub", id: "arena-turn", text: `You play seat ${A.seat} of ${A.seats}` +
      (A.day !== null && A.day !== undefined ? ` · day ${A.day}` : "") + ` · ${turn}`}));
    const t = el("tbody");
    for (const p of A.players) {
      t.append(el("tr", {class: p.you ? "you" : null, "data-seat": p.seat}, el("td", {class: "num", text: `seat ${p.seat}`}),
        el("td", {text: p.label + (p.you ? " (you)" : "")})));
    }
    box.append(el("table", {class: "rows seats"}, t));
    if (A.standings) {
      box.append(el("h3", {text: "Standings"}));
      const s = el("tbody");
      A.standings.forEach((r, i) => s.append(el("tr", {class: r.seat === A.seat ? "you" : null},
        el("td", {class: "num", text: String(i + 1)}), el("td", {text: `seat ${r.seat} · ${r.label}`}),
        el("td", {class: "num", text: fmt(r.metric, r.metric_value)}))));
      box.append(el("table", {class: "rows standings", id: "standings"}, s));
    } else {
      box.append(el("div", {class: "sub", text: "Rivals' figures stay private until the arena is over; you see them through what the world makes public."}));
    }
    return box;
  }

  function statePanel() {
    const box = el("section", {class: "panel state", id: "state"}, el("h2", {text: "The world now"}));
    if (S.done) {
      box.append(el("div", {class: "ended", id: "ended",
        text: `The episode has ended (${S.status === "running" ? "stopped" : S.status}${S.ended ? ": " + S.ended : ""}). ` +
          `The run is in ${S.run_dir}.`}));
    }
    if (S.arena) box.append(arenaPanel());
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
        el("summary", {}, el("span", {text: `${name} · ${when(a.at)} `}), again), answerView(a));
      if (isRows(Object.values(a.result || {}).find(isRows)) || a.status !== 0) d.open = true;
      box.append(d);
    }
    return box;
  }

  // What the player did, numbered as the run numbers its calls, the newest in view.
  function logPanel() {
    const box = el("section", {class: "panel log"}, el("h2", {text: "What you did"}));
    const list = el("ol", {id: "log"});
    const log = S.log || [];
    const first = log.length ? log[0].n : S.earlier_calls + 1;
    if (first > 1) list.append(el("li", {class: "earlier", text: `actions 1 to ${first - 1}: ${S.earlier_calls >= first - 1 ? "an earlier session" : "earlier"} (the run keeps them all)`}));
    for (const e of log) {
      const what = e.line || e.command;
      list.append(el("li", {class: e.status === 0 ? "" : "bad", "data-n": e.n, title: what},
        el("span", {class: "n", text: String(e.n)}), el("span", {class: "at", text: when(e.at)}),
        el("span", {class: "what", text: what + (e.status === 0 ? "" : "  ✗ " + (e.error || "not run"))})));
    }
    box.append(list);
    return box;
  }

  let lastAnswer = null;
  const layout = {};
  function draw() {
    for (const a of Object.values(S.answers || {})) harvest(a.result, "", 0);
    if (!layout.actions) {
      layout.header = el("div", {id: "header"});
      layout.state = el("div", {class: "statebox"});
      layout.log = el("div", {class: "logbox"});
      layout.actions = buildActions();
      layout.notes = notesPanel();
      layout.right = el("div", {class: "col right"});
      app.append(layout.header, el("main", {}, el("div", {class: "col left"}, layout.state, layout.log),
        el("div", {class: "col mid"}, layout.actions, layout.notes), layout.right));
    }
    layout.header.replaceChildren(header());
    layout.state.replaceChildren(statePanel());
    layout.log.replaceChildren(logPanel());
    layout.right.replaceChildren(answersPanel(lastAnswer));
    const ol = document.getElementById("log");
    ol.scrollTop = ol.scrollHeight;  // the newest action in view
    const scratch = document.getElementById("scratchpad");
    if (scratch) scratch.textContent = S.notes.world || "(empty)";
    const names = new Set();
    for (const c of S.commands) for (const p of c.params) { names.add(p.name); for (const f of p.rows || []) names.add(f.name); }
    const lists = document.getElementById("lists") || app.appendChild(el("div", {id: "lists"}));
    lists.replaceChildren(...[...names].map(name => el("datalist", {id: `dl-${name}`}, ...offered(name).map(v => el("option", {value: v})))));
    // A listing wider than its panel says so above it: its last columns are a sideways scroll away.
    for (const box of app.querySelectorAll(".tablewrap")) {
      if (box.scrollWidth > box.clientWidth + 1 && !(box.previousElementSibling || {}).classList?.contains("morecols")) {
        box.before(el("div", {class: "morecols", text: "more columns: scroll the table sideways →"}));
      }
    }
    showRunnable();
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

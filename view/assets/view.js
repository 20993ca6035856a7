"use strict";
// bizsim run viewer. Every string from a run is agent- or file-supplied: it only ever reaches the page as
// text (textContent, createTextNode), never as markup.
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const PALETTE = ["#2457c5", "#d1495b", "#2a9d8f", "#e9a03b", "#7b4fb5", "#5c8001", "#c8553d", "#1b998b", "#8d6a9f", "#3d5a80"];
  const ROW_H = 30, TROW_H = 28;

  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    if (props) for (const k in props) {
      if (k === "text") e.textContent = props[k];
      else if (k === "cls") e.className = props[k];
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), props[k]);
      else if (k === "style") e.setAttribute("style", props[k]);
      else e.setAttribute(k, props[k]);
    }
    for (const c of kids) if (c != null) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  // Formatters made once: toLocaleString builds a new one on every call, which a 10,000-row table cannot afford.
  const F2 = new Intl.NumberFormat("en-US", {minimumFractionDigits: 2, maximumFractionDigits: 2});
  const F0 = new Intl.NumberFormat("en-US", {maximumFractionDigits: 0});
  const F4 = new Intl.NumberFormat("en-US", {maximumSignificantDigits: 4});
  function money(cents) {
    if (cents == null || !isFinite(cents)) return "";
    const v = cents / 100;
    return (v < 0 ? "-" : "") + "$" + F2.format(Math.abs(v));
  }
  function tick(v, isMoney) {  // axis labels: whole units, the cents would be noise
    if (!isMoney) return num(v);
    const d = v / 100;
    if (d === 0) return "$0";
    return (d < 0 ? "-$" : "$") + (Math.abs(d) < 10 ? F2 : F0).format(Math.abs(d));
  }
  function num(x) {
    if (x == null || x === "" || !isFinite(x)) return x == null ? "" : String(x);
    if (Math.abs(x) < 1e-9) return "0";
    if (Math.abs(x) >= 1000 || Number.isInteger(x)) return F0.format(Math.round(x));
    return F4.format(x);
  }
  function usd(x) { return x == null ? "" : "$" + (x < 0.01 && x > 0 ? x.toFixed(4) : F2.format(x)); }
  function niceTicks(lo, hi, n) {  // round steps (1, 2, 2.5, 5 x 10^k) covering [lo, hi]
    const span = hi - lo || Math.abs(hi) || 1, raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw);
    const out = [];
    // From the last step at or below lo to the first at or above hi: the ends are ticks, so nothing drawn on this
    // scale falls outside it.
    const end = Math.ceil(hi / step - 1e-9) * step;
    for (let v = Math.floor(lo / step) * step; v <= end + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return out;
  }
  function fmtValue(v, isMoney) { return isMoney ? money(v) : num(v); }
  function pretty(v) {
    if (v == null) return "";
    if (typeof v === "string") { try { const p = JSON.parse(v); if (p && typeof p === "object") return JSON.stringify(p, null, 2); } catch (e) { /* plain text */ } return v; }
    return JSON.stringify(v, null, 2);
  }
  function pre(text) { return el("pre", {text: text}); }
  const pad = (n) => String(n).padStart(2, "0");
  // A world that counts days counts from day 0 (its first day's report says "current_day": 1 when day 0 ends).
  function simDate(meta, t) {
    const day = Math.floor(t / 86400e6);
    if (!meta.start) return "day " + day;
    const d = new Date(Date.parse(meta.start + "Z") + t / 1000);
    const date = d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate());
    if (/T00:00(:00)?$/.test(meta.start)) return "day " + day + " · " + date;  // a world that counts days
    return date + " " + pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes());
  }
  // The time axis's ticks: the first of each month (every 2nd or 3rd on a long run) when the run has a calendar
  // and spans two months or more, else six equal steps; none past the first when simulated time never moved.
  function timeTicks(meta, t1) {
    if (t1 <= 1) return [0];
    const start = meta && meta.start ? Date.parse(meta.start + "Z") : NaN;
    if (!isNaN(start) && t1 >= 60 * 86400e6) {
      const ticks = [], d0 = new Date(start);
      for (let m = 1; ; m++) {
        const t = (Date.UTC(d0.getUTCFullYear(), d0.getUTCMonth() + m, 1) - start) * 1000;
        if (t > t1) break;
        ticks.push(t);
      }
      const every = Math.ceil(ticks.length / 7);
      return ticks.filter((_, i) => i % every === 0);
    }
    return [0, 1, 2, 3, 4, 5, 6].map((i) => t1 * i / 6);
  }
  // A tick's words: the date, and the hour too on a run of a few days (else its ticks would repeat a date).
  function tickDate(meta, t, t1) {
    if (!meta.start || t1 >= 4 * 86400e6) return shortDate(meta, t);
    const d = new Date(Date.parse(meta.start + "Z") + t / 1000);
    return shortDate(meta, t) + (/T00:00(:00)?$/.test(meta.start) && t1 >= 86400e6 ? "" : " " + pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()));
  }
  function shortDate(meta, t) {
    if (!meta.start) return "day " + Math.floor(t / 86400e6);
    const d = new Date(Date.parse(meta.start + "Z") + t / 1000);
    return d.toLocaleDateString("en-US", {month: "short", day: "numeric", timeZone: "UTC"});
  }
  // One kind of event or command, one colour, on every page and in the report's figures: the table comes from
  // bizsim.analysis.labels (KIND_COLORS); a kind it lacks gets a fallback colour picked by the same FNV-1a hash of
  // its key that labels.kind_color computes, and every failure is drawn dark. Marks never take a run's colour.
  const KINDS = (() => { try { return JSON.parse(document.getElementById("bizsim-kinds").textContent); } catch (e) { return {}; } })();
  const KIND_TABLE = KINDS.colors || {}, KIND_FALLBACK = KINDS.fallback && KINDS.fallback.length ? KINDS.fallback : ["#2a9d8f"];
  function kindKey(name) {
    let k = String(name).replace(/_/g, " ").trim().toLowerCase();
    if (k.endsWith(" (failed)")) k = k.slice(0, -9).trimEnd();
    return k;
  }
  // A kind in words: the table's words for a name that does not say what happened (task_half), else its name.
  function kindWords(name) {
    const text = String(name).replace(/_/g, " ").trim(), w = (KINDS.words || {})[kindKey(text)];
    return w == null ? text : w + (/\(failed\)$/.test(text) ? " (failed)" : "");
  }
  function colorOf(name) {
    if (/\(failed\)\s*$/.test(String(name))) return KINDS.failed || "#222";
    const key = kindKey(name);
    if (Object.prototype.hasOwnProperty.call(KIND_TABLE, key)) return KIND_TABLE[key];
    let h = 0x811c9dc5;
    for (const ch of key) h = Math.imul(h ^ ch.codePointAt(0), 0x01000193) >>> 0;
    return KIND_FALLBACK[h % KIND_FALLBACK.length];
  }
  // Arrow keys move through the turns of the page's main list wherever the focus is (but in a text field).
  let keyTarget = null;
  document.addEventListener("keydown", (ev) => {
    if (!keyTarget || ev.defaultPrevented || (ev.key !== "ArrowDown" && ev.key !== "ArrowUp")) return;
    if (ev.target && /^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) return;
    keyTarget(ev);
  });

  // ---- the metric chart ---------------------------------------------------------------------------------
  // series: [{label, color, points:[[t,v]], meta}], markers: [{t,name,label,turn,run}], onPick(runIndex, t, turn)
  function chart(host, series, markers, opts) {
    host.textContent = "";
    if (!markers.length && !series.some((se) => se.points.length)) {  // nothing over time: say so, draw no empty axes
      host.appendChild(el("div", {cls: "empty", text: "Nothing over simulated time was recorded for this run."}));
      return {setCursor() {}};
    }
    // Events sit in a strip of their own under the plot (a lane per run), never over the curve; the agent's own
    // decisions (kind "action") take a row of the lane under the world's events, so neither hides the other, and
    // the marks a world keeps for checking (quiet: startup-v2's signal truth), when shown, a row under those.
    const shown = (m) => !(opts.hidden && opts.hidden.has(m.name));
    const split = markers.some((m) => m.kind === "action"), quietRow = markers.some((m) => m.quiet && shown(m));
    const ROW = 11, LANE = ROW * (1 + (split ? 1 : 0) + (quietRow ? 1 : 0)) + 1;
    const rowOf = (m) => m.quiet ? ROW * (split ? 2 : 1) : split && m.kind === "action" ? ROW : 0;
    const lanes = Math.max(1, series.length), STRIP = LANE * lanes + 4;
    const W = Math.max(400, host.clientWidth || 900), H = 230, L = 96, R = 14, T = 16, B = 44 + STRIP;
    const s = svg("svg", {viewBox: `0 0 ${W} ${H}`, role: "img"});
    const ts = [], vs = [];
    for (const se of series) for (const p of se.points) { ts.push(p[0]); vs.push(p[1]); }
    for (const m of markers) ts.push(m.t);
    let t1 = Math.max(1, ...ts, ...(opts.endT || [0])), v0 = Math.min(0, ...vs), v1 = Math.max(1e-9, ...vs);
    if (!vs.length) { v0 = 0; v1 = 1; }
    const padv = (v1 - v0) * 0.06; v0 -= v0 < 0 ? padv : 0; v1 += padv;
    const x = (t) => L + (W - L - R) * t / t1, y = (v) => T + (H - T - B) * (1 - (v - v0) / (v1 - v0 || 1));
    const ax = svg("g", {class: "axis"});
    const yt = niceTicks(v0, v1, 4);
    v0 = Math.min(v0, yt[0]); v1 = Math.max(v1, yt[yt.length - 1]);
    for (const v of yt) {
      ax.appendChild(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
      const tx = svg("text", {x: L - 6, y: y(v) + 4, "text-anchor": "end"}); tx.textContent = tick(v, opts.money); ax.appendChild(tx);
    }
    const xt = timeTicks(opts.meta, t1);
    let lastTick = null;
    xt.forEach((t, i) => {
      const words = tickDate(opts.meta, t, t1);
      if (words === lastTick) return;  // a date once, however many ticks fall on it
      lastTick = words;
      const tx = svg("text", {x: x(t), y: H - B + STRIP + 16, "text-anchor": i === 0 && t === 0 ? "start" : "middle"});
      tx.textContent = words; ax.appendChild(tx);
    });
    const yl = svg("text", {x: 12, y: T + (H - T - B) / 2, transform: `rotate(-90 12 ${T + (H - T - B) / 2})`, "text-anchor": "middle"});
    yl.textContent = opts.ylabel || ""; ax.appendChild(yl);
    const xl = svg("text", {x: L + (W - L - R) / 2, y: H - 6, "text-anchor": "middle"});
    xl.textContent = t1 <= 1 ? "simulated time (it never moved in this run: every turn and event is at its start)" : "simulated time"; ax.appendChild(xl);
    s.appendChild(ax);
    if (v0 < 0) s.appendChild(svg("line", {x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#999", "stroke-width": 1}));
    for (const se of series) {
      if (!se.points.length) continue;
      const d = se.points.map((p, i) => (i ? "L" : "M") + x(p[0]).toFixed(1) + " " + y(p[1]).toFixed(1)).join("");
      s.appendChild(svg("path", {d: d, class: "series", stroke: se.color}));
    }
    if (opts.matches && opts.matches.length) {  // the turns the search and filters leave, along the top
      const g = svg("g", {fill: "#5b6475"});
      for (const t of opts.matches) g.appendChild(svg("rect", {x: x(t) - 0.75, y: T - 10, width: 1.5, height: 7}));
      const ti = svg("title"); ti.textContent = "turns that match the search and filters"; g.appendChild(ti);
      s.appendChild(g);
    }
    const cursors = series.map(() => { const c = svg("line", {y1: T, y2: H - B, class: "cursor", visibility: "hidden"}); s.appendChild(c); return c; });
    const mkY = H - B + 4;
    for (let k = 0; k < lanes; k++) s.appendChild(svg("rect", {x: L, y: mkY + LANE * k - 1, width: W - L - R, height: LANE, fill: k % 2 ? "#f7f8fa" : "#fbfbfc"}));
    // With two runs or more, each lane of marks says whose it is, in its run's colour.
    if (opts.laneLabels && lanes > 1) opts.laneLabels.slice(0, lanes).forEach((name, k) => {
      const tx = svg("text", {x: L - 6, y: mkY + LANE * k + LANE / 2 + 3, "text-anchor": "end", class: "lane", fill: series[k] ? series[k].color : "#5b6475", "font-size": 11, "font-weight": 600});
      tx.textContent = String(name).length > 14 ? String(name).slice(0, 13) + "…" : String(name);
      const ti = svg("title"); ti.textContent = String(name); tx.appendChild(ti);
      s.appendChild(tx);
    });
    for (const m of markers) {
      if (!shown(m)) continue;
      const r = svg("rect", {x: x(m.t) - 2.5, y: mkY + (m.run || 0) * LANE + rowOf(m), width: 5, height: 10, fill: m.color || colorOf(m.name), class: "mk" + (m.quiet ? " quiet" : ""), "data-turn": m.turn, "data-run": m.run || 0});
      const ti = svg("title"); ti.textContent = simDate(opts.meta, m.t) + ": " + m.label; r.appendChild(ti);
      r.addEventListener("click", (ev) => { ev.stopPropagation(); opts.onPick(m.run || 0, m.t, m.turn); });
      s.appendChild(r);
    }
    s.addEventListener("click", (ev) => {
      const box = s.getBoundingClientRect(), px = (ev.clientX - box.left) * W / box.width;
      const t = Math.max(0, Math.min(t1, (px - L) / (W - L - R) * t1));
      opts.onPick(-1, t, null);
    });
    host.appendChild(s);
    return {setCursor(i, t) { const c = cursors[i] || cursors[0]; if (!c) return; c.setAttribute("x1", x(t)); c.setAttribute("x2", x(t)); c.setAttribute("visibility", "visible"); }};
  }

  // ---- one run: turn list and turn detail ----------------------------------------------------------------
  // What a turn did, in a list row: the agent's decisions first (the kinds the world marks), then the rest, a
  // command run several times named once with its count; a planner's turn no longer reads "company status, ..."
  // whatever it decided.
  function turnSummary(run, t) {
    if (t._sum != null) return t._sum;
    const cmds = t.commands.map((c) => c.line.replace(/^yc-bench /, "").split(" --")[0]);
    if (run.agent_kind === "llm" && !cmds.length) {
      const r = t.response || {};
      if (!t.ok) return "model call failed";
      return r.content ? "says: " + String(r.content).slice(0, 80) : "(no tool call)";
    }
    if (!cmds.length) return t.stop ? "advance" : "";
    const counts = new Map();
    for (const c of cmds) counts.set(c, (counts.get(c) || 0) + 1);
    const decided = run._decisions || new Set();
    const names = [...counts.keys()].map((c, k) => [decided.has(kindKey(cmdName({line: c}))) ? 0 : 1, k, c]);
    names.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    t._sum = names.map(([, , c]) => c + (counts.get(c) > 1 ? " ×" + counts.get(c) : "")).join(", ");
    return t._sum;
  }

  function searchText(run, t) {
    if (t._s != null) return t._s;
    // the date as the list shows it ("Jul 9") and as the detail does ("2025-07-09 14:00"), so either form finds it
    const parts = [turnSummary(run, t), shortDate(run.meta, t.t || 0), simDate(run.meta, t.t || 0)];
    for (const c of t.commands) parts.push(c.line, JSON.stringify(c.result || ""), c.error || "");
    if (t.response) parts.push(String(t.response.content || ""), JSON.stringify(t.response.tool_calls || []), JSON.stringify(t.response.echo || ""));
    if (t.request) { const prev = run._prevIds(t.i); for (const id of t.request.messages) if (!prev.has(id)) parts.push(JSON.stringify((run.meta.messages || {})[id] || "")); }
    if (t.scratchpad) parts.push(t.scratchpad);
    if (t.memory) { if (t.memory.notes) parts.push(t.memory.notes); for (const r of t.memory.recalls || []) parts.push(r.text); }
    for (const m of run.byTurnMarkers.get(t.i) || []) parts.push(m.label);
    t._s = parts.join("\n").toLowerCase();
    return t._s;
  }

  function prepareRun(run) {
    run.byTurnMarkers = new Map();
    for (const m of run.markers) { if (!run.byTurnMarkers.has(m.turn)) run.byTurnMarkers.set(m.turn, []); run.byTurnMarkers.get(m.turn).push(m); }
    run._prevIds = (i) => {
      const p = i > 0 ? run.turns[i - 1] : null;
      return new Set(p && p.request ? p.request.messages : []);
    };
    run.times = run.turns.map((t) => t.t || 0);
    run._decisions = new Set(run.markers.filter((m) => m.kind === "action").map((m) => kindKey(m.name)));
    // Objects many results list are written once in run.shared (run_data.share_repeats): put them back, and give
    // the advance its answer, the turn's stop, written once too.
    const shared = Array.isArray(run.shared) ? run.shared : [];
    const back = (v) => {
      if (Array.isArray(v)) return v.map((x) => x && typeof x === "object" && !Array.isArray(x) && Object.keys(x).length === 1
        && Number.isInteger(x["$bizsim_shared"]) && x["$bizsim_shared"] < shared.length ? shared[x["$bizsim_shared"]] : back(x));
      if (v && typeof v === "object") { const o = {}; for (const k in v) o[k] = back(v[k]); return o; }
      return v;
    };
    for (const t of run.turns) for (const c of t.commands) {
      if (shared.length && c.result && typeof c.result === "object") c.result = back(c.result);
      if (c.advance && c.result == null) c.result = t.stop;
    }
    run.shared = null;
    return run;
  }

  function turnAt(run, t) {  // the last turn that began at or before t
    let lo = 0, hi = run.times.length - 1, ans = 0;
    while (lo <= hi) { const mid = (lo + hi) >> 1; if (run.times[mid] <= t) { ans = mid; lo = mid + 1; } else hi = mid - 1; }
    return ans;
  }

  function messageBox(m, title) {
    const role = m && m.role ? String(m.role) : "message";
    const box = el("div", {cls: "msg " + (["system", "user", "assistant", "tool"].includes(role) ? role : "")},
      el("div", {cls: "role", text: title || role}));
    if (m && m.content != null) box.appendChild(pre(pretty(m.content)));
    if (m && m.tool_calls) for (const c of m.tool_calls) {
      const f = c.function || c;
      box.appendChild(pre("→ " + (f.name || "") + " " + pretty(f.arguments)));
    }
    return box;
  }

  function renderDetail(host, run, i) {
    host.textContent = "";
    const t = run.turns[i];
    if (!t) { host.appendChild(el("div", {cls: "empty", text: "No turn recorded yet."})); return; }
    const meta = run.meta;
    host.appendChild(el("h2", {id: "turn-title", text: `Turn ${i + 1} · ${simDate(meta, t.t || 0)}` + (t.episode > 1 ? ` · episode ${t.episode}` : "")}));
    const kv = el("div", {cls: "kv"});
    const add = (k, v) => { if (v !== "" && v != null) kv.appendChild(el("span", null, k + " ", el("b", {text: String(v)}))); };
    if (run.agent_kind === "llm") {
      const r = t.response || {}, u = r.usage || {};
      add("prompt tokens", num(u.prompt_tokens)); add("completion tokens", num(u.completion_tokens));
      add("latency", r.latency_s != null ? r.latency_s.toFixed(2) + " s" : ""); add("cost", usd(r.cost_usd));
      add("retries", t.failed_attempts || 0); add("finish", r.finish_reason || "");
      if (t.request) add("request", t.request.verified == null ? "as Inspect logged it" : t.request.verified ? "verified against the recorded hash" : "NOT matching the recorded hash");
    } else {
      add("commands", t.commands.length);
      if (t.t_end != null) add("advanced to", simDate(meta, t.t_end));
    }
    host.appendChild(kv);
    if (t.errors && t.errors.length) {
      host.appendChild(el("h3", {text: "Errors and retries"}));
      for (const e of t.errors) host.appendChild(el("div", {cls: "cmd err"}, el("div", {cls: "line", text: String(e)})));
    }
    const evs = run.byTurnMarkers.get(i) || [];
    if (evs.length) {
      host.appendChild(el("h3", {text: "Events and decisions during this turn"}));
      const line = (m) => el("div", {cls: "ev"}, el("i", {style: "background:" + colorOf(m.name)}), simDate(meta, m.t) + "  " + m.label);
      for (const m of evs) if (!m.quiet) host.appendChild(line(m));
      // What the world kept for checking, folded per kind under one line: it would bury what happened.
      for (const n of [...new Set(evs.filter((m) => m.quiet).map((m) => m.name))]) {
        const some = evs.filter((m) => m.name === n);
        host.appendChild(el("details", {cls: "ev quiet"}, el("summary", null, el("i", {style: "background:" + colorOf(n)}),
          kindWords(n) + " ×" + some.length + " (kept for checking)"), ...some.map(line)));
      }
    }
    if (t.scratchpad) {
      host.appendChild(el("h3", {text: "Scratchpad at this turn"}));
      host.appendChild(el("div", {cls: "msg"}, pre(t.scratchpad)));
    }
    if (t.memory) renderMemory(host, run, i, t.memory);
    if (run.agent_kind === "llm") renderLLM(host, run, i, t); else renderCommands(host, t.commands, "Commands and results");
    if (t.stop && !t.commands.some((c) => c.advance)) {
      const d = el("details", null, el("summary", {text: "What the advance returned"}), pre(pretty(t.stop)));
      host.appendChild(d);
    }
    if (t.scratchpad === "") host.appendChild(el("div", {cls: "muted", text: "The scratchpad is empty at this turn."}));
  }

  function notesAt(run, i) {  // a turn's notes are left out when the previous turn had the same
    for (let k = i; k >= 0; k--) { const m = run.turns[k].memory; if (m && !m.notes_unchanged) return m.notes; }
    return null;
  }

  const RECALL_TITLES = {variables: "Variables (state table)", memories: "Relevant memories (episodic store)", history: "Recent history (rolling window)"};
  function renderMemory(host, run, i, mem) {
    const box = el("section", {cls: "memory"});
    box.appendChild(el("h3", {text: "Memory at this turn (" + (mem.modules || []).join(", ") + ")"}));
    const notes = notesAt(run, i);
    if (notes != null) {
      box.appendChild(el("div", {cls: "role", text: "Notes (memory_note tool)" + (mem.notes_unchanged ? " · unchanged since the previous turn" : "")}));
      box.appendChild(notes ? el("div", {cls: "msg"}, pre(notes)) : el("div", {cls: "muted", text: "No notes yet."}));
    }
    const recalls = mem.recalls || [];
    if (!recalls.length) box.appendChild(el("div", {cls: "muted", text: "Nothing was recalled into the system prompt for this turn."}));
    for (const key of Object.keys(RECALL_TITLES)) {
      const rows = recalls.filter((r) => r.section === key);
      if (!rows.length) continue;
      const d = el("details", key !== "history" ? {open: ""} : null, el("summary", {text: `${RECALL_TITLES[key]}: ${rows.length} recalled`}));
      for (const r of rows) d.appendChild(el("div", {cls: "recall"}, el("span", {cls: "muted", text: `score ${r.score}` + (r.turn ? ` · from turn ${r.turn}` : "") + "  "}), el("span", {text: r.text})));
      box.appendChild(d);
    }
    host.appendChild(box);
  }

  function renderCommands(host, cmds, title) {
    host.appendChild(el("h3", {text: title + ` (${cmds.length})`}));
    if (!cmds.length) host.appendChild(el("div", {cls: "muted", text: "none"}));
    for (const c of cmds) {
      const box = el("div", {cls: "cmd" + (c.error ? " err" : "")}, el("div", {cls: "line", text: (c.source && c.source !== "model" ? "[" + c.source + "] " : "") + c.line}));
      const body = pretty(c.error ? (c.result != null ? c.result : c.error) : c.result);
      // The advance's answer is the day's (or the wake-up's) report: its summary line first, and never folded.
      if (c.advance && c.result && typeof c.result.summary === "string") box.appendChild(el("div", {cls: "line report", text: c.result.summary}));
      if (body.length > 1500 && !c.advance) box.appendChild(el("details", null, el("summary", {text: `result (${body.length.toLocaleString()} characters)`}), pre(body)));
      else box.appendChild(pre(body || "(no result)"));
      host.appendChild(box);
    }
  }

  function renderLLM(host, run, i, t) {
    const msgs = run.meta.messages || {};
    if (t.request) {
      const prev = run._prevIds(i);
      const ids = t.request.messages;
      const fresh = ids.filter((id) => !prev.has(id));
      const system = ids.length && msgs[ids[0]] && msgs[ids[0]].role === "system" ? ids[0] : null;
      host.appendChild(el("h3", {text: `What the model received (${ids.length} messages; ${fresh.length} added since the previous turn)`}));
      if (system) host.appendChild(el("details", null, el("summary", {text: fresh.includes(system) ? (i ? "System prompt (changed since the previous turn)" : "System prompt") : "System prompt (unchanged)"}), messageBox(msgs[system])));
      const older = ids.filter((id) => !fresh.includes(id) && id !== system);
      if (older.length) {
        const d = el("details", null, el("summary", {text: `${older.length} earlier message${older.length > 1 ? "s" : ""} of the conversation`}));
        d.addEventListener("toggle", () => { if (d.open && d.childNodes.length === 1) for (const id of older) d.appendChild(messageBox(msgs[id])); });
        host.appendChild(d);
      }
      for (const id of fresh) if (id !== system) host.appendChild(messageBox(msgs[id]));
      const tools = (run.meta.tools || [])[t.request.tools] || [];
      if (tools.length) host.appendChild(el("details", null, el("summary", {text: `Tools offered (${tools.length})`}), pre(pretty(tools))));
      if (t.request.params && Object.keys(t.request.params).length) host.appendChild(el("div", {cls: "kv", text: "parameters: " + JSON.stringify(t.request.params)}));
    } else {
      host.appendChild(el("div", {cls: "muted", text: "The request of this call was not rebuilt (see the note at the top)."}));
    }
    const r = t.response || {};
    host.appendChild(el("h3", {text: "What the model answered"}));
    if (!t.ok) host.appendChild(el("div", {cls: "cmd err"}, el("div", {cls: "line", text: "the call failed: " + (t.errors || []).join("; ")})));
    const echo = r.echo || {};
    for (const k of Object.keys(echo)) host.appendChild(messageBox({role: "assistant", content: pretty(echo[k])}, "thinking (" + k + ")"));
    if (r.content != null || (r.tool_calls && r.tool_calls.length)) host.appendChild(messageBox({role: "assistant", content: r.content, tool_calls: r.tool_calls}, "assistant"));
    renderCommands(host, t.commands, "Commands run and their results");
  }

  function filtersFor(run) {
    const names = new Set(), evs = new Set();
    for (const t of run.turns) for (const c of t.commands) names.add(cmdName(c));
    for (const m of run.markers) evs.add(m.name);
    return {commands: [...names].sort().slice(0, 300), events: [...evs].sort()};
  }
  function cmdName(c) { return c.line.replace(/^yc-bench /, "").replace(/ --.*$/, "").replace(/ '.*$/, ""); }

  // A run's turn list and detail in `host`; returns {select(i)}.
  function runPane(host, run, opts) {
    const wrap = el("div", {cls: opts.compact ? "body" : "panes"});
    const list = el("div", {cls: "list", tabindex: "0"}), detail = el("div", {cls: "detail"});
    const RH = opts.compact ? 46 : ROW_H;  // a side-by-side list is narrow: its rows take two lines (view.css)
    const spacer = el("div", {style: "position:relative"});
    list.appendChild(spacer);
    wrap.appendChild(list); wrap.appendChild(detail); host.appendChild(wrap);
    let shown = run.turns.map((t, i) => i), sel = -1, shownSet = new Set(shown);
    const none = el("div", {cls: "empty", text: "No turn matches the search and filters."});
    function paint() {
      spacer.style.height = shown.length * RH + "px";
      if (!shown.length) { spacer.textContent = ""; spacer.appendChild(none); return; }
      const top = list.scrollTop, h = list.clientHeight || 600;
      const a = Math.max(0, Math.floor(top / RH) - 10), b = Math.min(shown.length, Math.ceil((top + h) / RH) + 10);
      spacer.textContent = "";
      for (let k = a; k < b; k++) {
        const i = shown[k], t = run.turns[i];
        const what = turnSummary(run, t);
        const row = el("div", {cls: "row" + (i === sel ? " sel" : "") + (t.error ? " err" : ""), style: `top:${k * RH}px`, "data-i": i, title: what},
          el("span", {cls: "n", text: run.agent_kind === "llm" && t.ok === false ? "✕" : String(run.agent_kind === "llm" && t.turn ? t.turn : i + 1)}), el("span", {cls: "d", text: shortDate(run.meta, t.t || 0)}), el("span", {cls: "w", text: what}));
        row.addEventListener("click", () => api.select(i, true));
        spacer.appendChild(row);
      }
    }
    list.addEventListener("scroll", () => requestAnimationFrame(paint));
    const onKey = (ev) => {
      const k = shown.indexOf(sel);
      if (ev.key === "ArrowDown" && k < shown.length - 1) { api.select(shown[k + 1], true); ev.preventDefault(); }
      if (ev.key === "ArrowUp" && k > 0) { api.select(shown[k - 1], true); ev.preventDefault(); }
    };
    list.addEventListener("keydown", onKey);
    if (opts.keys) keyTarget = onKey;
    const api = {
      select(i, user) {
        sel = Math.max(0, Math.min(run.turns.length - 1, i));
        const k = shown.indexOf(sel);
        if (k >= 0) {
          spacer.style.height = shown.length * RH + "px";  // first, or the browser clamps the scroll to nothing
          const top = k * RH;
          if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - RH) list.scrollTop = Math.max(0, top - list.clientHeight / 3);
        }
        paint(); renderDetail(detail, run, sel);
        detail.scrollTop = 0;
        if (user && opts.onSelect) opts.onSelect(sel);
      },
      filter(pred) { shown = run.turns.map((t, i) => i).filter(pred); shownSet = new Set(shown); paint(); return shown.length; },
      isShown(i) { return shownSet.has(i); },
      get first() { return shown.length ? shown[0] : -1; },
      get selected() { return sel; },
      paint,
    };
    requestAnimationFrame(paint);
    return api;
  }

  function header(run, extra) {
    const m = run.meta;
    const h = el("header", {cls: "top"});
    // A played run names its player beside the agent ("human, played by ana").
    const agent = m.player ? `${m.model || m.agent}, played by ${m.player}` : m.model || m.agent;
    const who = [m.world, m.preset && m.preset !== "default" ? m.preset : null, agent, m.seed != null ? "seed " + m.seed : null].filter(Boolean).join(" · ");
    h.appendChild(el("h1", {text: who || "bizsim run"}));
    const stat = (label, value, id) => h.appendChild(el("div", {cls: "stat"}, el("b", id ? {id: id, text: value} : {text: value}), el("span", {text: label})));
    if (m.metric) stat(m.metric_label || m.metric, fmtValue(m.metric_value, m.metric_money), "final-metric");
    if (m.status != null) {  // a source of another kind may not say how its run ended
      const status = m.status === "running" ? "still running" : typeof m.ending === "string" ? m.ending
        : (m.status === "error" && m.detail ? "stopped: " + m.detail : String(m.status)).replace(/_/g, " ");
      h.appendChild(el("div", {cls: "stat"}, el("b", null, el("span", {cls: "badge " + (/bankrupt|collapse|error|abort/.test(status) ? "bad" : /stopped|running/.test(status) || !m.finished ? "warn" : "good"), text: status})), el("span", {text: "ending"})));
    }
    stat("turns", num(m.turns != null ? m.turns : run.turns.length));  // an LLM run's: its answered calls
    if (m.cost_usd != null) stat("model cost", usd(m.cost_usd));
    if (m.tokens) stat("tokens", num(m.tokens));
    if (extra) h.appendChild(extra);
    return h;
  }

  function problems(list) {
    if (!list || !list.length) return null;
    return el("div", {cls: "problems"}, ...list.map((p) => el("div", {text: "⚠ " + p})));
  }

  // The kinds of marks, each with its colour, count and a box that shows or hides it; the kinds a world keeps for
  // checking (quiet) come last, under their own words, and start hidden (quietKinds).
  function legend(markers, hidden, redraw) {
    const quiet = new Set(markers.filter((m) => m.quiet).map((m) => m.name));
    const names = [...new Set(markers.map((m) => m.name))].sort(), loud = names.filter((n) => !quiet.has(n));
    const box = el("div", {cls: "legend"});
    if (!names.length) return box;
    const entry = (n) => {
      const cb = el("input", {type: "checkbox"}); cb.checked = !hidden.has(n);
      cb.addEventListener("change", () => { if (cb.checked) hidden.delete(n); else hidden.add(n); redraw(); });
      return el("label", {"data-kind": n}, cb, el("i", {style: "background:" + colorOf(n)}), kindWords(n) + " (" + markers.filter((m) => m.name === n).length + ")");
    };
    if (loud.length) box.appendChild(el("span", {text: "Events (click a mark to open its turn):"}));
    for (const n of loud) box.appendChild(entry(n));
    if (quiet.size) {
      box.appendChild(el("span", {cls: "quiet-head", text: "Kept for checking, in a row of their own (tick to show):"}));
      for (const n of [...quiet].sort()) box.appendChild(entry(n));
    }
    return box;
  }
  function quietKinds(markers) { return new Set(markers.filter((m) => m.quiet).map((m) => m.name)); }

  function viewRun(root, run, state) {
    prepareRun(run);
    root.textContent = "";
    root.appendChild(header(run));
    const pr = problems(run.problems); if (pr) root.appendChild(pr);
    const chartHost = el("div", {cls: "chart", id: "chart"});
    root.appendChild(chartHost);
    const hidden = state.hidden || (state.hidden = quietKinds(run.markers));
    let ch;
    // The run's series as the report counts it (analysis.series.run_series), beside the balances as booked above.
    const rep = run.reported && run.reported.points.length ? run.reported : null;
    const repHost = rep ? el("div", {cls: "chart", id: "chart-reported"}) : null;
    const draw = () => {
      if (rep) chart(repHost, [{points: rep.points, color: PALETTE[1]}], [], {meta: run.meta, money: rep.money, ylabel: rep.label, endT: [run.meta.end_t || 0]});
      ch = chart(chartHost, [{points: run.timeline, color: PALETTE[0]}], run.markers, {
        meta: run.meta, money: run.meta.timeline_money, ylabel: run.meta.timeline_label, hidden: hidden, endT: [run.meta.end_t || 0],
        matches: state.matches,
        onPick: (r, t, turn) => pane.select(turn != null ? turn : turnAt(run, t), true),
      });
      if (pane && pane.selected >= 0) ch.setCursor(0, run.turns[pane.selected].t || 0);
    };
    root.appendChild(legend(run.markers, hidden, draw));
    const tools = el("div", {cls: "tools"});
    const q = el("input", {type: "search", placeholder: "Search commands, results, messages…", id: "search"});
    const f = filtersFor(run);
    const cmdSel = el("select", {id: "filter-command"}, el("option", {value: "", text: "any command"}), ...f.commands.map((c) => el("option", {value: c, text: c})));
    const evSel = el("select", {id: "filter-event"}, el("option", {value: "", text: "any event"}), ...f.events.map((c) => el("option", {value: c, text: kindWords(c)})));
    const errCb = el("input", {type: "checkbox", id: "filter-errors"});
    const count = el("span", {cls: "count"});
    tools.append(q, cmdSel, evSel, el("label", null, errCb, " errors only"), count);
    root.appendChild(tools);
    const paneHost = el("div", {cls: "panehost"});
    root.appendChild(paneHost);
    if (rep) root.appendChild(el("div", {cls: "section", id: "reported"},
      el("h2", {text: rep.label + " as the report counts it (a bankrupt run is 0 from its bankruptcy on; the month before keeps its figures)"}),
      repHost, el("div", {cls: "reported-values", text: rep.keys.map((k, i) => k + ": " + fmtValue(rep.values[i], rep.money)).join(" · ")})));
    const pane = runPane(paneHost, run, {keys: true, onSelect: (i) => { ch.setCursor(0, run.turns[i].t || 0); state.turn = i; }});
    draw();
    function apply() {
      const text = q.value.trim().toLowerCase(), cmd = cmdSel.value, ev = evSel.value, err = errCb.checked;
      const n = pane.filter((i) => {
        const t = run.turns[i];
        if (err && !t.error) return false;
        if (cmd && !t.commands.some((c) => cmdName(c) === cmd)) return false;
        if (ev && !(run.byTurnMarkers.get(i) || []).some((m) => m.name === ev)) return false;
        if (text && !searchText(run, t).includes(text)) return false;
        return true;
      });
      count.textContent = `${num(n)} of ${num(run.turns.length)} ${run.agent_kind === "llm" ? "model calls" : "turns"}`;
      const filtered = text || cmd || ev || err;
      // The detail follows the list: a turn the search leaves out is not shown beside the turns it keeps.
      if (filtered && n && pane.selected >= 0 && !pane.isShown(pane.selected)) pane.select(pane.first, true);
      const before = state.matches;
      state.matches = filtered ? run.turns.filter((t, i) => pane.isShown(i)).map((t) => t.t || 0) : null;
      if (ch && (before || state.matches)) draw();
    }
    let timer = 0;
    q.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(apply, 150); });
    for (const s of [cmdSel, evSel, errCb]) s.addEventListener("change", apply);
    apply();
    const start = state.turn != null && state.turn < run.turns.length && !state.atEnd ? state.turn : (state.follow ? run.turns.length - 1 : 0);
    pane.select(start, false);
    if (ch) ch.setCursor(0, (run.turns[start] || {}).t || 0);
    onResize = draw;  // one listener for the page: a followed run is drawn again on every change
    return {pane, isAtEnd: () => pane.selected === run.turns.length - 1};
  }

  // ---- two runs side by side ---------------------------------------------------------------------------
  function viewCompare(root, data) {
    const runs = data.runs.map(prepareRun);
    root.textContent = "";
    const head = el("header", {cls: "top"}, el("h1", {text: "Two runs side by side, aligned by simulated time"}));
    runs.forEach((r, k) => {
      const m = r.meta;
      head.appendChild(el("div", {cls: "stat"}, el("b", {id: "final-metric-" + k, text: fmtValue(m.metric_value, m.metric_money)}),
        el("span", null, el("i", {style: `display:inline-block;width:10px;height:10px;background:${PALETTE[k * 1]};margin-right:4px`}), (k ? "B: " : "A: ") + [m.model || m.agent, "seed " + m.seed].join(" · "))));
    });
    root.appendChild(head);
    for (const r of runs) { const p = problems(r.problems); if (p) root.appendChild(p); }
    const chartHost = el("div", {cls: "chart", id: "chart"});
    root.appendChild(chartHost);
    const marks = [];
    runs.forEach((r, k) => { for (const m of r.markers) marks.push(Object.assign({}, m, {run: k})); });
    const ylabel = runs[0].meta.timeline_label;
    const info = el("div", {cls: "tools", id: "align-info"});
    root.appendChild(info);
    const panes = el("div", {cls: "panes compare"});
    root.appendChild(panes);
    const apis = [];
    let ch;
    const align = (from, i) => {
      const t = runs[from].turns[i].t || 0, other = 1 - from;
      const j = turnAt(runs[other], t);
      apis[other].select(j, false);
      ch.setCursor(from, t); ch.setCursor(other, runs[other].turns[j].t || 0);
      info.textContent = `Aligned at ${simDate(runs[from].meta, t)}: A turn ${apis[0].selected + 1}, B turn ${apis[1].selected + 1}`;
    };
    runs.forEach((r, k) => {
      const side = el("div", {cls: "side", id: "side-" + k}, el("div", {cls: "hd", text: (k ? "B: " : "A: ") + [r.meta.world, r.meta.model || r.meta.agent, "seed " + r.meta.seed].join(" · ")}));
      const body = el("div", {style: "min-height:0;display:grid"});
      side.appendChild(body); panes.appendChild(side);
      apis.push(runPane(body, r, {compact: true, onSelect: (i) => align(k, i)}));
    });
    const hidden = quietKinds(marks);
    const draw = () => {
      ch = chart(chartHost, runs.map((r, k) => ({points: r.timeline, color: PALETTE[k]})), marks, {
        meta: runs[0].meta, money: runs[0].meta.timeline_money, ylabel: ylabel, endT: runs.map((r) => r.meta.end_t || 0), hidden: hidden,
        laneLabels: ["A marks", "B marks"],
        onPick: (k, t, turn) => { const from = k < 0 ? 0 : k; const i = turn != null ? turn : turnAt(runs[from], t); apis[from].select(i, false); align(from, i); },
      });
    };
    draw();
    chartHost.after(legend(marks, hidden, () => { draw(); if (apis[0].selected >= 0) align(0, apis[0].selected); }));
    const fk = runs[1].meta.fork;
    if (fk && runs[1].turns.length) {  // B continues A: open both where B left A
      const i = Math.min(fk.turn, runs[1].turns.length - 1);
      head.appendChild(el("div", {cls: "stat", id: "fork-note"}, el("b", {text: "after turn " + fk.turn}), el("span", {text: "B forked from A here (" + (fk.mode || "") + ")"})));
      apis[1].select(i, false); align(1, i);
    } else { apis[0].select(0, false); align(0, 0); }
  }

  // ---- a sweep: group summary and the runs table --------------------------------------------------------
  function viewSweep(root, data) {
    root.textContent = "";
    const cols = data.columns, idx = Object.fromEntries(cols.map((c, i) => [c, i]));
    const moneyMetric = new Set(data.money_metrics || []);
    root.appendChild(el("header", {cls: "top"}, el("h1", {text: "Sweep: " + data.meta.path.split("/").filter(Boolean).pop()}),
      el("div", {cls: "stat"}, el("b", {text: num(data.rows.length)}), el("span", {text: "runs"})),
      el("div", {cls: "stat"}, el("b", {text: num(data.groups.length)}), el("span", {text: "groups"}))));
    const pr = problems(data.problems); if (pr) root.appendChild(pr);
    const sec = el("div", {cls: "section"}, el("h2", {text: "Summary: mean over seeds with 95 % confidence interval"}));
    root.appendChild(sec);
    const byMetric = new Map();
    for (const g of data.groups) { if (!byMetric.has(g.metric)) byMetric.set(g.metric, []); byMetric.get(g.metric).push(g); }
    for (const [metric, gs] of byMetric) {
      const tbl = el("table", {cls: "grp"});
      // Every agent option that varies in the sweep is a column: an ablation's arms are rows of their own.
      const opts = data.option_columns || [];
      tbl.appendChild(el("tr", null, ...["world", "preset", "agent", "model", ...opts.map((c) => c.replace(/_/g, " ")), "runs", "mean " + (gs[0].metric_label || metric).replace(/^./, (c) => c.toLowerCase()), "95 % confidence interval", "ended early", "bankrupt", "failed to run", "model cost"].map((h) => el("th", {text: h}))));
      for (const g of gs) tbl.appendChild(el("tr", null, ...[g.world, g.preset, g.agent, g.model || "", ...opts.map((c) => (g.options || {})[c] ?? ""), num(g.runs), fmtValue(g.mean, g.money),
        g.ci_low == null ? "" : fmtValue(g.ci_low, g.money) + " to " + fmtValue(g.ci_high, g.money), num(g.ended_early) + " of " + num(g.runs) + (g.stopped ? " (" + g.stopped + ")" : ""), num(g.bankrupt), num(g.failed), g.cost_usd == null ? "" : usd(g.cost_usd)].map((v) => el("td", {text: String(v)}))));
      sec.appendChild(tbl);
      // An arena's runs have no one metric value (each seat has its own: open a run for its standings).
      const drawn = gs.filter((g) => g.values && g.values.length);
      if (drawn.length) sec.appendChild(dotPlot(drawn));
      if (drawn.length < gs.length) sec.appendChild(el("p", {cls: "muted", style: "font-size:12px", text: "A group without a value per run (an arena's runs: each seat scores on its own) is not drawn; open a run for its seats' standings, or see bizsim report's Arenas section."}));
    }
    const tsec = el("div", {cls: "section"}, el("h2", {text: "Runs (click a column to sort, type under it to filter, click a row to open the run)"}));
    root.appendChild(tsec);
    const widths = {world: "0.8fr", preset: "0.8fr", agent: "0.9fr", model: "1fr", seed: "0.4fr", metric: "1fr", value: "0.9fr", status: "0.8fr", cost_usd: "0.7fr", turns: "0.5fr", run_id: "1fr"};
    const names = {cost_usd: "model cost", value: "metric value", run_id: "run id"};
    const label = (c) => names[c] || c.replace(/_/g, " ");  // an agent option's column: history_rounds -> history rounds
    const wrap = el("div", {cls: "tablewrap", style: "--cols:" + cols.map((c) => widths[c] || "1fr").join(" ")});
    const thead = el("div", {cls: "thead"}), filters = el("div", {cls: "filters"}), tbody = el("div", {cls: "tbody", id: "runs-body"});
    const spacer = el("div", {style: "position:relative"});
    tbody.appendChild(spacer);
    wrap.append(thead, filters, tbody);
    tsec.appendChild(wrap);
    const count = el("div", {cls: "muted", id: "runs-count", style: "margin:4px 0"});
    tsec.appendChild(count);
    let order = data.rows.map((r, i) => i), shown = order, sortCol = -1, sortDir = 1;
    const fvals = cols.map(() => "");
    const cell = (r, c) => {
      const v = r[idx[c]];
      if (c === "value") return fmtValue(v, moneyMetric.has(r[idx.metric]));
      if (c === "cost_usd") return v == null ? "" : usd(v);
      if (c === "metric") return v == null ? "" : String(v).replace(/_cents$|_usd$/, "").replace(/_/g, " ");
      if (c === "status") return v == null ? "" : String(v).replace(/_/g, " ");
      if (c === "seed") return v == null ? "" : String(v);  // an identifier, not a quantity: no separators
      return v == null ? "" : typeof v === "number" ? num(v) : String(v);
    };
    const texts = new Array(data.rows.length);  // each row's cells as shown, made when first needed
    const textOf = (i) => texts[i] || (texts[i] = cols.map((c) => cell(data.rows[i], c)));
    let lower = null;
    const lowerOf = (i) => { if (!lower) lower = new Array(data.rows.length); return lower[i] || (lower[i] = textOf(i).map((t) => t.toLowerCase())); };
    cols.forEach((c, k) => {
      const h = el("div", {text: label(c), "data-col": c});
      h.addEventListener("click", () => {
        sortDir = sortCol === k ? -sortDir : 1; sortCol = k;
        order = data.rows.map((r, i) => i).sort((a, b) => {
          const x = data.rows[a][k], y = data.rows[b][k];
          if (x == null) return 1; if (y == null) return -1;
          return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * sortDir;
        });
        for (const d of thead.children) d.textContent = label(d.dataset.col);
        h.textContent = label(c) + (sortDir > 0 ? " ▲" : " ▼");
        apply();
      });
      thead.appendChild(h);
      const inp = el("input", {type: "search", placeholder: "filter", "data-col": c, id: "filter-" + c});
      let tm = 0;
      inp.addEventListener("input", () => { clearTimeout(tm); tm = setTimeout(() => { fvals[k] = inp.value.trim().toLowerCase(); apply(); }, 120); });
      filters.appendChild(inp);
    });
    const dirs = new Set(data.run_dirs || []);
    function open(i) {
      const r = data.rows[i], id = String(r[idx.run_id] || "");
      if (/^[A-Za-z0-9_.-]+$/.test(id) && dirs.has(id) && data.run_links) {
        window.location.href = data.run_links.replace("{id}", encodeURIComponent(id));
        return;
      }
      const old = document.getElementById("run-dialog"); if (old) old.remove();
      const dlg = el("div", {cls: "dlg", id: "run-dialog"}, el("b", {text: "Run " + id}),
        el("div", {cls: "muted", text: dirs.has(id) ? "Open this sweep with `bizsim view DIR --serve` to read the run turn by turn." : "This run has no run directory (sweep with --run-dirs to keep one)."}));
      cols.forEach((c) => dlg.appendChild(el("div", {cls: "ev"}, el("b", {text: label(c) + ": "}), cell(r, c))));
      dlg.appendChild(el("button", {text: "close", onclick: () => dlg.remove()}));
      document.body.appendChild(dlg);
    }
    let painted = "";
    const numeric = cols.map((c) => ["seed", "value", "cost_usd", "turns"].includes(c) ? "num" : "");
    // A pool of row elements: row k is drawn by slot k % size, so scrolling by a few rows rewrites only the rows
    // that came into view and leaves the rest (and their rendering) alone.
    const pool = [];
    function slot(j) {
      while (pool.length <= j) {
        const row = el("div", {cls: "trow"});
        for (let c = 0; c < cols.length; c++) row.appendChild(el("div", {cls: numeric[c]}));
        row._k = -1;
        spacer.appendChild(row); pool.push(row);
      }
      return pool[j];
    }
    function paint() {
      const top = tbody.scrollTop, h = tbody.clientHeight || 600;
      const a = Math.max(0, Math.floor(top / TROW_H) - 8), b = Math.min(shown.length, Math.ceil((top + h) / TROW_H) + 8);
      if (painted === a + ":" + b) return;  // the same rows are in view: nothing to redraw
      painted = a + ":" + b;
      spacer.style.height = shown.length * TROW_H + "px";
      const size = Math.max(b - a, Math.ceil(h / TROW_H) + 17);
      for (let j = 0; j < pool.length; j++) if (pool[j]._k >= 0 && (pool[j]._k < a || pool[j]._k >= b || j >= size)) { pool[j].style.display = "none"; pool[j]._k = -1; }
      for (let k = a; k < b; k++) {
        const row = slot(k % size);
        const i = shown[k];
        if (row._k === k && row._i === i) continue;
        const t = textOf(i);
        for (let c = 0; c < cols.length; c++) row.children[c].textContent = t[c];
        row.style.transform = `translateY(${k * TROW_H}px)`;
        row.style.display = "";
        row.dataset.i = i; row._k = k; row._i = i;
      }
    }
    spacer.addEventListener("click", (ev) => { const row = ev.target.closest(".trow"); if (row) open(Number(row.dataset.i)); });
    function apply() {
      const act = fvals.map((v, k) => [v, k]).filter((p) => p[0]);
      shown = act.length ? order.filter((i) => { const l = lowerOf(i); return act.every(([v, k]) => l[k].includes(v)); }) : order;
      painted = "";
      for (const row of pool) { row._k = -1; row.style.display = "none"; }
      count.textContent = `${num(shown.length)} of ${num(data.rows.length)} runs shown`;
      tbody.scrollTop = 0;
      paint();
    }
    tbody.addEventListener("scroll", () => requestAnimationFrame(paint));
    apply();
  }

  // ---- a fork family: the parent and its forks on one chart, and a table of them --------------------------
  function viewFamily(root, data) {
    root.textContent = "";
    const ms = data.members, meta = data.meta, byId = new Map(ms.map((m) => [m.id, m]));
    const forks = ms.filter((m) => m.parent).length;
    root.appendChild(el("header", {cls: "top"}, el("h1", {text: "Fork family: " + [meta.world, meta.seed == null ? null : "seed " + meta.seed].filter((x) => x != null).join(" · ")}),
      el("div", {cls: "stat"}, el("b", {text: num(ms.length - forks)}), el("span", {text: ms.length - forks > 1 ? "parent runs" : "parent run"})),
      el("div", {cls: "stat"}, el("b", {text: num(forks)}), el("span", {text: forks === 1 ? "fork" : "forks"}))));
    const pr = problems(data.problems); if (pr) root.appendChild(pr);
    const color = (k) => PALETTE[k % PALETTE.length];
    const chartHost = el("div", {cls: "chart", id: "chart"});
    root.appendChild(el("div", {cls: "section"}, el("h2", {text: (meta.timeline_label || "metric") + " over simulated time: a fork's curve starts where it left its parent (its mark below)"}), chartHost));
    // A fork shares its parent's history up to the fork point: drawn from there, its curve does not hide the parent's.
    const series = ms.map((m, k) => {
      const t0 = m.fork && m.fork.t != null ? m.fork.t : null;
      let pts = m.timeline;
      if (t0 != null) { const j = pts.findIndex((p) => p[0] >= t0); pts = j < 0 ? [] : pts.slice(Math.max(0, j - 1)); }
      return {points: pts, color: color(k)};
    });
    const marks = [];
    ms.forEach((m, k) => { if (m.fork && m.fork.t != null) marks.push({t: m.fork.t, name: "fork", color: color(k), run: k, turn: k, label: `${m.id} forked from ${m.parent} after turn ${m.fork.turn}`}); });
    const table = el("table", {cls: "grp", id: "family-table"});
    const rows = [];
    const pick = (k) => { rows.forEach((r, j) => r.classList.toggle("sel", j === k)); ch.setCursor(k, ms[k].fork && ms[k].fork.t != null ? ms[k].fork.t : 0); };
    const ch = chart(chartHost, series, marks, {meta: meta, money: meta.timeline_money, ylabel: meta.timeline_label, laneLabels: ms.map((m) => m.id),
      endT: ms.map((m) => m.meta.end_t || 0), onPick: (k, t, turn) => { if (k >= 0) pick(k); }});
    const sec = el("div", {cls: "section"}, el("h2", {text: "Runs (a fork's row sits under its parent's)"}), table);
    root.appendChild(sec);
    const heads = ["", "run", "agent", "forked from", "fork point", "mode", "ending", "turns", String(meta.metric_label || "metric"), "change from the parent", ""];
    table.appendChild(el("tr", null, ...heads.map((h) => el("th", {text: h}))));
    const link = (id) => data.page_links && Object.prototype.hasOwnProperty.call(data.pages || {}, id) ? data.page_links.replace("{id}", encodeURIComponent(id)) : null;
    ms.forEach((m, k) => {
      const mm = m.meta, par = m.parent ? byId.get(m.parent) : null;
      const delta = par && mm.metric_value != null && par.meta.metric_value != null ? mm.metric_value - par.meta.metric_value : null;
      const when = m.fork ? `after turn ${m.fork.turn} · ${simDate(meta, m.fork.t || 0)}` : "";
      const links = el("td");
      const open = link(m.id), both = link(m.id + ".vs-parent");
      if (open) links.appendChild(el("a", {href: open, text: "open", cls: "open-run"}));
      if (both) { links.appendChild(document.createTextNode(" · ")); links.appendChild(el("a", {href: both, text: "beside its parent", cls: "open-pair"})); }
      if (!open) links.appendChild(el("span", {cls: "muted", text: "open the folder with --serve, or write it with --out, to read each run"}));
      const name = el("td", {style: `padding-left:${8 + 16 * (m.depth || 0)}px`, text: (m.depth ? "↳ " : "") + m.id});
      const row = el("tr", {"data-id": m.id}, el("td", null, el("i", {style: `display:inline-block;width:10px;height:10px;background:${color(k)}`})), name,
        el("td", {text: [mm.model || mm.agent].filter(Boolean).join("")}), el("td", {text: m.parent || (m.fork ? "(not in this folder)" : "")}),
        el("td", {text: when}), el("td", {text: m.fork ? String(m.fork.mode || "") : ""}), el("td", {text: String(mm.status || "").replace(/_/g, " ")}),
        el("td", {cls: "num", text: num(m.turns)}), el("td", {cls: "num", text: fmtValue(mm.metric_value, mm.metric_money)}),
        el("td", {cls: "num", text: delta == null ? "" : (delta > 0 ? "+" : delta < 0 ? "−" : "") + fmtValue(Math.abs(delta), mm.metric_money)}), links);
      row.addEventListener("click", (ev) => { if (ev.target.tagName !== "A") pick(k); });
      rows.push(row); table.appendChild(row);
    });
  }

  // ---- an arena: a lane per seat over simulated time, its marks on it, messages and transfers between lanes ----
  const LINK_COLORS = {message: "#2457c5", money: "#1a7f37", goods: "#c8553d"};
  function viewArena(root, data) {
    root.textContent = "";
    const m = data.meta, seats = data.seats || [], links = data.links || [];
    const who = [m.world, m.preset && m.preset !== "default" ? m.preset : null, m.seed != null ? "seed " + m.seed : null].filter(Boolean).join(" · ");
    const h = el("header", {cls: "top"}, el("h1", {text: "Arena: " + (who || "bizsim")}));
    const stat = (label, value) => h.appendChild(el("div", {cls: "stat"}, el("b", {text: value}), el("span", {text: label})));
    stat("seats", num(seats.length));
    if (m.ending || m.status) stat("ending", String(m.ending || m.status).replace(/_/g, " "));
    stat("messages", num(links.filter((l) => l.kind === "message").length));
    stat("transfers", num(links.filter((l) => l.kind !== "message").length));
    root.appendChild(h);
    const pr = problems(data.problems); if (pr) root.appendChild(pr);
    // Standings: the seats by rank (the world's metric, higher is better), each with its agent.
    const table = el("table", {cls: "grp", id: "arena-standings"});
    table.appendChild(el("tr", null, ...["rank", "seat", "agent", "ending", String(m.metric_label || "metric"), "turns", "commands"].map((x) => el("th", {text: x}))));
    for (const s of [...seats].sort((a, b) => (a.rank || 0) - (b.rank || 0) || a.seat - b.seat)) {
      table.appendChild(el("tr", {"data-seat": s.seat}, el("td", {text: String(s.rank == null ? "" : s.rank)}), el("td", {text: String(s.seat)}),
        el("td", null, el("i", {style: `display:inline-block;width:10px;height:10px;margin-right:6px;background:${PALETTE[s.seat % PALETTE.length]}`}), String(s.label || s.agent || "")),
        el("td", {text: String(s.ending || s.status || "").replace(/_/g, " ")}), el("td", {cls: "num", text: fmtValue(s.metric_value, m.metric_money)}),
        el("td", {cls: "num", text: num(s.turns)}), el("td", {cls: "num", text: num(s.commands)})));
    }
    root.appendChild(el("div", {cls: "section"}, el("h2", {text: "Standings"}), table));
    // The lanes.
    const W = 1000, L = 230, R = 20, LANE = 46, TOP = 10, n = Math.max(1, seats.length), H = TOP + n * LANE + 28;
    const t1 = Math.max(1, m.end_t || 0, ...links.map((l) => l.t || 0), ...seats.flatMap((s) => (s.marks || []).map((k) => k.t || 0)));
    const x = (t) => L + (W - L - R) * Math.min(1, Math.max(0, (t || 0) / t1));
    const row = new Map(seats.map((s, k) => [s.seat, k]));
    const y = (seat) => TOP + (row.has(seat) ? row.get(seat) : 0) * LANE + LANE / 2;
    const box = svg("svg", {viewBox: `0 0 ${W} ${H}`, id: "arena-lanes", style: `max-width:${W}px;height:auto`});
    const defs = svg("defs");
    for (const k in LINK_COLORS) {
      const mk = svg("marker", {id: "arrow-" + k, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse"});
      mk.appendChild(svg("path", {d: "M0,0 L10,5 L0,10 z", fill: LINK_COLORS[k]})); defs.appendChild(mk);
    }
    box.appendChild(defs);
    for (const v of timeTicks(m, t1)) {
      box.appendChild(svg("line", {x1: x(v), x2: x(v), y1: TOP, y2: H - 22, stroke: "#eef0f4"}));
      const tx = svg("text", {x: x(v), y: H - 6, "text-anchor": "middle", "font-size": 11, fill: "#5b6475"}); tx.textContent = tickDate(m, v, t1); box.appendChild(tx);
    }
    const detail = el("div", {cls: "section", id: "arena-detail"}, el("p", {cls: "muted", text: "Click a mark or an arrow to read it."}));
    const show = (title, lines) => { detail.textContent = ""; detail.appendChild(el("h2", {text: title})); for (const line of lines) detail.appendChild(pre(line)); };
    seats.forEach((s) => {
      const yy = y(s.seat), color = PALETTE[s.seat % PALETTE.length];
      box.appendChild(svg("line", {x1: L, x2: W - R, y1: yy, y2: yy, stroke: color, "stroke-width": 2, "stroke-opacity": 0.35, "pointer-events": "none"}));
      const lab = svg("text", {x: L - 10, y: yy - 3, "text-anchor": "end", "font-size": 12, "font-weight": 600}); const name = String(s.label || s.agent || "");  // a long name (an agent of your own) is cut; its title has it whole
      lab.textContent = "seat " + s.seat + ": " + (name.length > 20 ? name.slice(0, 19) + "…" : name);
      const whole = svg("title"); whole.textContent = name; lab.appendChild(whole); box.appendChild(lab);
      const sub = svg("text", {x: L - 10, y: yy + 12, "text-anchor": "end", "font-size": 11, fill: "#5b6475"}); sub.textContent = (m.metric_label || "metric") + " " + fmtValue(s.metric_value, m.metric_money); box.appendChild(sub);
      for (const k of s.marks || []) {
        const r = svg("rect", {x: x(k.t) - 2, y: yy - 9, width: 4, height: 8, fill: colorOf(k.name), class: "mk lane-mark", "data-seat": s.seat});
        const tip = svg("title"); tip.textContent = simDate(m, k.t || 0) + " · " + String(k.label || k.name); r.appendChild(tip);
        r.addEventListener("click", () => show("Seat " + s.seat + " · " + simDate(m, k.t || 0), [String(k.label || k.name)]));
        box.appendChild(r);
      }
    });
    // A link is read from its arrow or from its row below (a year's arrows a day apart overlap on the lanes).
    const arrows = [], linkRows = [];
    const pickLink = (i) => {
      const l = links[i];
      arrows.forEach((a, j) => a.firstChild.setAttribute("stroke-width", j === i ? 3.5 : 1.6));
      linkRows.forEach((r, j) => r.classList.toggle("sel", j === i));
      show(`${String(l.kind)}: seat ${l.from} → seat ${l.to} · ${simDate(m, l.t || 0)}`, [String(l.label || ""), ...(l.text != null ? [String(l.text)] : [])]);
    };
    links.forEach((l, i) => {
      const color = LINK_COLORS[l.kind] || "#555", xx = x(l.t), y0 = y(l.from), y2 = y(l.to);
      const dir = y2 > y0 ? 1 : -1;
      // A wide transparent twin takes the clicks: a 1.6-pixel arrow is hard to hit.
      const a = svg("g", {class: "link", "data-kind": l.kind, "data-i": i, style: "cursor:pointer"});
      const ends = {x1: xx, x2: xx + 6, y1: y0 + dir * 4, y2: y2 - dir * 4};
      a.appendChild(svg("line", {...ends, stroke: color, "stroke-width": 1.6, "marker-end": `url(#arrow-${LINK_COLORS[l.kind] ? l.kind : "message"})`}));
      a.appendChild(svg("line", {...ends, stroke: "transparent", "stroke-width": 10}));
      const tip = svg("title"); tip.textContent = `${simDate(m, l.t || 0)} · seat ${l.from} → seat ${l.to} · ${l.label || l.kind}`; a.appendChild(tip);
      a.addEventListener("click", () => pickLink(i));
      box.appendChild(a);
      arrows.push(a);
    });
    const key = el("div", {cls: "legend"}, el("span", {text: "Between seats:"}), ...Object.entries(LINK_COLORS).map(([k, c]) => el("label", null, el("i", {style: "background:" + c}), k === "message" ? "message" : k + " transfer")));
    const kinds = [...new Set(seats.flatMap((s) => (s.marks || []).map((k) => k.name)))].sort();
    const marksKey = el("div", {cls: "legend", id: "arena-mark-kinds"}, el("span", {text: "On the lanes:"}), ...kinds.map((n) => el("label", null, el("i", {style: "background:" + colorOf(n)}), kindWords(n))));
    root.appendChild(el("div", {cls: "section"}, el("h2", {text: "Seats over simulated time: each lane a seat, its decisions and events on it, arrows for messages and transfers"}), el("div", {cls: "chart"}, box), kinds.length ? marksKey : null, key));
    root.appendChild(detail);
    // Everything that passed between seats, in order.
    const list = el("table", {cls: "grp", id: "arena-links"});
    list.appendChild(el("tr", null, ...["when", "from", "to", "what", "text"].map((x) => el("th", {text: x, style: "text-align:left"}))));
    for (const [i, l] of links.entries()) {
      const row = el("tr", {"data-kind": l.kind, style: "cursor:pointer"}, el("td", {text: simDate(m, l.t || 0)}), el("td", {text: "seat " + l.from}), el("td", {text: "seat " + l.to}),
        el("td", {text: String(l.label || l.kind)}), el("td", {style: "text-align:left;white-space:normal;max-width:480px", text: l.text == null ? "" : String(l.text)}));
      row.addEventListener("click", () => pickLink(i));
      linkRows.push(row); list.appendChild(row);
    }
    root.appendChild(el("div", {cls: "section"}, el("h2", {text: "Messages and transfers"}), links.length ? list : el("p", {cls: "muted", text: "None: the seats met only in the market."})));
  }

  // ---- an Inspect log: its samples, each opening its transcript --------------------------------------------
  function viewInspect(root, data) {
    root.textContent = "";
    const m = data.meta, rows = data.rows;
    const folder = m.logs != null;  // a folder of logs: every log's samples, each row naming its log
    root.appendChild(el("header", {cls: "top"}, el("h1", {text: (folder ? "Inspect logs: " : "Inspect log: ") + m.task}),
      folder ? el("div", {cls: "stat"}, el("b", {text: num(m.logs)}), el("span", {text: m.logs === 1 ? "log" : "logs"})) : null,
      el("div", {cls: "stat"}, el("b", {text: m.model}), el("span", {text: "model"})),
      el("div", {cls: "stat"}, el("b", {text: num(rows.length)}), el("span", {text: rows.length === 1 ? "sample" : "samples"})),
      el("div", {cls: "stat"}, el("b", {text: String(m.status)}), el("span", {text: "status"})),
      el("div", {cls: "stat"}, el("b", {text: String(m.created || "").replace("T", " ").slice(0, 19)}), el("span", {text: "created"}))));
    const pr = problems(data.problems); if (pr) root.appendChild(pr);
    const table = el("table", {cls: "grp", id: "samples-table"});
    root.appendChild(el("div", {cls: "section"}, el("h2", {text: "Samples (one bizsim episode each; open one to read its transcript)"}), table));
    table.appendChild(el("tr", null, ...[folder ? "log" : null, "sample", "epoch", "world", "preset", "seed", "score", "ending", "tokens", "model cost", ""].filter((h) => h != null).map((h) => el("th", {text: h}))));
    for (const r of rows) {
      const href = data.page_links ? data.page_links.replace("{id}", encodeURIComponent(r.page)) : null;
      const open = el("td", null, href ? el("a", {href: href, text: "transcript", cls: "open-sample"}) : el("span", {cls: "muted", text: "write the page with --out, or --serve, to read it"}));
      table.appendChild(el("tr", {"data-page": r.page}, folder ? el("td", {text: String(r.log || ""), title: String(r.log || ""), style: "max-width:300px;overflow:hidden;text-overflow:ellipsis"}) : null, el("td", {text: r.id}), el("td", {cls: "num", text: String(r.epoch)}), el("td", {text: r.world}), el("td", {text: r.preset}),
        el("td", {cls: "num", text: r.seed == null ? "" : String(r.seed)}),
        el("td", {cls: "num", text: r.value == null ? "" : (r.metric_label ? r.metric_label + ": " : "") + fmtValue(r.value, r.money)}),
        el("td", {text: String(r.status).replace(/_/g, " ")}), el("td", {cls: "num", text: num(r.tokens)}), el("td", {cls: "num", text: r.cost_usd == null ? "" : usd(r.cost_usd)}), open));
    }
  }

  function dotPlot(gs) {
    const host = el("div", {cls: "dots"});
    const W = 900, rowH = 26, L = 260, R = 50, H = gs.length * rowH + 30;
    const s = svg("svg", {viewBox: `0 0 ${W} ${H}`, style: `max-width:${W}px;height:auto`});
    const all = gs.flatMap((g) => g.values.concat(g.ci_low != null ? [g.ci_low, g.ci_high] : []));
    const ext = niceTicks(Math.min(0, ...all), Math.max(1e-9, ...all), 5);
    const lo = ext[0], hi = ext[ext.length - 1];
    const x = (v) => L + (W - L - R) * (v - lo) / (hi - lo || 1);
    gs.forEach((g, k) => {
      const y = 12 + k * rowH;
      const lab = svg("text", {x: L - 8, y: y + 4, "text-anchor": "end", "font-size": 12}); lab.textContent = g.name || [g.world, g.preset, g.agent, g.model, ...Object.entries(g.options || {}).filter(([, v]) => v != null).map(([k, v]) => k.replace(/_/g, " ") + " " + v)].filter(Boolean).join(" · "); s.appendChild(lab);
      for (const v of g.values) s.appendChild(svg("circle", {cx: x(v), cy: y, r: 3, fill: PALETTE[k % PALETTE.length], "fill-opacity": 0.45}));
      if (g.ci_low != null) s.appendChild(svg("line", {x1: x(g.ci_low), x2: x(g.ci_high), y1: y, y2: y, stroke: "#111", "stroke-width": 2}));
      if (g.mean != null) s.appendChild(svg("rect", {x: x(g.mean) - 1.5, y: y - 7, width: 3, height: 14, fill: "#111"}));
    });
    for (const v of niceTicks(lo, hi, 5)) {
      if (v < lo || v > hi) continue;
      s.appendChild(svg("line", {x1: x(v), x2: x(v), y1: 2, y2: H - 18, stroke: "#eef0f4"}));
      const t = svg("text", {x: x(v), y: H - 4, "text-anchor": "middle", "font-size": 11, fill: "#5b6475"});
      t.textContent = tick(v, gs[0].money); s.appendChild(t);
    }
    host.appendChild(s);
    host.appendChild(el("div", {cls: "muted", style: "font-size:12px", text: (gs[0].metric_label || gs[0].metric) + ": each dot a run" + (gs.some((g) => g.n > g.values.length) ? " (at most 400 a group)" : "") + ", black bar the mean, line its 95 % confidence interval"}));
    return host;
  }

  // ---- start, and follow a run still being written -------------------------------------------------------
  const root = document.getElementById("app");
  let data = JSON.parse(document.getElementById("bizsim-data").textContent);
  const state = {};
  let view = null;
  let onResize = null;
  window.addEventListener("resize", () => { if (onResize) onResize(); });
  function show() {
    root.classList.toggle("fill", data.kind === "run" || data.kind === "compare");
    onResize = null;
    if (data.kind === "run") view = viewRun(root, data, state);
    else if (data.kind === "compare") viewCompare(root, data);
    else if (data.kind === "sweep") viewSweep(root, data);
    else if (data.kind === "family") viewFamily(root, data);
    else if (data.kind === "inspect") viewInspect(root, data);
    else if (data.kind === "arena") viewArena(root, data);
    else root.appendChild(el("div", {cls: "empty", text: "Nothing this viewer knows how to show (" + String(data.kind) + ")."}));
    // A page opened from a sweep, a family or an Inspect log links back to it (a relative link, never elsewhere).
    const back = data.back;
    if (back && typeof back.href === "string" && /^(\/|\.\.\/)[^:]*$/.test(back.href)) {
      root.prepend(el("nav", {cls: "back"}, el("a", {href: back.href, id: "back", text: "← " + String(back.text || "back")})));
    }
    document.body.dataset.ready = "1";
  }
  show();
  const live = document.body.dataset.follow;
  if (live) {
    let version = document.body.dataset.version || "";
    // One poll at a time: the next waits for this one's answer (a long run's page can take seconds to build).
    const poll = async () => {
      try {
        const res = await fetch(live + "?since=" + encodeURIComponent(version), {cache: "no-store"});
        if (res.status === 200) {
          version = res.headers.get("X-Bizsim-Version") || version;
          data = await res.json();
          state.atEnd = view && view.isAtEnd ? view.isAtEnd() : false;
          state.follow = state.atEnd;
          if (view && view.pane) state.turn = view.pane.selected;
          show();
        }
      } catch (e) { /* the server stopped, or answered badly: keep what is shown, ask again */ }
      setTimeout(poll, 2000);
    };
    setTimeout(poll, 2000);
  }
})();

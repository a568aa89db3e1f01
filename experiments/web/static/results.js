// The Results tab: the run folders of the runs folder, a run's leaderboard, learning curves (plotted here),
// plots, summary and game records. See app.js.
"use strict";

const fmt = (x, d = 2) => (x === null || x === undefined || x === "" ? "-" : typeof x === "number" ? (Number.isInteger(x) ? x.toLocaleString("en") : x.toFixed(d)) : String(x));
const fmtCi = (m, pct) => {
  if (!m || m.mean === null || m.mean === undefined) return "-";
  const k = pct ? 100 : 1, d = pct ? 1 : 2;
  return `${(m.mean * k).toFixed(d)}${pct ? "%" : ""}` + (m.half_width !== undefined && m.half_width !== null ? ` \u00B1 ${(m.half_width * k).toFixed(d)}` : "");
};
// a plot's alt text in words: what it shows and of which run ("ratings.png" -> "Plot: ratings, run tournament of <game>")
const plotWords = (file, run) => `Plot: ${file.split("/").pop().replace(/\.[a-z]+$/i, "").replace(/[_-]+/g, " ")}, ${run.kind || "run"} of ${run.game || "a game"}`;
const COLORS = ["#15604e", "#a3211a", "#1a4fa0", "#8a5a00", "#6a2c8f", "#3d3d3d"];

function lineChart(title, series, xLabel, yLabel, opts = {}) {
  // series: [{name, points: [[x, y, ci]]}]
  const W = Math.round(Math.max(300, Math.min(540, window.innerWidth - 44))), H = 290, L = 56, R = 26, T = 26, B = 44;
  const pts = series.flatMap((s) => s.points);
  if (!pts.length) return null;
  let x0 = Math.min(...pts.map((p) => p[0])), x1 = Math.max(...pts.map((p) => p[0]));
  let y0 = Math.min(...pts.map((p) => p[1] - (p[2] || 0))), y1 = Math.max(...pts.map((p) => p[1] + (p[2] || 0)));
  if (opts.y0 !== undefined) y0 = Math.min(y0, opts.y0);
  if (opts.y1 !== undefined) y1 = Math.max(y1, opts.y1);
  if (opts.pct) { y0 = Math.max(0, y0); y1 = Math.min(1, y1); }
  if (x1 === x0) { x0 -= 1; x1 += 1; }
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const sx = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y) => T + (1 - (Math.min(y1, Math.max(y0, y)) - y0) / (y1 - y0)) * (H - T - B);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": title });
  s.append(svg("text", { x: 4, y: 16, "text-anchor": "start", "font-size": 13, fill: "#1d1d1d" }, `\u2191 ${yLabel}`));
  for (let k = 0; k <= 4; k++) {
    const y = y0 + ((y1 - y0) * k) / 4;
    s.append(svg("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), stroke: "#dddddd" }));
    s.append(svg("text", { x: L - 6, y: sy(y) + 4, "text-anchor": "end", "font-size": 13, fill: "#3a3a3a" }, opts.pct ? `${Math.round(y * 100)}%` : Math.abs(y) >= 100 ? y.toFixed(0) : y.toFixed(1)));
  }
  for (let k = 0; k <= 4; k++) {
    const x = x0 + ((x1 - x0) * k) / 4;
    s.append(svg("text", { x: sx(x), y: H - B + 18, "text-anchor": k === 0 ? "start" : k === 4 ? "end" : "middle", "font-size": 13, fill: "#3a3a3a" }, x >= 1e6 ? `${(x / 1e6).toFixed(1)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(0)}k` : x.toFixed(0)));
  }
  s.append(svg("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle", "font-size": 13, fill: "#1d1d1d" }, xLabel));
  const colorOf = (ser, k) => COLORS[Math.floor(ser.color ?? k) % COLORS.length];
  series.forEach((ser, k) => {
    const c = colorOf(ser, k);
    const P = ser.points.slice().sort((a, b) => a[0] - b[0]);
    if (P.some((p) => p[2])) {
      const band = P.map((p) => `${sx(p[0])},${sy(p[1] + (p[2] || 0))}`).concat(P.slice().reverse().map((p) => `${sx(p[0])},${sy(p[1] - (p[2] || 0))}`));
      s.append(svg("polygon", { points: band.join(" "), fill: c, "fill-opacity": 0.15, stroke: "none" }));
    }
    s.append(svg("polyline", { points: P.map((p) => `${sx(p[0])},${sy(p[1])}`).join(" "), fill: "none", stroke: c, "stroke-width": 2.5, "stroke-dasharray": ser.dashed ? "6 4" : null }));
    for (const p of P) s.append(svg("circle", { cx: sx(p[0]), cy: sy(p[1]), r: 3, fill: c }));
  });
  const legend = el("div", { class: "legend" }, series.map((ser) => el("span", {}, el("span", { class: "sw" + (ser.dashed ? " dashed" : ""), "aria-hidden": "true" }), ser.name)));
  $$(".sw", legend).forEach((sw, k) => { sw.style.borderColor = colorOf(series[k], k); });
  return el("div", { class: "chart" }, el("div", { class: "chart-title", text: title }), s, legend);
}

function curveCharts(rows) {
  const num = (x) => (x === undefined || x === "" || x === null ? NaN : Number(x));
  const xKey = ["decisions", "env_steps", "update"].find((k) => rows[0][k] !== undefined);
  const groups = {};
  for (const r of rows) (groups[r.baseline || "learner"] = groups[r.baseline || "learner"] || []).push(r);
  const charts = [];
  const scoreName = rows[0].score_name || "score";
  if (rows[0].score_mean !== undefined) {
    const series = [];
    for (const [b, rs] of Object.entries(groups)) {
      series.push({ name: `learner vs ${b}`, color: series.length / 2, points: rs.map((r) => [num(r[xKey]), num(r.score_mean), num(r.score_ci) || 0]).filter((p) => isFinite(p[0]) && isFinite(p[1])) });
      if (rs[0].opp_score_mean !== undefined) series.push({ name: `${b} (its own mean, same games)`, dashed: true, color: (series.length - 1) / 2, points: rs.map((r) => [num(r[xKey]), num(r.opp_score_mean), 0]).filter((p) => isFinite(p[0]) && isFinite(p[1])) });
    }
    charts.push(lineChart(`Mean ${scoreName} per game (${scoreName === "score" ? "lower" : "higher"} is better)`, series, `learner ${xKey.replace("_", " ")}`, scoreName));
  }
  if (rows[0].win_mean !== undefined) {
    charts.push(lineChart("Win rate", Object.entries(groups).map(([b, rs], k) => ({ name: `learner vs ${b}`, color: k, points: rs.map((r) => [num(r[xKey]), num(r.win_mean), num(r.win_ci) || 0]).filter((p) => isFinite(p[0]) && isFinite(p[1])) })), `learner ${xKey.replace("_", " ")}`, "win rate", { pct: true, y0: 0 }));
  }
  const means = Object.keys(rows[0]).filter((k) => k.endsWith("_mean") && !["score_mean", "opp_score_mean", "win_mean", "diff_mean"].includes(k));
  for (const k of means) charts.push(lineChart(k.replace(/_/g, " "), [{ name: k, points: rows.map((r) => [num(r[xKey]), num(r[k]), 0]).filter((p) => isFinite(p[0]) && isFinite(p[1])) }], xKey.replace("_", " "), k.replace(/_/g, " ")));
  return charts.filter(Boolean);
}

function flatten(obj, prefix = "", out = []) {
  for (const [k, v] of Object.entries(obj || {})) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length && out.length < 80) flatten(v, key, out);
    else out.push([key, Array.isArray(v) ? (v.length <= 6 ? v.map((x) => (typeof x === "object" ? JSON.stringify(x) : fmt(x))).join(", ") : `${v.length} items`) : fmt(v)]);
  }
  return out;
}

// a server's file path is no reader's business: shown as its last part (a file name), never whole
const PATHY = /^(\/|~\/|[A-Za-z]:[\\/])|(^|\/)\.\.?\//;
const PREFIXED = /^([a-z][a-z0-9_-]*:)(.*)$/i;  // "ckpt:/srv/.../run": the name kept, the path reduced
function noPaths(x) {
  if (typeof x === "string") {
    const m = x.match(PREFIXED);
    if (m && PATHY.test(m[2])) return m[1] + noPaths(m[2]);
    return PATHY.test(x) ? (x.split(/[\\/]/).filter(Boolean).pop() || "") : x;
  }
  if (Array.isArray(x)) return x.map(noPaths);
  if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, noPaths(v)]));
  return x;
}

const SUMMARY_ROWS = 10;
function summaryTable(summary) {
  // the first few plain facts as a short table; the rest behind "all fields"; paths reduced to file names
  const rows = flatten(noPaths(summary)).filter(([k]) => !/(^|\.)(path|dir|out|file|folder|run_dir|checkpoint_path)$/i.test(k));
  const short = rows.filter(([k, v]) => !k.includes(".") || k.split(".").length === 2).slice(0, SUMMARY_ROWS);
  const rest = rows.filter((r) => !short.includes(r));
  const table = (list) => el("table", { class: "board kv-table" }, list.map(([k, v]) => el("tr", {}, el("th", { class: "wrap-anywhere", text: k.replace(/_/g, " ") }), el("td", { class: "num wrap-anywhere", text: v }))));
  const box = el("div", {}, el("div", { class: "table-wrap" }, table(short)));
  if (rest.length) box.append(el("details", {}, el("summary", { text: `all fields (${rows.length})` }), el("div", { class: "table-wrap" }, table(rest))));
  return box;
}

async function loadRuns() {
  const box = $("#runs");
  try {
    const data = await api("GET", "/api/runs");
    box.replaceChildren(el("div", { class: "section-title", text: "Runs" }));
    if (!data.runs.length) { box.append(el("div", { text: "No runs yet: play a game here, or run `make demo` or `python -m fiveplay_env.experiments.tournament ... --record`." })); return; }
    const list = el("div", { class: "runs-list", id: "runs-table" });
    for (const r of data.runs) {
      list.append(el("div", { class: "run-card" },
        el("a", { class: "link name", href: `#results/${encodeURIComponent(r.name)}`, text: r.name }),
        el("div", { class: "small", text: `${r.kind} \u00B7 ${r.game || "-"} \u00B7 ${plural(r.records.length, "record")} \u00B7 ${plural(r.plots.length, "plot")}${r.checkpoint ? " \u00B7 checkpoint" : ""}` })));
    }
    box.append(list);
  } catch (e) { box.replaceChildren(el("div", { class: "message", text: e.message })); }
}

async function loadRun(name) {
  const box = $("#run-detail");
  try {
    const r = await api("GET", `/api/runs/${encodeURIComponent(name)}`);
    const title = el("h2", { class: "wrap-anywhere", text: r.name });
    box.replaceChildren(title);
    const first = [];  // the plots come first (a phone shows them before any table)
    const s = r.summary;
    if (s && s.entrants) {
      const metrics = (s.metrics || []).map((m) => m.name);
      const head = ["#", "entrant", "games", "win rate", ...metrics, "rating \u03BC \u00B1 \u03C3", "ms/decision"];
      const t = el("table", { class: "board", id: "leaderboard" }, el("tr", {}, ...head.map((h, k) => el("th", { class: (k >= 2 ? "num" : "") + (k >= head.length - 2 ? " hide-phone" : ""), text: h }))));
      const ents = s.entrants.slice().sort((a, b) => b.rating.ordinal - a.rating.ordinal);
      ents.forEach((e, i) => t.append(el("tr", {}, el("td", { text: i + 1 }), el("td", { class: "wrap-anywhere", text: e.entrant }), el("td", { class: "num", text: e.games }),
        el("td", { class: "num", text: fmtCi(e.win_rate, true) }), ...metrics.map((m) => el("td", { class: "num", text: fmtCi(e.metrics[m]) })),
        el("td", { class: "num hide-phone", text: `${fmt(e.rating.mu)} \u00B1 ${fmt(e.rating.sigma)}` }), el("td", { class: "num hide-phone", text: fmt(e.ms_per_decision) }))));
      box.append(el("div", { class: "section-title", text: `Leaderboard (${s.games_completed} of ${s.games_planned} games; 95% intervals)` }), el("div", { class: "table-wrap" }, t));
    } else if (s) {
      box.append(el("div", { class: "section-title", text: "Summary" }), el("div", { class: "panel", id: "summary-table" }, summaryTable(s)));
    }
    if (r.curves && r.curves.length) {
      const charts = curveCharts(r.curves);
      first.push(el("div", { class: "section-title", text: `Learning curves (${plural(r.curves.length, "evaluation")})` }), el("div", { class: "charts", id: "curve-charts" }, charts));
      const last = {};
      for (const row of r.curves) last[row.baseline || "learner"] = row;
      if (Object.values(last)[0].score_mean !== undefined) {
        const name = Object.values(last)[0].score_name || "score";
        const t = el("table", { class: "board", id: "curves-last" }, el("tr", {}, ...["against", `learner\u2019s ${name}`, "theirs", "win rate"].map((h, k) => el("th", { class: k ? "num" : "", text: h }))));
        for (const [b, row] of Object.entries(last)) {
          const pm = (m, c, pct) => (m === undefined || m === "" ? "-" : pct ? `${(Number(m) * 100).toFixed(1)}% \u00B1 ${(Number(c || 0) * 100).toFixed(1)}` : `${Number(m).toFixed(2)} \u00B1 ${Number(c || 0).toFixed(2)}`);
          t.append(el("tr", {}, el("td", { class: "wrap-anywhere", text: b }), el("td", { class: "num nowrap", text: pm(row.score_mean, row.score_ci) }),
            el("td", { class: "num nowrap", text: pm(row.opp_score_mean, row.opp_score_ci) }), el("td", { class: "num nowrap", text: pm(row.win_mean, row.win_ci, true) })));
        }
        const lastRow = Object.values(last)[0];
        box.append(el("div", { class: "section-title", text: `Last evaluation: after ${fmt(Number(lastRow.decisions))} decisions, ${lastRow.games || "?"} games each (95% intervals)` }), el("div", { class: "table-wrap" }, t));
      }
    }
    if (r.plots.length) {
      first.push(el("div", { class: "section-title", text: "Plots" }),
        el("div", { class: "plots" }, r.plots.map((p) => el("img", { src: `/files/${encodeURIComponent(r.name)}/${encodeURIComponent(p)}`, alt: plotWords(p, r), title: p }))));
    }
    if (r.records.length) {
      const list = el("div", { class: "records" });
      for (const f of r.records) {
        const m = f.match(/^records\/(.+)\.jsonl$/);
        list.append(m ? el("a", { class: "link replay-link", href: `#replay/${encodeURIComponent(r.name)}/${encodeURIComponent(m[1])}`, text: m[1] })
          : el("button", { type: "button", class: "link replay-link", text: f, onclick: () => { location.hash = "#replays"; openReplay({ kind: "file", file: `${r.name}/${f}`, index: 0 }); } }));
      }
      box.append(el("div", { class: "section-title", text: `Game records (${r.records.length}): click to replay` }), list);
    }
    if (r.config) box.append(el("details", { class: "panel" }, el("summary", { text: "config.json" }), el("pre", { text: JSON.stringify(noPaths(r.config), null, 1) })));
    title.after(...first);
  } catch (e) { box.replaceChildren(el("div", { class: "message", text: e.message })); }
}


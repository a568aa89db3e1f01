// fiveplay web app: Play, Replays, Results, Rules. Plain JS, no build step. The server decides what a seat sees;
// these files only draw what they are sent and send the human's moves. Your games' ids and tokens live in
// localStorage (a reload resumes them); every request for a game carries its token in a header.
//
// The files (classic scripts sharing one global scope, loaded in this order by index.html): app.js (this
// one: helpers, the server's API, seat names, the game views' registry and the generic view, the tabs and
// the start), play.js (the Play tab: the table, your hand, the events played back, the result, the log),
// bots.js (the new-game panel, hints and the bot's view), replays.js, results.js, rules.js. Each game is
// drawn by the view its server entry names (/api/meta: games[game].view.kind, a declared fact of the game's
// web view, experiments/web/games): a script of static/ (view.script) registers that kind with registerView
// and is loaded at the start; a game without one is drawn by the generic view below.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined && kid !== false) e.append(kid);
  return e;
};
const SVGNS = "http://www.w3.org/2000/svg";
const svg = (tag, attrs = {}, text) => {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const range = (n) => Array.from({ length: n }, (_, i) => i);
const ordinal = (k) => `${k}${k % 10 === 1 && k % 100 !== 11 ? "st" : k % 10 === 2 && k % 100 !== 12 ? "nd" : k % 10 === 3 && k % 100 !== 13 ? "rd" : "th"}`;
const capital = (s) => s.replace(/^./, (c) => c.toUpperCase());

let META = null;
const RULES = {};  // per game: its rules for players (GET /api/rules/GAME): sections, each card's explanation
// a touch screen (no hover, a coarse pointer): no key badges, and a tap selects a card before a second tap plays it
const TOUCH = window.matchMedia("(hover: none) and (pointer: coarse)").matches;
const params = new URLSearchParams(location.search);
const SPEEDS = { slow: 1100, normal: 550, fast: 120, instant: 0 };
const store = {
  get(key, def) { try { const v = localStorage.getItem("fiveplay." + key); return v === null ? def : JSON.parse(v); } catch (e) { return def; } },
  set(key, v) { try { localStorage.setItem("fiveplay." + key, JSON.stringify(v)); } catch (e) { /* private mode */ } },
};
let SPEED = params.get("speed") in SPEEDS ? params.get("speed") : store.get("speed", "normal");
const stepMs = () => SPEEDS[SPEED] ?? SPEEDS.normal;
const compact = () => window.innerWidth < 600;
function clientId() {
  let id = store.get("client", null);
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    const a = new Uint8Array(12); crypto.getRandomValues(a);
    id = Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
    store.set("client", id);
  }
  return id;
}

async function api(method, path, body, token) {
  const opts = { method, headers: { "X-Client": clientId() } };
  if (token) opts.headers["X-Game-Token"] = token;
  if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
  const res = await fetch(path, opts);
  let data = null;
  const text = await res.text();
  try { data = JSON.parse(text); } catch (e) { data = res.ok ? text : { error: `${res.status} ${res.statusText}` }; }
  if (!res.ok) { const err = new Error(data && data.error ? data.error : `${res.status} ${res.statusText}`); err.status = res.status; throw err; }
  return data;
}

// ------------------------------------------------------------------------------------------- seats
function shortName(n) {
  if (!n) return "";
  if (n.startsWith("pretrained:")) return n.slice(11).split("?")[0];
  if (n.startsWith("ismcts")) {
    const sims = n.match(/sims=(\d+)/), time = n.match(/time=([\d.]+)/);
    return `${n.includes("prior=") ? "guided search" : "search"}${sims ? ` ${sims[1]}` : time ? ` ${time[1]}s` : ""}`;
  }
  if (n.startsWith("ckpt:")) { const base = n.slice(5).split("?")[0].split("/").filter(Boolean).pop() || n; return `ckpt ${base.length > 18 ? "\u2026" + base.slice(-16) : base}`; }
  return n.length > 24 ? n.slice(0, 22) + "\u2026" : n;
}

function seatName(names, p, viewer) {
  if (p === null || p === undefined || p < 0) return "-";
  const n = names && names[p] ? shortName(names[p]) : "";
  if (viewer === p && n === "you") return `P${p} (you)`;
  return n ? `P${p} ${n}` : `P${p}`;
}
const nameText = (text, names, viewer) => (text || "").replace(/\bP(\d+)\b/g, (m, d) => seatName(names, Number(d), viewer));
const colName = (snap, p) => (p === snap.seat ? "you" : `P${p}`);
const gameTitle = (game) => (META && META.games[game] ? META.games[game].title : game);

// ------------------------------------------------------------------------------------------- game views
// A view draws one kind of game table. Its hooks (a view registered without one gets the generic view's):
//   table(area, v, o)                      the table v (the server's view) for viewer o.viewer, names o.names
//   playTable(g, area, o)                  the table of your game g (o: what the caller overrides)
//   replayTable(area, v, f, o)             a replay's frame f (its view already cut to the chosen seat: v)
//   hidden(f, seat)                        null, or {words, events} when seat could not see f's move
//   yourTurn(snap, keys), isOut(snap)      the turn bar's words on your turn; whether you are out
//   dock(g, hand, button, legal)           your cards (button(face, action, key, count, label) makes one)
//   actionName(a, snap), confirmText(a, name), notPlayable(snap), optimistic(a), hoverHelp(a), pickHelp(a)
//   keysHelp, onKey(g, k, ev)              the dock's keys
//   animate(g, events, prevView, base, {ms, say}), roundEnd(events)
//   roundSummary(g, box), resultBody(g, box), endReason(g), resultText(snap)
//   inView(g)                              on your turn: scroll what the move is about into view (keepInView)
//   logText(e, names, viewer), logClass(e) (null: not logged)
//   policyHint(t), searchValue(c), searchSuffix, valueText(t)   the bot's view in the game's units
//   rulesExtra(game, section)              a rules section of cards drawn its own way (null: as text)
const VIEWS = {};
function registerView(kind, hooks) { VIEWS[kind] = { ...VIEWS.generic, ...hooks, kind }; }
const viewData = (game) => (META && META.games[game] ? META.games[game].view : { kind: "generic" });
const viewOf = (game) => VIEWS[viewData(game).kind] || VIEWS.generic;
const moveName = (a, snap) => (snap && snap.view && snap.view.actions && snap.view.actions[String(a)]) || `action ${a}`;

function renderGenericTable(area, v, o) {
  area.replaceChildren();
  const players = el("div", { class: "players" });
  for (let p = 0; p < v.num_players; p++) {
    const state = v.over ? (v.winners.includes(p) ? "won" : "lost") : p === v.current ? "to play" : "waiting";
    players.append(el("div", { class: "player" + (p === v.current && !v.over ? " turn" : "") + (p === o.viewer ? " me" : ""), "data-seat": p,
                               title: o.names && o.names[p] ? o.names[p] : null },
      el("div", { class: "name", text: seatName(o.names, p, o.viewer) }), el("div", { class: "small", text: state })));
  }
  const tail = v.over ? "game over" : `${seatName(o.names, v.current, o.viewer)} to play`;
  area.append(el("div", { class: "section-title table-title", id: "table-title", "data-round": 1, text: `${gameTitle(v.game)} \u00B7 ${tail}` },
    rulesButton(v.game)), players);
  area.append(el("div", { class: "event-text", id: "event-text", "aria-live": "polite", text: nameText(o.eventText || "", o.names, o.viewer) }));
  if (v.observation) {
    area.append(el("div", { class: "section-title", text: "What you see (your observation)" }),
      el("div", { class: "observation wrap-anywhere", id: "observation", text: v.observation.join(" ") }));
  }
  if (v.outcome) area.append(el("div", { class: "section-title", text: "Outcome" }), summaryTable(v.outcome));
}

VIEWS.generic = {
  kind: "generic",
  table: renderGenericTable,
  playTable(g, area, o) {
    if (o.eventText === undefined) { const last = g.events.filter((e) => e.text).pop(); o.eventText = last ? last.text : ""; }
    viewOf(g.snap.game).table(area, g.snap.view, o);
  },
  replayTable(area, v, f, o) { viewOf(v.game).table(area, v, { ...o, eventText: f.events.map((e) => e.text).join(" \u00B7 ") }); },
  hidden: (f, seat) => (seat !== null && f.player !== null && f.player !== seat ? { words: "moves", events: true } : null),
  yourTurn: () => [confirmOn() ? "Your turn: tap a move, then tap it again (or Play) to play it" : "Your turn: choose a move", "mine"],
  isOut: () => false,
  dock(g, hand, button) {
    const snap = g.snap;
    snap.legal.forEach((a, i) => {
      const name = viewOf(snap.game).actionName(a, snap);
      hand.append(button(el("span", { class: "move-face", text: name }), a, i < 10 ? String((i + 1) % 10) : "", 1, name));
    });
    if (!snap.legal.length && !snap.over) hand.append(el("span", { class: "small", text: "not your turn" }));
  },
  actionName: moveName,
  confirmText: (a, name) => `Play ${name}`,
  notPlayable: () => "",
  optimistic: () => null,
  hoverHelp: () => "",
  pickHelp: () => "",
  keysHelp: "Keys: \u2190 \u2192 move \u00B7 Enter play \u00B7 1\u20139, 0: that move \u00B7 H hint \u00B7 T bot\u2019s view",
  onKey(g, k, ev) {
    if (!/^[0-9]$/.test(k)) return;
    ev.preventDefault();
    const a = g.snap.legal[(k === "0" ? 10 : Number(k)) - 1];
    if (a !== undefined) humanAction(a);
  },
  async animate(g, events, prevView, base, { ms, say }) {
    const snap = g.snap, view = viewOf(snap.game);
    for (let k = 0; k < events.length; k++) {
      if (g.skip) return;
      const e = events[k];
      view.table($("#play-area"), snap.view, { viewer: snap.seat, names: snap.names, eventText: e.text || "" });
      noteShown(base + k); say(e.text || "");
      await pause(g, ms);
    }
  },
  roundEnd: () => null,
  roundSummary: () => {},
  inView: () => {},
  resultBody(g, box) {
    const snap = g.snap, v = snap.view;
    const t = el("table", { class: "board", id: "ranking" }, el("tr", {}, el("th", { text: "player" }), el("th", { text: "result" })));
    for (let p = 0; p < v.num_players; p++) t.append(el("tr", {}, el("td", { text: seatName(snap.names, p, snap.seat) }), el("td", { text: v.winners.includes(p) ? "won" : "lost" })));
    box.append(el("div", { class: "table-wrap" }, t));
  },
  endReason: () => "",
  resultText: (snap) => (snap.view.winners.includes(snap.seat) ? "won" : "lost"),
  logText: (e, names, viewer) => nameText(e.text || e.type, names, viewer),
  logClass: (e) => (e.type === "round_end" || e.type === "game_over" ? " ev-round" : ""),
  policyHint: () => "",
  searchValue: (c) => (c.mean === null ? "-" : c.mean.toFixed(2)),
  searchSuffix: " (higher is better)",
  valueText: (t) => `value ${t.value.toFixed(3)}: its estimate of its return from here (training units)`,
  rulesExtra: () => null,
};

async function loadViews() {  // each game's drawing code, named by the server (a script of static/)
  const scripts = [...new Set(Object.values(META.games).map((m) => m.view.script).filter(Boolean))];
  await Promise.all(scripts.map((s) => new Promise((ok, fail) => {
    document.head.append(el("script", { src: `/static/${encodeURIComponent(s)}`, onload: ok, onerror: () => fail(new Error(`the game view ${s} did not load`)) }));
  })));
}

// ------------------------------------------------------------------------------------------ tabs
function showTab() {
  const parts = (location.hash || "#play").slice(1).split("/");
  let tab = parts[0] || "play";
  if (tab === "replay" || tab === "shared") tab = "replays";
  if (!["play", "replays", "results", "rules"].includes(tab)) tab = "play";
  for (const s of $$(".tab")) s.classList.toggle("active", s.id === `tab-${tab}`);
  for (const a of $$("nav a")) { a.classList.toggle("active", a.dataset.tab === tab); if (a.dataset.tab === tab) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current"); }
  document.body.classList.toggle("playing", tab === "play" && !!cur());
  if (tab !== "replays") stopAutoplay();
  if (tab === "rules") renderRulesPage(parts[1] && RULES[parts[1]] ? parts[1] : (cur() ? cur().snap.game : Object.keys(META.games)[0]));
  if (tab === "results") { loadRuns(); if (parts[1]) loadRun(decodeURIComponent(parts[1])); else $("#run-detail").replaceChildren(); }
  if (tab === "replays") {
    if (parts[0] === "replay" && parts[1] && parts[2]) {
      const run = decodeURIComponent(parts[1]), game = decodeURIComponent(parts[2]);
      loadRecordFiles(`${run}/records/${game}.jsonl`).catch(() => {});
      if (!rp.src || rp.src.run !== run || rp.src.game !== game) openReplay({ kind: "run", run, game });
    } else if (parts[0] === "shared" && parts[1]) {  // a share link (#shared/TOKEN): one game of another player's, or yours
      let token = parts[1];
      try { token = decodeURIComponent(token); } catch (e) { /* a malformed link: the server says it is not found */ }
      loadRecordFiles().catch(() => {});
      if (!rp.src || rp.src.kind !== "share" || rp.src.token !== token) openReplay({ kind: "share", token });
    } else loadRecordFiles().catch((e) => { $("#replay-message").textContent = e.message; });
    renderMyGames();
  }
}

async function main() {
  META = await api("GET", "/api/meta");
  await Promise.all([loadViews(), loadRules()]);
  document.body.classList.toggle("touch", TOUCH);
  for (const id of ["#speed", "#setup-speed"]) {  // the speed, in the dock and in the new-game panel (set before a game)
    $(id).value = SPEED;
    $(id).addEventListener("change", () => { SPEED = $(id).value; store.set("speed", SPEED); $("#speed").value = $("#setup-speed").value = SPEED; });
  }
  $("#confirm-toggle").checked = !!store.get("confirm", TOUCH);
  $("#confirm-toggle").addEventListener("change", () => { store.set("confirm", $("#confirm-toggle").checked); const g = cur(); if (g) { g.selected = null; renderDock(g); } });
  $("#skip-btn").addEventListener("click", () => { const g = cur(); if (g) { g.skip = true; updateSkip(g, false); } });
  $("#rules-close").addEventListener("click", closeRules);
  if (window.matchMedia("(min-width: 980px)").matches) $("#log-box").open = true;  // the log beside the table on a wide screen
  $("#log-box").addEventListener("toggle", logToEnd);  // opened: at its latest line
  document.addEventListener("visibilitychange", () => { if (!document.hidden) syncGame(); });
  window.addEventListener("focus", () => syncGame());
  $("#hint-btn").addEventListener("click", () => { const g = cur(); if (g) askHint(g, false); });
  $("#thoughts-toggle").checked = !!store.get("thoughts", false);
  $("#thoughts-toggle").addEventListener("change", () => { store.set("thoughts", $("#thoughts-toggle").checked); const g = cur(); if (g) maybeThink(g); });
  document.addEventListener("keydown", onKey);
  setupForm();
  setupReplays();
  window.addEventListener("hashchange", showTab);
  await resumeGames();
  showTab();
  logToEnd();  // a reload: the log at its latest line (it was built while the tab was still hidden)
  document.body.dataset.ready = "1";
  document.body.dataset.busy = "0";
}

// the other scripts of index.html run before this event: every function is defined when main starts
document.addEventListener("DOMContentLoaded", () => {
  main().catch((e) => { document.body.prepend(el("div", { class: "message", text: `Could not start: ${e.message}` })); });
});

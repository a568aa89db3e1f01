// fiveplay web app: Play, Replays, Results. Plain JS, no build step. The server decides what a seat sees;
// this file only draws what it is sent and sends the human's moves. Your games' ids and tokens live in
// localStorage (a reload resumes them); every request for a game carries its token in a header.
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

let META = null;
const RULES = {};  // per game: its chapter of docs/rules.md (GET /api/rules/GAME): sections, and 5 Alive's card texts
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

// ---------------------------------------------------------------------------------------------- cards
const T5_COLORS = { 1: "#ffffff", 2: "#cfe3ff", 3: "#ffe9a8", 5: "#ffc2c2", 7: "#e2c4ff" };

const compact = () => window.innerWidth < 600;
const cardHelp = (kind) => (RULES.five_alive && RULES.five_alive.cards && RULES.five_alive.cards[String(kind)]) || "";

function take5Card(num, opts = {}) {
  const w = opts.tiny ? 34 : opts.small ? 38 : 50, h = opts.tiny ? 49 : opts.small ? 55 : 72;
  const bulls = META.take5_bullheads[num - 1];
  const s = svg("svg", { width: w, height: h, viewBox: "0 0 50 72", role: "img", "aria-label": `card ${num}, ${plural(bulls, "bull head")}` });
  s.append(svg("rect", { x: 1, y: 1, width: 48, height: 70, rx: 6, fill: T5_COLORS[bulls] || "#fff", stroke: "#4a4a4a", "stroke-width": 1.5 }));
  for (let i = 0; i < bulls; i++) s.append(svg("circle", { cx: 25 + (i - (bulls - 1) / 2) * 6, cy: 11, r: 2.6, fill: "#7a1414" }));
  s.append(svg("text", { x: 25, y: 45, "text-anchor": "middle", "font-size": 22, "font-weight": 700, fill: "#1d1d1d" }, String(num)));
  if (!opts.small && !opts.tiny) s.append(svg("text", { x: 25, y: 65, "text-anchor": "middle", "font-size": 12, fill: "#7a1414" }, `${bulls} bull${bulls > 1 ? "s" : ""}`));
  return s;
}

// per kind: fill, big label, its size, short name (the full names come from the server)
const FA_STYLE = [
  ["#e8f5e9", "0", 28, ""], ["#c8e6c9", "1", 28, ""], ["#a5d6a7", "2", 28, ""], ["#8fd08f", "3", 28, ""],
  ["#7cc47f", "4", 28, ""], ["#fff59d", "5", 28, ""], ["#ffcc80", "6", 28, ""], ["#ef9a9a", "7", 28, ""],
  ["#b3e5fc", "REV", 17, "Reverse"], ["#ce93d8", "=21", 20, "to 21"], ["#ffab91", "SKIP", 16, "Skip"],
  ["#e0e0e0", "PASS", 16, "Pass by"], ["#b2dfdb", "=0", 22, "to 0"], ["#b2dfdb", "=10", 20, "to 10"],
  ["#f8bbd0", "+1", 24, "Draw 1"], ["#f48fb1", "+2", 24, "Draw 2"], ["#d1c4e9", "DEAL", 16, "Re-Deal"],
  ["#333333", "BOMB", 16, "Bomb"],
];

function fiveAliveCard(kind, opts = {}) {
  const w = opts.small ? 42 : 56, h = opts.small ? 60 : 80;
  const [fill, label, size, short] = FA_STYLE[kind];
  const name = META.five_alive_kinds[kind];
  const dark = kind === 17;
  const s = svg("svg", { width: w, height: h, viewBox: "0 0 56 80", role: "img", "aria-label": name });
  s.append(svg("rect", { x: 1, y: 1, width: 54, height: 78, rx: 7, fill, stroke: "#3a3a3a", "stroke-width": 1.5 }));
  s.append(svg("text", { x: 28, y: kind >= 8 ? 40 : 48, "text-anchor": "middle", "font-size": size, "font-weight": 800, fill: dark ? "#ffffff" : "#1d1d1d" }, label));
  if (kind >= 8 && !opts.small) s.append(svg("text", { x: 28, y: 66, "text-anchor": "middle", "font-size": 12, fill: dark ? "#ffffff" : "#1d1d1d" }, short));
  s.append(svg("title", {}, cardHelp(kind) || name));
  return s;
}

const isTake5 = (game) => game === "take5";
const actionName = (game, a) => (isTake5(game) ? (a >= 104 ? `row ${a - 103}` : `card ${a + 1}`) : META.five_alive_kinds[a]);

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

// ------------------------------------------------------------------------------------------- Take 5 table
// the public numbers of a Take 5 event (views.py: the table as of that event) laid over a view
function tableAt(v, t) {
  if (!t) return v;
  return { ...v, round: t.round, trick: t.trick, scores: t.scores, round_penalty: t.round_penalty, hand_sizes: t.hand_sizes,
           chosen: t.chosen, over: false, asOf: true, waiting_row: null };
}

const modeWords = (mode) => (mode === "game" ? "game to 66" : mode === "round" ? "one round" : /^rounds:\d+$/.test(mode) ? `${mode.slice(7)} rounds` : mode);
const goalWords = (mode) => (mode === "game" ? "the lowest total wins once a score reaches 66" : "the lowest total wins at the end of the last round");

function take5Title(v, o) {
  const modeText = modeWords(v.mode);
  // a view as of an event names the trick being played; the server's view counts the tricks completed
  const round = v.asOf ? v.round + 1 : v.round + (v.over ? 0 : 1);
  const trick = v.asOf ? v.trick + 1 : Math.min(v.trick + 1, 10);
  const tail = o.roundEnded ? `round ${round} over` : v.over ? `round ${round} \u00B7 game over` : `round ${round} \u00B7 trick ${trick} of 10`;
  return `Take 5 \u00B7 ${modeText} \u00B7 ${tail}`;
}

function renderTake5Table(area, v, o) {
  // o: {viewer, names, rows (override), trick: [[num, owner]], placed: Set(num), waiting: num, onRow, flashRow, takeRow, note}
  area.replaceChildren();
  const players = el("div", { class: "players" });
  for (let p = 0; p < v.num_players; p++) {
    const pen = v.round_penalty[p];
    players.append(el("div", { class: "player" + (p === v.current && !v.over && !v.asOf ? " turn" : "") + (p === o.viewer ? " me" : "") + (o.taker === p ? " hurt" : ""), "data-seat": p,
                               "data-score": v.scores[p], "data-penalty": pen, title: o.names && o.names[p] ? o.names[p] : null },
      el("div", { class: "name", text: seatName(o.names, p, o.viewer) }),
      compact() ? el("div", { class: "small", text: `${v.scores[p]} pts${pen ? ` (+${pen})` : ""} \u00B7 ${plural(v.hand_sizes[p], "card")}` + (v.chosen[p] && !v.over ? " \u00B7 chosen" : "") })
        : el("div", { class: "score", text: `score ${v.scores[p]}` + (pen ? ` \u00B7 +${pen} this round` : "") }),
      compact() ? null : el("div", { class: "small", text: `${plural(v.hand_sizes[p], "card")}` + (v.chosen[p] && !v.over ? " \u00B7 has chosen" : "") })));
  }
  area.append(el("div", { class: "section-title table-title", id: "table-title", "data-round": v.asOf ? v.round + 1 : v.round + (v.over ? 0 : 1), text: take5Title(v, o) }, rulesButton("take5")), players);
  const rowsBox = el("div", { class: "rows", id: "rows" });
  (o.rows || v.rows).forEach((row, r) => {
    const bulls = row.reduce((a, c) => a + META.take5_bullheads[c - 1], 0);
    const line = el("div", { class: "row" + (o.onRow ? " pick" : "") + (o.flashRow === r ? " flash" : "") + (o.takeRow === r ? " taking" : ""), "data-row": r },
      el("span", { class: "label", text: `row ${r + 1} \u00B7 ${plural(bulls, "bull")}` }),
      el("div", { class: "cards" }, row.map((c) => el("span", { class: "card", "data-card": c }, take5Card(c, { small: compact() })))));
    if (o.onRow) line.addEventListener("click", () => o.onRow(104 + r));
    rowsBox.append(line);
  });
  const board = el("div", { class: "t5-board" });
  const trickBox = el("div", { class: "trick", id: "trick" });
  if (o.trick && o.trick.length) {
    for (const [c, q] of o.trick) {
      const cls = "slot" + (o.placed && o.placed.has(c) ? " placed" : "") + (o.waiting === c ? " waiting" : "");
      const done = o.placed && o.placed.has(c);
      trickBox.append(el("div", { class: cls, "data-card": c }, take5Card(c, { small: true }),
        el("span", { class: "owner", text: (q === o.viewer ? "you" : `P${q}`) + (done ? " \u2713" : o.waiting === c ? " \u2026" : "") })));
    }
  } else trickBox.append(el("span", { class: "small", text: "no card revealed yet this round" }));
  board.append(el("div", { class: "trick-box", id: "trick-box" }, el("div", { class: "section-title", text: o.trickTitle || "Trick" }), trickBox,
    o.note ? el("div", { class: "take-note", id: "take-note", role: "status", text: o.note }) : null));
  board.append(el("div", { class: "rows-box" }, el("div", { class: "section-title", text: "Rows" }), rowsBox));
  area.append(board);
  if (v.waiting_row) {
    const mine = v.waiting_row.player === o.viewer;
    area.append(el("div", { class: "note", id: "row-note", text: `${seatName(o.names, v.waiting_row.player, o.viewer)}'s ${v.waiting_row.card} is lower than every row: ${mine ? "take a row (its cards become your penalty)" : "they choose a row to take"}` }));
  }
  if (v.pool && v.pool.length && !o.poolInDock) {
    area.append(el("div", { class: "section-title", text: "Draft pool (face up)" }), el("div", { class: "cards" }, v.pool.map((c) => el("span", { class: "card" }, take5Card(c, { small: true })))));
  }
  for (const [p, hand] of Object.entries(v.hands)) {
    if (Number(p) === o.viewer && o.handInDock) continue;
    area.append(el("div", { class: "section-title", text: `${seatName(o.names, Number(p), o.viewer)}: hand` + (v.pending[p] ? ` (chosen: ${v.pending[p]})` : "") }),
      el("div", { class: "cards seat-hand", "data-seat": p }, hand.map((c) => el("span", { class: "card" }, take5Card(c, { small: true })))));
  }
}

// ------------------------------------------------------------------------------------------- 5 Alive table
function renderFiveAliveTable(area, v, o) {
  // o: {viewer, names, pub (public fields override: after an event), event, handInDock}
  area.replaceChildren();
  const pub = { ...v, ...(o.pub || {}) };
  const ev = o.event;
  const players = el("div", { class: "players" });
  for (let p = 0; p < v.num_players; p++) {
    const team = v.variant === "teams" ? ` \u00B7 team ${p % 2 ? "B" : "A"}` : "";
    const lost = ev && ev.lives_lost && ev.lives_lost[String(p)];
    const cls = "player" + (p === pub.current && !pub.over && pub.phase !== "over" ? " turn" : "") + (p === o.viewer ? " me" : "") + (pub.alive[p] ? "" : " out") + (lost ? " hurt" : "");
    players.append(el("div", { class: cls, "data-seat": p, title: o.names && o.names[p] ? o.names[p] : null },
      el("div", { class: "name", text: seatName(o.names, p, o.viewer) + team }),
      el("div", { class: "hearts", "aria-label": `${plural(pub.lives[p], "life")}`, text: "\u2665".repeat(pub.lives[p]) + "\u2661".repeat(Math.max(0, 5 - pub.lives[p])) }),
      el("div", { class: "small", text: pub.alive[p] ? `${plural(pub.lives[p], "life").replace("lifes", "lives")} \u00B7 ${plural(pub.hand_sizes[p], "card")}` : "eliminated" }),
      lost ? el("div", { class: "lost", text: `\u2212${lost} \u2665 lost` }) : null));
  }
  // as of an event: the round it was played in (a round-ending move belongs to the round it ends)
  const round = ev && ev.round_before !== undefined ? ev.round_before + 1 : pub.round + (v.over ? 0 : 1);
  const ended = ev && ev.dealer !== null && ev.dealer !== undefined && !ev.game_over;
  area.append(el("div", { class: "section-title table-title", id: "table-title", "data-round": round,
    text: `5 Alive \u00B7 ${v.variant.replace("_", " ")} \u00B7 round ${round}${ended ? " over" : ""}` }, rulesButton("five_alive")), players);
  const lastCard = ev && !ev.bomb_answer && ev.action !== undefined && ev.action < 18 ? ev.action : (o.lastPlay !== undefined ? o.lastPlay : (pub.top >= 0 ? pub.top : -1));
  const dirText = pub.direction === 1 ? "\u21BB clockwise" : "\u21BA counter-clockwise";
  area.append(el("div", { class: "center panel" },
    el("div", { class: "total", id: "total", "aria-label": `total ${pub.total} of 21` }, String(pub.total), el("small", { text: " / 21" })),
    el("div", { class: "direction" + (ev && ev.reversed ? " changed" : ""), id: "direction", text: dirText }),
    el("div", { class: "last-card" }, el("div", { class: "small", text: "last card played" }), lastCard >= 0 ? fiveAliveCard(lastCard, { small: true }) : el("span", { class: "small", text: "none yet" })),
    lastCard >= 8 ? el("div", { class: "card-help", id: "last-card-help", text: cardHelp(lastCard) }) : null,
    el("div", { class: "small", text: `draw pile ${pub.draw_size} \u00B7 discard pile ${pub.discard_size}` })));
  area.append(el("div", { class: "event-text" + (ev && (Object.keys(ev.lives_lost || {}).length || ev.card === "BUST") ? " bad" : ""), id: "event-text", "aria-live": "polite",
    text: nameText(ev ? ev.text : o.eventText || "", o.names, o.viewer) }));
  for (const [p, counts] of Object.entries(v.hands)) {
    if (Number(p) === o.viewer && o.handInDock) continue;
    const cards = el("div", { class: "cards seat-hand", "data-seat": p });
    counts.forEach((c, k) => { for (let i = 0; i < c; i++) cards.append(el("span", { class: "card" }, fiveAliveCard(k, { small: true }))); });
    area.append(el("div", { class: "section-title", text: `${seatName(o.names, Number(p), o.viewer)}: hand (${v.hand_sizes[Number(p)]})` }), cards);
  }
}

// ---------------------------------------------------------------------------------------------- Play
const play = { games: {}, current: null, busy: false, order: [], confirmClose: null };
const cur = () => play.games[play.current];
const confirmOn = () => $("#confirm-toggle").checked;
const range = (n) => Array.from({ length: n }, (_, i) => i);

function saveGames() {
  store.set("games", play.order.filter((id) => play.games[id]).map((id) => ({ id, token: play.games[id].token, started: play.games[id].started || null })));
  store.set("current", play.current);
}

function lastTrickOf(g) {
  // the last trick revealed (kept on the table until the next is revealed, across a round's end), the cards already
  // placed, and the round it ended (when it was the round's last trick)
  const evs = g.events;
  for (let i = evs.length - 1; i >= 0; i--) {
    const e = evs[i];
    if (e.type === "reveal") {
      const after = evs.slice(i + 1);
      const placed = new Set(after.filter((x) => x.type === "place").map((x) => x.card));
      const end = after.find((x) => x.type === "round_end");
      return { cards: e.cards, placed, trick: e.trick, ended: end ? end.round : null };
    }
  }
  return null;
}

function lastPlayOf(g) {
  for (let i = g.events.length - 1; i >= 0; i--) {
    const e = g.events[i];
    if (e.type === "play" && !e.bomb_answer && e.action < 18) return e;
  }
  return null;
}

const isOut = (g) => !isTake5(g.snap.game) && !g.snap.view.alive[g.snap.seat];

function turnText(snap) {
  const v = snap.view;
  if (snap.error) return ["The game ended with an error", "must"];
  if (snap.over) {
    const won = v.winners.includes(snap.seat);
    return [won ? "Game over \u2014 you win!" : `Game over \u2014 ${v.winners.map((w) => seatName(snap.names, w, snap.seat)).join(", ")} won`, won ? "mine" : ""];
  }
  if (snap.pending) return ["The bots are still playing\u2026", ""];
  if (!snap.your_turn) {
    if (!isTake5(snap.game) && !v.alive[snap.seat]) return ["You are out: the bots play on\u2026", ""];
    return ["The bots are playing\u2026", ""];
  }
  const keys = (k) => (TOUCH ? "" : ` (${k})`);
  if (isTake5(snap.game)) {
    if (v.phase === "row choice") return [`Take a row: your ${v.waiting_row.card} is lower than every row${keys("keys 1\u20134")}`, "must"];
    if (v.phase === "draft") return ["Your pick: draft a card from the face-up pool", "mine"];
    return [confirmOn() ? "Your turn: tap a card, then tap it again (or Play) to play it" : "Your turn: choose a card to play", "mine"];
  }
  if (v.phase === "bomb answer") return snap.legal.includes(0) ? [`Bomb! Discard a 0${keys("key 0")} or lose a life${keys("B")}`, "must"] : [`Bomb! You hold no 0: you lose a life${keys("B")}`, "must"];
  if (snap.legal.length === 1 && snap.legal[0] === 18) return [`No card fits on ${v.total}: you must BUST and lose a life${keys("B")}`, "must"];
  return [`Your turn: play a card (total ${v.total}; keep it at 21 or below)`, "mine"];
}

// a tap on a card: plays it, or (tap twice to play) selects it first and plays it on the second tap or the Play button
function pickCard(action) {
  const g = cur();
  if (!g || play.busy || !g.snap.your_turn) return;
  if (!confirmOn() || !g.snap.legal.includes(action) || g.selected === action) { humanAction(action); return; }
  g.selected = action;
  showError("");
  renderDock(g);
  const b = $(`#hand [data-action="${action}"]`);
  if (b) b.focus({ preventScroll: true });
}

function updateSkip(g, out) {
  const b = $("#skip-btn");
  b.hidden = !(g && out && !g.skip && (play.busy || (g.snap.pending && !g.snap.over)));  // the snapshot may be over already
}

function renderDock(g) {
  const hand = $("#hand");
  const snap = g.snap, v = snap.view;
  const [text, cls] = turnText(snap);
  const bar = $("#turn-bar");
  bar.textContent = text;
  bar.className = "turn-bar" + (cls ? " " + cls : "");
  $("#hint-text").textContent = g.hintText && !snap.over ? g.hintText : "";
  const legal = new Set(play.busy ? [] : snap.legal);
  if (g.selected !== null && g.selected !== undefined && !legal.has(g.selected)) g.selected = null;
  const keep = document.activeElement && hand.contains(document.activeElement) ? document.activeElement.dataset.action : null;
  hand.replaceChildren();
  $("#dock-help").textContent = "";
  const suggested = g.hint && g.hint.step === snap.steps ? g.hint.action : null;
  const button = (face, action, key, count, label) => {
    const ok = legal.has(action);
    const b = el("button", { class: "card" + (ok ? " legal" : " unplayable") + (suggested === action ? " suggested" : "") + (g.selected === action ? " selected" : ""), type: "button",
      "data-action": action, "aria-label": `${label}${count > 1 ? ` (${count})` : ""}${ok ? "" : ", not playable now"}`, "aria-disabled": ok ? null : "true",
      "aria-pressed": confirmOn() && ok ? String(g.selected === action) : null, onclick: () => pickCard(action) }, face);
    if (!isTake5(snap.game) && cardHelp(action) && action >= 8) {  // a special card says what it does when pointed at
      const show = () => { $("#dock-help").textContent = cardHelp(action); };
      const hide = () => { $("#dock-help").textContent = ""; };
      b.addEventListener("mouseenter", show); b.addEventListener("focus", show);
      b.addEventListener("mouseleave", hide); b.addEventListener("blur", hide);
    }
    if (key && !TOUCH) b.append(el("span", { class: "badge key", "aria-hidden": "true", text: key }));
    if (count > 1) b.append(el("span", { class: "badge count", "aria-hidden": "true", text: `\u00D7${count}` }));
    return b;
  };
  if (isTake5(snap.game)) {
    if (v.phase === "row choice" && snap.your_turn) {
      const t = lastTrickOf(g);
      if (t) hand.append(el("div", { class: "dock-trick", "aria-label": "this trick" }, el("span", { class: "small", text: "This trick:" }),
        t.cards.map(([c, q]) => el("span", { class: "slot" + (c === v.waiting_row.card ? " waiting" : "") },
          take5Card(c, { tiny: true }), el("span", { class: "owner", text: q === snap.seat ? "you" : `P${q}` })))));
      const picks = el("div", { class: "row-picks" });
      v.rows.forEach((row, r) => {
        const bulls = row.reduce((a, c) => a + META.take5_bullheads[c - 1], 0);
        picks.append(el("button", { class: "row-pick legal" + (g.selected === 104 + r ? " selected" : ""), type: "button", "data-action": 104 + r,
          "aria-label": `take row ${r + 1}: ${plural(bulls, "bull head")}`, text: `${TOUCH ? "" : `${r + 1}: `}row ${r + 1} \u2192 ${plural(bulls, "bull")}`, onclick: () => pickCard(104 + r) }));
      });
      hand.append(picks);
    } else if (v.phase === "draft") {
      const mine = v.hands[String(snap.seat)] || [];
      v.pool.forEach((c, i) => hand.append(button(take5Card(c, { tiny: compact() }), c - 1, i < 10 ? String((i + 1) % 10) : "", 1, `draft card ${c}`)));
      if (mine.length) hand.append(el("span", { class: "small", text: `your hand: ${mine.join(", ")}` }));
    } else {
      const mine = (v.hands[String(snap.seat)] || []).filter((c) => !(g.optimistic && g.optimistic === c));
      mine.forEach((c, i) => hand.append(button(take5Card(c, { tiny: compact() }), c - 1, i < 10 ? String((i + 1) % 10) : "", 1, `card ${c}, ${plural(META.take5_bullheads[c - 1], "bull head")}`)));
      if (!mine.length && !snap.over) hand.append(el("span", { class: "small", text: "no cards in hand" }));
    }
  } else {
    const counts = (v.hands[String(snap.seat)] || []).slice();
    if (g.optimistic !== undefined && g.optimistic !== null && g.optimistic < 18 && counts[g.optimistic] > 0) counts[g.optimistic] -= 1;
    counts.forEach((c, k) => { if (c > 0) hand.append(button(fiveAliveCard(k, { small: compact() }), k, k < 8 ? String(k) : "", c, META.five_alive_kinds[k] + (k >= 8 && cardHelp(k) ? `. ${cardHelp(k)}` : ""))); });
    if (legal.has(18)) hand.append(el("button", { class: "bust legal", type: "button", "data-action": 18, text: TOUCH ? "BUST: lose a life" : "BUST (B): lose a life", onclick: () => humanAction(18) }));
    if (!counts.some((c) => c > 0)) hand.append(el("span", { class: "small", text: v.alive[snap.seat] ? "no cards in hand" : "eliminated" }));
  }
  const sel = g.selected;
  if (sel !== null && sel !== undefined && legal.has(sel)) {
    const name = actionName(snap.game, sel);
    hand.append(el("div", { class: "confirm-row" },
      el("button", { type: "button", class: "primary", id: "confirm-play", text: isTake5(snap.game) && sel >= 104 ? `Take ${name}` : `Play ${name}`, onclick: () => humanAction(sel) }),
      el("button", { type: "button", id: "cancel-pick", text: "Change", onclick: () => { g.selected = null; renderDock(g); } }),
      !isTake5(snap.game) && cardHelp(sel) ? el("div", { class: "card-help", id: "card-help", text: cardHelp(sel) }) : null));
  }
  if (snap.over) {
    hand.append(el("button", { type: "button", class: "primary", id: "dock-rematch", text: "Rematch (same deal)", onclick: () => rematch(g) }),
      el("button", { type: "button", id: "dock-new", text: "New game", onclick: () => openNewGame() }));
  }
  $("#dock-keys").textContent = TOUCH ? "" : isTake5(snap.game)
    ? "Keys: \u2190 \u2192 move \u00B7 Enter play \u00B7 1\u20139, 0: that card \u00B7 1\u20134: take that row \u00B7 H hint \u00B7 T bot\u2019s view"
    : "Keys: \u2190 \u2192 move \u00B7 Enter play \u00B7 0\u20137: that number \u00B7 B bust \u00B7 H hint \u00B7 T bot\u2019s view";
  $("#hint-btn").disabled = !snap.your_turn || play.busy;
  updateSkip(g, isOut(g));
  // keep the focus in the hand: the same card if it is still there, else the first legal one
  if (!play.busy && (keep !== null || document.activeElement === document.body || document.activeElement === hand || g.wantFocus)) {
    const target = (keep !== null && $(`#hand [data-action="${keep}"].legal`)) || $("#hand .legal") || $("#hand button");
    if (target) target.focus({ preventScroll: true });
    g.wantFocus = false;
  }
  requestAnimationFrame(() => document.body.style.setProperty("--dock-h", `${$("#dock").offsetHeight + 12}px`));
}

function renderTable(g, override = {}) {
  const snap = g.snap, area = $("#play-area");
  const o = { viewer: snap.seat, names: snap.names, handInDock: true, poolInDock: true, ...override };
  if (isTake5(snap.game)) {
    const t = lastTrickOf(g);
    if (!o.trick && t) {
      o.trick = t.cards; o.placed = t.placed;
      o.trickTitle = snap.view.phase === "row choice" ? "This trick" : t.ended !== null ? `Last trick of round ${t.ended}` : "Last trick";
      if (snap.view.waiting_row) o.waiting = snap.view.waiting_row.card;
    }
    if (!override.rows && snap.your_turn && snap.view.phase === "row choice" && !play.busy) o.onRow = (a) => pickCard(a);
    renderTake5Table(area, snap.view, o);
  } else {
    if (!o.event) {
      const e = lastPlayOf(g);
      o.lastPlay = e ? e.action : undefined;
      const last = g.events.filter((x) => x.type === "play").pop();
      o.eventText = last ? last.text : "";
    }
    renderFiveAliveTable(area, snap.view, o);
  }
}

function renderPlay() {
  const g = cur();
  document.body.classList.toggle("playing", !!g);
  $("#log-box").hidden = !g;
  if (!g) {
    $("#play-area").replaceChildren(); $("#result").hidden = true; $("#thinking").hidden = true;
    $("#status").textContent = ""; renderGameTabs(); updateSkip(null, false); return;
  }
  if (g.snap.over) remember(g);
  renderTable(g);
  renderDock(g);
  renderResult(g);
  renderGameTabs();
  renderThinking(g);
  const n = Object.keys(play.games).length;
  $("#status").textContent = `${plural(n, "game")} open`;
  if (!play.busy && $("#thoughts-toggle").checked) maybeThinkSoon(g);
}

// --- the score sheet (Take 5: bull heads per round; 5 Alive: lives lost per round) ------------------------------
const colName = (snap, p) => (p === snap.seat ? "you" : `P${p}`);

function take5Sheet(g, upTo) {
  const snap = g.snap, n = snap.view.num_players;
  const ends = g.events.filter((e) => e.type === "round_end" && (upTo === undefined || e.round <= upTo));
  const t = el("table", { class: "board sheet", id: "score-sheet" });
  t.append(el("tr", {}, el("th", { text: "round" }), ...range(n).map((p) => el("th", { class: "num", title: seatName(snap.names, p, snap.seat), text: colName(snap, p) }))));
  for (const e of ends) t.append(el("tr", { "data-round": e.round }, el("td", { text: e.round }), ...e.penalties.map((x) => el("td", { class: "num", text: x }))));
  const total = ends.length ? ends[ends.length - 1].scores : snap.view.scores;
  t.append(el("tr", { class: "sum-row" }, el("th", { text: "total" }), ...total.map((x) => el("th", { class: "num", text: x }))));
  const over = g.events.find((e) => e.type === "game_over");
  if (over && (upTo === undefined || snap.over)) {
    t.append(el("tr", { class: "rank" }, el("th", { text: "place" }), ...over.ranking.map((r) => el("td", { class: "num", text: ordinal(r) }))));
  }
  return el("div", { class: "table-wrap" }, t);
}

const ordinal = (k) => `${k}${k % 10 === 1 && k % 100 !== 11 ? "st" : k % 10 === 2 && k % 100 !== 12 ? "nd" : k % 10 === 3 && k % 100 !== 13 ? "rd" : "th"}`;

function fiveAliveRounds(g) {
  // per round: lives lost by each player, who went out, who deals the next round
  const rounds = [];
  for (const e of g.events) {
    if (e.type !== "play") continue;
    const r = e.round_before !== undefined ? e.round_before : e.round;
    while (rounds.length <= r) rounds.push({ round: rounds.length + 1, lost: {}, went_out: [], dealer: null, over: false });
    const x = rounds[r];
    for (const [q, c] of Object.entries(e.lives_lost || {})) x.lost[q] = (x.lost[q] || 0) + c;
    if (e.went_out && e.went_out.length) x.went_out = e.went_out;
    if (e.dealer !== null && e.dealer !== undefined) x.dealer = e.dealer;
    if (e.game_over) x.over = true;
  }
  return rounds;
}

function fiveAliveSummary(g, x) {
  const snap = g.snap, who = (q) => seatName(snap.names, Number(q), snap.seat);
  const lost = Object.entries(x.lost).map(([q, c]) => `${who(q)} \u2212${c}\u2665`);
  return `Round ${x.round}${x.over ? " (the last)" : " over"}: ` + (x.went_out.length ? `${x.went_out.map(who).join(", ")} went out` : "nobody went out") +
    ` \u00B7 lives lost: ${lost.length ? lost.join(", ") : "none"}` + (x.dealer !== null && !x.over ? ` \u00B7 ${who(x.dealer)} deals round ${x.round + 1}` : "");
}

function fiveAliveSheet(g) {
  const snap = g.snap, n = snap.view.num_players;
  const t = el("table", { class: "board sheet", id: "score-sheet" });
  t.append(el("tr", {}, el("th", { text: "round" }), ...range(n).map((p) => el("th", { class: "num", title: seatName(snap.names, p, snap.seat), text: colName(snap, p) })), el("th", { text: "went out" })));
  for (const x of fiveAliveRounds(g).filter((r) => r.dealer !== null || r.over)) {  // the rounds played out
    t.append(el("tr", { "data-round": x.round }, el("td", { text: x.round }), ...range(n).map((p) => el("td", { class: "num", text: x.lost[p] ? `\u2212${x.lost[p]}` : "0" })),
      el("td", { text: x.went_out.map((q) => colName(snap, q)).join(", ") || "-" })));
  }
  t.append(el("tr", { class: "sum-row" }, el("th", { text: "lives left" }), ...snap.view.lives.map((x) => el("th", { class: "num", text: x })), el("th", { text: "" })));
  return el("div", { class: "table-wrap" }, t);
}

function endReason(g) {
  const snap = g.snap, v = snap.view;
  if (isTake5(snap.game)) {
    const over = g.events.find((e) => e.type === "game_over");
    return over ? nameText(over.reason, snap.names, snap.seat).replace(/^./, (c) => c.toUpperCase()) + "; the lowest score wins." : "";
  }
  if (v.variant === "sudden_death") return "Sudden death: the game ended when the first player lost a fifth life; the most lives left wins.";
  if (v.variant === "teams") return "A team lost its last life.";
  return "Everybody else lost all five lives: the last player left wins.";
}

function renderResult(g) {
  const snap = g.snap, v = snap.view, box = $("#result");
  box.replaceChildren();
  if (snap.error) {
    box.append(el("h2", { text: "The game ended with an error" }), el("div", { class: "note", text: snap.error }));
    box.hidden = false; box.classList.add("error"); return;
  }
  box.classList.remove("error");
  if (!snap.over) {
    if (g.sheet) {  // a round just ended: its summary stays until your next move
      if (isTake5(snap.game)) {
        const e = g.sheet;
        box.append(el("h2", { class: "round-summary", text: `Round ${e.round} over` }),
          el("div", { class: "small", text: `Penalties this round: ${e.penalties.map((x, p) => `${colName(snap, p)} ${x}`).join(", ")}. ${goalWords(snap.config.mode).replace(/^./, (c) => c.toUpperCase())}.` }),
          take5Sheet(g));
      } else {
        const x = fiveAliveRounds(g)[g.sheet.round_before];
        if (x) box.append(el("h2", { class: "round-summary", text: `Round ${x.round} over` }), el("div", { class: "summary", text: fiveAliveSummary(g, x) }), fiveAliveSheet(g));
      }
      box.hidden = !box.childElementCount;
    } else box.hidden = true;
    return;
  }
  const iWon = v.winners.includes(snap.seat);
  box.append(el("h2", { id: "final-result", text: `Game over \u2014 ${iWon ? "you win!" : "winner: " + v.winners.map((w) => seatName(snap.names, w, snap.seat)).join(", ")}` }),
    el("div", { class: "end-reason", id: "end-reason", text: endReason(g) }));
  if (isTake5(snap.game)) {
    const order = range(v.num_players).sort((a, b) => v.scores[a] - v.scores[b]);
    const t = el("table", { class: "board", id: "ranking" }, el("tr", {}, el("th", { text: "place" }), el("th", { text: "player" }), el("th", { class: "num", text: "final score (bull heads)" })));
    const over = g.events.find((e) => e.type === "game_over");
    for (const p of order) t.append(el("tr", {}, el("td", { text: over ? ordinal(over.ranking[p]) : "" }), el("td", { text: seatName(snap.names, p, snap.seat) }), el("td", { class: "num", text: v.scores[p] })));
    box.append(el("div", { class: "table-wrap" }, t));
    if (g.events.some((e) => e.type === "round_end")) box.append(el("div", { class: "section-title", text: "Score sheet (bull heads per round)" }), take5Sheet(g));
  } else {
    const t = el("table", { class: "board", id: "ranking" }, el("tr", {}, el("th", { text: "player" }), el("th", { class: "num", text: "lives" }), el("th", { text: "result" })));
    for (let p = 0; p < v.num_players; p++) t.append(el("tr", {}, el("td", { text: seatName(snap.names, p, snap.seat) }), el("td", { class: "num", text: v.lives[p] }), el("td", { text: v.winners.includes(p) ? "won" : "lost" })));
    box.append(el("div", { class: "table-wrap" }, t), el("div", { class: "section-title", text: "Lives lost per round" }), fiveAliveSheet(g));
  }
  const buttons = el("div", { class: "buttons" },
    el("button", { type: "button", class: "primary", id: "rematch", text: "Rematch (same deal)", onclick: () => rematch(g) }),
    el("button", { type: "button", text: "Download the record", id: "download-record", onclick: () => downloadRecord(g) }));
  if (snap.saved && snap.saved.run) buttons.append(el("a", { class: "link", id: "watch-replay", href: replayHref(snap.saved), text: "Watch the replay" }));
  else if (snap.saved && snap.saved.error) buttons.append(el("span", { class: "small", text: snap.saved.error }));
  box.append(buttons, el("div", { class: "small", text: `seed ${snap.seed} \u00B7 ${snap.steps} actions` }));
  box.hidden = false;
}

const replayHref = (saved) => `#replay/${encodeURIComponent(saved.run)}/${encodeURIComponent(saved.game)}`;

async function downloadRecord(g) {
  try {
    const res = await fetch(`/api/games/${g.id}/record`, { headers: { "X-Game-Token": g.token, "X-Client": clientId() } });
    if (!res.ok) throw new Error((await res.json()).error);
    const url = URL.createObjectURL(new Blob([await res.text()], { type: "application/x-ndjson" }));
    const a = el("a", { href: url, download: `fiveplay_${g.snap.game}_${g.id}.jsonl` });
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  } catch (e) { showError(e.message); }
}

// --- your games: the open ones as tabs, the finished ones in "My games" (kept in this browser) -------------------
const opponentsOf = (snap) => {
  const names = (snap.names || []).filter((n, p) => p !== snap.seat).map(shortName);
  const uniq = [...new Set(names)];
  return uniq.length === 1 ? `${uniq[0]}${names.length > 1 ? ` \u00D7${names.length}` : ""}` : uniq.join(", ");
};
const clock = (iso) => { if (!iso) return ""; const d = new Date(iso); return isNaN(d) ? "" : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }); };
const dateText = (iso) => { if (!iso) return ""; const d = new Date(iso); return isNaN(d) ? "" : `${d.toLocaleDateString()} ${clock(iso)}`; };
const gameTitle = (game) => (isTake5(game) ? "Take 5" : "5 Alive");

function resultText(snap) {
  const v = snap.view;
  if (snap.error) return "ended with an error";
  if (isTake5(snap.game)) {
    const place = 1 + v.scores.filter((x) => x < v.scores[snap.seat]).length;
    return `${v.winners.includes(snap.seat) ? "won" : `${ordinal(place)} of ${v.num_players}`} \u00B7 ${plural(v.scores[snap.seat], "bull head")}`;
  }
  return v.winners.includes(snap.seat) ? `won \u00B7 ${plural(v.lives[snap.seat], "life").replace("lifes", "lives")} left` : "lost";
}

function remember(g) {
  if (g.remembered) return;
  const mine = store.get("history", []);
  if (Array.isArray(mine) && mine.some((x) => x && x.id === g.id)) { g.remembered = true; return; }  // a reload: listed already
  const list = Array.isArray(mine) ? mine.filter((x) => x && typeof x === "object") : [];
  const snap = g.snap;
  list.unshift({ id: g.id, game: snap.game, started: g.started || null, ended: new Date().toISOString(), opponents: opponentsOf(snap),
                 players: snap.view.num_players, result: resultText(snap), won: snap.view.winners.includes(snap.seat),
                 replay: snap.saved && snap.saved.run ? replayHref(snap.saved) : null });
  store.set("history", list.slice(0, 60));
  g.remembered = true;
}

function renderMyGames() {
  const box = $("#my-games");
  const list = store.get("history", []);
  box.replaceChildren(el("div", { class: "section-title", text: "My games" }));
  if (!Array.isArray(list) || !list.length) { box.append(el("div", { class: "small", text: "The games you finish in this browser are listed here, with their replays." })); return; }
  const t = el("table", { class: "board", id: "my-games-table" }, el("tr", {}, ...["game, date", "opponents", "result", ""].map((h) => el("th", { text: h }))));
  for (const x of list) {
    t.append(el("tr", {}, el("td", {}, el("div", { text: `${gameTitle(x.game)}, ${x.players} players` }), el("div", { class: "small nowrap", text: dateText(x.started || x.ended) })),
      el("td", { class: "wrap-anywhere", text: x.opponents }), el("td", { text: x.result }),
      el("td", {}, x.replay ? el("a", { class: "link", href: x.replay, text: "replay" }) : el("span", { class: "small", text: "no replay" }))));
  }
  box.append(el("div", { class: "table-wrap" }, t));
}

function renderGameTabs() {
  const tabs = $("#game-tabs");
  tabs.replaceChildren();
  for (const id of play.order) {
    const g = play.games[id];
    if (!g) continue;
    const when = clock(g.started);
    const label = `${gameTitle(g.snap.game)} vs ${opponentsOf(g.snap)}${when ? ` \u00B7 ${when}` : ""}` + (g.snap.over ? " (over)" : g.snap.your_turn && !play.busy ? " \u2022 your turn" : "");
    if (play.confirmClose === id) {
      tabs.append(el("span", { class: "game-tab confirm" + (id === play.current ? " current" : ""), role: "group", "aria-label": "delete this game?" },
        el("span", { class: "ask", text: "Delete this unfinished game?" }),
        el("button", { type: "button", id: "confirm-delete", class: "danger", text: "Delete", onclick: () => closeGame(id, true) }),
        el("button", { type: "button", id: "keep-game", text: "Keep it", onclick: () => { play.confirmClose = null; renderGameTabs(); } })));
      continue;
    }
    tabs.append(el("span", { class: "game-tab" + (id === play.current ? " current" : ""), "data-id": id },
      el("button", { type: "button", class: "pick", text: label, "aria-current": id === play.current ? "true" : null, onclick: () => { if (!play.busy) { play.current = id; saveGames(); renderLog(); renderPlay(); } } }),
      el("button", { type: "button", class: "close", "aria-label": `close ${label}`, title: g.snap.over ? "close this game" : "delete this game (asks first)", text: "\u00D7", onclick: () => closeGame(id) })));
  }
}

async function closeGame(id, confirmed = false) {
  const g = play.games[id];
  if (!g || play.busy) return;
  if (!g.snap.over && !confirmed) {  // a game in progress is deleted only once you say so
    play.confirmClose = id; renderGameTabs();
    const b = $("#keep-game"); if (b) b.focus();
    return;
  }
  play.confirmClose = null;
  try { await api("DELETE", `/api/games/${id}`, undefined, g.token); } catch (e) { /* already gone */ }
  delete play.games[id];
  play.order = play.order.filter((x) => x !== id);
  if (play.current === id) play.current = play.order[play.order.length - 1] || null;
  saveGames(); renderLog(); renderPlay();
  if (!play.current) openNewGame();
}

// --- the game log: every public event, grouped by round; rebuilt from the server's events on a reload -------------
function renderLog() {
  const g = cur(), log = $("#play-log");
  log.replaceChildren();
  if (g) { appendLog(g.events, g.snap.names, g.snap.seat); g.logged = g.events.length; }
}

function logUpTo(g, n) {  // the log follows the table: an event is written once it has been shown
  if (cur() !== g) return;
  const from = g.logged || 0;
  if (n > from) { appendLog(g.events.slice(from, n), g.snap.names, g.snap.seat); g.logged = n; }
}

function logText(e, names, viewer) {
  if (e.type === "reveal") return `Round ${e.round + 1}, trick ${e.trick + 1} \u2014 ${e.cards.map(([c, q]) => `${q === viewer ? "you" : `P${q}`} ${c}`).join(", ")}`;
  if (e.type === "play" && e.dealer !== null && e.dealer !== undefined) return nameText(e.text, names, viewer);
  return nameText(e.text || e.type, names, viewer);
}

function appendLog(events, names, viewer) {
  const log = $("#play-log");
  for (const e of events) {
    if (e.type === "chose") continue;  // "P2 has chosen a card": the reveal says it all
    const cls = "ev ev-" + e.type + (e.type === "place" && e.took && e.took.length ? " ev-take" : "") +
      ((e.type === "play" && e.dealer !== null && e.dealer !== undefined) || e.type === "round_end" || e.type === "game_over" ? " ev-round" : "");
    log.append(el("div", { class: cls, text: logText(e, names, viewer) }));
  }
  log.scrollTop = log.scrollHeight;
}

function showError(text) { $("#dock-error").textContent = text || ""; }

// a server's refusal in a player's words (a second tab moved the game on, the game is gone)
function playerWords(e) {
  const m = e.message || "";
  if (e.status === 409 && /is for step \d+, but the game is at step/.test(m)) return "This game moved on in another tab or window: here is where it stands now.";
  if (e.status === 409 && /^not your turn/.test(m)) return "It is not your turn any more (the game moved on in another tab?): here is where it stands now.";
  if (e.status === 409 && /game is over/.test(m)) return "This game is over (it was finished in another tab or window).";
  if (e.status === 404) return "This game is no longer on the server: it expired or was deleted (in another tab?). Start a new one.";
  return m;
}

// --- playing the events back, one at a time, each shown with the table as of that event ---------------------
const PACE = { reveal: 1.6, place: 1, take: 1.8, fly: 1.2, taken: 1.4, choose_row: 1.6, round_end: 5, chose: 0.25, play: 1, bad: 1.8, five_round_end: 5 };

async function pause(g, ms) {  // a sleep that "Skip to the result" cuts short
  const end = performance.now() + ms;
  while (!g.skip && performance.now() < end) await sleep(Math.min(40, end - performance.now()));
}

function noteShown(i) {  // what the table shows now, read back from the page (the tests compare it with the record)
  if (curGame) logUpTo(curGame, i + 1);  // and the log up to it
  const title = $("#table-title");
  (window.fiveplayShown = window.fiveplayShown || []).push({
    i, t: performance.now(), title: title && title.firstChild ? title.firstChild.textContent : "", round: title ? Number(title.dataset.round) : null,
    scores: $$("#play-area .player").map((b) => (b.dataset.score === undefined ? null : Number(b.dataset.score))),
    penalties: $$("#play-area .player").map((b) => (b.dataset.penalty === undefined ? null : Number(b.dataset.penalty))),
    lives: $$("#play-area .player .hearts").map((h) => (h.textContent.match(/\u2665/g) || []).length),
  });
}

function showTrick() {  // on a narrow screen, the trick scrolled into view (above the dock)
  const box = $("#trick-box");
  if (box && compact()) box.scrollIntoView({ block: "nearest" });
}

async function flyTaken(row, taker, ms) {  // the taken row's cards move to the taker's box
  const target = $(`#play-area .player[data-seat="${taker}"]`);
  const cards = $$(`#play-area .row[data-row="${row}"] .card`);
  if (!target || !cards.length || !cards[0].animate) return;
  const to = target.getBoundingClientRect();
  for (const c of cards) {
    const from = c.getBoundingClientRect();
    const dx = to.left + to.width / 2 - (from.left + from.width / 2), dy = to.top + to.height / 2 - (from.top + from.height / 2);
    c.animate([{ transform: "translate(0, 0) scale(1)", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(0.4)`, opacity: 0.2 }],
              { duration: ms, easing: "ease-in", fill: "forwards" });
  }
  await pause(curGame, ms);
}
let curGame = null;

async function animate(g, events, prevView, base) {
  const snap = g.snap, ms = stepMs();
  if (ms === 0 || !events.length || g.skip) return;
  curGame = g;
  $("#turn-bar").className = "turn-bar";
  const say = (text) => { $("#turn-bar").textContent = nameText(text, snap.names, snap.seat); };
  if (isTake5(snap.game)) {
    let rows = prevView.rows, trick = null, placed = new Set();
    let table = { round: prevView.round, trick: prevView.trick, scores: prevView.scores, round_penalty: prevView.round_penalty,
                  hand_sizes: prevView.hand_sizes, chosen: prevView.chosen };
    const old = lastTrickOf({ events: g.events.slice(0, base) });
    if (old) { trick = old.cards; placed = old.placed; }
    const base_o = { viewer: snap.seat, names: snap.names, handInDock: true, poolInDock: true };
    const view = { ...snap.view, rows, waiting_row: null, pool: prevView.pool };
    const draw = (t, o) => { renderTake5Table($("#play-area"), tableAt({ ...view, rows: o.rows || rows }, t), { ...base_o, rows, trick, placed, trickTitle: "This trick", ...o }); };
    for (let k = 0; k < events.length; k++) {
      const e = events[k], i = base + k;
      if (g.skip) return;
      if (e.table) table = e.table;
      else if (e.type === "chose") {  // a chose event names the chooser only: one card fewer in hand, "has chosen"
        table = { ...table, chosen: table.chosen.map((c, p) => c || p === e.player), hand_sizes: table.hand_sizes.map((h, p) => (p === e.player ? h - 1 : h)) };
      }
      if (e.type === "chose" || e.type === "draft") {
        draw(table, {}); noteShown(i);
        await pause(g, ms * PACE.chose);
      } else if (e.type === "reveal") {
        trick = e.cards; placed = new Set();
        draw(table, {}); noteShown(i); showTrick();
        say("The cards are revealed, lowest first\u2026");
        await pause(g, ms * PACE.reveal);
      } else if (e.type === "place" && trick) {
        if (e.took && e.took.length) {
          // the take: first the row about to be taken and why, then its cards moving to the taker, then the new row
          const before = { ...table, round_penalty: table.round_penalty.map((x, p) => (p === e.player ? x - e.bulls : x)) };
          draw(before, { takeRow: e.row, waiting: e.card, taker: e.player, note: nameText(e.text, snap.names, snap.seat), trickTitle: "This trick" });
          noteShown(i); showTrick(); say(e.text);
          await pause(g, ms * PACE.take);
          await flyTaken(e.row, e.player, ms * PACE.fly);
          rows = e.rows; placed = new Set([...placed, e.card]);
          draw(table, { flashRow: e.row, taker: e.player, note: nameText(e.text, snap.names, snap.seat) });
          noteShown(i);
          await pause(g, ms * PACE.taken);
        } else {
          rows = e.rows; placed = new Set([...placed, e.card]);
          draw(table, { flashRow: e.row }); noteShown(i); showTrick(); say(e.text);
          await pause(g, ms * PACE.place);
        }
      } else if (e.type === "choose_row") {
        draw(table, { waiting: e.card }); noteShown(i); showTrick(); say(e.text);
        await pause(g, ms * PACE.choose_row);
      } else if (e.type === "round_end" || e.type === "game_over") {
        draw(table, { roundEnded: true, trickTitle: `Last trick of round ${table.round + 1}` }); noteShown(i);
        if (e.type === "round_end") {
          g.sheet = e; renderResult(g);
          say(`Round ${e.round} over \u2014 this round: ${e.penalties.map((x, p) => `${colName(snap, p)} +${x}`).join(", ")}`);
          await pause(g, ms * PACE.round_end);
        }
      }
    }
    return;
  }
  for (let k = 0; k < events.length; k++) {
    const e = events[k], i = base + k;
    if (g.skip) return;
    if (e.type !== "play") continue;
    renderFiveAliveTable($("#play-area"), snap.view, { viewer: snap.seat, names: snap.names, handInDock: true, pub: e.after, event: e });
    noteShown(i);
    updateSkip(g, !e.after.alive[snap.seat]);
    const ended = e.dealer !== null && e.dealer !== undefined && !e.game_over;
    if (ended) {
      g.sheet = e; renderResult(g);
      const x = fiveAliveRounds({ ...g, events: g.events.slice(0, i + 1) })[e.round_before];
      say(x ? fiveAliveSummary(g, x) : e.text);
      await pause(g, ms * PACE.five_round_end);
      continue;
    }
    say(e.text.split(":")[0]);
    const bad = Object.keys(e.lives_lost || {}).length || e.reversed || e.card === "BUST";
    await pause(g, bad ? ms * PACE.bad : ms * PACE.play);
  }
}

async function takeAnswer(g, next, prevView) {
  const fresh = next.events || [];
  g.snap = next;
  g.events = g.events.slice(0, next.event_base).concat(fresh);
  g.optimistic = null;
  if ((g.logged || 0) > next.event_base) g.logged = next.event_base;
  const end = isTake5(next.game) ? fresh.filter((e) => e.type === "round_end").pop()
    : fresh.filter((e) => e.type === "play" && e.dealer !== null && e.dealer !== undefined && !e.game_over).pop();
  await animate(g, fresh, prevView, next.event_base);
  logUpTo(g, g.events.length);
  if (end) g.sheet = end;
}

async function humanAction(action) {
  const g = cur();
  if (!g || play.busy || !g.snap.your_turn) return;
  const snap = g.snap;
  if (!snap.legal.includes(action)) {
    showError(`${actionName(snap.game, action).replace(/^./, (c) => c.toUpperCase())} is not playable now` +
      (isTake5(snap.game) ? "" : ` (total ${snap.view.total}: a number must keep it at 21 or below)`));
    return;
  }
  showError("");
  play.busy = true; document.body.dataset.busy = "1";
  g.hint = null; g.hintText = null; g.thoughts = null; g.selected = null; g.sheet = null;
  g.optimistic = isTake5(snap.game) ? (action < 104 ? action + 1 : null) : action;
  const prevView = snap.view;
  renderDock(g); renderResult(g); renderGameTabs();
  try {
    let next = await api("POST", `/api/games/${g.id}/act`, { action, step: snap.steps, since: g.events.length }, g.token);
    await takeAnswer(g, next, prevView);
    while (next.pending && !next.over) {
      renderPlay();
      const prev = next.view;  // the table the bots go on from
      next = await api("POST", `/api/games/${g.id}/advance`, { step: next.steps, since: g.events.length }, g.token);
      await takeAnswer(g, next, prev);
    }
  } catch (e) {
    g.optimistic = null;
    showError(playerWords(e));
    if (e.status === 409 || e.status === 404) await refreshGame(g).catch(() => {});
  } finally {
    play.busy = false; document.body.dataset.busy = "0";
    g.wantFocus = true;
    if (g.snap.over) g.skip = false;
    renderPlay();
  }
}

async function refreshGame(g) {
  const snap = await api("GET", `/api/games/${g.id}?since=0`, undefined, g.token);
  g.snap = snap; g.events = snap.events;
  if (cur() === g) renderLog();
}

async function continuePending(g) {
  while (g.snap.pending && !g.snap.over) {
    const next = await api("POST", `/api/games/${g.id}/advance`, { step: g.snap.steps, since: g.events.length }, g.token);
    await takeAnswer(g, next, g.snap.view);
    renderPlay();
  }
}

// ---------------------------------------------------------------------------------------------- hints and thoughts
function analysisBot(game, n) {
  // the bot of the game's own family and mode: the one your opponents play (unless it plays at random), or the
  // picker's default for this game; a bot chosen in the bot's view is kept
  const sel = $("#analysis-bot");
  if (sel && sel.dataset.game === game && sel.value) return sel.value;
  const bots = META.games[game].bots;
  const saved = store.get(`analysis.${game}`, null);
  if (saved && bots.some((b) => b.name === saved)) return saved;
  const g = cur();
  if (g && g.snap.game === game) {
    const opp = (g.snap.names || []).find((nm, p) => p !== g.snap.seat && nm && nm !== "random");
    if (opp && bots.some((b) => b.name === opp)) return opp;
    return preferredBot(game, n, g.snap.config || {});
  }
  return preferredBot(game, n, {});
}

const pct = (p) => `${Math.round(p * 100)}%`;

function hintReason(h, game) {
  // one line: why this move (the policy's odds and its expected bull heads, or the search's values of the move and
  // of the next best)
  const t = h.thoughts;
  if (!t) return "its fixed rule's choice";
  if (t.forced) return "the only legal move";
  if (t.kind === "policy" && t.probs && t.probs.length) {
    const [a, b] = t.probs;
    let r = `${pct(a.p)} sure` + (b ? `, next ${b.label} at ${pct(b.p)}` : "");
    if (game === "take5" && t.reward_scale) r += `; it expects about ${(-t.value / t.reward_scale).toFixed(1)} more bull heads` + (t.win_reward ? " (a win bonus counted in)" : "");
    else if (game !== "take5" && t.value !== undefined) r += `; its estimate of the outcome ${t.value.toFixed(2)} (\u22121 lose, +1 win)`;
    return r;
  }
  if (t.kind === "search" && t.candidates && t.candidates.length) {
    const [a, b] = t.candidates;
    const val = (c) => (c.mean === null ? "-" : game === "take5" ? `about ${(-c.mean).toFixed(1)} bull heads` : c.mean.toFixed(2));
    return `${val(a)} in ${a.visits} simulations` + (b ? `, against ${val(b)} for ${b.label}` : "") + (game === "take5" ? "" : " (higher is better)");
  }
  return "";
}

async function askHint(g, full) {
  const snap = g.snap;
  if (!snap.your_turn || play.busy) return;
  const bot = analysisBot(snap.game, snap.view.num_players), step = snap.steps;
  g.hintText = `asking ${shortName(bot)}\u2026`;
  renderDock(g);
  try {
    const h = await api("POST", `/api/games/${g.id}/hint`, { bot, step }, g.token);
    if (g.snap.steps !== step) return;
    g.hint = h;
    const why = hintReason(h, snap.game);
    g.hintText = `hint (${shortName(h.bot)}): ${h.label}${why ? ` \u2014 ${why}` : ""}`;
    if (full) g.thoughts = h;
  } catch (e) { g.hintText = null; showError(playerWords(e)); }
  if (cur() === g) { renderDock(g); renderThinking(g); }
}

function thoughtsBlock(t, game, title) {
  const box = el("div", { class: "thought" });
  if (title) box.append(el("h3", { text: title }));
  if (!t) { box.append(el("div", { class: "small", text: "this bot plays by a fixed rule: it has no probabilities or search statistics to show" })); return box; }
  if (t.forced) { box.append(el("div", { text: `only one legal move: ${t.chosen_label}` })); return box; }
  const bars = el("div", { class: "bars" });
  if (t.kind === "policy") {
    for (const p of t.probs.slice(0, 12)) {
      bars.append(el("span", { class: p.action === t.chosen ? "chosen" : "", text: p.label }),
        el("div", { class: "bar", "aria-hidden": "true" }, barSpan(p.p)),
        el("span", { class: "num", text: `${(p.p * 100).toFixed(1)}%` }));
    }
    box.append(el("div", { class: "small", text: "the policy\u2019s probability of each legal move (it plays the most probable)" }), bars,
      el("div", { class: "value", text: valueText(t, game) }));
  } else if (t.kind === "search") {
    const most = Math.max(1, ...t.candidates.map((c) => c.visits));
    for (const c of t.candidates.slice(0, 12)) {
      bars.append(el("span", { class: c.action === t.chosen ? "chosen" : "", text: c.label }),
        el("div", { class: "bar", "aria-hidden": "true" }, barSpan(c.visits / most)),
        el("span", { class: "num", text: `${c.visits} \u00B7 ${c.mean === null ? "-" : c.mean.toFixed(2)}` }));
    }
    box.append(el("div", { class: "small", text: `search: each candidate\u2019s simulations and mean outcome (higher is better) \u2014 ${t.sims} simulations in ${t.seconds}s` }), bars);
  }
  return box;
}

function valueText(t, game) {
  if (game === "take5" && t.reward_scale) {
    const pts = -t.value / t.reward_scale;
    return `value ${t.value.toFixed(3)}: it expects about ${pts.toFixed(1)} more bull heads` +
      (t.win_reward ? ` (a win bonus of ${t.win_reward} counted in)` : " by the end of the round");
  }
  if (game !== "take5") return `value ${t.value.toFixed(3)}: its estimate of the outcome, from \u22121 (it loses) to +1 (it wins)`;
  return `value ${t.value.toFixed(3)}: its estimate of its return from here (training units)`;
}

function barSpan(frac) { const s = el("span"); s.style.width = `${Math.max(1, Math.round(frac * 100))}%`; return s; }

function renderThinking(g) {
  const box = $("#thinking");
  const on = $("#thoughts-toggle").checked;
  box.hidden = !on;
  if (!on) return;
  const game = g.snap.game;
  const sel = el("select", { id: "analysis-bot", "data-game": game, "aria-label": "analysis bot" },
    META.games[game].bots.filter((b) => b.group !== "Random" && fits(b, g.snap.view.num_players)).map((b) => el("option", { value: b.name, text: b.label, selected: b.name === analysisBot(game, g.snap.view.num_players) })));
  sel.addEventListener("change", () => { store.set(`analysis.${game}`, sel.value); g.thoughts = null; g.hint = null; maybeThink(g); });
  box.replaceChildren(el("div", { class: "setup-row" }, el("label", {}, "Bot\u2019s view of your position: ", sel)));
  if (g.snap.your_turn && g.thoughts && g.thoughts.step === g.snap.steps) box.append(thoughtsBlock(g.thoughts.thoughts, game, `${g.thoughts.bot} would play ${g.thoughts.label}`));
  else if (g.snap.your_turn) box.append(el("div", { class: "small", text: "thinking\u2026" }));
  else box.append(el("div", { class: "small", text: "shown on your turn" }));
  box.append(el("div", { class: "small", text: "Your opponents\u2019 thoughts stay hidden while the game is on (they would reveal their cards); the replay of a finished game shows them." }));
}

function maybeThink(g) {
  if ($("#thoughts-toggle").checked && g && g.snap.your_turn && !play.busy && !(g.thoughts && g.thoughts.step === g.snap.steps)) askHint(g, true);
  if (g) renderThinking(g);
}

// ---------------------------------------------------------------------------------------------- keyboard
function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (!$("#rules-panel").hidden) { if (ev.key === "Escape") { ev.preventDefault(); closeRules(); } return; }
  const t = ev.target;
  if (t && (t.tagName === "INPUT" && t.type !== "checkbox" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  const tab = (location.hash || "#play").slice(1).split("/")[0];
  if (tab === "replays" || tab === "replay") { replayKey(ev); return; }
  if (tab !== "play") return;
  const g = cur();
  if (!g) return;
  const k = ev.key.toLowerCase();
  if (k === "h") { ev.preventDefault(); askHint(g, false); return; }
  if (k === "t") { ev.preventDefault(); const c = $("#thoughts-toggle"); c.checked = !c.checked; c.dispatchEvent(new Event("change")); return; }
  if (k === "n" && !g.snap.your_turn) { ev.preventDefault(); openNewGame(); return; }
  if (k === "arrowright" || k === "arrowleft") {
    const btns = $$("#hand button");  // cards, row picks, BUST
    if (!btns.length) return;
    ev.preventDefault();
    let i = btns.indexOf(document.activeElement);
    i = i < 0 ? 0 : (i + (k === "arrowright" ? 1 : -1) + btns.length) % btns.length;
    btns[i].focus();
    return;
  }
  if (!g.snap.your_turn || play.busy) return;
  const v = g.snap.view;
  if (isTake5(g.snap.game)) {
    if (!/^[0-9]$/.test(k)) return;
    ev.preventDefault();
    const n = k === "0" ? 10 : Number(k);
    if (v.phase === "row choice") { if (n >= 1 && n <= 4) humanAction(103 + n); return; }
    const list = v.phase === "draft" ? v.pool : v.hands[String(g.snap.seat)];
    if (list && n <= list.length) humanAction(list[n - 1] - 1);
  } else {
    if (/^[0-7]$/.test(k)) { ev.preventDefault(); humanAction(Number(k)); }
    else if (k === "b") { ev.preventDefault(); humanAction(18); }
  }
}

// ---------------------------------------------------------------------------------------------- new game
// plays n players at all / was made for n players (the server says which counts: a shipped policy suits those for
// which it is its family's nearest, a guided search those its prior suits)
const fits = (b, n) => !b.players || b.players.includes(n);
const suits = (b, n) => !!b.suits && b.suits.includes(n);

function preferredBot(game, n, config) {
  const bots = META.games[game].bots;
  const family = isTake5(game) ? (config.mode === "game" ? "take5-game-" : "take5-round-") : "five-alive-";
  const b = bots.find((x) => x.family === family && suits(x, n) && fits(x, n)) || bots.find((x) => x.family === family && fits(x, n))
    || bots.find((x) => fits(x, n) && x.group !== "Random");
  return b ? b.name : "random";
}

function botSelect(game, n, value, attrs) {
  const groups = {};
  // one guided search per count: the one whose prior suits it (the others stay typeable by name)
  const shown = (b) => fits(b, n) && (b.group !== "Guided search" || suits(b, n));
  for (const b of META.games[game].bots) if (shown(b)) (groups[b.group] = groups[b.group] || []).push(b);
  const sel = el("select", attrs);
  for (const [group, list] of Object.entries(groups)) sel.append(el("optgroup", { label: group }, list.map((b) => el("option", { value: b.name, text: b.label, title: b.about, selected: b.name === value }))));
  return sel;
}

function openNewGame() { const d = $("#new-game"); d.open = true; $("#setup-game").focus(); }

function setupForm() {
  const gameSel = $("#setup-game"), presetSel = $("#setup-preset"), players = $("#setup-players"), seatSel = $("#setup-seat");
  const state = { config: {} };
  const buildConfig = () => {
    const game = gameSel.value, m = META.games[game];
    const box = $("#setup-config");
    box.replaceChildren(el("div", { class: "small", text: "Engine options (defaults follow the printed rules; see docs/rules.md):" }));
    for (const [field, def] of Object.entries(m.defaults)) {
      if (field === "num_players" || Array.isArray(def) || field === "max_cycles") continue;
      const value = field in state.config ? state.config[field] : def;
      let input;
      if (m.choices[field]) input = el("select", { "data-field": field }, m.choices[field].map((c) => el("option", { value: c, text: c, selected: c === value })));
      else if (typeof def === "boolean") input = el("input", { type: "checkbox", "data-field": field, checked: value });
      else if (typeof def === "number" || def === null) input = el("input", { type: "number", "data-field": field, value: value === null ? "" : value });
      else input = el("input", { type: "text", "data-field": field, value });
      box.append(el("label", {}, field.replace(/_/g, " ") + " ", input));
    }
  };
  const buildSeats = () => {
    const game = gameSel.value, n = Number(players.value) || 2;
    const keep = Math.min(Number(seatSel.value) || 0, n - 1);
    seatSel.replaceChildren(...Array.from({ length: n }, (_, p) => el("option", { value: p, text: `P${p}`, selected: p === keep })));
    const def = preferredBot(game, n, state.config);
    const all = botSelect(game, n, def, { id: "setup-bot" });
    $("#setup-bot").replaceWith(all);
    const about = () => { const b = META.games[game].bots.find((x) => x.name === all.value); $("#setup-about").textContent = b ? `${b.label}: ${b.about}` : ""; };
    const perSeat = () => {
      const box = $("#setup-bots");
      box.replaceChildren(el("span", { class: "small", text: "Each seat (or type a registry name):" }));
      let j = 0;
      for (let p = 0; p < n; p++) {
        if (p === Number(seatSel.value)) continue;
        const s = botSelect(game, n, all.value, { "data-bot-select": j, "aria-label": `bot in seat P${p}` });
        const txt = el("input", { type: "text", "data-bot": j, size: 14, placeholder: "or a name", "aria-label": `bot name for seat P${p}` });
        box.append(el("label", {}, `P${p} `, s, txt));
        j++;
      }
    };
    all.addEventListener("change", () => { about(); perSeat(); });
    seatSel.onchange = perSeat;
    about(); perSeat();
  };
  const buildPresets = () => {
    const game = gameSel.value, m = META.games[game];
    presetSel.replaceChildren(...m.presets.map((p, i) => el("option", { value: p.id, text: p.label, selected: i === 0 })));
    players.max = m.players[1]; players.min = m.players[0];
    applyPreset();
  };
  const applyPreset = () => {
    const m = META.games[gameSel.value];
    const p = m.presets.find((x) => x.id === presetSel.value) || m.presets[0];
    state.config = { ...p.config };
    players.value = p.config.num_players;
    buildConfig(); buildSeats();
  };
  gameSel.addEventListener("change", buildPresets);
  presetSel.addEventListener("change", applyPreset);
  players.addEventListener("change", () => { state.config.num_players = Number(players.value); buildSeats(); });
  $("#setup").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const game = gameSel.value, m = META.games[game];
    const config = { num_players: Number(players.value) };
    for (const inp of $$("#setup-config [data-field]")) {
      const f = inp.dataset.field, def = m.defaults[f];
      let v;
      if (inp.type === "checkbox") v = inp.checked;
      else if (inp.type === "number") v = inp.value === "" ? null : Number(inp.value);
      else v = inp.value;
      if (v !== def) config[f] = v;
    }
    const bots = $$("#setup-bots [data-bot-select]").map((s, j) => { const t = $(`#setup-bots [data-bot="${j}"]`).value.trim(); return t || s.value; });
    const body = { game, config, seat: Number(seatSel.value), bots };
    const seed = $("#setup-seed").value.trim();
    if (seed) {
      if (!/^\d{1,20}$/.test(seed)) { $("#setup-message").textContent = "Seed: expected a whole number (or leave it empty for a random deal)"; return; }
      body.seed = Number(seed) <= Number.MAX_SAFE_INTEGER ? Number(seed) : seed;
      if (typeof body.seed === "string") { $("#setup-message").textContent = `Seed: at most ${Number.MAX_SAFE_INTEGER} here`; return; }
    }
    await startGame(body);
  });
  buildPresets();
}

async function startGame(body) {
  const msg = $("#setup-message");
  msg.textContent = "Starting\u2026"; msg.className = "message info";
  $("#setup-start").disabled = true;
  try {
    const snap = await api("POST", "/api/games", body);
    const g = { id: snap.id, token: snap.token, snap, events: snap.events, body, wantFocus: true, started: new Date().toISOString() };
    for (const d of snap.dropped || []) { delete play.games[d]; play.order = play.order.filter((x) => x !== d); }
    play.games[snap.id] = g; play.order.push(snap.id); play.current = snap.id;
    saveGames();
    msg.textContent = ""; msg.className = "message";
    $("#new-game").open = false;
    showError("");
    renderLog(); renderPlay();
    await continuePending(g);
    maybeThink(g);
  } catch (e) {
    msg.textContent = e.message; msg.className = "message";
  } finally {
    $("#setup-start").disabled = false;
  }
}

function rematch(g) {
  if (!g.snap.over) return;
  const b = g.body || { game: g.snap.game, config: g.snap.config, seat: g.snap.seat, bots: g.snap.names.filter((n, p) => p !== g.snap.seat) };
  startGame({ ...b, seed: g.snap.seed });
}

async function resumeGames() {
  const saved = store.get("games", []);
  const want = store.get("current", null);
  for (const { id, token, started } of Array.isArray(saved) ? saved : []) {
    if (typeof id !== "string" || typeof token !== "string") continue;
    try {
      const snap = await api("GET", `/api/games/${encodeURIComponent(id)}?since=0`, undefined, token);
      play.games[id] = { id, token, snap, events: snap.events, wantFocus: true, started: typeof started === "string" ? started : null };
      play.order.push(id);
    } catch (e) { /* expired or unknown: forget it */ }
  }
  play.current = play.games[want] ? want : play.order[play.order.length - 1] || null;
  saveGames();
  renderLog(); renderPlay();
  const g = cur();
  if (g) { continuePending(g).catch((e) => showError(e.message)); maybeThink(g); }
  else $("#new-game").open = true;
}

// ------------------------------------------------------------------------------------------ Replays
const rp = { src: null, total: 0, frames: new Map(), i: 0, info: null, timer: null, playing: false, loading: null };

async function loadRecordFiles(select) {
  const sel = $("#replay-file");
  const keep = select || sel.value;
  const runs = await api("GET", "/api/runs");
  sel.replaceChildren(el("option", { value: "", text: "(choose a recorded game)" }));
  for (const r of runs.runs) for (const f of r.records) sel.append(el("option", { value: `${r.name}/${f}`, text: `${r.name} / ${f.replace("records/", "")}` }));
  if (keep) sel.value = keep;
}

async function fetchPage(start) {
  const src = rp.src;
  const q = `start=${start}&count=${META.limits.replay_page}`;
  let data;
  if (src.kind === "upload") data = await api("POST", "/api/replay", { text: src.text, index: src.index, start, count: META.limits.replay_page });
  else if (src.kind === "run") data = await api("GET", `/api/replay?run=${encodeURIComponent(src.run)}&game=${encodeURIComponent(src.game)}&${q}`);
  else data = await api("GET", `/api/replay?file=${encodeURIComponent(src.file)}&index=${src.index}&${q}`);
  if (rp.src !== src) return null;
  data.frames.forEach((f, k) => rp.frames.set(data.start + k, f));
  return data;
}

async function frameAt(i) {
  if (!rp.frames.has(i)) {
    const page = META.limits.replay_page;
    const start = Math.floor(i / page) * page;
    if (!rp.loading || rp.loading.start !== start) rp.loading = { start, p: fetchPage(start) };
    await rp.loading.p;
    rp.loading = null;
  }
  const next = Math.floor(i / META.limits.replay_page + 1) * META.limits.replay_page;  // prefetch the next page
  if (next < rp.total && !rp.frames.has(next) && !rp.loading) rp.loading = { start: next, p: fetchPage(next).finally(() => { rp.loading = null; }) };
  return rp.frames.get(i);
}

async function openReplay(src) {
  $("#replay-message").textContent = "";
  stopAutoplay();
  rp.src = src; rp.frames = new Map(); rp.i = 0;
  try {
    const data = await fetchPage(0);
    if (!data) return;
    rp.info = data; rp.total = data.total_frames;
    $("#rp-round").replaceChildren(...data.rounds.map((r) => el("option", { value: r.frame, text: `round ${r.round + 1}` })));
    const n = data.frames[0].view.num_players;
    const me = data.human_seat;
    $("#rp-seat").replaceChildren(el("option", { value: "all", text: "from above (every hand)" }),
      ...Array.from({ length: n }, (_, p) => el("option", { value: p, text: `P${p}'s view` + (data.agents[p] ? ` (${data.agents[p] === "you" ? "human" : data.agents[p]})` : "") })));
    $("#rp-thoughts-label").hidden = !data.has_thoughts;
    $("#replay-controls").hidden = false;
    const share = src.kind === "run" ? `#replay/${encodeURIComponent(src.run)}/${encodeURIComponent(src.game)}` : null;
    $("#rp-share").hidden = !share;
    if (share) $("#rp-share").href = share;
    await renderReplay();
    startAutoplay();
  } catch (e) {
    $("#replay-message").textContent = e.message;
    $("#replay-controls").hidden = true; $("#replay-area").replaceChildren(); $("#replay-step").textContent = "";
    $("#replay-thinking").hidden = true;
  }
}

const roundOf = (v) => (v.over ? Math.max(0, v.round - 1) : v.round);

function seatView(view, seat) {
  if (seat === "all") return view;
  const v = { ...view, hands: {}, pending: {} };
  if (view.hands[seat] !== undefined) v.hands[seat] = view.hands[seat];
  if (view.pending && view.pending[seat] !== undefined) v.pending[seat] = view.pending[seat];
  return v;
}

async function renderReplay() {
  const d = rp.info;
  if (!d) return;
  const i = rp.i;
  const f = await frameAt(i);
  if (!f || rp.i !== i) return;
  const seatSel = $("#rp-seat").value;
  const seat = seatSel === "all" ? null : Number(seatSel);
  const names = d.agents.length ? d.agents.map((n) => (n === "you" ? "human" : n)) : null;
  const v = seatView(f.view, seatSel === "all" ? "all" : String(seat));
  const area = $("#replay-area");
  if (isTake5(d.game)) {
    const rev = f.events.find((e) => e.type === "reveal");
    const o = { viewer: seat, names };
    if (rev) { o.trick = rev.cards; o.placed = new Set(f.events.filter((e) => e.type === "place").map((e) => e.card)); o.trickTitle = "This trick"; }
    else if (f.view.waiting_row) { o.trick = []; }
    renderTake5Table(area, v, o);
  } else {
    const ev = f.events.find((e) => e.type === "play");
    renderFiveAliveTable(area, v, { viewer: seat, names, event: ev });
  }
  const hidden = isTake5(d.game) && seat !== null && f.player !== seat && f.events.length === 1 && f.events[0].type === "chose";
  const who = f.player === null ? "" : `${seatName(names, f.player, seat)}: ${hidden ? "chooses a card" : f.label}`;
  const evText = hidden ? "" : f.events.map((e) => e.text).join(" \u00B7 ");
  $("#replay-step").textContent = f.step === 0 ? "Start of the game" : `${who}${evText ? " \u2014 " + nameText(evText, names, seat) : ""}`;
  $("#rp-pos").textContent = `step ${i} of ${rp.total - 1}` + (i === rp.total - 1 ? " \u00B7 end of the game" : "");
  const r = d.rounds.filter((x) => x.frame <= i).pop();
  if (r) $("#rp-round").value = String(r.frame);
  $("#rp-first").disabled = $("#rp-back").disabled = i === 0;
  $("#rp-last").disabled = $("#rp-fwd").disabled = i === rp.total - 1;
  const tbox = $("#replay-thinking");
  const showT = d.has_thoughts && $("#rp-thoughts").checked && f.thoughts && !hidden;
  tbox.hidden = !showT;
  if (showT && (seat === null || seat === f.thoughts.player)) {
    tbox.replaceChildren(thoughtsBlock(f.thoughts, d.game, `What ${seatName(names, f.thoughts.player, seat)} thought before playing ${f.thoughts.chosen_label}`));
  } else if (showT) {  // its thoughts name its cards: not for another seat's view
    tbox.replaceChildren(el("div", { class: "small", text: `${seatName(names, f.thoughts.player, seat)} thought about this move: view the game from above or from its seat to see its thoughts (they show its hand).` }));
  }
}

function replayGo(i) {
  if (!rp.info) return;
  rp.i = Math.max(0, Math.min(rp.total - 1, i));
  renderReplay().catch((e) => { $("#replay-message").textContent = e.message; });
}

function stopAutoplay() {
  rp.playing = false;
  if (rp.timer) clearTimeout(rp.timer);
  rp.timer = null;
  $("#rp-play").textContent = "Play";
}

function startAutoplay() {
  if (params.get("autoplay") === "0") { stopAutoplay(); return; }
  rp.playing = true;
  $("#rp-play").textContent = "Pause";
  const tick = async () => {
    if (!rp.playing) return;
    if (rp.i >= rp.total - 1) { stopAutoplay(); return; }
    rp.i += 1;
    await renderReplay().catch(() => {});
    const ms = { slow: 1600, normal: 800, fast: 200 }[$("#rp-speed").value] || 800;
    rp.timer = setTimeout(tick, ms);
  };
  rp.timer = setTimeout(tick, { slow: 1600, normal: 800, fast: 200 }[$("#rp-speed").value] || 800);
}

function replayKey(ev) {
  if (!rp.info) return;
  const k = ev.key;
  if (k === "ArrowRight") { ev.preventDefault(); stopAutoplay(); replayGo(rp.i + 1); }
  else if (k === "ArrowLeft") { ev.preventDefault(); stopAutoplay(); replayGo(rp.i - 1); }
  else if (k === "Home") { ev.preventDefault(); stopAutoplay(); replayGo(0); }
  else if (k === "End") { ev.preventDefault(); stopAutoplay(); replayGo(Infinity); }
  else if (k === " " && ev.target.tagName !== "BUTTON") { ev.preventDefault(); rp.playing ? stopAutoplay() : startAutoplay(); }
}

function setupReplays() {
  const manual = (f) => () => { stopAutoplay(); f(); };
  $("#rp-first").addEventListener("click", manual(() => replayGo(0)));
  $("#rp-back").addEventListener("click", manual(() => replayGo(rp.i - 1)));
  $("#rp-fwd").addEventListener("click", manual(() => replayGo(rp.i + 1)));
  $("#rp-last").addEventListener("click", manual(() => replayGo(Infinity)));
  $("#rp-play").addEventListener("click", () => (rp.playing ? stopAutoplay() : (rp.i >= rp.total - 1 && replayGo(0), startAutoplay())));
  $("#rp-seat").addEventListener("change", () => renderReplay());
  $("#rp-thoughts").addEventListener("change", () => renderReplay());
  $("#rp-round").addEventListener("change", manual(() => replayGo(Number($("#rp-round").value))));
  $("#replay-open").addEventListener("click", () => {
    const file = $("#replay-file").value;
    if (!file) { $("#replay-message").textContent = "Choose a recorded game first (or upload a record file)."; return; }
    const m = file.match(/^([^/]+)\/records\/([^/]+)\.jsonl$/);
    const index = Number($("#replay-index").value) || 0;
    if (m && index === 0) location.hash = `#replay/${encodeURIComponent(m[1])}/${encodeURIComponent(m[2])}`;
    else openReplay({ kind: "file", file, index });
  });
  $("#replay-upload").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    if (file.size > 8 * 1024 * 1024) { $("#replay-message").textContent = "This file is larger than 8 MB: a record file is far smaller."; return; }
    openReplay({ kind: "upload", text: await file.text(), index: Number($("#replay-index").value) || 0 });
  });
}

// ------------------------------------------------------------------------------------------ Results
const fmt = (x, d = 2) => (x === null || x === undefined || x === "" ? "-" : typeof x === "number" ? (Number.isInteger(x) ? x.toLocaleString("en") : x.toFixed(d)) : String(x));
const fmtCi = (m, pct) => {
  if (!m || m.mean === null || m.mean === undefined) return "-";
  const k = pct ? 100 : 1, d = pct ? 1 : 2;
  return `${(m.mean * k).toFixed(d)}${pct ? "%" : ""}` + (m.half_width !== undefined && m.half_width !== null ? ` \u00B1 ${(m.half_width * k).toFixed(d)}` : "");
};
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
function noPaths(x) {
  if (typeof x === "string") return PATHY.test(x) ? (x.split(/[\\/]/).filter(Boolean).pop() || "") : x;
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
    if (!data.runs.length) { box.append(el("div", { text: "No runs yet: play a game here, or run `make demo` or `python -m experiments.tournament ... --record`." })); return; }
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
        el("div", { class: "plots" }, r.plots.map((p) => el("img", { src: `/files/${encodeURIComponent(r.name)}/${encodeURIComponent(p)}`, alt: p, title: p }))));
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

// ------------------------------------------------------------------------------------------ Rules
// the game's chapter of the rule book (docs/rules.md, read by the server): a panel at the table, a page for the whole
function rulesButton(game) {
  return el("button", { type: "button", class: "rules-btn link", "data-game": game, "aria-haspopup": "dialog", text: "Rules", onclick: () => openRules(game) });
}

function ruleBlocks(blocks) {
  const out = [];
  const list = (items, ordered) => el(ordered ? "ol" : "ul", {}, items.map((it) => el("li", {}, it.text, it.items && it.items.length ? list(it.items, false) : null)));
  for (const b of blocks || []) {
    if (b.p !== undefined) out.push(el("p", { text: b.p }));
    else if (b.list) out.push(list(b.list, b.ordered));
    else if (b.table && b.table.length) {
      const [head, ...rows] = b.table;
      out.push(el("div", { class: "table-wrap" }, el("table", { class: "board" }, el("tr", {}, head.map((h) => el("th", { text: h }))),
        rows.map((r) => el("tr", {}, r.map((c) => el("td", { text: c })))))));
    }
  }
  return out;
}

function cardList(game) {
  const r = RULES[game];
  if (!r || !r.cards) return null;
  const box = el("div", { class: "card-list", id: "card-list" });
  for (let k = 8; k < 18; k++) box.append(el("div", { class: "card-explained", "data-kind": k }, fiveAliveCard(k, { small: true }), el("div", { text: r.cards[String(k)] || META.five_alive_kinds[k] })));
  return el("div", {}, el("h3", { text: "The special cards" }), box);
}

function rulesContent(game, full) {
  const r = RULES[game];
  if (!r || r.missing) return [el("p", { text: (r && r.missing) || "The rules could not be loaded." })];
  const out = [el("h2", { text: r.title })];
  out.push(...ruleBlocks(r.intro));
  if (!full && game === "five_alive") out.push(cardList(game));
  for (const s of r.sections) {
    if (!full && !s.player) continue;
    out.push(el("h3", { id: full ? `rules-${s.number}` : null, text: `${s.number} ${s.title}` }), ...ruleBlocks(s.blocks));
  }
  out.push(el("p", { class: "small", text: `From the rule book, ${r.source}: the same text as the documentation's rules page.` }));
  return out;
}

let rulesReturn = null;
function openRules(game) {
  const panel = $("#rules-panel");
  rulesReturn = document.activeElement;
  $("#rules-title").textContent = `Rules: ${gameTitle(game)}`;
  $("#rules-full").href = `#rules/${game}`;
  $("#rules-body").replaceChildren(...rulesContent(game, false));
  panel.hidden = false;
  $("#rules-body").scrollTop = 0;
  $("#rules-close").focus();
}

function closeRules() {
  $("#rules-panel").hidden = true;
  if (rulesReturn && document.contains(rulesReturn)) rulesReturn.focus({ preventScroll: true });
}

function renderRulesPage(game) {
  $("#rules-panel").hidden = true;
  const nav = el("div", { class: "setup-row" }, Object.keys(META.games).map((g) => el("a", { class: "link" + (g === game ? " active" : ""), href: `#rules/${g}`, "aria-current": g === game ? "page" : null, text: gameTitle(g) })));
  $("#rules-page").replaceChildren(nav, ...rulesContent(game, true));
}

// ------------------------------------------------------------------------------------------ tabs
function showTab() {
  const parts = (location.hash || "#play").slice(1).split("/");
  let tab = parts[0] || "play";
  if (tab === "replay") tab = "replays";
  if (!["play", "replays", "results", "rules"].includes(tab)) tab = "play";
  for (const s of $$(".tab")) s.classList.toggle("active", s.id === `tab-${tab}`);
  for (const a of $$("nav a")) { a.classList.toggle("active", a.dataset.tab === tab); if (a.dataset.tab === tab) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current"); }
  document.body.classList.toggle("playing", tab === "play" && !!cur());
  if (tab !== "replays") stopAutoplay();
  if (tab === "rules") renderRulesPage(parts[1] && RULES[parts[1]] ? parts[1] : (cur() ? cur().snap.game : "take5"));
  if (tab === "results") { loadRuns(); if (parts[1]) loadRun(decodeURIComponent(parts[1])); else $("#run-detail").replaceChildren(); }
  if (tab === "replays") {
    if (parts[0] === "replay" && parts[1] && parts[2]) {
      const run = decodeURIComponent(parts[1]), game = decodeURIComponent(parts[2]);
      loadRecordFiles(`${run}/records/${game}.jsonl`).catch(() => {});
      if (!rp.src || rp.src.run !== run || rp.src.game !== game) openReplay({ kind: "run", run, game });
    } else loadRecordFiles().catch((e) => { $("#replay-message").textContent = e.message; });
    renderMyGames();
  }
}

async function loadRules() {
  await Promise.all(Object.keys(META.games).map(async (game) => {
    try { RULES[game] = await api("GET", `/api/rules/${game}`); } catch (e) { RULES[game] = { game, missing: e.message }; }
  }));
}

async function main() {
  META = await api("GET", "/api/meta");
  await loadRules();
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
  $("#hint-btn").addEventListener("click", () => { const g = cur(); if (g) askHint(g, false); });
  $("#thoughts-toggle").checked = !!store.get("thoughts", false);
  $("#thoughts-toggle").addEventListener("change", () => { store.set("thoughts", $("#thoughts-toggle").checked); const g = cur(); if (g) maybeThink(g); });
  document.addEventListener("keydown", onKey);
  setupForm();
  setupReplays();
  window.addEventListener("hashchange", showTab);
  await resumeGames();
  showTab();
  document.body.dataset.ready = "1";
  document.body.dataset.busy = "0";
}

let thinkTimer = null;
function maybeThinkSoon(g) { clearTimeout(thinkTimer); thinkTimer = setTimeout(() => { if (cur() === g) maybeThink(g); }, 30); }

main().catch((e) => { document.body.prepend(el("div", { class: "message", text: `Could not start: ${e.message}` })); });

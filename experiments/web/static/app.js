// fiveplay web app: Play, Replays, Results. Plain JS, no build step. The server decides what a seat sees;
// this file only draws what it is sent and sends the human's clicks.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
};
const SVGNS = "http://www.w3.org/2000/svg";
const svg = (tag, attrs = {}, text) => {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let META = null;
const params = new URLSearchParams(location.search);
const SPEEDS = { off: 0, fast: 40, normal: 450 };
const STEP_MS = SPEEDS[params.get("speed")] ?? SPEEDS.normal;

async function api(method, path, body, raw) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    if (raw) opts.body = body;
    else { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: `${res.status} ${res.statusText}` }; }
  if (!res.ok) throw new Error(data && data.error ? data.error : `${res.status} ${res.statusText}`);
  return data;
}

function showMessage(id, text, info = false) {
  const m = $(id);
  m.textContent = text || "";
  m.classList.toggle("info", !!info);
}

// ---------------------------------------------------------------------------------------------- cards
const T5_COLORS = { 1: "#ffffff", 2: "#cfe3ff", 3: "#ffe9a8", 5: "#ffc2c2", 7: "#e2c4ff" };

function take5Card(num, opts = {}) {
  const w = opts.small ? 34 : 46, h = opts.small ? 48 : 66;
  const bulls = META.take5_bullheads[num - 1];
  const s = svg("svg", { width: w, height: h, viewBox: "0 0 46 66", role: "img", "aria-label": `card ${num}, ${bulls} bull heads` });
  s.append(svg("rect", { x: 1, y: 1, width: 44, height: 64, rx: 5, fill: T5_COLORS[bulls] || "#fff", stroke: "#555", "stroke-width": 1.5 }));
  for (let i = 0; i < bulls; i++) {
    const cx = 23 + (i - (bulls - 1) / 2) * 6;
    s.append(svg("circle", { cx, cy: 10, r: 2.4, fill: "#8b1a1a" }));
  }
  s.append(svg("text", { x: 23, y: 42, "text-anchor": "middle", "font-size": 20, "font-weight": 700, fill: "#222" }, String(num)));
  s.append(svg("text", { x: 23, y: 59, "text-anchor": "middle", "font-size": 8, fill: "#8b1a1a" }, "\u2022".repeat(0) + bulls + " bull" + (bulls > 1 ? "s" : "")));
  return s;
}

const FA_STYLE = [
  ["#e8f5e9", "0"], ["#c8e6c9", "1"], ["#a5d6a7", "2"], ["#81c784", "3"], ["#66bb6a", "4"], ["#fff59d", "5"],
  ["#ffcc80", "6"], ["#ef9a9a", "7"], ["#b3e5fc", "\u21C4"], ["#ce93d8", "=21"], ["#ffab91", "Skip"],
  ["#e0e0e0", "Pass"], ["#b2dfdb", "=0"], ["#b2dfdb", "=10"], ["#f8bbd0", "+1"], ["#f48fb1", "+2"],
  ["#d1c4e9", "ReDeal"], ["#424242", "BOMB"],
];

function fiveAliveCard(kind, opts = {}) {
  const w = opts.small ? 34 : 48, h = opts.small ? 48 : 68;
  const [fill, label] = FA_STYLE[kind];
  const name = META.five_alive_kinds[kind];
  const s = svg("svg", { width: w, height: h, viewBox: "0 0 48 68", role: "img", "aria-label": name });
  s.append(svg("rect", { x: 1, y: 1, width: 46, height: 66, rx: 6, fill, stroke: "#444", "stroke-width": 1.5 }));
  const dark = kind === 17;
  s.append(svg("text", { x: 24, y: 40, "text-anchor": "middle", "font-size": label.length > 3 ? 12 : 22, "font-weight": 700,
                         fill: dark ? "#fff" : "#222" }, label));
  if (kind >= 8) s.append(svg("text", { x: 24, y: 60, "text-anchor": "middle", "font-size": 6.5, fill: dark ? "#eee" : "#333" }, name.slice(0, 16)));
  const t = svg("title", {}, name);
  s.append(t);
  return s;
}

function cardBack(opts = {}) {
  const s = svg("svg", { width: opts.small ? 20 : 30, height: opts.small ? 28 : 42, viewBox: "0 0 30 42" });
  s.append(svg("rect", { x: 1, y: 1, width: 28, height: 40, rx: 4, fill: "#3b6d60", stroke: "#223" }));
  return s;
}

// ------------------------------------------------------------------------------------------- seats
function seatName(names, p, viewer) {
  if (p === null || p === undefined || p < 0) return "-";
  const n = names && names[p] ? names[p] : "";
  if (viewer === p && n === "you") return `P${p} (you)`;
  return n ? `P${p} ${n}` : `P${p}`;
}

// ------------------------------------------------------------------------------------------- Take 5
function renderTake5(area, v, o) {
  // o: {viewer, names, legal:Set, onAction, rows (override), trick (override list of [num, owner]), pickRow}
  area.replaceChildren();
  const players = el("div", { class: "players" });
  for (let p = 0; p < v.num_players; p++) {
    const box = el("div", { class: "player" + (p === v.current ? " turn" : "") + (p === o.viewer ? " me" : ""), "data-seat": p },
      el("div", { class: "name", text: seatName(o.names, p, o.viewer) }),
      el("div", { text: `score ${v.scores[p]} \u00B7 this round ${v.round_penalty[p]}` }),
      el("div", { class: "small", text: `${v.hand_sizes[p]} cards` + (v.chosen[p] ? " \u00B7 has chosen" : "") }));
    players.append(box);
  }
  const modeText = v.mode === "game" ? "to 66" : v.mode;
  area.append(el("div", { class: "section-title", text: `Take 5 \u00B7 round ${v.round + (v.over ? 0 : 1)} \u00B7 trick ${Math.min(v.trick + 1, 10)} of 10 \u00B7 ${v.phase} \u00B7 mode ${modeText}` }), players);

  const rowsBox = el("div", { class: "rows" });
  const rows = o.rows || v.rows;
  const pick = o.pickRow;
  rows.forEach((row, r) => {
    const bulls = row.reduce((a, c) => a + META.take5_bullheads[c - 1], 0);
    const line = el("div", { class: "row" + (pick ? " pick" : "") + (o.flashRow === r ? " flash" : ""), "data-row": r },
      el("span", { class: "label", text: `row ${r + 1} \u00B7 ${bulls}\u2009bh` }),
      el("div", { class: "cards" }, row.map((c) => el("span", { class: "card" }, take5Card(c)))));
    if (pick) {
      const btn = el("button", { class: "legal pick-row", type: "button", "data-action": 104 + r, text: `take row ${r + 1}`,
                                 onclick: () => o.onAction(104 + r) });
      line.append(btn);
    }
    rowsBox.append(line);
  });
  area.append(el("div", { class: "section-title", text: "Rows" }), rowsBox);

  const trick = o.trick || (v.trick_cards.length ? [] : null);
  const trickBox = el("div", { class: "trick", id: "trick" });
  if (o.trick) for (const [c, q] of o.trick) trickBox.append(el("div", {}, take5Card(c, { small: true }), el("div", { class: "owner", text: `P${q}` })));
  else if (v.waiting_row) trickBox.append(el("div", { class: "hint", text: `${seatName(o.names, v.waiting_row.player, o.viewer)}'s ${v.waiting_row.card} is lower than every row: ${v.waiting_row.player === o.viewer ? "click a row to take it" : "they pick a row"}` }));
  area.append(el("div", { class: "section-title", text: "Trick" }), trickBox);
  void trick;

  if (v.pool && v.pool.length) {
    area.append(el("div", { class: "section-title", text: "Draft pool" }),
      el("div", { class: "cards" }, v.pool.map((c) => cardButton(take5Card(c), c - 1, o))));
  }
  for (const [p, hand] of Object.entries(v.hands)) {
    const seat = Number(p);
    const pend = v.pending[p];
    area.append(el("div", { class: "hand-title", text: `${seatName(o.names, seat, o.viewer)}: hand` + (pend ? ` (chosen: ${pend})` : "") }),
      el("div", { class: "cards hand", "data-seat": seat }, hand.map((c) => seat === o.viewer ? cardButton(take5Card(c), c - 1, o) : el("span", { class: "card" }, take5Card(c, { small: true })))));
  }
}

function cardButton(face, action, o) {
  const legal = o.legal && o.legal.has(action);
  const b = el("button", { class: "card" + (legal ? " legal" : " unplayable"), type: "button", "data-action": action }, face);
  if (o.onAction) b.addEventListener("click", () => o.onAction(action));
  return b;
}

// ------------------------------------------------------------------------------------------- 5 Alive
function renderFiveAlive(area, v, o) {
  area.replaceChildren();
  const players = el("div", { class: "players" });
  for (let p = 0; p < v.num_players; p++) {
    const team = v.variant === "teams" ? ` \u00B7 team ${p % 2 ? "B" : "A"}` : "";
    players.append(el("div", { class: "player" + (p === v.current ? " turn" : "") + (p === o.viewer ? " me" : "") + (v.alive[p] ? "" : " out"), "data-seat": p },
      el("div", { class: "name", text: seatName(o.names, p, o.viewer) + team }),
      el("div", { class: "hearts", text: "\u2665".repeat(v.lives[p]) + "\u2661".repeat(Math.max(0, 5 - v.lives[p])), title: `${v.lives[p]} lives` }),
      el("div", { class: "small", text: v.alive[p] ? `${v.lives[p]} lives \u00B7 ${v.hand_sizes[p]} cards` : "eliminated" })));
  }
  area.append(el("div", { class: "section-title", text: `5 Alive \u00B7 ${v.variant} \u00B7 round ${roundOf(v) + 1} \u00B7 ${v.phase}` }), players);
  const top = v.top >= 0 ? fiveAliveCard(v.top) : el("span", { class: "small", text: "(no card yet)" });
  area.append(el("div", { class: "center panel" },
    el("div", { class: "total", id: "total" }, String(v.total), el("small", { text: " / 21" })),
    el("div", { class: "direction", title: v.direction === 1 ? "clockwise" : "counter-clockwise",
                text: v.direction === 1 ? "\u21BB clockwise" : "\u21BA counter-clockwise" }),
    el("div", {}, el("div", { class: "small", text: "top card" }), top),
    el("div", { class: "small", text: `draw pile ${v.draw_size} \u00B7 discard pile ${v.discard_size}` })));
  if (v.phase === "bomb answer" && v.current === o.viewer) {
    area.append(el("div", { class: "hint", text: "Bomb! Discard a 0 (click your 0) or lose a life (BUST)." }));
  }
  for (const [p, counts] of Object.entries(v.hands)) {
    const seat = Number(p);
    const cards = el("div", { class: "cards hand", "data-seat": seat });
    counts.forEach((c, k) => {
      for (let i = 0; i < c; i++) cards.append(seat === o.viewer ? cardButton(fiveAliveCard(k), k, o) : el("span", { class: "card" }, fiveAliveCard(k, { small: true })));
    });
    if (seat === o.viewer && o.onAction && !v.over) {
      const legal = o.legal && o.legal.has(18);
      cards.append(el("button", { class: "bust" + (legal ? " legal" : ""), type: "button", "data-action": 18, text: "BUST", onclick: () => o.onAction(18) }));
    }
    area.append(el("div", { class: "hand-title", text: `${seatName(o.names, seat, o.viewer)}: hand (${v.hand_sizes[seat]})` }), cards);
  }
}

// ---------------------------------------------------------------------------------------------- Play
const play = { games: {}, current: null, busy: false };

function renderPlay() {
  const g = play.games[play.current];
  const area = $("#play-area");
  const result = $("#result");
  if (!g) { area.replaceChildren(); result.className = "panel result"; return; }
  const snap = g.snap;
  const legal = new Set(play.busy ? [] : snap.legal);
  const o = { viewer: snap.seat, names: snap.names, legal, onAction: (a) => humanAction(a) };
  if (snap.game === "take5") {
    const v = snap.view;
    o.pickRow = !play.busy && v.waiting_row && v.waiting_row.player === snap.seat && snap.legal.length > 0;
    renderTake5(area, v, o);
  } else renderFiveAlive(area, snap.view, o);
  renderResult(g);
  renderGameTabs();
  const turn = snap.over ? "" : play.busy ? "The bots are playing..." : snap.your_turn ? "Your turn" : "Waiting for the bots...";
  $("#status").textContent = `${Object.keys(play.games).length} game(s) \u00B7 ${turn}`;
}

function renderResult(g) {
  const snap = g.snap, v = snap.view, result = $("#result");
  result.replaceChildren();
  if (snap.error) {
    result.append(el("h2", { text: "Game ended with an error" }), el("div", { class: "hint", text: snap.error }));
    result.className = "panel result show error";
    return;
  }
  if (!snap.over) {
    const last = g.roundNote;
    if (last) {
      result.append(el("div", { class: "summary round-summary", text: last }));
      result.className = "panel result show";
    } else result.className = "panel result";
    return;
  }
  const wins = v.winners.map((w) => seatName(snap.names, w, snap.seat));
  const iWon = v.winners.includes(snap.seat);
  result.append(el("h2", { id: "final-result", text: `Game over \u2014 ${iWon ? "you win!" : "winner: " + wins.join(", ")}` }));
  const table = el("table", { class: "board" });
  if (snap.game === "take5") {
    table.append(el("tr", {}, el("th", { text: "player" }), el("th", { text: "final score (bull heads)" }), el("th", { text: "last round" })));
    for (let p = 0; p < v.num_players; p++) table.append(el("tr", {}, el("td", { text: seatName(snap.names, p, snap.seat) }), el("td", { text: v.scores[p] }), el("td", { text: v.round_penalty[p] })));
  } else {
    table.append(el("tr", {}, el("th", { text: "player" }), el("th", { text: "lives" }), el("th", { text: "result" })));
    for (let p = 0; p < v.num_players; p++) table.append(el("tr", {}, el("td", { text: seatName(snap.names, p, snap.seat) }), el("td", { text: v.lives[p] }), el("td", { text: v.winners.includes(p) ? "won" : "lost" })));
  }
  result.append(table, el("div", {}, el("a", { class: "link", href: `/api/games/${snap.id}/record`, download: `game_${snap.id}.jsonl`, text: "download this game's record" })));
  result.className = "panel result show";
}

function renderGameTabs() {
  const tabs = $("#game-tabs");
  tabs.replaceChildren();
  for (const [id, g] of Object.entries(play.games)) {
    const label = `${g.snap.game === "take5" ? "Take 5" : "5 Alive"} #${id.slice(0, 4)}` + (g.snap.over ? " (over)" : "");
    tabs.append(el("button", { type: "button", class: id === play.current ? "current" : "", text: label,
                               onclick: () => { if (!play.busy) { play.current = id; renderPlay(); } } }));
  }
}

function appendLog(events, names, viewer) {
  const log = $("#play-log");
  for (const e of events) {
    let text = e.text || e.type;
    text = text.replace(/\bP(\d+)\b/g, (m, d) => seatName(names, Number(d), viewer));
    log.append(el("div", { class: "ev ev-" + e.type, text }));
  }
  log.scrollTop = log.scrollHeight;
}

async function animate(g, prevView, events) {
  // Take 5: the trick is revealed, then placed card by card (rows after each card come with the event).
  const snap = g.snap;
  if (snap.game !== "take5" || STEP_MS === 0) { appendLog(events, snap.names, snap.seat); return; }
  const area = $("#play-area");
  let rows = prevView.rows, trick = null;
  const base = { viewer: snap.seat, names: snap.names, legal: new Set() };
  for (const e of events) {
    appendLog([e], snap.names, snap.seat);
    if (e.type === "reveal") {
      trick = e.cards.slice();
      renderTake5(area, prevView, { ...base, rows, trick });
      await sleep(STEP_MS * 1.5);
    } else if (e.type === "place") {
      rows = e.rows;
      if (trick) trick = trick.filter(([c]) => c !== e.card);
      renderTake5(area, prevView, { ...base, rows, trick: trick || [], flashRow: e.row });
      await sleep(STEP_MS);
    }
  }
}

function roundNote(snap) {
  // End-of-round summary of this answer's events, if a round ended in them.
  const who = (p) => seatName(snap.names, p, snap.seat);
  for (const e of snap.events.slice().reverse()) {
    if (e.type === "round_end") {
      return `End of round ${e.round}: penalties ${e.penalties.map((x, p) => `${who(p)} ${x}`).join(", ")} \u2014 scores ${e.scores.map((x, p) => `${who(p)} ${x}`).join(", ")}`;
    }
    if (e.type === "play" && e.went_out && e.went_out.length && !e.game_over) {
      const lives = snap.view.lives.map((x, p) => `${who(p)} ${x}`).join(", ");
      return `End of round ${e.round}: ${e.went_out.map(who).join(", ")} went out \u2014 lives ${lives}`;
    }
  }
  return null;
}

async function humanAction(action) {
  const g = play.games[play.current];
  if (!g || play.busy) return;
  const snap = g.snap;
  if (snap.over) { showMessage("#message", "This game is over: start a new one."); return; }
  if (!snap.your_turn) { showMessage("#message", "Not your turn yet."); return; }
  if (!snap.legal.includes(action)) {
    const what = snap.game === "take5" ? (action >= 104 ? `row ${action - 103}` : `card ${action + 1}`) : META.five_alive_kinds[action] || "BUST";
    showMessage("#message", `Illegal move: ${what} can't be played now.` + (snap.game === "five_alive" && action < 8 ? ` T + ${action} would pass 21.` : ""));
    return;
  }
  showMessage("#message", "");
  play.busy = true;
  document.body.dataset.busy = "1";
  renderPlay();
  let prevView = snap.view;
  if (snap.game === "take5" && action < 104) {  // while the trick plays out, the card has left the hand
    const seat = String(snap.seat);
    prevView = { ...prevView, hands: { ...prevView.hands, [seat]: prevView.hands[seat].filter((c) => c !== action + 1) },
                 hand_sizes: prevView.hand_sizes.map((h, p) => (p === snap.seat ? h - 1 : h)) };
  }
  try {
    const t0 = performance.now();
    const next = await api("POST", `/api/games/${snap.id}/act`, { action });
    g.snap = next;
    g.lastMoveMs = performance.now() - t0;
    g.roundNote = roundNote(next);
    await animate(g, prevView, next.events);
  } catch (e) {
    showMessage("#message", e.message);
  } finally {
    play.busy = false;
    renderPlay();
    document.body.dataset.busy = "0";
  }
}

function setupForm() {
  const gameSel = $("#setup-game");
  const build = () => {
    const game = gameSel.value;
    const m = META.games[game];
    const players = $("#setup-players");
    players.max = m.players[1];
    if (Number(players.value) > m.players[1]) players.value = m.players[1];
    const cfgBox = $("#setup-config");
    cfgBox.replaceChildren();
    for (const [field, def] of Object.entries(m.defaults)) {
      if (field === "num_players" || Array.isArray(def)) continue;
      let input;
      if (m.choices[field]) {
        input = el("select", { "data-field": field }, m.choices[field].map((c) => el("option", { value: c, text: c, selected: c === def })));
      } else if (typeof def === "boolean") {
        input = el("input", { type: "checkbox", "data-field": field, checked: def });
      } else if (typeof def === "number" || def === null) {
        input = el("input", { type: "number", "data-field": field, value: def === null ? "" : def, placeholder: def === null ? "none" : "" });
      } else input = el("input", { type: "text", "data-field": field, value: def });
      cfgBox.append(el("label", { text: field.replace(/_/g, " ") + " " }, input));
    }
    if (game === "take5") { const mode = $('[data-field="mode"]', cfgBox); if (mode) mode.value = "round"; }
    const dl = $("#agent-names");
    dl.replaceChildren(...m.agents.filter((a) => !a.endsWith("...") && !a.includes("=N") && !a.includes("SECONDS")).concat(["ismcts:sims=50", "ismcts:sims=200"]).map((a) => el("option", { value: a })));
    buildSeats();
  };
  const buildSeats = () => {
    const game = gameSel.value;
    const n = Number($("#setup-players").value) || 2;
    const seat = $("#setup-seat");
    const keep = Number(seat.value) || 0;
    seat.replaceChildren(...Array.from({ length: n }, (_, p) => el("option", { value: p, text: `P${p}`, selected: p === Math.min(keep, n - 1) })));
    const bots = $("#setup-bots");
    const def = META.games[game].agents.find((a) => a.startsWith(game === "take5" ? "take5-" : "five-alive-")) || "random";
    const old = Array.from(bots.querySelectorAll("input")).map((i) => i.value);
    bots.replaceChildren(el("span", { text: "Bots:" }));
    const me = Number(seat.value);
    let j = 0;
    for (let p = 0; p < n; p++) {
      if (p === me) continue;
      bots.append(el("label", { text: `P${p} ` }, el("input", { list: "agent-names", "data-bot": j, value: old[j] && old[j].length ? old[j] : def, size: 18 })));
      j++;
    }
  };
  gameSel.addEventListener("change", () => { $("#setup-bots").replaceChildren(); build(); });
  $("#setup-players").addEventListener("change", buildSeats);
  $("#setup-seat").addEventListener("change", buildSeats);
  $("#setup").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const game = gameSel.value;
    const config = { num_players: Number($("#setup-players").value) };
    for (const inp of $("#setup-config").querySelectorAll("[data-field]")) {
      const f = inp.dataset.field, def = META.games[game].defaults[f];
      if (inp.type === "checkbox") config[f] = inp.checked;
      else if (inp.type === "number") config[f] = inp.value === "" ? null : Number(inp.value);
      else config[f] = inp.value;
      if (config[f] === def) delete config[f];
    }
    const bots = Array.from($("#setup-bots").querySelectorAll("input")).map((i) => i.value.trim());
    const body = { game, config, seat: Number($("#setup-seat").value), bots };
    const seed = $("#setup-seed").value.trim();
    if (seed) body.seed = Number(seed);
    showMessage("#message", "Starting...", true);
    $("#setup-start").disabled = true;
    try {
      const snap = await api("POST", "/api/games", body);
      play.games[snap.id] = { snap, roundNote: null };
      play.current = snap.id;
      $("#play-log").replaceChildren();
      appendLog(snap.events, snap.names, snap.seat);
      showMessage("#message", "");
    } catch (e) {
      showMessage("#message", e.message);
    } finally {
      $("#setup-start").disabled = false;
      renderPlay();
    }
  });
  build();
}

// ------------------------------------------------------------------------------------------ Replays
const rp = { data: null, i: 0, file: null };

async function loadRecordFiles(select) {
  const sel = $("#replay-file");
  const keep = select || rp.file || sel.value;
  const runs = await api("GET", "/api/runs");
  sel.replaceChildren(el("option", { value: "", text: "(choose a recorded game)" }));
  for (const r of runs.runs) for (const f of r.records) sel.append(el("option", { value: `${r.name}/${f}`, text: `${r.name} / ${f}` }));
  if (keep) sel.value = keep;
}

async function openReplay(fileOrText, index, upload) {
  showMessage("#replay-message", "");
  rp.file = upload ? null : fileOrText;
  if (!upload) $("#replay-file").value = fileOrText;
  try {
    const data = upload
      ? await api("POST", `/api/replay?index=${index}`, fileOrText, true)
      : await api("GET", `/api/replay?file=${encodeURIComponent(fileOrText)}&index=${index}`);
    rp.data = data; rp.i = 0;
    const rounds = [...new Set(data.frames.map((f) => roundOf(f.view)))];
    $("#rp-round").replaceChildren(...rounds.map((r) => el("option", { value: r, text: `round ${r + 1}` })));
    const n = data.frames[0].view.num_players;
    $("#rp-seat").replaceChildren(el("option", { value: "all", text: "from above (all hands)" }),
      ...Array.from({ length: n }, (_, p) => el("option", { value: p, text: `P${p}'s view` + (data.agents[p] ? ` (${data.agents[p]})` : "") })));
    $("#replay-controls").hidden = false;
    renderReplay();
  } catch (e) {
    showMessage("#replay-message", e.message);
  }
}

// The round a frame belongs to, 0-based (a state's ``round`` counts the rounds completed, so the last
// frame of a finished game still belongs to the last round played).
const roundOf = (v) => (v.over ? Math.max(0, v.round - 1) : v.round);

function seatView(view, seat) {
  if (seat === "all") return view;
  const v = { ...view, hands: {}, pending: {} };
  if (view.hands[seat] !== undefined) v.hands[seat] = view.hands[seat];
  if (view.pending && view.pending[seat] !== undefined) v.pending[seat] = view.pending[seat];
  return v;
}

function renderReplay() {
  const d = rp.data;
  if (!d) return;
  const f = d.frames[rp.i];
  const seatSel = $("#rp-seat").value;
  const seat = seatSel === "all" ? null : Number(seatSel);
  const names = d.agents.length ? d.agents : null;
  const v = seatView(f.view, seatSel === "all" ? "all" : String(seat));
  const o = { viewer: seat, names, legal: new Set() };
  const area = $("#replay-area");
  if (d.game === "take5") {
    const rev = f.events.find((e) => e.type === "reveal");
    if (rev) o.trick = rev.cards;
    renderTake5(area, v, o);
  } else renderFiveAlive(area, v, o);
  const who = f.player === null ? "" : `${seatName(names, f.player, seat)}: ${f.label}`;
  const hidden = d.game === "take5" && seat !== null && f.player !== seat && f.events.length === 1 && f.events[0].type === "chose";
  const evText = f.events.map((e) => e.text).join(" \u00B7 ");
  $("#replay-step").textContent = f.step === 0 ? "Start of the game" : (hidden ? `${seatName(names, f.player, seat)} has chosen a card` : `${who}${evText ? " \u2014 " + evText : ""}`);
  $("#rp-pos").textContent = `step ${rp.i} of ${d.frames.length - 1}` + (rp.i === d.frames.length - 1 ? " \u00B7 end of the game" : "");
  $("#rp-round").value = roundOf(f.view);
  $("#rp-first").disabled = $("#rp-back").disabled = rp.i === 0;
  $("#rp-last").disabled = $("#rp-fwd").disabled = rp.i === d.frames.length - 1;
}

function replayGo(i) {
  if (!rp.data) return;
  rp.i = Math.max(0, Math.min(rp.data.frames.length - 1, i));
  renderReplay();
}

function setupReplays() {
  $("#rp-first").addEventListener("click", () => replayGo(0));
  $("#rp-back").addEventListener("click", () => replayGo(rp.i - 1));
  $("#rp-fwd").addEventListener("click", () => replayGo(rp.i + 1));
  $("#rp-last").addEventListener("click", () => replayGo(Infinity));
  $("#rp-seat").addEventListener("change", renderReplay);
  $("#rp-round").addEventListener("change", () => {
    const r = Number($("#rp-round").value);
    replayGo(rp.data.frames.findIndex((f) => roundOf(f.view) === r));
  });
  $("#replay-open").addEventListener("click", () => {
    const file = $("#replay-file").value;
    if (!file) { showMessage("#replay-message", "Choose a record file first (or upload one)."); return; }
    openReplay(file, Number($("#replay-index").value) || 0, false);
  });
  $("#replay-upload").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (file) openReplay(await file.text(), Number($("#replay-index").value) || 0, true);
  });
  document.addEventListener("keydown", (ev) => {
    if (!$("#tab-replays").classList.contains("active") || ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowRight") replayGo(rp.i + 1);
    if (ev.key === "ArrowLeft") replayGo(rp.i - 1);
  });
}

// ------------------------------------------------------------------------------------------ Results
const fmt = (x, d = 2) => (x === null || x === undefined ? "-" : typeof x === "number" ? x.toFixed(d) : String(x));
const fmtCi = (m, pct) => {
  if (!m || m.mean === null) return "-";
  const k = pct ? 100 : 1, d = pct ? 1 : 2;
  return `${(m.mean * k).toFixed(d)}${pct ? "%" : ""}` + (m.half_width !== undefined ? ` \u00B1 ${(m.half_width * k).toFixed(d)}` : "");
};

async function loadRuns() {
  const box = $("#runs");
  try {
    const data = await api("GET", "/api/runs");
    box.replaceChildren(el("div", { class: "section-title", text: `Runs under ${data.runs_dir}` }));
    if (!data.runs.length) { box.append(el("div", { text: "No runs yet: run `make demo` or `python -m experiments.tournament ... --record`." })); return; }
    const t = el("table", { class: "board", id: "runs-table" }, el("tr", {}, ...["run", "kind", "game", "created", "plots", "records"].map((h) => el("th", { text: h }))));
    for (const r of data.runs) {
      t.append(el("tr", {}, el("td", {}, el("a", { class: "link", text: r.name, onclick: () => loadRun(r.name) })),
        el("td", { text: r.kind }), el("td", { text: r.game || "-" }), el("td", { text: r.created || "-" }),
        el("td", { text: r.plots.length }), el("td", { text: r.records.length })));
    }
    box.append(t);
  } catch (e) { box.replaceChildren(el("div", { class: "message", text: e.message })); }
}

async function loadRun(name) {
  const box = $("#run-detail");
  try {
    const r = await api("GET", `/api/runs/${encodeURIComponent(name)}`);
    box.replaceChildren(el("h2", { text: r.name }));
    const s = r.summary;
    if (s && s.entrants) {
      const metrics = (s.metrics || []).map((m) => m.name);
      const t = el("table", { class: "board", id: "leaderboard" }, el("tr", {}, ...["#", "entrant", "games", "win rate", ...metrics, "rating \u03BC \u00B1 \u03C3", "ms/decision"].map((h) => el("th", { text: h }))));
      const ents = s.entrants.slice().sort((a, b) => b.rating.ordinal - a.rating.ordinal);
      ents.forEach((e, i) => t.append(el("tr", {}, el("td", { text: i + 1 }), el("td", { text: e.entrant }), el("td", { text: e.games }),
        el("td", { text: fmtCi(e.win_rate, true) }), ...metrics.map((m) => el("td", { text: fmtCi(e.metrics[m]) })),
        el("td", { text: `${fmt(e.rating.mu)} \u00B1 ${fmt(e.rating.sigma)}` }), el("td", { text: fmt(e.ms_per_decision) }))));
      box.append(el("div", { class: "section-title", text: `Leaderboard (${s.games_completed} of ${s.games_planned} games)` }), t);
    } else if (s) {
      box.append(el("div", { class: "section-title", text: "Summary" }), el("pre", { text: JSON.stringify(s, null, 1).slice(0, 3000) }));
    }
    if (r.curves && r.curves.length) {
      const cols = Object.keys(r.curves[0]).slice(0, 9);
      const t = el("table", { class: "board" }, el("tr", {}, ...cols.map((c) => el("th", { text: c }))));
      for (const row of r.curves.slice(-12)) t.append(el("tr", {}, ...cols.map((c) => el("td", { text: row[c] }))));
      box.append(el("div", { class: "section-title", text: "Learning curve (last evaluations)" }), t);
    }
    if (r.plots.length) {
      box.append(el("div", { class: "section-title", text: "Plots" }),
        el("div", { class: "plots" }, r.plots.map((p) => el("img", { src: `/files/${encodeURIComponent(r.name)}/${encodeURIComponent(p)}`, alt: p, title: p }))));
    }
    if (r.records.length) {
      const list = el("div", { class: "cards" });
      for (const f of r.records) list.append(el("a", { class: "link replay-link", text: f.replace("records/", ""), onclick: async () => {
        rp.file = `${r.name}/${f}`;
        location.hash = "#replays";
        await loadRecordFiles(rp.file);
        openReplay(rp.file, 0, false);
      } }));
      box.append(el("div", { class: "section-title", text: `Game records (${r.records.length}): click to replay` }), list);
    }
    if (r.config) box.append(el("details", {}, el("summary", { text: "config.json" }), el("pre", { text: JSON.stringify(r.config, null, 1) })));
  } catch (e) { box.replaceChildren(el("div", { class: "message", text: e.message })); }
}

// ------------------------------------------------------------------------------------------ tabs
function showTab() {
  const tab = (location.hash || "#play").slice(1);
  for (const s of document.querySelectorAll(".tab")) s.classList.toggle("active", s.id === `tab-${tab}`);
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.tab === tab);
  if (tab === "results") loadRuns();
  if (tab === "replays" && !rp.data) loadRecordFiles().catch((e) => showMessage("#replay-message", e.message));
}

async function main() {
  META = await api("GET", "/api/meta");
  setupForm();
  setupReplays();
  window.addEventListener("hashchange", showTab);
  showTab();
  document.body.dataset.ready = "1";
}

main().catch((e) => { document.body.prepend(el("div", { class: "message", text: `Could not start: ${e.message}` })); });

// 5 Alive's table (the kind "pile": the server's web view of the game, experiments/web/games/five_alive.py, names it
// and this script): the total, the direction, the last card played, the players' lives; your hand (each card kind
// with its count) and BUST in the dock; each move played back one at a time; the lives lost per round; every card
// explained in the rules' words for players (RULES.five_alive.cards). Loaded by app.js (loadViews); its helpers (el, svg, seatName, ...) are app.js's.
"use strict";

const FA_PACE = { play: 1, bad: 1.8, round_end: 5 };
const FA_BUST = 18;  // the BUST action (fiveplay_env/five_alive: one id per card kind, 0..17, then BUST)
const lives = (n) => `${n} ${n === 1 ? "life" : "lives"}`;
const cardHelp = (kind) => (RULES.five_alive && RULES.five_alive.cards && RULES.five_alive.cards[String(kind)]) || "";

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
      el("div", { class: "hearts", "aria-label": lives(pub.lives[p]), text: "\u2665".repeat(pub.lives[p]) + "\u2661".repeat(Math.max(0, 5 - pub.lives[p])) }),
      el("div", { class: "small", text: pub.alive[p] ? `${lives(pub.lives[p])} \u00B7 ${plural(pub.hand_sizes[p], "card")}` : "eliminated" }),
      lost ? el("div", { class: "lost", text: `\u2212${lost} \u2665 lost` }) : null));
  }
  // as of an event: the round it was played in (a round-ending move belongs to the round it ends)
  const round = ev && ev.round_before !== undefined ? ev.round_before + 1 : pub.round + (v.over ? 0 : 1);
  const ended = ev && ev.dealer !== null && ev.dealer !== undefined && !ev.game_over;
  area.append(el("div", { class: "section-title table-title", id: "table-title", "data-round": round,
    text: `5 Alive \u00B7 ${v.variant.replace("_", " ")} \u00B7 round ${round}${ended ? " over" : ""}` }, rulesButton(v.game)), players);
  const lastCard = ev && !ev.bomb_answer && ev.action !== undefined && ev.action < FA_BUST ? ev.action : (o.lastPlay !== undefined ? o.lastPlay : (pub.top >= 0 ? pub.top : -1));
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

function lastPlayOf(g) {
  for (let i = g.events.length - 1; i >= 0; i--) {
    const e = g.events[i];
    if (e.type === "play" && !e.bomb_answer && e.action < FA_BUST) return e;
  }
  return null;
}

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

function cardList(game, section) {  // the rules' section of cards: each card's picture beside what it does
  const box = el("div", { class: "card-list", id: "card-list" });
  for (const [kinds, text] of section.cards) {
    const pic = kinds.length === 1 ? fiveAliveCard(kinds[0], { small: true }) : el("span", { class: "card-kinds" }, fiveAliveCard(kinds[0], { small: true }), fiveAliveCard(kinds[kinds.length - 1], { small: true }));
    box.append(el("div", { class: "card-explained", "data-kind": kinds.join(" ") }, pic, el("div", { text })));
  }
  return box;
}

registerView("pile", {
  table: renderFiveAliveTable,
  playTable(g, area, o) {
    const snap = g.snap;
    if (!o.event) {
      const e = lastPlayOf(g);
      o.lastPlay = e ? e.action : undefined;
      const last = g.events.filter((x) => x.type === "play").pop();
      o.eventText = last ? last.text : "";
    }
    renderFiveAliveTable(area, snap.view, o);
  },
  replayTable(area, v, f, { viewer, names }) {
    renderFiveAliveTable(area, v, { viewer, names, event: f.events.find((e) => e.type === "play") });
  },
  hidden: () => null,  // every move is public
  yourTurn(snap, keys) {
    const v = snap.view;
    if (v.phase === "bomb answer") return snap.legal.includes(0) ? [`Bomb! Discard a 0${keys("key 0")} or lose a life${keys("B")}`, "must"] : [`Bomb! You hold no 0: you lose a life${keys("B")}`, "must"];
    if (snap.legal.length === 1 && snap.legal[0] === FA_BUST) return [`No card fits on ${v.total}: you must BUST and lose a life${keys("B")}`, "must"];
    return [`Your turn: play a card (total ${v.total}; keep it at 21 or below)`, "mine"];
  },
  isOut: (snap) => !snap.view.alive[snap.seat],
  dock(g, hand, button, legal) {
    const snap = g.snap, v = snap.view;
    const counts = (v.hands[String(snap.seat)] || []).slice();
    if (g.optimistic !== undefined && g.optimistic !== null && g.optimistic < FA_BUST && counts[g.optimistic] > 0) counts[g.optimistic] -= 1;
    counts.forEach((c, k) => { if (c > 0) hand.append(button(fiveAliveCard(k, { small: compact() }), k, k < 8 ? String(k) : "", c, META.five_alive_kinds[k] + (k >= 8 && cardHelp(k) ? `. ${cardHelp(k)}` : ""))); });
    if (legal.has(FA_BUST)) hand.append(el("button", { class: "bust legal", type: "button", "data-action": FA_BUST, text: TOUCH ? "BUST: lose a life" : "BUST (B): lose a life", onclick: () => humanAction(FA_BUST) }));
    if (!counts.some((c) => c > 0)) hand.append(el("span", { class: "small", text: v.alive[snap.seat] ? "no cards in hand" : "eliminated" }));
  },
  actionName: (a) => META.five_alive_kinds[a],
  notPlayable: (snap) => ` (total ${snap.view.total}: a number must keep it at 21 or below)`,
  optimistic: (a) => a,  // the card leaves your hand at once
  hoverHelp: (a) => (a >= 8 ? cardHelp(a) : ""),  // a special card says what it does when pointed at
  pickHelp: (a) => cardHelp(a),
  keysHelp: "Keys: \u2190 \u2192 move \u00B7 Enter play \u00B7 0\u20137: that number \u00B7 B bust \u00B7 H hint \u00B7 T bot\u2019s view",
  onKey(g, k, ev) {
    if (/^[0-7]$/.test(k)) { ev.preventDefault(); humanAction(Number(k)); }
    else if (k === "b") { ev.preventDefault(); humanAction(FA_BUST); }
  },
  async animate(g, events, prevView, base, { ms, say }) {
    const snap = g.snap;
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
        if (x) $("#turn-bar").textContent = fiveAliveSummary(g, x);  // already in seat names (say would name them twice)
        else say(e.text);
        await pause(g, ms * FA_PACE.round_end);
        continue;
      }
      say(e.text.split(":")[0]);
      const bad = Object.keys(e.lives_lost || {}).length || e.reversed || e.card === "BUST";
      await pause(g, bad ? ms * FA_PACE.bad : ms * FA_PACE.play);
    }
  },
  roundEnd: (events) => events.filter((e) => e.type === "play" && e.dealer !== null && e.dealer !== undefined && !e.game_over).pop() || null,
  roundSummary(g, box) {
    const x = fiveAliveRounds(g)[g.sheet.round_before];
    if (x) box.append(el("h2", { class: "round-summary", text: `Round ${x.round} over` }), el("div", { class: "summary", text: fiveAliveSummary(g, x) }), fiveAliveSheet(g));
  },
  resultBody(g, box) {
    const snap = g.snap, v = snap.view;
    const t = el("table", { class: "board", id: "ranking" }, el("tr", {}, el("th", { text: "player" }), el("th", { class: "num", text: "lives" }), el("th", { text: "result" })));
    for (let p = 0; p < v.num_players; p++) t.append(el("tr", {}, el("td", { text: seatName(snap.names, p, snap.seat) }), el("td", { class: "num", text: v.lives[p] }), el("td", { text: v.winners.includes(p) ? "won" : "lost" })));
    box.append(el("div", { class: "table-wrap" }, t), el("div", { class: "section-title", text: "Lives lost per round" }), fiveAliveSheet(g));
  },
  endReason(g) {
    const v = g.snap.view;
    if (v.variant === "sudden_death") return "Sudden death: the game ended when the first player lost a fifth life; the most lives left wins.";
    if (v.variant === "teams") return "A team lost its last life.";
    return "Everybody else lost all five lives: the last player left wins.";
  },
  resultText: (snap) => (snap.view.winners.includes(snap.seat) ? `won \u00B7 ${lives(snap.view.lives[snap.seat])} left` : "lost"),
  logClass: (e) => (e.type === "play" && e.dealer !== null && e.dealer !== undefined) || e.type === "round_end" || e.type === "game_over" ? " ev-round" : "",
  policyHint: (t) => (t.value !== undefined ? `; its estimate of the outcome ${t.value.toFixed(2)} (\u22121 lose, +1 win)` : ""),
  valueText: (t) => `value ${t.value.toFixed(3)}: its estimate of the outcome, from \u22121 (it loses) to +1 (it wins)`,
  rulesExtra: (game, section) => cardList(game, section),
});

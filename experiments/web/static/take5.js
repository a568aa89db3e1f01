// Take 5's table (the kind "rows": the server's web view of the game, experiments/web/games/take5.py, names it
// and this script): the rows, the trick, the players' scores and round penalties; your hand, the row picks and
// the draft pool in the dock; each step's events played back one at a time (the reveal, each card placed, a row
// taken); the score sheet. Loaded by app.js (loadViews); its helpers (el, svg, seatName, ...) are app.js's.
"use strict";

const T5_COLORS = { 1: "#ffffff", 2: "#cfe3ff", 3: "#ffe9a8", 5: "#ffc2c2", 7: "#e2c4ff" };
const T5_PACE = { reveal: 1.6, place: 1, take: 1.8, fly: 1.2, taken: 1.4, choose_row: 1.6, round_end: 5, chose: 0.25 };
const T5_ROW0 = 104;  // the action of taking row 0 (fiveplay_env/take5: 0..103 play card id+1, 104..107 take a row)

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

// ------------------------------------------------------------------------------------------- Take 5 table
// the public numbers of an event (experiments/web/games/take5.py: the table as of that event) laid over a view
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
  area.append(el("div", { class: "section-title table-title", id: "table-title", "data-round": v.asOf ? v.round + 1 : v.round + (v.over ? 0 : 1), text: take5Title(v, o) }, rulesButton(v.game)), players);
  const rowsBox = el("div", { class: "rows", id: "rows" });
  (o.rows || v.rows).forEach((row, r) => {
    const bulls = row.reduce((a, c) => a + META.take5_bullheads[c - 1], 0);
    // at your row choice each row is a button: its cards and its bull heads are what you take
    const line = el(o.onRow ? "button" : "div", { class: "row" + (o.onRow ? " pick" : "") + (o.flashRow === r ? " flash" : "") + (o.takeRow === r ? " taking" : "") + (o.onRow && o.selected === T5_ROW0 + r ? " selected" : ""), "data-row": r,
                                                  type: o.onRow ? "button" : null, "aria-label": o.onRow ? `take row ${r + 1}: ${plural(row.length, "card")}, ${plural(bulls, "bull head")}` : null },
      el("span", { class: "label", text: `row ${r + 1} \u00B7 ${plural(bulls, "bull")}` }),
      el("span", { class: "cards" }, row.map((c) => el("span", { class: "card", "data-card": c }, take5Card(c, { small: compact() })))));
    if (o.onRow) line.addEventListener("click", () => o.onRow(T5_ROW0 + r));
    rowsBox.append(line);
  });
  const board = el("div", { class: "t5-board" });
  const trickBox = el("div", { class: "trick", id: "trick" });
  if (o.trick && o.trick.length) {
    for (const [c, q] of o.trick) {
      const cls = "slot" + (o.placed && o.placed.has(c) ? " placed" : "") + (o.waiting === c ? " waiting" : "");
      const done = o.placed && o.placed.has(c);
      trickBox.append(el("div", { class: cls, "data-card": c }, take5Card(c, { small: true }),
        el("span", { class: "owner", text: (q === o.viewer && o.me !== null ? "you" : `P${q}`) + (done ? " \u2713" : o.waiting === c ? " \u2026" : "") })));
    }
  } else trickBox.append(el("span", { class: "small", text: "no card revealed yet this round" }));
  board.append(el("div", { class: "trick-box", id: "trick-box" }, el("div", { class: "section-title", text: o.trickTitle || "Trick" }), trickBox,
    o.note ? el("div", { class: "take-note", id: "take-note", role: "status", text: o.note }) : null));
  board.append(el("div", { class: "rows-box", id: "rows-box" }, el("div", { class: "section-title", text: o.onRow ? "Rows: tap the row you take" : "Rows" }), rowsBox));
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

function showTrick() {  // the trick in view above the dock, and the rows with it when both fit (a phone: one above the other)
  keepInView($("#trick-box"), $("#rows-box"));
}

function showRow(r) {  // a row being taken (or just laid on) in view above the dock, with the trick that explains it if both fit
  keepInView($(`#play-area .row[data-row="${r}"]`), $("#trick-box"));
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


registerView("rows", {
  table: renderTake5Table,
  playTable(g, area, o) {
    const snap = g.snap;
    const t = lastTrickOf(g);
    if (!o.trick && t) {
      o.trick = t.cards; o.placed = t.placed;
      o.trickTitle = snap.view.phase === "row choice" ? "This trick" : t.ended !== null ? `Last trick of round ${t.ended}` : "Last trick";
      if (snap.view.waiting_row) o.waiting = snap.view.waiting_row.card;
    }
    if (!o.rows && snap.your_turn && snap.view.phase === "row choice" && !play.busy) { o.onRow = (a) => pickCard(a); o.selected = g.selected; }
    renderTake5Table(area, snap.view, o);
  },
  replayTable(area, v, f, { viewer, names }) {
    const rev = f.events.find((e) => e.type === "reveal"), end = f.events.find((e) => e.type === "round_end");
    const placed = f.events.filter((e) => e.type === "place");
    const o = { viewer, names, me: null };  // a replay: every seat by its name, none of them "you"
    if (rev) { o.trick = rev.cards; o.placed = new Set(placed.map((e) => e.card)); o.trickTitle = "This trick"; }
    else if (f.view.waiting_row) { o.trick = []; }
    if (end) {  // the step that ended a round: that round's table (its last rows, its header), not the next deal
      o.roundEnded = true; o.trickTitle = `Last trick of round ${end.round}`;
      if (placed.length) o.rows = placed[placed.length - 1].rows;
      renderTake5Table(area, { ...tableAt(v, end.table), hands: {}, pending: {} }, o);
      return;
    }
    renderTake5Table(area, v, o);
  },
  hidden: (f, seat) => (seat !== null && f.player !== seat && f.events.length === 1 && f.events[0].type === "chose" ? { words: "chooses a card", events: false } : null),
  yourTurn(snap, keys) {
    const v = snap.view;
    if (v.phase === "row choice") return [`Take a row: your ${v.waiting_row.card} is lower than every row${keys("keys 1\u20134")}`, "must"];
    if (v.phase === "draft") return ["Your pick: draft a card from the face-up pool", "mine"];
    return [confirmOn() ? "Your turn: tap a card, then tap it again (or Play) to play it" : "Your turn: choose a card to play", "mine"];
  },
  dock(g, hand, button) {
    const snap = g.snap, v = snap.view;
    if (v.phase === "row choice" && snap.your_turn && !play.busy) {
      // the rows on the table are what you tap (with their cards); here, one short line of the same four choices
      // (keys 1-4), so that the dock stays low and the rows stay in view above it
      const picks = el("div", { class: "row-picks", role: "group", "aria-label": "take a row" });
      v.rows.forEach((row, r) => {
        const bulls = row.reduce((a, c) => a + META.take5_bullheads[c - 1], 0);
        picks.append(el("button", { class: "row-pick legal" + (g.selected === T5_ROW0 + r ? " selected" : ""), type: "button", "data-action": T5_ROW0 + r,
          "aria-label": `take row ${r + 1}: ${plural(row.length, "card")}, ${plural(bulls, "bull head")}`, onclick: () => pickCard(T5_ROW0 + r) },
          `${TOUCH ? "" : `${r + 1}: `}row ${r + 1}`, el("span", { class: "sub", text: plural(bulls, "bull") })));
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
  },
  actionName: (a) => (a >= T5_ROW0 ? `row ${a - T5_ROW0 + 1}` : `card ${a + 1}`),
  confirmText: (a, name) => (a >= T5_ROW0 ? `Take ${name}` : `Play ${name}`),
  optimistic: (a) => (a < T5_ROW0 ? a + 1 : null),  // the card leaves your hand at once
  keysHelp: "Keys: \u2190 \u2192 move \u00B7 Enter play \u00B7 1\u20139, 0: that card \u00B7 1\u20134: take that row \u00B7 H hint \u00B7 T bot\u2019s view",
  onKey(g, k, ev) {
    const v = g.snap.view;
    if (!/^[0-9]$/.test(k)) return;
    ev.preventDefault();
    const n = k === "0" ? 10 : Number(k);
    if (v.phase === "row choice") { if (n >= 1 && n <= 4) humanAction(T5_ROW0 - 1 + n); return; }
    const list = v.phase === "draft" ? v.pool : v.hands[String(g.snap.seat)];
    if (list && n <= list.length) humanAction(list[n - 1] - 1);
  },
  async animate(g, events, prevView, base, { ms, say }) {
    const snap = g.snap;
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
        await pause(g, ms * T5_PACE.chose);
      } else if (e.type === "reveal") {
        trick = e.cards; placed = new Set();
        draw(table, {}); say("The cards are revealed, lowest first\u2026"); showTrick(); noteShown(i);
        await pause(g, ms * T5_PACE.reveal);
      } else if (e.type === "place" && trick) {
        if (e.took && e.took.length) {
          // the take: first the row about to be taken and why, then its cards moving to the taker, then the new row
          const before = { ...table, round_penalty: table.round_penalty.map((x, p) => (p === e.player ? x - e.bulls : x)) };
          draw(before, { takeRow: e.row, waiting: e.card, taker: e.player, note: nameText(e.text, snap.names, snap.seat), trickTitle: "This trick" });
          say(e.text); showRow(e.row); noteShown(i);
          await pause(g, ms * T5_PACE.take);
          await flyTaken(e.row, e.player, ms * T5_PACE.fly);
          rows = e.rows; placed = new Set([...placed, e.card]);
          draw(table, { flashRow: e.row, taker: e.player, note: nameText(e.text, snap.names, snap.seat) });
          showRow(e.row); noteShown(i);
          await pause(g, ms * T5_PACE.taken);
        } else {
          rows = e.rows; placed = new Set([...placed, e.card]);
          draw(table, { flashRow: e.row }); say(e.text); showRow(e.row); noteShown(i);
          await pause(g, ms * T5_PACE.place);
        }
      } else if (e.type === "choose_row") {
        draw(table, { waiting: e.card }); say(e.text); showTrick(); noteShown(i);
        await pause(g, ms * T5_PACE.choose_row);
      } else if (e.type === "round_end" || e.type === "game_over") {
        draw(table, { roundEnded: true, trickTitle: `Last trick of round ${table.round + 1}` }); noteShown(i);
        if (e.type === "round_end") {
          g.sheet = e; renderResult(g);
          if (compact()) keepInView($("#round-sheet"));  // a phone: the sheet is below the table, shown while the round ends
          say(`Round ${e.round} over \u2014 this round: ${e.penalties.map((x, p) => `${colName(snap, p)} +${x}`).join(", ")}`);
          await pause(g, ms * T5_PACE.round_end);
        }
      }
    }
  },
  inView(g) {  // your turn: the rows (and at a row choice the trick that led to it) in view above the dock
    if (g.snap.view.phase === "row choice") keepInView($("#rows-box"), $("#trick-box"));
    else keepInView($("#rows-box"));
  },
  roundEnd: (events) => events.filter((e) => e.type === "round_end").pop() || null,
  roundSummary(g, box) {
    const snap = g.snap;
    const e = g.sheet;
    box.append(el("h2", { class: "round-summary", text: `Round ${e.round} over` }),
      el("div", { class: "small", text: `Penalties this round: ${e.penalties.map((x, p) => `${colName(snap, p)} ${x}`).join(", ")}. ${goalWords(snap.config.mode).replace(/^./, (c) => c.toUpperCase())}.` }),
      take5Sheet(g));
  },
  resultBody(g, box) {
    const snap = g.snap, v = snap.view;
    const order = range(v.num_players).sort((a, b) => v.scores[a] - v.scores[b]);
    const t = el("table", { class: "board", id: "ranking" }, el("tr", {}, el("th", { text: "place" }), el("th", { text: "player" }), el("th", { class: "num", text: "final score (bull heads)" })));
    const over = g.events.find((e) => e.type === "game_over");
    for (const p of order) t.append(el("tr", {}, el("td", { text: over ? ordinal(over.ranking[p]) : "" }), el("td", { text: seatName(snap.names, p, snap.seat) }), el("td", { class: "num", text: v.scores[p] })));
    box.append(el("div", { class: "table-wrap" }, t));
    if (g.events.some((e) => e.type === "round_end")) box.append(el("div", { class: "section-title", text: "Score sheet (bull heads per round)" }), take5Sheet(g));
  },
  endReason(g) {
    const snap = g.snap, over = g.events.find((e) => e.type === "game_over");
    return over ? capital(nameText(over.reason, snap.names, snap.seat)) + "; the lowest score wins." : "";
  },
  resultText(snap) {
    const v = snap.view, place = 1 + v.scores.filter((x) => x < v.scores[snap.seat]).length;
    return `${v.winners.includes(snap.seat) ? "won" : `${ordinal(place)} of ${v.num_players}`} \u00B7 ${plural(v.scores[snap.seat], "bull head")}`;
  },
  logText(e, names, viewer) {
    if (e.type === "reveal") return `Round ${e.round + 1}, trick ${e.trick + 1} \u2014 ${e.cards.map(([c, q]) => `${q === viewer ? "you" : `P${q}`} ${c}`).join(", ")}`;
    return nameText(e.text || e.type, names, viewer);
  },
  // "P2 has chosen a card": the reveal says it all; a row taken and a round's end stand out
  logClass: (e) => (e.type === "chose" ? null : (e.type === "place" && e.took && e.took.length ? " ev-take" : "") + (e.type === "round_end" || e.type === "game_over" ? " ev-round" : "")),
  policyHint: (t) => (t.reward_scale ? `; it expects about ${(-t.value / t.reward_scale).toFixed(1)} more bull heads` + (t.win_reward ? " (a win bonus counted in)" : "") : ""),
  searchValue: (c) => (c.mean === null ? "-" : `about ${(-c.mean).toFixed(1)} bull heads`),
  searchSuffix: "",
  valueText(t) {
    if (!t.reward_scale) return `value ${t.value.toFixed(3)}: its estimate of its return from here (training units)`;
    return `value ${t.value.toFixed(3)}: it expects about ${(-t.value / t.reward_scale).toFixed(1)} more bull heads` +
      (t.win_reward ? ` (a win bonus of ${t.win_reward} counted in)` : " by the end of the round");
  },
});

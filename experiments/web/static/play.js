// The Play tab: your games as tabs, the table and your hand (drawn by the game's view: app.js's viewOf), the
// events played back one at a time, the result, the game log, "My games". See app.js for the files.
"use strict";

const play = { games: {}, current: null, busy: false, order: [], confirmClose: null };
const cur = () => play.games[play.current];
const confirmOn = () => $("#confirm-toggle").checked;
const isOut = (g) => viewOf(g.snap.game).isOut(g.snap);

function saveGames() {
  store.set("games", play.order.filter((id) => play.games[id]).map((id) => ({ id, token: play.games[id].token, started: play.games[id].started || null })));
  store.set("current", play.current);
}

function turnText(snap) {
  const v = snap.view;
  if (snap.error) return ["The game ended with an error", "must"];
  if (snap.over) {
    const won = v.winners.includes(snap.seat);
    return [won ? "Game over \u2014 you win!" : `Game over \u2014 ${v.winners.map((w) => seatName(snap.names, w, snap.seat)).join(", ")} won`, won ? "mine" : ""];
  }
  if (play.busy && cur() && cur().snap === snap) return ["Your move is on the table\u2026", ""];  // never "your turn" once you have played
  if (snap.pending) return ["The bots are still playing\u2026", ""];
  if (!snap.your_turn) return viewOf(snap.game).isOut(snap) ? ["You are out: the bots play on\u2026", ""] : ["The bots are playing\u2026", ""];
  return viewOf(snap.game).yourTurn(snap, (k) => (TOUCH ? "" : ` (${k})`));
}

// a tap on a card: plays it, or (tap twice to play) selects it first and plays it on the second tap or the Play button
function pickCard(action) {
  const g = cur();
  if (!g || play.busy || !g.snap.your_turn) return;
  if (!confirmOn() || !g.snap.legal.includes(action) || g.selected === action) { humanAction(action); return; }
  g.selected = action;
  showError("");
  renderDock(g); renderTable(g);
  viewOf(g.snap.game).inView(g);  // the dock grew (Play / Change): what the move is about stays above it
  const b = $(`#hand [data-action="${action}"]`);
  if (b) b.focus({ preventScroll: true });
}

function updateSkip(g, out) {
  const b = $("#skip-btn");
  b.hidden = !(g && out && !g.skip && (play.busy || (g.snap.pending && !g.snap.over)));  // the snapshot may be over already
}

function renderDock(g) {
  const hand = $("#hand");
  const snap = g.snap, view = viewOf(snap.game);
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
    // not your turn (the bots are playing, the cards are being laid): the hand is shown as it is, not greyed out;
    // on your turn a card you may not play is dimmed
    const off = snap.your_turn && !play.busy ? " unplayable" : " idle";
    const b = el("button", { class: "card" + (ok ? " legal" : off) + (suggested === action ? " suggested" : "") + (g.selected === action ? " selected" : ""), type: "button",
      "data-action": action, "aria-label": `${label}${count > 1 ? ` (${count})` : ""}${ok ? "" : ", not playable now"}`, "aria-disabled": ok ? null : "true",
      "aria-pressed": confirmOn() && ok ? String(g.selected === action) : null, onclick: () => pickCard(action) }, face);
    const help = view.hoverHelp(action);
    if (help) {  // a card that does something special says what when pointed at
      const show = () => { $("#dock-help").textContent = help; };
      const hide = () => { $("#dock-help").textContent = ""; };
      b.addEventListener("mouseenter", show); b.addEventListener("focus", show);
      b.addEventListener("mouseleave", hide); b.addEventListener("blur", hide);
    }
    if (key && !TOUCH) b.append(el("span", { class: "badge key", "aria-hidden": "true", text: key }));
    if (count > 1) b.append(el("span", { class: "badge count", "aria-hidden": "true", text: `\u00D7${count}` }));
    return b;
  };
  view.dock(g, hand, button, legal);
  const sel = g.selected;
  if (sel !== null && sel !== undefined && legal.has(sel)) {
    const name = view.actionName(sel, snap), help = view.pickHelp(sel);
    hand.append(el("div", { class: "confirm-row" },
      el("button", { type: "button", class: "primary", id: "confirm-play", text: view.confirmText(sel, name), onclick: () => humanAction(sel) }),
      el("button", { type: "button", id: "cancel-pick", text: "Change", onclick: () => { g.selected = null; renderDock(g); } }),
      help ? el("div", { class: "card-help", id: "card-help", text: help }) : null));
  }
  if (snap.over) {
    hand.append(el("button", { type: "button", class: "primary", id: "dock-rematch", text: "Rematch (same deal)", onclick: () => rematch(g) }),
      el("button", { type: "button", id: "dock-new", text: "New game", onclick: () => openNewGame() }));
  }
  $("#dock-keys").textContent = TOUCH ? "" : view.keysHelp;
  $("#hint-btn").disabled = !snap.your_turn || play.busy;
  updateSkip(g, isOut(g));
  // keep the focus in the hand: the same card if it is still there, else the first legal one
  if (!play.busy && (keep !== null || document.activeElement === document.body || document.activeElement === hand || g.wantFocus)) {
    const target = (keep !== null && $(`#hand [data-action="${keep}"].legal`)) || $("#hand .legal") || $("#hand button");
    if (target) target.focus({ preventScroll: true });
    g.wantFocus = false;
  }
  // the page's room below the table follows the dock now (a later scroll into view must be able to reach it)
  const dockRoom = () => document.body.style.setProperty("--dock-h", `${$("#dock").offsetHeight + 12}px`);
  dockRoom(); requestAnimationFrame(dockRoom);
}

// the page scrolled (at once, no animation) so that target is inside the viewport and above the dock; extra too
// when both fit (on a phone: the taken row and the trick that explains it, or the rows and the trick at a row choice)
function keepInView(target, extra) {
  if (!target) return;
  const dock = $("#dock");
  const room = () => (document.body.classList.contains("playing") && dock.offsetHeight ? dock.getBoundingClientRect().top : window.innerHeight) - 6;
  const fit = (top, bottom) => {
    if (bottom > room()) window.scrollBy({ top: Math.min(bottom - room(), top - 6), behavior: "instant" });
    else if (top < 0) window.scrollBy({ top: top - 6, behavior: "instant" });
  };
  const t = target.getBoundingClientRect();
  if (extra) {
    const x = extra.getBoundingClientRect(), top = Math.min(t.top, x.top), bottom = Math.max(t.bottom, x.bottom);
    if (bottom - top <= room() - 6) { fit(top, bottom); return; }
  }
  fit(t.top, t.bottom);
}

function renderTable(g, override = {}) {
  const snap = g.snap;
  const o = { viewer: snap.seat, names: snap.names, handInDock: true, poolInDock: true, ...override };
  viewOf(snap.game).playTable(g, $("#play-area"), o);
}

function renderPlay() {
  const g = cur();
  document.body.classList.toggle("playing", !!g);
  $("#log-box").hidden = !g;
  if (!g) {
    $("#play-area").replaceChildren(); $("#result").hidden = true; $("#round-sheet").hidden = true; $("#thinking").hidden = true;
    $("#status").textContent = ""; renderGameTabs(); updateSkip(null, false); return;
  }
  if (g.snap.over) remember(g);
  renderTable(g);
  renderDock(g);
  renderResult(g);
  renderGameTabs();
  renderThinking(g);
  if (!play.busy && g.snap.your_turn) viewOf(g.snap.game).inView(g);  // what your move is about, in view (above the dock)
  const n = Object.keys(play.games).length;
  $("#status").textContent = `${plural(n, "game")} open`;
  if (!play.busy && $("#thoughts-toggle").checked) maybeThinkSoon(g);
}

function renderResult(g) {
  const snap = g.snap, v = snap.view, box = $("#result"), view = viewOf(snap.game);
  box.replaceChildren();
  if (snap.error) {
    box.append(el("h2", { text: "The game ended with an error" }), el("div", { class: "note", text: snap.error }));
    box.hidden = false; box.classList.add("error"); return;
  }
  box.classList.remove("error");
  renderRoundSheet(g);
  if (!snap.over) { box.hidden = true; return; }
  const iWon = v.winners.includes(snap.seat);
  box.append(el("h2", { id: "final-result", text: `Game over \u2014 ${iWon ? "you win!" : "winner: " + v.winners.map((w) => seatName(snap.names, w, snap.seat)).join(", ")}` }),
    el("div", { class: "end-reason", id: "end-reason", text: view.endReason(g) }));
  view.resultBody(g, box);
  const buttons = el("div", { class: "buttons" },
    el("button", { type: "button", class: "primary", id: "rematch", text: "Rematch (same deal)", onclick: () => rematch(g) }),
    el("button", { type: "button", text: "Download the record", id: "download-record", onclick: () => downloadRecord(g) }));
  if (snap.saved && snap.saved.run) buttons.append(el("a", { class: "link", id: "watch-replay", href: replayHref(snap.saved), text: "Watch the replay" }));
  else if (snap.saved && snap.saved.error) buttons.append(el("span", { class: "small", text: snap.saved.error }));
  box.append(buttons);
  if (snap.saved && snap.saved.run) box.append(shareControl(snap.saved));  // a link others can open (replays.js)
  box.append(el("div", { class: "small", text: `seed ${snap.seed} \u00B7 ${snap.steps} actions` }));
  box.hidden = false;
}

function renderRoundSheet(g) {
  // a round just ended: its summary stays until your next move (or "Hide"), beside the table on a wide screen and
  // below it on a phone, so that it never pushes the rows you must choose from out of view
  const box = $("#round-sheet"), snap = g.snap;
  box.replaceChildren();
  if (snap.over || snap.error || !g.sheet || g.sheetHidden === g.sheet) { box.hidden = true; return; }
  viewOf(snap.game).roundSummary(g, box);
  if (box.childElementCount) box.append(el("button", { type: "button", id: "hide-sheet", text: "Hide", onclick: () => { g.sheetHidden = g.sheet; renderRoundSheet(g); } }));
  box.hidden = !box.childElementCount;
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

function resultText(snap) {
  return snap.error ? "ended with an error" : viewOf(snap.game).resultText(snap);
}

function remember(g) {
  if (g.remembered) return;
  const mine = store.get("history", []);
  if (Array.isArray(mine) && mine.some((x) => x && x.id === g.id)) { g.remembered = true; return; }  // a reload: listed already
  const list = Array.isArray(mine) ? mine.filter((x) => x && typeof x === "object") : [];
  const snap = g.snap;
  list.unshift({ id: g.id, game: snap.game, started: g.started || null, ended: new Date().toISOString(), opponents: opponentsOf(snap),
                 players: snap.view.num_players, result: resultText(snap), won: snap.view.winners.includes(snap.seat),
                 replay: snap.saved && snap.saved.run ? replayHref(snap.saved) : null,
                 saved: snap.saved && snap.saved.run ? { run: snap.saved.run, game: snap.saved.game } : null });
  store.set("history", list.slice(0, 60));
  g.remembered = true;
}

function savedOf(x) {  // a listed game's {run, game} (entries older than x.saved: read from its replay link)
  const isText = (v) => typeof v === "string";
  if (x.saved && isText(x.saved.run) && isText(x.saved.game)) return x.saved;
  const m = typeof x.replay === "string" && x.replay.match(/^#replay\/([^/]+)\/([^/]+)$/);
  try { return m ? { run: decodeURIComponent(m[1]), game: decodeURIComponent(m[2]) } : null; } catch (e) { return null; }
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
    const saved = savedOf(x);
    if (saved) t.append(el("tr", { class: "share-row" }, el("td", { colspan: 4 }, shareControl(saved))));
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
  if (g) { appendLog(g.events, g.snap); g.logged = g.events.length; }
}

function logUpTo(g, n) {  // the log follows the table: an event is written once it has been shown
  if (cur() !== g) return;
  const from = g.logged || 0;
  if (n > from) { appendLog(g.events.slice(from, n), g.snap); g.logged = n; }
}

function logToEnd() { const log = $("#play-log"); log.scrollTop = log.scrollHeight; }  // the latest line in view

function appendLog(events, snap) {
  const log = $("#play-log"), view = viewOf(snap.game);
  for (const e of events) {
    const cls = view.logClass(e);
    if (cls === null) continue;  // not worth a line (the next event says it all)
    log.append(el("div", { class: "ev ev-" + e.type + cls, text: view.logText(e, snap.names, snap.seat) }));
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
let curGame = null;

async function animate(g, events, prevView, base) {
  const snap = g.snap, ms = stepMs();
  if (ms === 0 || !events.length || g.skip) return;
  curGame = g;
  $("#turn-bar").className = "turn-bar";
  const say = (text) => { $("#turn-bar").textContent = nameText(text, snap.names, snap.seat); };
  await viewOf(snap.game).animate(g, events, prevView, base, { ms, say });
}

async function takeAnswer(g, next, prevView) {
  const fresh = next.events || [];
  g.snap = next;
  g.events = g.events.slice(0, next.event_base).concat(fresh);
  g.optimistic = null;
  if ((g.logged || 0) > next.event_base) g.logged = next.event_base;
  const end = viewOf(next.game).roundEnd(fresh);
  await animate(g, fresh, prevView, next.event_base);
  logUpTo(g, g.events.length);
  if (end) g.sheet = end;
}

async function humanAction(action) {
  const g = cur();
  if (!g || play.busy || !g.snap.your_turn) return;
  const snap = g.snap, view = viewOf(snap.game);
  if (!snap.legal.includes(action)) {
    showError(`${capital(view.actionName(action, snap))} is not playable now` + view.notPlayable(snap));
    return;
  }
  showError("");
  play.busy = true; document.body.dataset.busy = "1";
  g.hint = null; g.hintText = null; g.thoughts = null; g.selected = null; g.sheet = null;
  g.optimistic = view.optimistic(action);
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

// a second tab (or window) on the same game follows it when you come back to it (the tab shown again, the window
// focused): it asks the server where the game stands instead of waiting for your next move to find out
async function syncGame() {
  const g = cur();
  if (!g || play.busy || document.hidden || g.snap.over || g.snap.pending) return;
  try {
    const snap = await api("GET", `/api/games/${g.id}?since=${g.events.length}`, undefined, g.token);
    if (play.busy || cur() !== g || snap.steps === g.snap.steps) return;
    g.snap = snap; g.events = g.events.slice(0, snap.event_base).concat(snap.events); g.selected = null; g.hint = null; g.hintText = null;
    logUpTo(g, g.events.length);
    renderPlay();
  } catch (e) { /* gone or refused: the next move says so in words */ }
}

async function continuePending(g) {
  while (g.snap.pending && !g.snap.over) {
    const next = await api("POST", `/api/games/${g.id}/advance`, { step: g.snap.steps, since: g.events.length }, g.token);
    await takeAnswer(g, next, g.snap.view);
    renderPlay();
  }
}

// ---------------------------------------------------------------------------------------------- keyboard
function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (!$("#rules-panel").hidden) { if (ev.key === "Escape") { ev.preventDefault(); closeRules(); } return; }
  const t = ev.target;
  if (t && (t.tagName === "INPUT" && t.type !== "checkbox" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  const tab = (location.hash || "#play").slice(1).split("/")[0];
  if (tab === "replays" || tab === "replay" || tab === "shared") { replayKey(ev); return; }
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
  viewOf(g.snap.game).onKey(g, k, ev);
}

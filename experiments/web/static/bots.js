// The bots: the new-game panel (game, preset, seats, the bot picker, engine options), resuming your games,
// hints and the bot's view of your position (in the units of the game's view: app.js's viewOf). See app.js.
"use strict";

// ---------------------------------------------------------------------------------------------- new game
// plays n players at all / was made for n players (the server says which counts: a shipped policy suits those for
// which it is its family's nearest, a guided search those its prior suits)
const fits = (b, n) => !b.players || b.players.includes(n);
const suits = (b, n) => !!b.suits && b.suits.includes(n);

// the shipped policies' family the game's web view prefers under this config (its bot_family: the first rule whose
// fields all equal the config's)
function preferredFamily(game, config) {
  const rule = (viewData(game).bot_family || []).find(([match]) => Object.entries(match).every(([k, v]) => config[k] === v));
  return rule ? rule[1] : null;
}

function preferredBot(game, n, config) {
  const bots = META.games[game].bots;
  const family = preferredFamily(game, config);
  const b = (family !== null && (bots.find((x) => x.family === family && suits(x, n) && fits(x, n)) || bots.find((x) => x.family === family && fits(x, n))))
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
    box.replaceChildren(el("div", { class: "small", text: "Options (the usual rules unless you change them; the Rules say what each does):" }));
    const named = m.view.options || {};  // the game's words for its options (the rules text is made of the same words)
    for (const [field, def] of Object.entries(m.defaults)) {
      if (field === "num_players" || Array.isArray(def) || field === "max_cycles") continue;
      const value = field in state.config ? state.config[field] : def;
      let input;
      const opt = named[field];
      if (m.choices[field]) input = el("select", { "data-field": field }, m.choices[field].map((c) => el("option", { value: c, text: (opt && opt.values[c]) || c, selected: c === value })));
      else if (typeof def === "boolean") input = el("input", { type: "checkbox", "data-field": field, checked: value });
      else if (typeof def === "number" || def === null) input = el("input", { type: "number", "data-field": field, value: value === null ? "" : value });
      else input = el("input", { type: "text", "data-field": field, value });
      box.append(el("label", { title: opt ? opt.rule : null }, (opt ? opt.label : field.replace(/_/g, " ")) + " ", input));
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
  // the games the server serves, in its order (each game's title from its definition)
  gameSel.replaceChildren(...Object.entries(META.games).map(([name, m]) => el("option", { value: name, text: m.title })));
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
      body.seed = seed;  // as text: a browser's numbers are exact only up to 2**53, a seed goes up to 2**64 - 1
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
  startGame({ ...b, seed: String(g.snap.seed) });  // the server's seed as text, digit for digit: the same deal
}

function sheetAfterReload(g) {
  // a reload keeps the round's sheet up while you have not moved since the round ended (as the page had it)
  const view = viewOf(g.snap.game), end = view.roundEnd(g.events);
  if (!end || g.snap.over) return;
  const after = g.events.slice(g.events.lastIndexOf(end) + 1);
  if (!after.some((e) => e.player === g.snap.seat || e.type === "reveal")) g.sheet = end;
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
  for (const id of play.order) sheetAfterReload(play.games[id]);
  saveGames();
  renderLog(); renderPlay();
  const g = cur();
  if (g) { continuePending(g).catch((e) => showError(e.message)); maybeThink(g); }
  else $("#new-game").open = true;
}


// ---------------------------------------------------------------------------------------------- hints and thoughts
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
  // one line in the player's terms: what the move is expected to cost you and why (the server's hints.py: the game's
  // hint_cost and hint_reason); a game without them: the bot's own numbers (the policy's odds, the search's values)
  if (h.cost || h.reason) {
    const parts = [h.cost && h.cost.text, h.reason].filter(Boolean);
    if (h.thoughts && h.thoughts.forced) parts.push("the only legal move");
    return parts.join("; ");
  }
  const t = h.thoughts;
  if (!t) return "its fixed rule's choice";
  if (t.forced) return "the only legal move";
  if (t.kind === "policy" && t.probs && t.probs.length) {
    const [a, b] = t.probs;
    let r = `${pct(a.p)} sure` + (b ? `, next ${b.label} at ${pct(b.p)}` : "");
    return r + viewOf(game).policyHint(t);
  }
  if (t.kind === "search" && t.candidates && t.candidates.length) {
    const [a, b] = t.candidates;
    const view = viewOf(game), val = (c) => view.searchValue(c);
    return `${val(a)} in ${a.visits} simulations` + (b ? `, against ${val(b)} for ${b.label}` : "") + view.searchSuffix;
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

function valueText(t, game) { return viewOf(game).valueText(t); }

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


let thinkTimer = null;
function maybeThinkSoon(g) { clearTimeout(thinkTimer); thinkTimer = setTimeout(() => { if (cur() === g) maybeThink(g); }, 30); }

// The rules for players (GET /api/rules/GAME: experiments/web/rules_text.py), as a panel at the table and as a
// page; what a game's view draws of them (its rulesExtra: 5 Alive's cards with their pictures). See app.js.
"use strict";

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

function rulesContent(game, full) {
  // the game's rules for players (experiments/web/rules_text.py: one text for this panel, the page and the card
  // explanations); a section of cards drawn by the game's view when it has a way to (5 Alive: each card's picture)
  const r = RULES[game];
  if (!r || r.missing) return [el("p", { text: (r && r.missing) || "The rules could not be loaded." })];
  const out = [el("h2", { text: r.title })];
  out.push(...ruleBlocks(r.intro));
  for (const s of r.sections) {
    const drawn = s.cards ? viewOf(game).rulesExtra(game, s) : null;
    out.push(el("h3", { text: s.title }), ...(drawn ? [drawn] : ruleBlocks(s.blocks)));
  }
  if (full) out.push(el("p", { class: "small", text: "The developer\u2019s rule book, with every default and how the engines encode the rules, is the page \u201cThe rules of Take 5 and 5 Alive\u201d of the project\u2019s documentation (docs/rules.md)." }));
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


async function loadRules() {
  await Promise.all(Object.keys(META.games).map(async (game) => {
    try { RULES[game] = await api("GET", `/api/rules/${game}`); } catch (e) { RULES[game] = { game, missing: e.message }; }
  }));
}

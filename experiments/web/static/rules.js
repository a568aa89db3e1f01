// The rules: a game's chapter of the rule book (docs/rules.md, read by the server), as a panel at the table and
// as a page for the whole; what a game's view adds (its rulesExtra). See app.js.
"use strict";

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

function rulesContent(game, full) {
  const r = RULES[game];
  if (!r || r.missing) return [el("p", { text: (r && r.missing) || "The rules could not be loaded." })];
  const out = [el("h2", { text: r.title })];
  out.push(...ruleBlocks(r.intro));
  const extra = full ? null : viewOf(game).rulesExtra(game);  // the view's own part of the panel (5 Alive: the special cards)
  if (extra) out.push(extra);
  for (const s of r.sections) {
    if (!full && !s.player) continue;
    out.push(el("h3", { id: full ? `rules-${s.number}` : null, text: `${s.number} ${s.title}` }), ...ruleBlocks(s.blocks));
  }
  out.push(el("p", { class: "small", text: r.source === "docs/rules.md" ? `From the rule book, ${r.source}: the same text as the documentation's rules page.` : `From ${r.source}.` }));
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

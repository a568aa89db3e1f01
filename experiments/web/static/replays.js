// The Replays tab: a recorded game (of a run folder, or an uploaded record file) replayed frame by frame, fetched a
// page at a time; step, jump to a round, watch from any seat or from above, the bots' thoughts. See app.js.
"use strict";

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
  else if (src.kind === "share") data = await api("GET", `/api/replay?share=${encodeURIComponent(src.token)}&${q}`);  // a share link
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
    // a web game of yours: its share control (its #replay link opens in this browser only); another run: its link
    const mine = src.kind === "run" && src.run.startsWith("web__");
    const share = src.kind === "run" && !mine ? `#replay/${encodeURIComponent(src.run)}/${encodeURIComponent(src.game)}`
      : src.kind === "share" ? `#shared/${encodeURIComponent(src.token)}` : null;
    $("#rp-share").hidden = !share;
    if (share) $("#rp-share").href = share;
    $("#rp-share-box").replaceChildren(...(mine ? [shareControl({ run: src.run, game: src.game })] : []));
    await renderReplay();
    startAutoplay();
  } catch (e) {
    if (rp.src !== src) return;
    $("#replay-message").textContent = src.kind === "share" && e.status === 404
      ? "Shared game not found: this link does not work any more (its player stopped sharing it, or the game was deleted)." : e.message;
    $("#replay-controls").hidden = true; $("#replay-area").replaceChildren(); $("#replay-step").textContent = "";
    $("#replay-thinking").hidden = true;
  }
}

function seatView(view, seat) {  // a frame's view (from above) cut to one seat's own hand and choice
  if (seat === "all") return view;
  const v = { ...view };
  for (const key of ["hands", "pending"]) if (view[key]) v[key] = view[key][seat] !== undefined ? { [seat]: view[key][seat] } : {};
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
  const view = viewOf(d.game);
  view.replayTable(area, v, f, { viewer: seat, names });
  const hidden = view.hidden(f, seat);  // a move this seat could not see: told in words, not by its label
  const who = f.player === null ? "" : `${seatName(names, f.player, seat)}: ${hidden ? hidden.words : f.label}`;
  const evText = hidden && !hidden.events ? "" : f.events.map((e) => e.text).join(" \u00B7 ");
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


// --- share links: a saved game of yours, replayed by anyone who opens its link (#shared/TOKEN) ----------------
// POST /api/share {run, game} makes the link (sharing again replaces it), DELETE revokes it; only the owner may do
// either. The server keeps no way to read a token back: this browser remembers its links (store "shares", keyed by
// RUN/GAME) so that they are shown again after a reload. Every share control on the page is redrawn on a change.
const shareKey = (saved) => `${saved.run}/${saved.game}`;
const sharedLink = (token) => new URL(`/#shared/${encodeURIComponent(token)}`, location.origin).href;
const sharesKept = () => { const s = store.get("shares", {}); return s && typeof s === "object" && !Array.isArray(s) ? s : {}; };
function keepShare(saved, token) {
  const s = sharesKept();
  delete s[shareKey(saved)];
  if (token) s[shareKey(saved)] = token;
  const keys = Object.keys(s);  // the newest 200 (the server keeps at most 200 saved games of a client)
  for (const k of keys.slice(0, Math.max(0, keys.length - 200))) delete s[k];
  store.set("shares", s);
}
function redrawShares() { for (const box of $$(".share")) if (box.redraw) box.redraw(); }

function shareWords(e, stop) {
  if (e.status === 404) return stop ? "This game is no longer saved on the server as yours: there is no link to stop sharing."
    : "This game is no longer saved on the server as yours (it was deleted, or saved from another browser): it cannot be shared.";
  if (e.status === undefined) return `Could not reach the server (${e.message}): try again.`;
  return `${stop ? "Could not stop sharing" : "Could not share this game"}: ${e.message}`;
}

// the share control of one saved game ({run, game}): "Share", or its link with Copy and Stop sharing
function shareControl(saved) {
  const box = el("div", { class: "share", "data-key": shareKey(saved) });
  let error = "", note = "", busy = false;
  const call = async (method, stop) => {
    busy = true; error = ""; note = ""; redrawShares();
    try {
      const data = await api(method, "/api/share", { run: saved.run, game: saved.game });
      keepShare(saved, stop ? null : data.share);
      if (!stop) note = "Anyone with this link can watch the replay.";
    } catch (e) {
      error = shareWords(e, stop);
      if (stop && e.status === 404) keepShare(saved, null);
    } finally { busy = false; redrawShares(); }
  };
  const copy = async (input) => {
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(input.value);
      note = "Link copied.";
    } catch (e) { note = "Selected: copy it with Ctrl+C (\u2318C on a Mac)."; }
    box.redraw();
    const again = $(".share-link", box);
    if (note.startsWith("Selected") && again) { again.focus(); again.select(); }
  };
  box.redraw = () => {
    const token = sharesKept()[shareKey(saved)];
    box.replaceChildren();
    if (!token) {
      box.append(el("button", { type: "button", class: "share-btn", text: busy ? "Sharing\u2026" : "Share", disabled: busy,
        title: "Make a link that anyone can open to watch this game's replay", onclick: () => call("POST", false) }));
    } else {
      const input = el("input", { type: "text", class: "share-link", readonly: true, value: sharedLink(token), "aria-label": "share link",
        onfocus: (ev) => ev.target.select() });
      box.append(input,
        el("button", { type: "button", class: "share-copy", text: "Copy", disabled: busy, onclick: () => copy(input) }),
        el("button", { type: "button", class: "share-stop", text: busy ? "Stopping\u2026" : "Stop sharing", disabled: busy,
          title: "Revoke the link: it stops working for everyone", onclick: () => call("DELETE", true) }));
    }
    if (note && token) box.append(el("span", { class: "small share-note", role: "status", text: note }));
    if (error) box.append(el("div", { class: "message share-error", role: "alert", text: error }));
  };
  box.redraw();
  return box;
}

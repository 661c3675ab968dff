// The dashboard's script: every page reads the JSON API and listens to /api/stream (SSE).
"use strict";
const $ = (sel) => document.querySelector(sel);
const SUIT_IDS = ["surya","chandra","barat","phul","kumancha","ghulam","cheng","shamsher","matsya","kurma","varaha","narasimha","vamana","parashurama","rama","balarama","buddha","kalki"];
const RANK_IDS = ["1","2","3","4","5","6","7","8","9","10","vizier","raja"];
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
};
const svgEl = (tag, attrs = {}) => {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
async function api(path, opts = {}) {
  const init = { headers: {} , ...opts };
  if (opts.json !== undefined) { init.method = init.method || "POST"; init.body = JSON.stringify(opts.json); init.headers["Content-Type"] = "application/json"; }
  const r = await fetch(path, init);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}
const SUIT_RGB = {};
const title = (s) => s[0].toUpperCase() + s.slice(1);
const splitId = (id) => [id.slice(0, id.lastIndexOf("-")), id.slice(id.lastIndexOf("-") + 1)];  // [suit, rank]
function cardName(id) {  // as companion.cards names it: "10 of Matsya", "Raja of Cheng"
  const [suit, rank] = splitId(id);
  return `${/^\d+$/.test(rank) ? rank : title(rank)} of ${title(suit)}`;
}
const seatName = (g, s) => (g && g.seats && g.seats[s]) || `Player ${s + 1}`;

// ---- shared: status line, announcements, speech ----------------------------------------
const App = { state: null, listeners: [], annListeners: [] };
function flash(text) {
  const box = $("#flash"); box.innerHTML = "";
  const d = el("div", {}, text); box.append(d); setTimeout(() => d.remove(), 2500);
}
function speak(text) {
  if (!$("#speak") || !$("#speak").checked || !window.speechSynthesis) return;
  const u = new SpeechSynthesisUtterance(text); u.rate = 1.05; speechSynthesis.speak(u);
}
async function refreshState() {
  try { App.state = await api("/api/state"); } catch (e) { return; }
  const cam = App.state.camera, s = $("#camera-status");
  s.textContent = cam.ok ? `camera: ${cam.text}${cam.fps ? " · " + cam.fps + " fps" : ""}` : `camera: ${cam.text}`;
  s.className = "status " + (cam.ok ? "ok" : "bad");
  const dl = $("#demo-label"); dl.hidden = !cam.demo_label; dl.textContent = cam.demo_label || "";
  const al = $("#art-label"); al.hidden = !cam.art; al.textContent = cam.art || "";
  const n = App.state.game ? App.state.game.pending.length : 0;
  const b = $("#pending-badge"); if (b) { b.hidden = n === 0; b.textContent = n; }
  // a page part that cannot refresh (server restarting) waits for the next change
  App.listeners.forEach((f) => Promise.resolve().then(() => f(App.state)).catch(() => {}));
}
let lastAnn = 0, primed = false;
function connect() {
  const es = new EventSource("/api/stream");
  es.addEventListener("announcement", (ev) => {
    const a = JSON.parse(ev.data); if (a.id <= lastAnn) return; lastAnn = a.id;
    const live = primed && (Date.now() / 1000 - a.ts) < 30;
    App.annListeners.forEach((f) => f(a, live));
    if (live && a.prominent) { const t = withNames(a.text, a.game_id); flash(t); speak(t); }
  });
  es.addEventListener("state", () => { primed = true; refreshState(); });
  es.onerror = () => { $("#camera-status").textContent = "reconnecting…"; };
}

// ---- Table page -------------------------------------------------------------------------
const layouts = {};
async function layoutOf(game) {
  if (!(game in layouts)) { try { layouts[game] = await api(`/api/layout/${game}`); } catch (e) { layouts[game] = null; } }
  return layouts[game];
}
function cardLabel(id) { const [s, r] = splitId(id); return { suit: s, rank: r === "vizier" ? "V" : r === "raja" ? "R" : r }; }
async function drawTable(st) {
  const g = st.game;
  const last = st.last;
  $("#game-title").textContent = g ? `${g.title} · round ${g.number}` : last ? `${last.title} · round ${last.number} · finished` : "No game yet — choose one on Setup";
  drawPending(g, $("#questions"), "");
  // announcements of a move judged again (a correction, a card named late) are taken back
  for (const id of (g && g.retracted) || []) {
    const li = $(`#feed li[data-id="${id}"]`); if (li) li.remove();
    if ($("#big").dataset.id === String(id)) { $("#big").textContent = ""; delete $("#big").dataset.id; }
  }
  const svg = $("#diagram"); svg.innerHTML = "";
  if (!g) { $("#turn").textContent = last ? last.result : ""; $("#hands").innerHTML = ""; return; }
  $("#turn").textContent = g.turn !== null && g.turn !== undefined ? `To play: ${seatName(g, g.turn)}` : `${g.move_count} moves seen`;
  const lay = await layoutOf(g.game);
  if (lay) for (const z of lay.zones) {
    svg.append(svgEl("rect", { class: "zone", x: z.x - 36, y: z.y - 36, width: 72, height: 72, rx: 10 }));
    const t = svgEl("text", { class: "zlabel", x: z.x - 32, y: z.y - 40 }); t.textContent = z.seat !== null && z.seat !== undefined ? `${seatName(g, z.seat)} ${z.kind}` : z.label; svg.append(t);
    const cards = g.zones[z.id] || g.zones[z.label] || [];
    if (cards.length) {
      const id = cards[cards.length - 1], { suit, rank } = cardLabel(id);
      svg.append(svgEl("circle", { class: "disc", cx: z.x, cy: z.y, r: 30, stroke: SUIT_RGB[suit] || "#555" }));
      const a = svgEl("text", { class: "ctext", x: z.x, y: z.y - 2 }); a.textContent = rank; svg.append(a);
      const b = svgEl("text", { class: "ctext", x: z.x, y: z.y + 13, style: `font-size:${suit.length > 8 ? 8 : 10}px` }); b.textContent = title(suit); svg.append(b);
    }
  }
  const hands = $("#hands"); hands.innerHTML = "";
  g.seats.forEach((name, i) => {
    const n = g.hand_counts ? ` · ${g.hand_counts[i]} cards` : "";
    hands.append(el("span", { class: i === g.turn ? "to-play" : "" }, name + n));
  });
  if (g.game === "kendra-kari" && !g.manual) {
    const row = el("div", { class: "drew" }, el("span", { class: "muted" }, "Who drew? "));
    g.seats.forEach((name, i) => row.append(el("button", { type: "button", onclick: async () => {
      try { await api("/api/draw", { json: { seat: i } }); } catch (e) { flash(e.message); }
    } }, name)));
    hands.append(row);
  }
  if (g.showing && !g.manual) {  // Ganjifa's face-up batches (see judges.PerSeatJudge)
    hands.append(el("div", { class: "drew" },
      el("span", { class: "muted" }, "Face-up batches: lay each player's on their play spot, one on another. "),
      el("button", { type: "button", id: "shown", onclick: async () => {
        try { await api("/api/shown", { json: {} }); } catch (e) { flash(e.message); }
      } }, "Face-up cards picked up")));
  }
}
function withNames(text, gameId) {
  const g = App.state && App.state.game;
  if (!g || g.id !== gameId) return text;
  return text.replace(/Player (\d+)/g, (m, n) => g.seats[n - 1] || m);
}
function feedItem(a) {
  const t = new Date(a.ts * 1000).toLocaleTimeString();
  return el("li", { class: `${a.prominent ? "prominent" : ""} kind-${a.kind}`, "data-id": a.id }, el("span", { class: "t" }, t), withNames(a.text, a.game_id));
}
function initTable() {
  App.listeners.push(drawTable);
  App.annListeners.push((a, live) => {
    const feed = $("#feed"); feed.prepend(feedItem(a));
    while (feed.children.length > 200) feed.lastChild.remove();
    if (a.prominent) { $("#big").textContent = withNames(a.text, a.game_id); $("#big").dataset.id = a.id; }
  });
  const img = $("#live");
  img.onerror = () => setTimeout(() => { img.src = "/video.mjpg?" + Date.now(); }, 1000);
}

// ---- Played cards -----------------------------------------------------------------------
async function drawTracker() {
  const deck = $("#deck").value;
  const t = await api("/api/tracker" + (deck ? `?deck=${deck}` : ""));
  const box = $("#tracker"); box.innerHTML = "";
  $("#count").textContent = `${t.played} of ${t.total} cards played · ${title(t.deck)} deck · ${t.rank_order.startsWith("as ") ? "ranks " + t.rank_order : t.rank_order + " rank order"}`;
  for (const s of t.suits) {
    const row = el("div", { class: "row" }, el("span", { class: "suitname" }, el("span", { class: "dot", style: `background:rgb(${s.rgb})` }), s.title + (s.weak ? " ↓" : "")));
    for (const c of s.cards) row.append(el("span", { class: `cell ${c.status}`, title: `${c.rank} of ${s.title}: ${c.status}` }, c.rank));
    box.append(row);
  }
}
function initPlayed() { $("#deck").onchange = drawTracker; App.listeners.push(drawTracker); }

// ---- Confirm and correct ----------------------------------------------------------------
let correcting = null;
let keyAnswered = false;  // a key answered the first question; see the keydown listener
// The referee's open questions as one-tap answers (the Confirm page, and the Table page
// while a question holds the game up).
// A question about which card lies somewhere also takes any card of the deck ("another
// card", by suit, the cards already played last, then "that card"): the right one is not
// always among the readings offered. Drawn again only when the questions change, so that a
// list being chosen from is not closed under the player's finger.
function drawPending(g, box, empty) {
  const key = JSON.stringify(g ? g.pending.map((p) => p.id) : null);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.innerHTML = "";
  keyAnswered = false;
  if ((!g || !g.pending.length) && empty) box.append(el("p", { class: "muted" }, empty));
  if (g) for (const p of g.pending) {
    const choose = async (value) => {
      try { await api(`/api/pending/${p.id}`, { json: { choice: value } }); } catch (e) { keyAnswered = false; flash(e.message); }
    };
    const item = el("div", { class: "pending-item", "data-pending": p.id }, el("p", {}, p.text));
    for (const c of p.choices) item.append(el("button", { type: "button", "data-choice": String(c.value), onclick: () => choose(c.value) }, c.label || String(c.value)));
    const n = Math.min(p.choices.length, 9);
    if (p === g.pending[0] && n) item.append(el("p", { class: "muted keys" }, n === 1 ? "Key 1 answers this one." : `Keys 1–${n} answer this one.`));
    if (p.kind === "unsure" && g.cards) {
      const offered = new Set(p.choices.map((c) => String(c.value)));
      const other = el("select", { "data-other": p.id, "aria-label": "another card" }, el("option", { value: "" }, "another card…"));
      const groups = new Map();  // by suit, then the cards played or on the table
      for (const [id, name, group] of g.cards) {
        if (offered.has(id)) continue;
        if (!groups.has(group)) { const og = el("optgroup", { label: group }); groups.set(group, og); other.append(og); }
        groups.get(group).append(el("option", { value: id }, name));
      }
      // answered by its own button: a focused list changes with a typed key or a wheel
      const give = el("button", { type: "button", "data-give": p.id, disabled: "", onclick: () => choose(other.value) }, "that card");
      other.onchange = () => { give.disabled = !other.value; };
      // the ring's rules name the cards that fit; a trick game knows cards seen in the hand
      const looks = g.game === "kendra-kari" ? "could lie here" : "seen in this hand";
      item.append(other, give, deckGrid(g.cards, offered, choose, (p.context || {}).could || [], looks));
    }
    box.append(item);
  }
}
// The deck as buttons, a row a suit. With art the reader does not know, the card is rarely
// among the readings offered (the players chose from the list for 120 of 129 cards of the
// real-art Ganjifa film): a button is one tap, the list three. Open from the start where
// the model does not know the deck's art; opened or closed by the player, it stays so for
// the questions that follow.
let gridOpen = null;  // the player's choice, once made
// A first row holds the cards to look among first (``hints.could_lie_at``), named ``looks``.
function deckGrid(cards, offered, choose, could, looks) {
  const summary = el("summary", {}, "all the cards");
  const box = el("details", { class: "deck-grid" }, summary);
  box.open = gridOpen !== null ? gridOpen : Boolean(App.state && App.state.camera && App.state.camera.art);
  summary.addEventListener("click", () => { gridOpen = !box.open; });  // (before it toggles)
  const names = new Map(cards.map(([id, name]) => [id, name]));
  const fits = could.filter((id) => names.has(id) && !offered.has(id));
  if (fits.length) box.append(el("div", { class: "grid-row grid-could" }, el("span", { class: "grid-suit" }, looks),
    ...fits.map((id) => el("button", { type: "button", "data-could": id, onclick: () => choose(id) }, names.get(id)))));
  const rows = new Map();
  for (const [id, name, group] of cards) {
    if (offered.has(id)) continue;
    if (!rows.has(group)) { rows.set(group, el("div", { class: "grid-row" }, el("span", { class: "grid-suit" }, group))); box.append(rows.get(group)); }
    // in its suit's row the rank says it; the row of cards played mixes suits
    const label = group === title(splitId(id)[0]) ? name.split(" of ")[0] : name;
    rows.get(group).append(el("button", { type: "button", "data-card": id, title: name, onclick: () => choose(id) }, label));
  }
  return box;
}
// Keys 1-9 give the first open question its first..ninth choice: at the table a key is
// quicker than aiming at a button (a deck enrolled live asks about every card). Keys answer
// once until the questions are drawn again, so that a key pressed twice does not answer the
// next question too.
document.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.altKey || ev.metaKey || keyAnswered) return;
  if (/^(INPUT|SELECT|TEXTAREA)$/.test((document.activeElement || {}).tagName)) return;
  const k = /^[1-9]$/.test(ev.key) ? Number(ev.key) : 0;
  const first = k && document.querySelector(".pending-item");
  const button = first && first.querySelectorAll("button[data-choice]")[k - 1];
  if (!button) return;
  ev.preventDefault();
  keyAnswered = true;
  button.click();
});
function drawConfirm(st) {
  const g = st.game;
  drawPending(g, $("#pending"), "Nothing to confirm.");
  const list = $("#moves"); list.innerHTML = "";
  if (g) for (const m of g.moves) {
    const verdict = m.ruling ? m.ruling.verdict : "";
    const li = el("li", { value: m.seq, class: `${verdict} ${m.corrected ? "corrected" : ""}`, "data-event": m.id },
      `${m.text.replace(/Player (\d+)/, (_, n) => seatName(g, n - 1))}${verdict && verdict !== "legal" ? " — " + verdict + (m.ruling.reason ? ": " + m.ruling.reason : "") : ""}`);
    li.onclick = () => openCorrection(g, m);
    list.append(li);
  }
}
function openCorrection(g, m) {
  correcting = m; const f = $("#correct-form"); f.hidden = false;
  $("#correct-seq").textContent = `#${m.seq}`;
  const sel = $("#c-player"); sel.innerHTML = "";
  g.seats.forEach((n, i) => sel.append(el("option", { value: i }, n)));
  sel.value = m.move.player; $("#c-action").value = m.move.action;
  $("#c-cards").value = (m.move.cards || []).join(" "); $("#c-target").value = m.move.target || "";
  nameTypedCards();
}
const typedCards = () => $("#c-cards").value.split(/[\s,]+/).filter(Boolean);
let suggestedAfter = null;
function suggestNextCard() {  // the list offers every card after the ids already typed, so a second card is suggested too
  const text = $("#c-cards").value, before = text.slice(0, Math.max(text.lastIndexOf(" "), text.lastIndexOf(",")) + 1);
  if (before === suggestedAfter) return;
  suggestedAfter = before;
  $("#c-card-list").replaceChildren(...SUIT_IDS.flatMap((su) => RANK_IDS.map((r) => el("option", { value: before + `${su}-${r}` }, cardName(`${su}-${r}`)))));
}
function nameTypedCards() {  // the ids typed, as the cards they name (or a word that they do not)
  suggestNextCard();
  const ids = typedCards();
  const isCard = (id) => { const [suit, rank] = splitId(id); return SUIT_IDS.includes(suit) && RANK_IDS.includes(rank); };
  $("#c-cards-named").textContent = ids.length ? "Cards: " + ids.map((id) => isCard(id) ? cardName(id) : `"${id}" is no card`).join(", ") : "No cards";
}
function initConfirm() {
  App.listeners.push(drawConfirm);
  suggestNextCard();
  $("#c-cards").oninput = nameTypedCards;
  $("#correct-form").onsubmit = async (ev) => {
    ev.preventDefault(); if (!correcting) return;
    const cards = typedCards();
    const move = { player: Number($("#c-player").value), action: $("#c-action").value.trim(), cards, target: $("#c-target").value.trim() };
    try { await api(`/api/moves/${correcting.id}/correct`, { json: { move } }); $("#correct-form").hidden = true; flash("Corrected: the referee re-judged from there"); }
    catch (e) { flash(e.message); }
  };
  $("#c-delete").onclick = async () => {
    try { await api(`/api/moves/${correcting.id}/correct`, { json: { delete: true } }); $("#correct-form").hidden = true; } catch (e) { flash(e.message); }
  };
  $("#c-cancel").onclick = () => { $("#correct-form").hidden = true; };
}

// ---- Setup ------------------------------------------------------------------------------
let games = [];
function drawSetupGame() {
  const g = games.find((x) => x.name === $("#s-game").value); if (!g) return;
  $("#s-doc").textContent = `${g.min_players}-${g.max_players} players${g.deck ? " · " + title(g.deck) + " deck" : ""}. ${g.doc || ""}`;
  const p = $("#s-players"); p.min = g.min_players; p.max = g.max_players;
  p.value = Math.min(Math.max(Number(p.value), g.min_players), g.max_players);
  drawSeats();
  const box = $("#s-options"); box.innerHTML = "";
  for (const o of g.options) {
    let input;
    if (o.type === "choice") { input = el("select", { "data-opt": o.name }); o.choices.forEach((c) => input.append(el("option", { value: c }, c))); input.value = o.default; }
    else if (o.type === "bool") { input = el("input", { type: "checkbox", "data-opt": o.name, "data-bool": "1" }); input.checked = !!o.default; }
    else { input = el("input", { "data-opt": o.name, value: o.default === null ? "" : o.default, size: 8 }); }
    box.append(el("label", {}, o.name.replace(/_/g, " ") + " ", input));
  }
}
function drawSeats() {
  const box = $("#s-seats"), n = Number($("#s-players").value) || 0, old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.innerHTML = "";
  for (let i = 0; i < n && i < 12; i++) box.append(el("input", { placeholder: `Player ${i + 1}`, value: old[i] || "", "aria-label": `seat ${i + 1} name` }));
}
let corners = [];
async function drawCalibration() {
  const img = $("#calib-img"); img.src = "/snapshot.jpg?" + Date.now();
  let c; try { c = await api("/api/calibration"); } catch (e) { $("#calib-status").textContent = e.message; return; }
  const svg = $("#calib-svg"); svg.innerHTML = "";
  if (!c.frame) { $("#calib-status").textContent = c.message || "no picture yet"; return; }
  svg.setAttribute("viewBox", `0 0 ${c.frame.width} ${c.frame.height}`);
  for (const m of c.markers) svg.append(svgEl("polygon", { points: m.corners.map((p) => p.join(",")).join(" "), fill: "#2e7d3288", stroke: "#2e7d32", "stroke-width": 3 }));
  corners = c.manual_corners || corners;
  corners.forEach((p) => svg.append(svgEl("circle", { cx: p[0], cy: p[1], r: 8, fill: "#b0302c" })));
  $("#calib-status").textContent = `${c.markers.length} mat marker(s) found${c.message ? " · " + c.message : ""}${corners.length ? " · " + corners.length + " manual corner(s)" : ""}`;
  svg.onclick = (ev) => {
    if (corners.length >= 4) return;
    const pt = svg.createSVGPoint(); pt.x = ev.clientX; pt.y = ev.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse()); corners.push([Math.round(p.x), Math.round(p.y)]);
    svg.append(svgEl("circle", { cx: p.x, cy: p.y, r: 8, fill: "#b0302c" }));
  };
}
async function initSetup() {
  games = (await api("/api/games")).games.filter((g) => !g.error);
  const sel = $("#s-game"); games.forEach((g) => sel.append(el("option", { value: g.name }, g.title)));
  sel.onchange = drawSetupGame; $("#s-players").oninput = drawSeats; drawSetupGame();
  $("#setup-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const options = {};
    document.querySelectorAll("[data-opt]").forEach((i) => { options[i.dataset.opt] = i.dataset.bool ? i.checked : i.value; });
    const body = { game: sel.value, players: Number($("#s-players").value), seats: [...document.querySelectorAll("#s-seats input")].map((i) => i.value),
      options, manual: $("#s-manual").checked, deck_profile: $("#s-profile").value,
      ask_every_doubt: $("#s-every-doubt").checked };
    try { const r = await api("/api/setup", { json: body }); $("#s-result").textContent = `Game ${r.game_id} started.`; if (body.manual) location.href = "/manual"; }
    catch (e) { $("#s-result").textContent = e.message; }
  };
  $("#calib-refresh").onclick = drawCalibration; $("#calib-clear").onclick = () => { corners = []; drawCalibration(); };
  $("#calib-save").onclick = async () => { try { await api("/api/calibration", { json: { corners } }); flash("Corners saved"); } catch (e) { flash(e.message); } };
  drawCalibration();
  App.listeners.push((st) => {
    // Drawn again only for other seats: every state change (a card seen) would untick them.
    const box = $("#end-winners"), seats = JSON.stringify(st.game ? st.game.seats : null);
    if (box.dataset.seats === seats) return;
    box.dataset.seats = seats; box.innerHTML = "";
    if (!st.game) { box.textContent = "No game in progress."; return; }
    st.game.seats.forEach((n, i) => box.append(el("label", {}, el("input", { type: "checkbox", value: i }), " " + n + " won")));
  });
  $("#end-game").onclick = async () => {
    const winners = [...document.querySelectorAll("#end-winners input:checked")].map((i) => Number(i.value));
    try { const r = await api("/api/end", { json: { winners } }); flash(r.result.text); } catch (e) { flash(e.message); }
  };
}

// ---- Scoreboard -------------------------------------------------------------------------
async function drawScores() {
  const sid = $("#session").value;
  const s = await api("/api/scoreboard" + (sid ? `?session=${sid}` : ""));
  const sel = $("#session");
  if (sel.options.length !== s.sessions.length) sel.innerHTML = "";
  if (!sel.options.length) s.sessions.forEach((x) => sel.append(el("option", { value: x.id }, `${x.title} · ${new Date(x.created * 1000).toLocaleString()}`)));
  sel.value = s.session.id;
  $("#csv").href = `/api/export.csv?session=${s.session.id}`; $("#json").href = `/api/export.json?session=${s.session.id}`;
  const tb = $("#totals tbody"); tb.innerHTML = "";
  s.totals.forEach((t) => tb.append(el("tr", {}, el("td", {}, t.name), el("td", {}, t.wins), el("td", {}, t.points), el("td", {}, t.rounds))));
  const box = $("#rounds"); box.innerHTML = "";
  for (const [game, rounds] of Object.entries(s.games)) {
    const table = el("table", { class: "scores" }, el("thead", {}, el("tr", {}, el("th", {}, "Round"), el("th", {}, "Players"), el("th", {}, "Result"), el("th", {}, "Scores"))));
    const body = el("tbody"); table.append(body);
    rounds.forEach((r) => body.append(el("tr", { class: "round" }, el("td", {}, r.round), el("td", {}, r.seats.join(", ")), el("td", {}, r.result), el("td", {}, (r.scores || []).join(" · ")))));
    box.append(el("h3", {}, s.titles[game] || game), table);
  }
}
function initScoreboard() {
  $("#session").onchange = drawScores; App.listeners.push(drawScores);
  $("#new-session").onclick = async () => {
    const name = prompt("Name of the new evening", "Game night"); if (name === null) return;
    try { await api("/api/session", { json: { title: name } }); $("#session").innerHTML = ""; $("#session").value = ""; await drawScores(); } catch (e) { flash(e.message); }
  };
}

// ---- Learn ------------------------------------------------------------------------------
function showCard(c, reading) {
  $("#card-view").hidden = false;
  $("#c-name").textContent = c.name; $("#c-indian").textContent = c.indian_name;
  $("#disc").style.borderColor = `rgb(${c.rgb})`; $("#disc").textContent = c.is_face ? c.rank[0] : c.rank;
  $("#c-suit").textContent = `${title(c.suit)} (${c.suit_english}) · ${title(c.deck)} deck`;
  $("#c-emblem").textContent = c.emblem; $("#c-colour").textContent = c.colour;
  $("#c-rank").textContent = `${c.rank} — number ${c.place} of 12 in its suit${c.weak_suit ? " (a reversed suit)" : ""}`;
  const lad = $("#c-ladder"); lad.innerHTML = ""; lad.className = "ladder";
  c.ladder.forEach((r) => lad.append(el("span", { class: r === c.rank ? "me" : "" }, r)));
  lad.append(el("span", { class: "muted" }, ` (${c.rank_order}, high → low)`));
  $("#c-note").textContent = c.note + (c.in_game ? " " + c.in_game : "");
  $("#c-plays").textContent = c.plays_on ? "Kendra Kari: " + c.plays_on.text : "";
  $("#c-reading").textContent = reading || "";
}
async function identify(resp) {
  if (!resp.card) { $("#learn-msg").textContent = resp.message; return; }
  const r = resp.readings[0];
  showCard(resp.card, `Read as ${resp.card.name} (${Math.round(r.confidence * 100)}%)` + (r.top.length > 1 ? `; next: ${r.top.slice(1).map((t) => t.name).join(", ")}` : ""));
  $("#learn-msg").textContent = resp.message || "";
}
async function initLearn() {
  const decks = [el("optgroup", { label: "Mughal" }), el("optgroup", { label: "Dashavatara" })];
  SUIT_IDS.forEach((s, i) => decks[i < 8 ? 0 : 1].append(el("option", { value: s }, title(s))));
  $("#pick-suit").append(...decks);
  RANK_IDS.forEach((r) => $("#pick-rank").append(el("option", { value: r }, title(r))));
  const pick = async () => { const game = App.state && App.state.game ? App.state.game.game : ""; showCard(await api(`/api/card/${$("#pick-suit").value}-${$("#pick-rank").value}?game=${game}`)); };
  $("#pick-suit").onchange = pick; $("#pick-rank").onchange = pick;
  $("#upload-form").onsubmit = async (ev) => {
    ev.preventDefault(); const f = $("#photo").files[0]; if (!f) { $("#learn-msg").textContent = "choose a photo first"; return; }
    const fd = new FormData(); fd.append("photo", f); $("#learn-msg").textContent = "reading…";
    try { await identify(await api("/api/identify", { method: "POST", body: fd })); } catch (e) { $("#learn-msg").textContent = e.message; }
  };
  $("#from-camera").onclick = async () => {
    $("#learn-msg").textContent = "reading…";
    try { await identify(await api("/api/identify?from=camera", { method: "POST" })); } catch (e) { $("#learn-msg").textContent = e.message; }
  };
}

// ---- Manual play ------------------------------------------------------------------------
async function drawManual(st) {
  const g = st.game;
  $("#m-title").textContent = g ? `Manual play: ${g.title}` : "Manual play";
  const moves = $("#m-moves"); moves.innerHTML = ""; $("#m-board").innerHTML = ""; $("#m-hand").innerHTML = "";
  if (!g || !g.manual) { $("#m-turn").textContent = g ? "The current game is followed by the camera." : ""; return; }
  let legal; try { legal = await api("/api/legal"); } catch (e) { $("#m-turn").textContent = e.message; return; }
  const v = legal.view;
  if (v.pits) {
    // two rows, sown anticlockwise: the first half along the bottom, the rest back along the top
    const half = Math.ceil(v.pits.length / 2), board = $("#m-board");
    const byHole = {}; legal.moves.forEach((m) => { if (m.move.target !== undefined) byHole[m.move.target] = m; });
    const pit = (i) => {
      const m = byHole[String(i)];
      const d = el("div", { class: `pit${(v.neutral || []).includes(i) ? " neutral" : ""}${m ? " playable" : ""}`, title: `hole ${i}` }, v.pits[i]);
      if (m) d.onclick = async () => { try { await api("/api/move", { json: { move: m.move } }); } catch (e) { flash(e.message); } };
      return d;
    };
    const top = el("div", { class: "pit-row" }), bottom = el("div", { class: "pit-row" });
    for (let i = v.pits.length - 1; i >= half; i--) top.append(pit(i));
    for (let i = 0; i < half; i++) bottom.append(pit(i));
    const rows = el("div", { class: "pit-rows" }, top, bottom);
    if (v.stores) { board.append(el("div", { class: "pit store", title: `captured by ${seatName(g, 1)}` }, `${seatName(g, 1)}: ${v.stores[1]}`)); }
    board.append(rows);
    if (v.stores) { board.append(el("div", { class: "pit store", title: `captured by ${seatName(g, 0)}` }, `${seatName(g, 0)}: ${v.stores[0]}`)); }
  }
  if (v.hand) v.hand.forEach((c) => $("#m-hand").append(el("span", {}, c)));
  $("#m-turn").textContent = v.over ? "" : `${seatName(g, legal.player)} to play`;
  $("#m-result").textContent = v.over && v.result ? v.result.text : "";
  legal.moves.forEach((m) => moves.append(el("button", { type: "button", onclick: async () => {
    try { await api("/api/move", { json: { move: m.move } }); } catch (e) { flash(e.message); }
  } }, m.text.replace(/Player (\d+)/, (_, n) => seatName(g, n - 1)))));
}
function initManual() {
  App.listeners.push(drawManual);
  $("#m-undo").onclick = async () => { try { await api("/api/undo", { method: "POST" }); } catch (e) { flash(e.message); } };
}

// ---- start ------------------------------------------------------------------------------
const PAGES = { table: initTable, played: initPlayed, confirm: initConfirm, setup: initSetup, scoreboard: initScoreboard, learn: initLearn, enroll: initEnroll, manual: initManual };
(async () => {
  const suitColours = { surya: "46,139,87", chandra: "30,30,30", barat: "40,80,170", phul: "120,72,40", kumancha: "225,190,40", ghulam: "110,50,140", cheng: "235,130,30", shamsher: "190,30,35",
    matsya: "50,110,190", kurma: "60,140,70", varaha: "130,85,50", narasimha: "230,120,30", vamana: "220,185,50", parashurama: "185,35,40", rama: "30,130,130", balarama: "115,55,145", buddha: "200,190,160", kalki: "35,35,35" };
  for (const [k, v] of Object.entries(suitColours)) SUIT_RGB[k] = `rgb(${v})`;
  const init = PAGES[document.body.dataset.page]; if (init) await init();
  await refreshState(); connect();
})();

// The Enrol page's script (loaded before app.js on every page, whose PAGES names initEnroll;
// it calls app.js's helpers only once the page starts).
"use strict";
function showDraft(d) {
  const of = d.deck_size ? `${d.faces} of the ${d.deck_size} cards` : `${d.count} card(s)`;
  $("#e-draft").textContent = d.count ? `${of} named, here or by answers at the table (${d.decks.join(", ")}): ${d.cards.map((c) => c === "back" ? "the back" : cardName(c)).join(", ")}` : "No cards named yet.";
}
function cardPicker(index, reading) {
  const sel = el("select", { "data-index": String(index), "aria-label": `name of card ${index + 1}` }, el("option", { value: "" }, "skip this card"),
    el("option", { value: "back" }, "the deck's back (face down)"));
  SUIT_IDS.forEach((s) => sel.append(el("optgroup", { label: title(s) },
    ...RANK_IDS.map((r) => el("option", { value: `${s}-${r}` }, cardName(`${s}-${r}`))))));
  sel.value = reading || "";
  return sel;
}
function initEnroll() {
  const msg = (t) => { $("#e-msg").textContent = t; };
  api("/api/enroll").then(showDraft).catch((e) => msg(e.message));
  $("#e-scan").onclick = async () => {
    msg("looking for cards…");
    try {
      const r = await api("/api/enroll/scan", { method: "POST" });
      const grid = $("#e-cards"); grid.innerHTML = "";
      r.cards.forEach((c) => grid.append(el("figure", {}, el("img", { src: c.image, alt: `card ${c.index + 1}` }),
        el("figcaption", {}, cardPicker(c.index, c.reading), ` ${Math.round(c.confidence * 100)}%`,
          c.blurred ? el("strong", { class: "blurred" }, " blurred: skip it and scan it again") : ""))));
      $("#e-confirm").hidden = false; showDraft(r.draft);
      msg(`${r.cards.length} card(s) found: check each name, then confirm`);
    } catch (e) { msg(e.message); }
  };
  $("#e-confirm").onclick = async () => {
    const labels = {}; document.querySelectorAll("#e-cards select").forEach((s) => { labels[s.dataset.index] = s.value; });
    try { showDraft(await api("/api/enroll/confirm", { json: { labels } })); $("#e-cards").innerHTML = ""; $("#e-confirm").hidden = true; msg("confirmed: lay out the next cards and scan, or save"); }
    catch (e) { msg(e.message); }
  };
  $("#e-save").onsubmit = async (ev) => {
    ev.preventDefault();
    const extend = $("#e-extend").checked, replace = $("#e-replace").checked;
    try {
      const r = await api("/api/enroll/save", { json: { name: $("#e-name").value.trim(), extend, replace } });
      showDraft({ count: 0 }); $("#e-named").innerHTML = ""; $("#e-rename").hidden = true; $("#e-replace").checked = false;
      msg(`saved ${r.cards} cards of a ${r.deck} deck as ${r.path}` + (extend ? ` (${r.added} of them new to it; a game started from now on reads with them)` : "") + (r.kept ? ` in place of the one before (kept as ${r.kept}; a game started from now on reads with it)` : "") + (r.known_art ? "; the model knows this art, so it decides how sure each reading is" : "; the model does not know this art, and its cards learnt from the camera are too small to be named surely: every card will be put to you, best guesses first (enrol pictures of the cards with `companion enroll` to have them named)"));
    } catch (e) { msg(e.message); }
  };
  // a saved profile's pictures, opened here to put a wrong name right and saved back over it
  $("#e-open").onclick = async () => {
    const name = $("#e-name").value.trim();
    try {
      showDraft(await api("/api/enroll/open", { json: { name } }));
      $("#e-extend").checked = false; $("#e-replace").checked = true;
      await review(`opened the profile ${name}: put right any wrong name, or drop a picture, save these names, then save the profile to replace it`);
    } catch (e) { msg(e.message); }
  };
  $("#e-reset").onclick = async () => { try { showDraft(await api("/api/enroll/reset", { method: "POST" })); $("#e-cards").innerHTML = ""; $("#e-named").innerHTML = ""; $("#e-rename").hidden = true; msg(""); } catch (e) { msg(e.message); } };
  // the pictures named so far (at the table too, unseen here): a wrong name is put right here
  const review = async (said) => {
    const r = await api("/api/enroll/cards");
    const grid = $("#e-named"); grid.innerHTML = "";
    r.cards.forEach((c, k) => {
      const sel = cardPicker(k, c.card); sel.dataset.card = c.card; sel.options[0].textContent = "drop this picture";
      grid.append(el("figure", {}, el("img", { src: c.image, alt: `picture named ${c.card === "back" ? "the back" : cardName(c.card)}` }),
        el("figcaption", {}, sel, c.blurred ? el("strong", { class: "blurred" }, " blurred") : "")));
    });
    $("#e-rename").hidden = !r.cards.length; showDraft(r.draft);
    msg(r.cards.length ? said : "no cards named yet");
  };
  $("#e-review").onclick = async () => {
    try { await review("put right any wrong name, or drop a picture, then save these names"); } catch (e) { msg(e.message); }
  };
  $("#e-rename").onclick = async () => {
    const labels = {}; document.querySelectorAll("#e-named select").forEach((s) => { if (s.value !== s.dataset.card) labels[s.dataset.card] = s.value; });
    try { showDraft(await api("/api/enroll/rename", { json: { labels } })); $("#e-named").innerHTML = ""; $("#e-rename").hidden = true; msg("names saved"); }
    catch (e) { msg(e.message); }
  };
}

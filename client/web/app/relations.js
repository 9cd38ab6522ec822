// Following, blocking and muting other accounts (proto/PROTOCOL.md "Follow and block"; GET and
// POST /api/relations with the account's token), lichess's way:
// - a player's page (profile.js) of another account: Follow / Unfollow with "Notify me of their
//   games", Mute / Unmute (their chat lines are no longer shown, in any game; they are not told),
//   and Block / Unblock (Block asks first and says what it does); while the account blocks the
//   player, the page's Challenge button is off and says why;
// - the lobby's "Following" panel: each account followed with a dot (online or not), a Watch
//   link to the public game it plays, and a Challenge shortcut (challenge.js's form); loaded when
//   the lobby is shown and every 30 s while it is in front;
// - the account's own page: its blocked players, each with Unblock, and beside them its muted
//   ones, each with Unmute; and "Tell my followers when I start a game" (POST {"announce"}: the
//   followers with notify get a followed_game notification, or none).
// A followed account starting a game is a notification (notices.js: kind followed_game).
import { $, h } from "./dom.js";
import { t, lang } from "./i18n.js";
import { S, app } from "./state.js";
import { getRelations, postRelation } from "./api.js";
import { toast } from "./account.js";
import { openChallenge } from "./challenge.js";
import { playerLink } from "./ratings.js";

const REL_POLL_MS = 30000;
let relSeq = 0;

// S.rel: {for (player id), following, blocked, muted, loading, loaded, error, at, busy (a name
// being changed), fail ({name, text}: the last change refused, said on that player's page)}
const freshRel = (playerId = null) => ({ for: playerId, following: [], blocked: [], muted: [], announce: true, loading: false, loaded: false,
  error: null, at: 0, busy: null, fail: null });
S.rel = freshRel();

const sameName = (a, b) => String(a ?? "").toLowerCase() === String(b ?? "").toLowerCase();
export const followOf = (name) => S.rel.following.find((f) => sameName(f.name, name)) ?? null;
export const blockOf = (name) => S.rel.blocked.find((b) => sameName(b.name, name)) ?? null;
export const muteOf = (name) => S.rel.muted.find((m) => sameName(m.name, name)) ?? null;

// The lists as the server answers them, kept when they can be shown.
function takeRelations(R, d) {
  const named = (x) => x && typeof x === "object" && typeof x.name === "string" && x.name;
  R.following = d.following.filter(named).map((f) => ({ name: f.name, notify: f.notify !== false, online: !!f.online,
    playing: typeof f.playing === "string" && /^[A-Za-z0-9]{1,16}$/.test(f.playing) ? f.playing.toLowerCase() : null,
    since: Number.isFinite(f.since) ? f.since : null }));
  const dated = (b) => ({ name: b.name, since: Number.isFinite(b.since) ? b.since : null });
  R.blocked = d.blocked.filter(named).map(dated);
  R.muted = d.muted.filter(named).map(dated);
  R.announce = d.announce !== false; // yes by default (a server without the field)
  R.loaded = true;
  R.error = null;
  R.at = Date.now();
}

export function loadRelations() {
  const R = S.rel;
  if (!S.me?.account || R.for !== S.me.player_id) return;
  const seq = ++relSeq;
  R.loading = true;
  getRelations().then((d) => {
    if (seq === relSeq && R === S.rel && !R.busy) takeRelations(R, d);
  }, (e) => {
    if (seq === relSeq && R === S.rel) R.error = e.message;
  }).finally(() => {
    if (seq !== relSeq || R !== S.rel) return;
    R.loading = false;
    if (S.route.view === "lobby" || S.route.view === "profile") app.render();
  });
}

// A welcome: an account's lists are loaded (again after a reconnection); a guest has none.
export function relationsWelcome(m) {
  if (!m.account) {
    S.rel = freshRel();
    closeBlockDialog();
    return;
  }
  if (S.rel.for !== m.player_id) {
    S.rel = freshRel(m.player_id);
    closeBlockDialog();
  }
  loadRelations();
}

// A followed account started game `code` (a followed_game notification): the panel says so at
// once, and asks the server again a moment later.
export function followedStarted(name, code) {
  const f = followOf(name);
  if (f && code) {
    f.playing = code;
    f.online = true;
  }
  if (S.route.view === "lobby") app.render();
  setTimeout(loadRelations, 1500);
}

// The words of a refused change.
function relationError(e, name) {
  if (["blocked", "unknown_player", "too_many", "account_required"].includes(e.code)) return t(`rel.err.${e.code}`, { name });
  return t("rel.failed", { reason: e.message });
}

// One change: {follow: NAME, notify}, {unfollow}, {block}, {unblock}, {mute}, {unmute}, {announce:
// true|false} (`name` then the boolean). The lists come back.
function relate(verb, name, notify = true) {
  const R = S.rel;
  if (!S.me?.account || R.busy) return;
  const body = { [verb]: name };
  if (verb === "follow" && !notify) body.notify = false;
  const before = followOf(name);
  R.busy = verb === "announce" ? "#announce" : name; // never a username (those have no "#")
  R.fail = null;
  relSeq++; // a list on its way is older than this answer
  app.render();
  postRelation(body).then((d) => {
    if (R !== S.rel) return;
    takeRelations(R, d);
    const words = {
      follow: before ? (notify ? "follow.notifyOn" : "follow.notifyOff") : (notify ? "follow.done" : "follow.doneQuiet"),
      unfollow: "follow.undone", block: "block.done", unblock: "block.undone", mute: "mute.done", unmute: "mute.undone",
      announce: name ? "announce.on" : "announce.off",
    }[verb];
    toast(t(words, { name }));
  }, (e) => {
    if (R !== S.rel) return;
    if (verb === "announce") toast(t("rel.failed", { reason: e.message }));
    else R.fail = { name, text: relationError(e, name) };
  }).finally(() => {
    if (R !== S.rel) return;
    R.busy = null;
    app.render();
  });
}

// ------------------------------------------------------------------ a player's page
// The controls on another account's page, for an account; `d`: the page's player (or null).
export function renderProfileRelations(d) {
  const R = S.rel;
  const mine = S.me?.account?.username;
  const other = !!(d?.username && mine && !sameName(mine, d.username));
  const box = $("pf-rel");
  box.hidden = !other || !R.loaded;
  const blocked = other && !!blockOf(d.username);
  const note = $("pf-block-note");
  note.hidden = !blocked;
  $("pf-challenge").disabled = blocked;
  if (blocked) {
    note.textContent = t("block.note", { name: d.username });
    $("pf-challenge").setAttribute("aria-describedby", "pf-block-note");
  } else $("pf-challenge").removeAttribute("aria-describedby");
  const fail = other && R.fail && sameName(R.fail.name, d.username) ? R.fail.text : "";
  $("pf-rel-error").textContent = fail;
  $("pf-rel-error").hidden = !fail;
  $("pf-rel").dataset.state = blocked ? "blocked" : followOf(d?.username) ? "following" : "none";
  if (box.hidden) return;
  const f = followOf(d.username);
  const busy = !!R.busy;
  // a block hides the chat both ways already: Mute is offered while not blocked (Unmute always)
  const muted = !!muteOf(d.username);
  const mute = $("pf-mute");
  mute.hidden = blocked && !muted;
  mute.textContent = t(muted ? "mute.unmute" : "mute.mute");
  mute.setAttribute("aria-pressed", muted ? "true" : "false");
  mute.title = t(muted ? "mute.unmuteHint" : "mute.muteHint", { name: d.username });
  mute.disabled = busy;
  const follow = $("pf-follow");
  follow.hidden = blocked;
  follow.textContent = t(f ? "follow.unfollow" : "follow.follow");
  follow.classList.toggle("primary", !f);
  follow.disabled = busy;
  $("pf-notify-field").hidden = blocked;
  const notifyBox = $("pf-notify");
  // the box as the server has it, or as the player just set it while that is on its way; on a
  // new page, told by default
  if (f && !busy) notifyBox.checked = f.notify;
  else if (!f && notifyBox.dataset.for !== d.username.toLowerCase()) notifyBox.checked = true;
  notifyBox.dataset.for = d.username.toLowerCase();
  notifyBox.disabled = busy;
  const block = $("pf-block");
  block.textContent = t(blocked ? "block.unblock" : "block.block");
  block.disabled = busy;
}

// ------------------------------------------------------------------ blocking, asked first
function openBlockDialog(name) {
  const dlg = $("block-dialog");
  dlg.dataset.name = name;
  $("block-h").textContent = t("block.title", { name });
  if (!dlg.open) dlg.showModal();
  setTimeout(() => $("block-cancel").focus(), 0); // the safe choice first
}
function closeBlockDialog() {
  const dlg = $("block-dialog");
  if (dlg?.open) dlg.close();
}

// ------------------------------------------------------------------ the lobby's panel
// Who plays first, then who is online, then the others; by name within each. The names are
// usernames: each a link to the account's page.
const followRank = (f) => (f.playing ? 0 : f.online ? 1 : 2);

function followItem(f) {
  const state = f.playing ? "playing" : f.online ? "online" : "offline";
  const watch = f.playing
    ? h("a", { class: "button small primary fl-watch", href: `/g/${f.playing}`, text: t("follow.watch"),
      "aria-label": t("follow.watchLabel", { name: f.name }), onclick: (ev) => {
        if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
        ev.preventDefault();
        app.navigate(`/g/${f.playing}`);
      } })
    : null;
  return h("li", { class: `fl-item ${state}`, "data-name": f.name, "data-state": state },
    h("span", { class: `presence ${f.online || f.playing ? "online" : "offline"}` }, h("span", { class: "dot", "aria-hidden": "true" })),
    h("span", { class: "fl-who" }, playerLink({ name: f.name }, { rated: true, cls: "fl-name" }),
      h("span", { class: "fl-state", text: t(`follow.${state}`) })),
    h("span", { class: "fl-actions" }, watch,
      h("button", { type: "button", class: "small fl-challenge", text: t("challenge.button"),
        "aria-label": t("follow.challengeLabel", { name: f.name }), onclick: () => openChallenge(f.name) })));
}

export function renderFollowing() {
  const R = S.rel;
  const acct = !!S.me?.account;
  $("following-card").hidden = !acct;
  if (!acct) return;
  $("following-loading").hidden = R.loaded || !R.loading;
  $("following-error").hidden = !R.error;
  $("following-error").textContent = R.error ? t("follow.error", { reason: R.error }) : "";
  $("following-empty").hidden = !R.loaded || R.following.length > 0;
  const list = R.following.slice().sort((a, b) => followRank(a) - followRank(b) || a.name.localeCompare(b.name));
  const ul = $("following-list");
  // redrawn when it changed only: a button with the focus stays while the page redraws
  const sig = `${lang()}|${list.map((f) => `${f.name}:${f.online ? 1 : 0}:${f.playing ?? ""}`).join(",")}`;
  if (ul.dataset.sig !== sig) {
    ul.replaceChildren(...list.map(followItem));
    ul.dataset.sig = sig;
  }
  const n = list.filter((f) => f.online || f.playing).length;
  $("following-count").textContent = R.loaded && list.length ? t("follow.onlineCount", { n, total: list.length }) : "";
}

// ------------------------------------------------------------------ the account's own page
let blockedShownFor = null; // the page (S.profile) whose address #blocked was scrolled to

// The lists of blocked and of muted players, side by side, with Unblock and Unmute; the address
// /@/NAME#blocked (the account menu's "Blocked and muted players") shows them.
export function renderBlockedList(d) {
  const R = S.rel;
  const mine = S.me?.account?.username;
  const own = !!(d?.username && mine && sameName(mine, d.username));
  const card = $("pf-blocked-card");
  card.hidden = !own || !R.loaded;
  $("pf-muted-card").hidden = card.hidden;
  $("pf-announce-card").hidden = card.hidden;
  if (card.hidden) return;
  const announce = $("pf-announce");
  if (R.busy !== "#announce") announce.checked = R.announce; // as the player set it while that is on its way
  announce.disabled = !!R.busy;
  if (location.hash === "#blocked" && blockedShownFor !== S.profile) {
    blockedShownFor = S.profile;
    setTimeout(() => card.scrollIntoView({ block: "start" }), 0);
  }
  relationList("pf-blocked", R.blocked, "block.since", "unblock", "block.unblock", "block.unblockLabel");
  relationList("pf-muted", R.muted, "mute.since", "unmute", "mute.unmute", "mute.unmuteLabel");
}

// One of those lists (#ID, its empty note #ID-empty): each name with its date and the button undoing it.
function relationList(id, list, sinceKey, verb, label, ariaLabel) {
  const R = S.rel;
  $(`${id}-empty`).hidden = list.length > 0;
  const fmt = (ms) => new Date(ms).toLocaleDateString(lang(), { dateStyle: "medium" });
  const ul = $(id);
  const sig = `${lang()}|${R.busy ?? ""}|${list.map((b) => b.name).join(",")}`;
  if (ul.dataset.sig === sig) return;
  ul.dataset.sig = sig;
  ul.replaceChildren(...list.map((b) => h("li", { "data-name": b.name },
    h("span", { class: "who" }, playerLink({ name: b.name }, { rated: true })),
    h("span", { class: "what", text: b.since ? t(sinceKey, { date: fmt(b.since) }) : "" }),
    h("button", { type: "button", class: `small ${verb}`, text: t(label), "aria-label": t(ariaLabel, { name: b.name }),
      disabled: !!R.busy, onclick: () => relate(verb, b.name) }))));
}

// ------------------------------------------------------------------ setup
export function setupRelations() {
  const pageName = () => S.profile?.data?.username ?? null;
  $("pf-follow").addEventListener("click", () => {
    const name = pageName();
    if (!name) return;
    if (followOf(name)) relate("unfollow", name);
    else relate("follow", name, $("pf-notify").checked);
  });
  // Following already: the box changes whether the account is told of the player's games.
  $("pf-notify").addEventListener("change", () => {
    const name = pageName();
    if (name && followOf(name)) relate("follow", name, $("pf-notify").checked);
  });
  $("pf-mute").addEventListener("click", () => {
    const name = pageName();
    if (name) relate(muteOf(name) ? "unmute" : "mute", name);
  });
  $("pf-block").addEventListener("click", () => {
    const name = pageName();
    if (!name) return;
    if (blockOf(name)) relate("unblock", name);
    else openBlockDialog(name);
  });
  const dlg = $("block-dialog");
  for (const id of ["block-close", "block-cancel"]) $(id).addEventListener("click", () => dlg.close());
  dlg.addEventListener("click", (ev) => {
    if (ev.target === dlg) dlg.close(); // the backdrop
  });
  $("block-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = dlg.dataset.name;
    dlg.close();
    if (name) relate("block", name);
  });
  $("pf-announce").addEventListener("change", () => relate("announce", $("pf-announce").checked));
  $("following-refresh").addEventListener("click", loadRelations);
  // Every 30 s while the lobby is in front; at once when it comes back after longer.
  setInterval(() => {
    if (S.route.view === "lobby" && !document.hidden) loadRelations();
  }, REL_POLL_MS);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && S.route.view === "lobby" && Date.now() - S.rel.at > REL_POLL_MS) loadRelations();
  });
}

// Challenges (proto/PROTOCOL.md "Challenges"): an open game made for one named account, lichess's
// way. The Challenge button and form of a player's page (create_game with "to"; the board,
// time, colour and Rated fields are the create form's, lobby.js), and the game page of an open
// challenge: the challenger waits for the answer (and may cancel it), the challenged player
// sees who challenges and with what settings, and accepts (join_game) or declines with a reason
// (decline_challenge); a declined challenge says why. The notifications (notices.js) accept and
// decline from their toast with the functions here.
import { $, h, other, sideName, variantText, tcText, errorText } from "./dom.js";
import { t, lang } from "./i18n.js";
import { S, app, send, sendCreate, mySide } from "./state.js";
import { variantFields, fillTimes, timeControl, ratedHint } from "./lobby.js";
import { ratedVariant, categoryOf, categoryName } from "./ratings.js";
import { toast } from "./account.js";

// The reasons of decline_challenge, in the order the select offers them.
export const DECLINE_REASONS = ["generic", "later", "too_fast", "too_slow", "time_control", "rated", "casual", "variant", "no_bot", "only_bot"];
// A reason in words, as the challenger reads it ("This time control is too fast for me…").
export const declineWords = (r) => t(`decline.${DECLINE_REASONS.includes(r) ? r : "generic"}`);

// A challenge's settings in a line: "Rated · Blitz · 9×9, 5 elephants… · 5 min + 3 s · you play
// bronze". `c`: {variant, time_control, rated, side (the challenged player's seat)}.
export function challengeSettings(c) {
  const cat = c.rated ? categoryOf(c.variant, c.time_control) : null;
  return [c.rated ? t("game.rated", { cat: categoryName(cat ?? "untimed") }) : t("game.casual"), variantText(c.variant),
    tcText(c.time_control), c.side ? t("challenge.youPlay", { side: sideName(c.side) }) : null].filter(Boolean).join(" · ");
}

// Accepting is taking the seat (join_game), on the game's page: its errors are said there.
export function acceptChallenge(code) {
  if (S.route.view !== "game" || S.route.code !== code) app.navigate(`/g/${code}`);
  app.joinGame(code);
}
let declining = null; // the decline in flight: {code, at}
export function declineChallenge(code, reason = "generic") {
  declining = { code, at: Date.now() };
  send({ type: "decline_challenge", game: code, reason: DECLINE_REASONS.includes(reason) ? reason : "generic" });
}

// An error answering a decline sent from elsewhere than the game's page (the toast): the
// challenge is gone already (cancelled, lapsed, taken). Said in a toast, not on the page shown.
// True when `m` was that answer.
export function declineRefused(m) {
  const d = declining;
  if (!d || Date.now() - d.at > 5000 || !["no_such_game", "game_full", "not_invited"].includes(m.code) || (m.game && m.game !== d.code)) return false;
  declining = null;
  if (S.route.view === "game" && S.route.code === d.code) return false; // the game's page says it
  toast(t("challenge.notOpen"));
  return true;
}

// ------------------------------------------------------------------ the form (a player's page)
let challengePending = null; // the challenge in flight: {ref, to}
let readChallengeVariant = () => null;

// The player's page shows the button to an account, on another account's page.
export function renderChallengeButton(profile) {
  const mine = S.me?.account?.username;
  $("pf-challenge").hidden = !profile?.username || !mine || mine.toLowerCase() === profile.username.toLowerCase();
}

function renderChallengeRated() {
  const variant = readChallengeVariant();
  const ok = ratedVariant(variant);
  const box = $("ch-rated");
  box.disabled = !ok;
  if (!ok) box.checked = false;
  ratedHint($("ch-rated-hint"), ok ? null : "variant", variant, timeControl($("ch-time").value));
}

function challengeFormError(text) {
  $("ch-error").textContent = text ?? "";
  $("ch-error").hidden = !text;
}

export function openChallenge(username) {
  const d = $("challenge-dialog");
  d.dataset.to = username;
  $("ch-h").textContent = t("challenge.title", { name: username });
  challengeFormError("");
  $("ch-send").disabled = false;
  renderChallengeRated();
  if (!d.open) d.showModal();
  setTimeout(() => $("ch-color").focus(), 0);
}

// The answer to the challenge in flight: game_created (the page goes to the game: app.js) or an
// error, said in the form. True when `m` was that answer.
export function challengeAnswered(m) {
  if (!challengePending || !m.ref || m.ref !== challengePending.ref) return false;
  challengePending = null;
  $("ch-send").disabled = false;
  if (m.type === "error") {
    // no such account; or one of the two blocks the other (the form is never for oneself or a computer)
    const words = m.code === "unknown_player" || m.code === "cannot_challenge"
      ? t(`challenge.err.${m.code}`, { name: $("challenge-dialog").dataset.to ?? "" })
      : errorText({ code: m.code, message: m.message });
    challengeFormError(t("challenge.failed", { reason: words }));
  } else $("challenge-dialog").close();
  return true;
}

// Option texts that depend on the language.
export function translateChallengeForm() {
  fillTimes($("ch-time"), "300000/5000");
  fillDeclineReasons($("ch-reason"), false);
}

export function setupChallenge() {
  readChallengeVariant = variantFields("ch");
  // The colours as the create form offers them (their words follow the page's language).
  $("ch-color").replaceChildren(...[...$("cv-color").options].map((o) => o.cloneNode(true)));
  translateChallengeForm();
  $("pf-challenge").addEventListener("click", () => S.profile?.data && openChallenge(S.profile.data.username));
  for (const id of ["ch-size", "ch-elephants", "ch-burnt", "ch-quiet", "ch-time"]) $(id).addEventListener("change", renderChallengeRated);
  $("ch-quiet").addEventListener("input", renderChallengeRated);
  const d = $("challenge-dialog");
  for (const id of ["ch-close", "ch-cancel"]) $(id).addEventListener("click", () => d.close());
  d.addEventListener("click", (ev) => {
    if (ev.target === d) d.close(); // the backdrop
  });
  $("challenge-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    challengeFormError("");
    const msg = { type: "create_game", to: d.dataset.to, variant: readChallengeVariant(), time_control: timeControl($("ch-time").value),
      color: $("ch-color").value, public: false };
    if ($("ch-rated").checked && !$("ch-rated").disabled) msg.rated = true;
    if (!sendCreate(msg)) return; // one in flight already
    challengePending = { ref: S.creating.ref, to: msg.to };
    $("ch-send").disabled = true;
    const mine = challengePending;
    setTimeout(() => {
      if (challengePending !== mine) return;
      challengePending = null;
      $("ch-send").disabled = false;
      challengeFormError(t("challenge.noAnswer"));
    }, 8000);
  });
  $("ch-accept").addEventListener("click", () => S.route.code && acceptChallenge(S.route.code));
  $("ch-decline").addEventListener("click", () => S.route.code && declineChallenge(S.route.code, $("ch-reason").value));
}

// A person's reasons: "only_bot" is a bot's, and "no_bot" is offered when a bot challenges.
function fillDeclineReasons(sel, fromBot) {
  const cur = sel.value || "generic";
  const reasons = DECLINE_REASONS.filter((r) => r !== "only_bot" && (r !== "no_bot" || fromBot));
  sel.replaceChildren(...reasons.map((r) => h("option", { value: r, text: t(`declineShort.${r}`), selected: r === cur })));
  sel.dataset.lang = lang();
  sel.dataset.bot = String(fromBot);
}

// ------------------------------------------------------------------ the game page
// Whether the account's notifications name game `code` as a challenge: a page of such a game the
// server no longer has says so (a declined, cancelled or lapsed challenge is not kept).
export const knownChallenge = (code) => !!S.notes?.list?.some((n) => n.game === code && String(n.kind).startsWith("challenge"));

// Who the page's player is in G's challenge: "creator", "invitee" or "other"; null when G is no
// challenge (or no longer open, or cancelled without a decline the page saw).
export function challengeRole(G) {
  if (!G?.invitee || !(G.status === "open" || G.status === "cancelled")) return null;
  if (G.status === "cancelled" && !G.declined) return null;
  if (mySide(G)) return "creator";
  return S.me && G.invitee.id === S.me.player_id ? "invitee" : "other";
}

// The creator of G (the seat taken) and the seat left for the challenged player.
function challengerOf(G) {
  const side = G.players.silver ? "silver" : "bronze";
  return { player: G.players[side], side, left: other(side) };
}

// The status line of an open or declined challenge, or null (the usual one then).
export function challengeStatus(G) {
  const role = challengeRole(G);
  if (!role) return null;
  const to = G.invitee.name;
  if (G.status === "cancelled") {
    if (role === "creator") return t("challenge.declined", { name: to, reason: declineWords(G.declined) });
    if (role === "invitee") return t("challenge.youDeclined");
    return t("challenge.declinedOther", { name: to });
  }
  const from = challengerOf(G).player?.name ?? "?";
  if (role === "creator") return t("challenge.waiting", { name: to });
  if (role === "invitee") return t("challenge.statusInvitee", { name: from });
  return t("challenge.forOther", { from, name: to });
}

// The challenged player's box: who, the settings, Accept, and Decline with a reason.
export function renderChallengeBox(G) {
  const box = $("challenge-box");
  const open = challengeRole(G) === "invitee" && G.status === "open";
  box.hidden = !open;
  if (!open) return;
  const c = challengerOf(G);
  $("ch-from").textContent = t("challenge.from", { name: c.player?.name ?? "?" });
  $("ch-settings").textContent = challengeSettings({ variant: G.state?.variant, time_control: G.timeControl, rated: G.rated, side: c.left });
  const sel = $("ch-reason");
  const fromBot = !!c.player?.bot;
  if (sel.dataset.lang !== lang() || sel.dataset.bot !== String(fromBot)) fillDeclineReasons(sel, fromBot);
  $("ch-accept").disabled = S.pendingJoin === G.code;
}

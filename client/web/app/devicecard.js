// The lobby's "On this device" cards: start a game against the computer or between two players
// at this screen (localgame.js; no network needed), and the games kept on the device (device.js)
// to continue or replay. Offline, a note says what works without the network and what does not,
// and the buttons that need the server are disabled.
import { $, h, other, sideName, scoreText, QUICK_VARIANTS } from "./dom.js";
import { t, fmtDate } from "./i18n.js";
import { S, app } from "./state.js";
import { deviceGames, forgetOnDevice, isLocalCode, localPath } from "./device.js";
import { newLocalGame, closeLocal } from "./localgame.js";

const ONLINE_BUTTONS = ["qm-btn", "create-btn", "join-btn", "watch-btn", "name-save"];

function outcomeOf(g) {
  const r = g.result;
  if (!r) return "playing";
  if (!r.winner || r.reason === "aborted") return "aborted";
  if (r.winner === "draw") return "draw";
  if (!g.human) return "done"; // two players at one screen: nobody's own
  return r.winner === g.human ? "won" : "lost";
}

function opponentText(g) {
  if (g.kind === "pass") return t("device.pass");
  const opp = g.players?.[other(g.human)];
  return t("recent.vs", { name: g.kind === "bot" ? t("recent.computer", { n: g.level }) : opp?.name ?? "—" });
}

export function renderDevice() {
  const offline = S.conn === "offline" || (S.conn !== "online" && navigator.onLine === false);
  $("offline-note").hidden = !offline;
  for (const id of ONLINE_BUTTONS) {
    const b = $(id);
    if (b) b.toggleAttribute("aria-disabled", offline);
  }
  $("dv-color-field").hidden = $("dv-opponent").value === "pass";

  const games = deviceGames();
  $("device-empty").hidden = games.length > 0;
  $("device-games").replaceChildren(...games.map((g) => {
    const res = outcomeOf(g);
    const local = isLocalCode(g.code);
    const what = [g.human ? t("recent.played", { side: sideName(g.human) }) : null, g.result?.score ? scoreText(g.result.score) : null,
      g.result?.reason ? t(`reason.${g.result.reason}`) : null, t("recent.turns", { n: g.record.turns.length }),
      fmtDate(g.finished_at ?? g.created_at)].filter(Boolean).join(" · ");
    const open = g.result
      ? h("button", { type: "button", class: "replay small", text: t("recent.replay"), onclick: () => app.navigate(`/#replay/${g.code}`) })
      : h("button", { type: "button", class: "primary small", text: t("device.continue"), onclick: () => app.navigate(local ? localPath(g.code) : `/g/${g.code}`) });
    const forget = h("button", { type: "button", class: "small", text: t("device.forget"), "aria-label": t("device.forgetLabel", { what: opponentText(g) }),
      onclick: () => {
        closeLocal(g.code);
        forgetOnDevice(g.code);
        app.render();
      } });
    return h("li", { "data-code": g.code, "data-kind": g.kind },
      h("span", { class: `badge ${res}`, text: t(`device.outcome.${res}`) }),
      h("span", { class: "who", text: opponentText(g) }),
      h("span", { class: "what", text: what }), open, forget);
  }));
}

export function setupDevice() {
  // The computer's levels and the colours are the New game card's, the boards the Quick match
  // card's (translated with them).
  const levels = [...$("cv-opponent").options].filter((o) => o.value !== "").map((o) => o.cloneNode(true));
  $("dv-opponent").prepend(...levels);
  $("dv-opponent").value = "3";
  for (const [to, from] of [["dv-color", "cv-color"], ["dv-variant", "qm-variant"]])
    $(to).append(...[...$(from).options].map((o) => o.cloneNode(true)));
  $("dv-opponent").addEventListener("change", () => renderDevice());
  $("device-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const opp = $("dv-opponent").value;
    const code = newLocalGame({ kind: opp === "pass" ? "pass" : "bot", level: Number(opp) || 3, human: $("dv-color").value,
      variant: QUICK_VARIANTS[$("dv-variant").value] ?? QUICK_VARIANTS.standard });
    app.navigate(localPath(code));
  });
  // Offline, the server's buttons say why they do nothing instead of queueing for later.
  for (const id of ONLINE_BUTTONS)
    $(id)?.addEventListener("click", (ev) => {
      if (!ev.currentTarget.hasAttribute("aria-disabled")) return;
      ev.preventDefault();
      ev.stopImmediatePropagation();
      $("offline-note").hidden = false;
      $("offline-note").focus();
    }, { capture: true });
}

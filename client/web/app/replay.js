// The replay viewer for finished games: the record comes from the history API
// (GET /api/games/CODE); every position is computed with the WebAssembly rules from the setups
// and turns (game.js recordTurn: the same turn list as in a game, captures included). It opens at
// the final position, the result shown; step, scrub (range input), autoplay, flip the board
// (flip.js), download the record or the notation.
import { RulesGame } from "./trunkfield-rules.js";
import { $, h, SIDES, SideName, sideName, variantText, tcText, playerName } from "./dom.js";
import { t, fmtDate } from "./i18n.js";
import { renderBoard, pieceIcon, cellName } from "./board.js";
import { S, app } from "./state.js";
import { getGame, recordUrl, notationUrl } from "./api.js";
import { deviceGame, isLocalCode } from "./device.js";
import { recordTurn } from "./game.js";
import { notation, turnCells } from "./gamescreen.js";
import { boardFlipped, renderFlipButtons } from "./flip.js";
import { exploreGameUrl } from "./explore.js";
import { loadAnalysis, renderAnalysis, setupAnalysis, turnMark, betterView } from "./analysis.js";

// Positions of a record: [{state, turn, side, captures}], the first one after both setups (or
// as far as the setups go; or the position a game from a position started at), and a problem ({key, params}) when the rules refuse part of it.
export function replayPositions(record) {
  const positions = [];
  let problem = null;
  let game;
  try {
    // A game from a position (docs/RULES.md §9.1) starts there, without setups.
    game = record?.position ? RulesGame.fromPosition(record.position) : new RulesGame(record?.variant ?? null);
  } catch (e) {
    return { positions, problem: { key: "replay.badVariant", params: { reason: e.message } } };
  }
  try {
    for (const side of record?.position ? [] : SIDES) {
      const s = record.setup?.[side];
      if (!s) {
        problem = { key: "replay.noSetup", params: { side: SideName(side) } };
        break;
      }
      const r = game.applySetup(side, s);
      if (r.error) {
        problem = { key: "replay.badSetup", params: { side: SideName(side), reason: r.error.message } };
        break;
      }
    }
    positions.push({ state: game.state(), turn: null, side: null, captures: [] });
    const turns = Array.isArray(record.turns) ? record.turns : [];
    for (let i = 0; !problem && i < turns.length; i++) {
      const before = game.state();
      const entry = recordTurn(game, turns[i]);
      if (!entry) {
        const e = game.checkTurn(turns[i]).error;
        problem = { key: "replay.badTurn", params: { n: i + 1, reason: e?.message ?? "" } };
        break;
      }
      positions.push({ state: entry.after, turn: turns[i], side: before.to_move, captures: entry.captures });
    }
  } finally {
    game.dispose();
  }
  return { positions, problem };
}

function stop() {
  const R = S.replay;
  if (R?.timer) {
    clearInterval(R.timer);
    R.timer = null;
  }
}

export function closeReplay() {
  stop();
  if (S.replay?.recordBlob) {
    URL.revokeObjectURL(S.replay.recordBlob);
    S.replay.recordBlob = null; // made again should the replay be shown again
  }
}

export async function openReplay(code) {
  if (S.replay?.code === code && (S.replay.loading || S.replay.game)) return;
  stop();
  const R = { code, loading: true, error: null, game: null, positions: [], problem: null, index: 0, timer: null };
  S.replay = R;
  app.render();
  try {
    const [g] = await Promise.all([fromServerOrDevice(code, R), waitRules()]);
    if (S.replay !== R) return;
    if (!g.record || typeof g.record !== "object") throw new Error(t("replay.noRecord"));
    const { positions, problem } = replayPositions(g.record);
    R.game = g;
    R.positions = positions;
    R.problem = problem;
    R.index = Math.max(0, positions.length - 1); // the final position, with the result
    loadAnalysis(R);
  } catch (e) {
    if (S.replay !== R) return;
    R.error = e.message;
  } finally {
    R.loading = false;
    if (S.replay === R) app.render();
  }
}

// A game on this device comes from its storage; a server's from the history API, or from the
// device's copy when the server cannot be reached (offline).
async function fromServerOrDevice(code, R) {
  const kept = deviceGame(code);
  if (isLocalCode(code) && !kept) throw new Error(t("local.noGame"));
  if (!isLocalCode(code)) {
    try {
      return await getGame(code);
    } catch (e) {
      if (!kept) throw e;
    }
  }
  R.device = true;
  return { code, players: kept.players, record: kept.record, result: kept.result, time_control: kept.time_control ?? null,
    created_at: kept.created_at, finished_at: kept.finished_at };
}

async function waitRules() {
  while (!S.rulesReady) await new Promise((r) => setTimeout(r, 50));
}

function goTo(i) {
  const R = S.replay;
  if (!R?.positions.length) return;
  R.index = Math.max(0, Math.min(R.positions.length - 1, i));
  R.better = false; // the better turn is the current position's
  if (R.index === R.positions.length - 1) stop();
  app.render();
}

function togglePlay() {
  const R = S.replay;
  if (!R?.positions.length) return;
  if (R.timer) {
    stop();
  } else {
    if (R.index >= R.positions.length - 1) R.index = 0;
    R.timer = setInterval(() => goTo(R.index + 1), Number($("rp-speed").value) || 1000);
  }
  app.render();
}

export function renderReplay() {
  const R = S.replay;
  $("rp-code").textContent = R?.code && isLocalCode(R.code) ? t("local.title") : R?.code ?? "";
  const err = $("rp-error");
  err.hidden = !R?.error;
  err.textContent = R?.error ? t("replay.error", { reason: R.error }) : "";
  $("rp-loading").hidden = !R?.loading;
  const ready = !!R?.game && R.positions.length > 0;
  $("rp-body").hidden = !ready;
  for (const a of [$("rp-download"), $("rp-notation")]) a.hidden = !R?.code || !!R.error;
  if (R?.device) {
    // The device's copy: the record as a file made here; the notation is the server's to write.
    $("rp-notation").hidden = true;
    if (R.game && !R.recordBlob) R.recordBlob = URL.createObjectURL(new Blob([JSON.stringify(R.game.record, null, 1)], { type: "application/json" }));
    $("rp-download").hidden = !R.recordBlob;
    if (R.recordBlob) $("rp-download").href = R.recordBlob;
    $("rp-download").setAttribute("download", `trunkfield-${R.code}.json`);
  } else if (R?.code) {
    $("rp-download").href = recordUrl(R.code);
    $("rp-download").setAttribute("download", `trunkfield-${R.code}.json`);
    $("rp-notation").href = notationUrl(R.code);
    $("rp-notation").setAttribute("download", `trunkfield-${R.code}.txt`);
  }
  $("rp-play").textContent = R?.timer ? t("replay.pause") : t("replay.play");
  const exploreUrl = ready ? exploreGameUrl(R.positions[0].state, R.positions.slice(1).map((q) => q.turn), R.index, isLocalCode(R.code) ? null : R.code) : null;
  $("rp-explore").hidden = !exploreUrl;
  if (exploreUrl) $("rp-explore").href = exploreUrl;
  if (!ready) return;
  const g = R.game;
  const last = R.positions.length - 1;
  const pos = R.positions[R.index];
  const st = pos.state;
  const n = st.variant.size;
  const p = g.players ?? {};
  $("rp-title").textContent = t("replay.players", { silver: playerName(p, "silver"), bronze: playerName(p, "bronze") });
  $("rp-meta").textContent = [variantText(g.record?.variant ?? st.variant), tcText(g.time_control),
    g.finished_at ? t("replay.finished", { date: fmtDate(g.finished_at) }) : fmtDate(g.created_at)].filter(Boolean).join(" · ");

  const hl = turnCells(pos.turn, n);
  const bv = betterView(R, n); // the analysis's better turn instead of the one played
  renderBoard($("rp-board"), bv ? { state: bv.state, highlights: bv.highlights, flip: boardFlipped() }
    : { state: st, highlights: { last: hl, captures: pos.captures ?? [] }, flip: boardFlipped() });
  $("rp-board").dataset.showing = bv ? "better" : "played";
  renderFlipButtons();

  const range = $("rp-range");
  range.max = String(last);
  range.value = String(R.index);
  range.setAttribute("aria-valuetext", R.index === 0 ? t("replay.start") : t("replay.after", { n: R.index }));
  $("rp-pos").textContent = R.index === 0 ? t("replay.startOf", { n: last })
    : t("replay.turnOf", { i: R.index, n: last, side: sideName(pos.side), turn: turnText(pos, n) });
  $("rp-pos").dataset.index = String(R.index);
  $("rp-first").disabled = $("rp-prev").disabled = R.index === 0;
  $("rp-last").disabled = $("rp-next").disabled = R.index === last;
  $("rp-play").setAttribute("aria-pressed", R.timer ? "true" : "false");

  $("rp-players").replaceChildren(...SIDES.map((s) => {
    const pl = st.players[s];
    const stats = [["score", pl.score], ["trunks", pl.trunks], ["burnt", pl.burnt_left], ["saved", pl.saved], ["captured", pl.captured], ["onField", pl.on_field]];
    const toMove = !st.over && st.to_move === s && !(R.index === last && g.result);
    return h("div", { class: `pcard ${s}${toMove ? " to-move" : ""}`, "data-side": s },
      h("div", { class: "pc-top" }, pieceIcon(s, 26, s === "silver" ? "N" : "E"),
        h("span", { class: "pc-name" }, h("span", { class: "name", text: playerName(p, s) }), h("span", { class: "pc-tag", text: SideName(s) }))),
      h("dl", { class: "pc-stats" }, ...stats.flatMap(([k, v]) => [h("dt", { text: t(`card.${k}`) }), h("dd", { class: k, text: String(v) })])));
  }));

  const atEnd = R.index === last;
  const res = g.result;
  const banner = $("rp-result");
  banner.hidden = !atEnd;
  if (atEnd) {
    const sc = res?.score ?? st.score;
    banner.dataset.score = `silver:${sc.silver} bronze:${sc.bronze}`;
    const who = !res ? "" : res.winner === "draw" ? t("result.draw") : res.winner ? t("result.wins", { name: playerName(p, res.winner), side: SideName(res.winner), s: sideName(res.winner) }) : t("result.noResult");
    banner.textContent = [t("replay.final"), who, t("result.score", { silver: sc.silver, bronze: sc.bronze }),
      res?.reason ? t(`reason.${res.reason}`) : null].filter(Boolean).join(" · ");
  }
  const prob = $("rp-problem");
  prob.hidden = !R.problem;
  prob.textContent = R.problem ? t(R.problem.key, R.problem.params) : "";

  const list = $("rp-turns");
  list.replaceChildren(...R.positions.map((q, i) => {
    const mark = i ? turnMark(R, i) : null;
    return h("li", {},
      h("button", { type: "button", class: `turn-btn ${q.side ?? ""}${i === R.index ? " current" : ""}`, "aria-current": i === R.index ? "step" : false,
        onclick: () => goTo(i) },
      i === 0 ? t("replay.startShort") : `${i}. ${sideName(q.side)} ${turnText(q, n)}`,
      mark ? h("span", { class: `judge ${mark.cls}`, title: mark.label, "aria-label": mark.label, text: ` ${mark.mark}` }) : null));
  }));
  const cur = list.children[R.index];
  if (cur) {
    const top = cur.offsetTop - list.offsetTop;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + cur.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + cur.offsetHeight - list.clientHeight;
  }
  renderAnalysis(R);
}

function turnText(pos, n) {
  const caps = pos.captures?.length ? ` ✕ ${pos.captures.map((c) => t("turns.captured", { side: sideName(c.side), cell: cellName(c.cell, n) })).join(", ")}` : "";
  return notation(pos.turn, n) + caps;
}

export function setupReplay() {
  $("rp-first").addEventListener("click", () => goTo(0));
  $("rp-prev").addEventListener("click", () => goTo((S.replay?.index ?? 0) - 1));
  $("rp-next").addEventListener("click", () => goTo((S.replay?.index ?? 0) + 1));
  $("rp-last").addEventListener("click", () => goTo(Infinity));
  $("rp-play").addEventListener("click", togglePlay);
  $("rp-range").addEventListener("input", (ev) => goTo(Number(ev.target.value)));
  $("rp-speed").addEventListener("change", () => {
    if (S.replay?.timer) {
      stop();
      togglePlay();
    }
  });
  $("rp-back").addEventListener("click", () => app.navigate("/"));
  app.replayGoTo = goTo; // the analysis chart
  setupAnalysis();
  document.addEventListener("keydown", (ev) => {
    if ($("replay").hidden || !S.replay?.positions.length) return;
    if (ev.target.closest?.("input, select, textarea, #rp-board")) return;
    const R = S.replay;
    const keys = { ArrowLeft: R.index - 1, ArrowRight: R.index + 1, Home: 0, End: Infinity };
    if (ev.key in keys) {
      ev.preventDefault();
      goTo(keys[ev.key]);
    }
  });
}

// The replay viewer for finished games: the record comes from the history API
// (GET /api/games/CODE); every position is computed with the WebAssembly rules from the setups
// and turns. Step, scrub (range input), autoplay, download the record or the notation.
import { Rules, RulesGame } from "./trunkfield-rules.js";
import { $, h, SIDES, cap, REASONS, variantText, tcText, winnerText, scoreText, dateText } from "./dom.js";
import { renderBoard, pieceIcon, cellName } from "./board.js";
import { S, app } from "./state.js";
import { getGame, recordUrl, notationUrl } from "./api.js";
import { arrival } from "./turn.js";
import { capturesOf } from "./game.js";

// Positions of a record: [{state, turn, side, text}], the first one after both setups (or as far
// as the setups go), and a problem text when the rules refuse part of the record.
export function replayPositions(record) {
  const positions = [];
  let problem = null;
  let game;
  try {
    game = new RulesGame(record?.variant ?? null);
  } catch (e) {
    return { positions, problem: `The record's variant is refused by the rules: ${e.message}` };
  }
  try {
    for (const side of SIDES) {
      const s = record.setup?.[side];
      if (!s) {
        problem = `${cap(side)} made no setup: the game never started.`;
        break;
      }
      const r = game.applySetup(side, s);
      if (r.error) {
        problem = `${cap(side)}'s setup is refused by the rules: ${r.error.message}`;
        break;
      }
    }
    positions.push({ state: game.state(), turn: null, side: null, text: "setup" });
    const size = positions[0].state.variant.size;
    const turns = Array.isArray(record.turns) ? record.turns : [];
    for (let i = 0; !problem && i < turns.length; i++) {
      const side = game.state().to_move;
      const r = game.applyTurn(turns[i]);
      if (r.error) {
        problem = `Turn ${i + 1} is refused by the rules: ${r.error.message}`;
        break;
      }
      const nt = Rules.turnToNotation(turns[i], size);
      const state = game.state();
      const captures = capturesOf(positions[positions.length - 1].state, state, turns[i]);
      const capText = captures.length ? ` (captures ${captures.map((c) => `${c.side} on ${cellName(c.cell, size)}`).join(", ")})` : "";
      positions.push({ state, turn: turns[i], side, captures, text: (nt.notation ?? JSON.stringify(turns[i])) + capText });
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
}

export async function openReplay(code) {
  if (S.replay?.code === code && (S.replay.loading || S.replay.game)) return;
  stop();
  const R = { code, loading: true, error: null, game: null, positions: [], problem: null, index: 0, timer: null };
  S.replay = R;
  app.render();
  try {
    const g = await getGame(code);
    if (S.replay !== R) return;
    if (!g.record || typeof g.record !== "object") throw new Error("the answer has no record");
    const { positions, problem } = replayPositions(g.record);
    R.game = g;
    R.positions = positions;
    R.problem = problem;
    R.index = 0;
  } catch (e) {
    if (S.replay !== R) return;
    R.error = `This game's record could not be loaded: ${e.message}`;
  } finally {
    R.loading = false;
    if (S.replay === R) app.render();
  }
}

function goTo(i) {
  const R = S.replay;
  if (!R?.positions.length) return;
  R.index = Math.max(0, Math.min(R.positions.length - 1, i));
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
  $("rp-code").textContent = R?.code ?? "";
  const err = $("rp-error");
  err.hidden = !R?.error;
  err.textContent = R?.error ?? "";
  $("rp-loading").hidden = !R?.loading;
  const ready = !!R?.game && R.positions.length > 0;
  $("rp-body").hidden = !ready;
  const links = [$("rp-download"), $("rp-notation")];
  for (const a of links) a.hidden = !R?.code || !!R.error;
  if (R?.code) {
    $("rp-download").href = recordUrl(R.code);
    $("rp-download").setAttribute("download", `trunkfield-${R.code}.json`);
    $("rp-notation").href = notationUrl(R.code);
    $("rp-notation").setAttribute("download", `trunkfield-${R.code}.txt`);
  }
  if (!ready) return;
  const g = R.game;
  const last = R.positions.length - 1;
  const pos = R.positions[R.index];
  const st = pos.state;
  const n = st.variant.size;
  const p = g.players ?? {};
  $("rp-title").textContent = `${p.silver?.name ?? "?"} (silver) – ${p.bronze?.name ?? "?"} (bronze)`;
  $("rp-meta").textContent = [variantText(g.record?.variant ?? st.variant), tcText(g.time_control),
    g.finished_at ? `finished ${dateText(g.finished_at)}` : dateText(g.created_at)].filter(Boolean).join(" · ");

  let hl = null;
  if (pos.turn) {
    const cells = [];
    const e = pos.turn.elephant;
    if (e) cells.push(e.from, ...e.path);
    if (pos.turn.burnt) cells.push(pos.turn.burnt);
    for (const gm of pos.turn.guardians ?? []) cells.push(gm.from, arrival(gm, n));
    hl = { cells, from: e?.from, path: e?.path ?? [] };
  }
  renderBoard($("rp-board"), { state: st, highlights: { last: hl, captures: pos.captures ?? [] } });

  const range = $("rp-range");
  range.max = String(last);
  range.value = String(R.index);
  range.setAttribute("aria-valuetext", R.index === 0 ? "start position" : `after turn ${R.index}`);
  $("rp-pos").textContent = R.index === 0 ? `Start (after the setups) · ${last} turn${last === 1 ? "" : "s"}` : `Turn ${R.index} of ${last}: ${pos.side} ${pos.text}`;
  $("rp-pos").dataset.index = String(R.index);
  $("rp-first").disabled = $("rp-prev").disabled = R.index === 0;
  $("rp-last").disabled = $("rp-next").disabled = R.index === last;
  $("rp-play").textContent = R.timer ? "⏸ Pause" : "▶ Play";
  $("rp-play").setAttribute("aria-pressed", R.timer ? "true" : "false");

  // players and counts at this position
  $("rp-players").replaceChildren(...SIDES.map((s) => {
    const pl = st.players[s];
    return h("div", { class: `player ${s}${!st.over && st.to_move === s ? " to-move" : ""}`, "data-side": s },
      h("div", { class: "pname" },
        pieceIcon(s),
        h("span", { class: "name", text: p[s]?.name ?? "?" })),
      h("div", { class: "tag", text: s }),
      h("dl", {},
        h("dt", { text: "Score" }), h("dd", { class: "score", text: String(pl.score) }),
        h("dt", { text: "Trunks held" }), h("dd", { text: String(pl.trunks) }),
        h("dt", { text: "Burnt left" }), h("dd", { text: String(pl.burnt_left) }),
        h("dt", { text: "Saved" }), h("dd", { text: String(pl.saved) }),
        h("dt", { text: "Captured" }), h("dd", { text: String(pl.captured) })));
  }));

  const atEnd = R.index === last;
  const res = g.result;
  const banner = $("rp-result");
  banner.hidden = !atEnd;
  if (atEnd) {
    const sc = res?.score ?? st.score;
    banner.dataset.score = `silver:${sc.silver} bronze:${sc.bronze}`;
    banner.textContent = res
      ? `Final position — ${winnerText(res, p)}, ${scoreText(sc)}. ${cap(REASONS[res.reason] ?? res.reason ?? "")}.`
      : `Final position — ${scoreText(sc)}.`;
  }
  const prob = $("rp-problem");
  prob.hidden = !R.problem;
  prob.textContent = R.problem ?? "";

  const list = $("rp-turns");
  list.replaceChildren(...R.positions.map((q, i) => h("li", {},
    h("button", { type: "button", class: `turn-btn ${q.side ?? ""}${i === R.index ? " current" : ""}`, "aria-current": i === R.index ? "step" : false,
      text: i === 0 ? "start" : `${i}. ${q.side} ${q.text}`, onclick: () => goTo(i) }))));
  // keep the current turn in view inside the list (without scrolling the page)
  const cur = list.children[R.index];
  if (cur) {
    const top = cur.offsetTop - list.offsetTop;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + cur.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + cur.offsetHeight - list.clientHeight;
  }
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

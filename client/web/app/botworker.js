// The computer opponent off the page's thread: a module worker that runs the rules' WebAssembly
// (trunkfield-rules.js, RulesGame.botMove) so the page stays responsive while the bot searches,
// which can take hundreds of milliseconds at level 5. It keeps no game between questions.
//
//   page -> worker  {id, state, level, seed}   state: the rules' state JSON (RulesGame.state())
//   worker -> page  {id, setup} | {id, turn} | {id, error: {code, message}}
//
// It also analyses finished games (analysis.js; common/analysis.h), one position at a time so
// the page can show the progress:
//   page -> worker  {id, kind: "analyse", record, nodes}   nodes: 0 for the default budget
//   worker -> page  {id, progress: {done, total}} ... then {id, analysis} | {id, error}
//
// And it looks at one position for the analysis board (explore.js; common/analysis.h
// analyse_position): the evaluation and the engine's best line.
//   page -> worker  {id, kind: "position", state, nodes, length}
//   worker -> page  {id, analysis: {eval, win, forced, best, line}} | {id, error}
//
// client/web/assemble.mjs bundles it on its own (botworker.<hash>.js, at the site root) and puts
// that name in place of the literal "/botworker.js" in the app's bundle.
import { Rules, RulesGame, RulesAnalyser } from "./trunkfield-rules.js";

// Start loading the WebAssembly now, so the first question does not wait for all of it. A failure
// is not lost: load() forgets it and the question's own load() tries again and reports it.
Rules.load().catch(() => {});

// A state or record the rules refuse (RulesError carries its code), or no WebAssembly at all.
const failure = (id, e) => ({ id, error: { code: e.code ?? "internal", message: String(e.message ?? e) } });

async function answerBot({ id, state, level, seed }) {
  try {
    await Rules.load();
    const game = RulesGame.fromState(state);
    try {
      return { id, ...game.botMove(level, seed) };
    } finally {
      game.dispose();
    }
  } catch (e) {
    return failure(id, e);
  }
}

async function analyse({ id, record, nodes }) {
  try {
    await Rules.load();
    const a = new RulesAnalyser(record, nodes ?? 0);
    try {
      let p = { done: 0, total: a.total };
      while (p.done < p.total) {
        p = a.step();
        self.postMessage({ id, progress: p });
      }
      return { id, analysis: a.result() };
    } finally {
      a.dispose();
    }
  } catch (e) {
    return failure(id, e);
  }
}

async function lookAt({ id, state, nodes, length }) {
  try {
    await Rules.load();
    const game = RulesGame.fromState(state);
    try {
      const r = game.analyse(nodes, length);
      return r.error ? { id, error: r.error } : { id, analysis: r };
    } finally {
      game.dispose();
    }
  } catch (e) {
    return failure(id, e);
  }
}

self.onmessage = async (ev) => {
  const m = ev.data ?? {};
  const answer = { analyse, position: lookAt }[m.kind] ?? answerBot;
  self.postMessage(await answer(m));
};

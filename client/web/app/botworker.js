// The computer opponent off the page's thread: a module worker that runs the rules' WebAssembly
// (trunkfield-rules.js, RulesGame.botMove) so the page stays responsive while the bot searches,
// which can take hundreds of milliseconds at level 5. It keeps no game between questions.
//
//   page -> worker  {id, state, level, seed}   state: the rules' state JSON (RulesGame.state())
//   worker -> page  {id, setup} | {id, turn} | {id, error: {code, message}}
//
// client/web/assemble.mjs bundles it on its own (botworker.<hash>.js, at the site root) and puts
// that name in place of the literal "/botworker.js" in the app's bundle.
import { Rules, RulesGame } from "./trunkfield-rules.js";

// Start loading the WebAssembly now, so the first question does not wait for all of it. A failure
// is not lost: load() forgets it and the question's own load() tries again and reports it.
Rules.load().catch(() => {});

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
    // A state the rules refuse (RulesError carries its code), or no WebAssembly at all.
    return { id, error: { code: e.code ?? "internal", message: String(e.message ?? e) } };
  }
}

self.onmessage = async (ev) => self.postMessage(await answerBot(ev.data ?? {}));

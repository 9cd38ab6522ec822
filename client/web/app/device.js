// Games kept on this device (localStorage), so they can be continued and replayed without the
// network: the games played on the device itself (against the computer, or two players taking
// turns), and the online games the player finished while this page watched them.
//
// One entry per game: {code, kind: "bot" | "pass" | "online", level (bot), human (the side the
// player holds; null in pass-and-play), players {silver, bronze: {id, name}}, record {variant,
// setup {silver, bronze}, turns [turn]}, result (the game_over payload, or null while it goes
// on), created_at, finished_at (ms)}. The newest DEVICE_KEEP entries are kept; an unfinished
// game is never dropped for a finished one.
// Games played on the device have codes "local-…" (a server's are letters and digits only) and
// live at /#local/ID.
export const LOCAL_PREFIX = "local-";
export const isLocalCode = (code) => typeof code === "string" && code.startsWith(LOCAL_PREFIX);
export const localPath = (code) => `/#local/${code.slice(LOCAL_PREFIX.length)}`;

const DEVICE_KEY = "trunkfield.device.games";
const DEVICE_KEEP = 100;

export function deviceGames() {
  try {
    const all = JSON.parse(localStorage.getItem(DEVICE_KEY) ?? "[]");
    return Array.isArray(all) ? all.filter((g) => g && typeof g.code === "string" && g.record) : [];
  } catch {
    return [];
  }
}

export const deviceGame = (code) => deviceGames().find((g) => g.code === code) ?? null;

// Stores `entry` (replacing the one with its code) as the newest; false when the browser
// refused (storage full or off).
export function keepOnDevice(entry) {
  const rest = deviceGames().filter((g) => g.code !== entry.code);
  const all = [entry, ...rest];
  const unfinished = all.filter((g) => !g.result);
  const finished = all.filter((g) => g.result).slice(0, Math.max(0, DEVICE_KEEP - unfinished.length));
  const kept = all.filter((g) => !g.result || finished.includes(g));
  try {
    localStorage.setItem(DEVICE_KEY, JSON.stringify(kept));
    return true;
  } catch {
    return false;
  }
}

export function forgetOnDevice(code) {
  try {
    localStorage.setItem(DEVICE_KEY, JSON.stringify(deviceGames().filter((g) => g.code !== code)));
  } catch { /* nothing to do */ }
}

// Game sounds, generated with WebAudio (no sound files to download): a soft knock for a move, a
// falling two-tone for a capture, a short chord when the game ends, a double beep when the
// player's own clock runs low. A mute switch, remembered on the device.
//
// Browsers start audio only after a user gesture: until then sounds are skipped silently.
// Every sound asked for is logged in `played` (kind, muted) for the browser tests.
const MUTE_KEY = "trunkfield.muted";
let ctx = null;
export const played = [];

export const isMuted = () => localStorage.getItem(MUTE_KEY) === "1";
export function setMuted(m) {
  localStorage.setItem(MUTE_KEY, m ? "1" : "0");
}

function audio() {
  if (ctx) return ctx;
  const AC = window.AudioContext ?? window.webkitAudioContext;
  if (!AC) return null;
  try {
    ctx = new AC();
  } catch {
    ctx = null;
  }
  return ctx;
}

// Called on the first click or key press: lets the audio start.
export function unlockAudio() {
  const a = audio();
  if (a?.state === "suspended") a.resume().catch(() => {});
}

// tones: [[frequency Hz, start s, duration s, type, gain]]
function tones(list) {
  const a = audio();
  if (!a || a.state !== "running") return false;
  const t0 = a.currentTime + 0.01;
  for (const [f, at, dur, type = "sine", gain = 0.18] of list) {
    const o = a.createOscillator();
    const g = a.createGain();
    o.type = type;
    o.frequency.setValueAtTime(f, t0 + at);
    g.gain.setValueAtTime(0.0001, t0 + at);
    g.gain.exponentialRampToValueAtTime(gain, t0 + at + 0.01);
    g.gain.exponentialRampToValueAtTime(0.0001, t0 + at + dur);
    o.connect(g).connect(a.destination);
    o.start(t0 + at);
    o.stop(t0 + at + dur + 0.02);
  }
  return true;
}

const SOUNDS = {
  move: [[220, 0, 0.09, "triangle", 0.25], [165, 0.02, 0.08, "sine", 0.15]],
  capture: [[660, 0, 0.12, "square", 0.08], [440, 0.1, 0.14, "square", 0.08], [220, 0.22, 0.2, "triangle", 0.2]],
  end: [[523, 0, 0.5, "sine", 0.14], [659, 0.06, 0.5, "sine", 0.12], [784, 0.12, 0.6, "sine", 0.12]],
  lowtime: [[880, 0, 0.08, "square", 0.07], [880, 0.16, 0.08, "square", 0.07]],
};

export function playSound(kind) {
  const muted = isMuted();
  let audible = false;
  if (!muted && SOUNDS[kind]) audible = tones(SOUNDS[kind]);
  played.push({ kind, muted, audible, at: Math.round(performance.now()) });
  if (played.length > 200) played.splice(0, played.length - 200);
}

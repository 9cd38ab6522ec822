// The README's two screenshots of the web client (not a test): a game in progress against the
// computer, on a desktop (a move being chosen: the arrows offer its facing) and on a 390-px
// phone (the computer's last move marked), taken in headless chromium from a real
// trunkfield-server. Our moves are a seeded choice among the legal ones.
//
//   TF_SERVER_BIN=build/bin/trunkfield-server TF_WEB_ROOT=build/web node tests/browser/screenshots.mjs [OUT_DIR]
//
// OUT_DIR defaults to docs/img (web-desktop.png, web-phone.png).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, launchBrowser, PageProblems, newPlayer, cell, waitMyTurn, cellName, sleep, DESKTOP, PHONE } from "./lib.mjs";

const OUT = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "../../docs/img"));
mkdirSync(OUT, { recursive: true });
const server = await startServer();
const browser = await launchBrowser();
const problems = new PageProblems();
try {
  const ann = await newPlayer(browser, server.base, problems, "Ann", DESKTOP);
  await ann.selectOption("#cv-opponent", "2");
  await ann.selectOption("#cv-color", "silver");
  await ann.selectOption("#cv-time", "600000/10000");
  await ann.click("#create-btn");
  await ann.waitForURL(/\/g\//);
  await ann.waitForSelector("#send-btn:not([hidden])");
  for (const c of ["b1", "d1", "e1", "g1", "i1", "SW", "Sh"]) await cell(ann, c).click();
  await ann.click("#send-btn");
  let seed = 7;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const legal = () => ann.evaluate(() => {
    const S = window.trunkfield.S;
    return S.games.get(S.route.code).rules.legalMoves();
  });
  for (let i = 0; i < 8; i++) {
    await waitMyTurn(ann, 30000);
    const moves = await legal();
    if (!moves.length) break;
    const collect = moves.filter((m) => !m.facing); // mostly collect trunks
    const pool = collect.length && rnd(3) ? collect : moves;
    const m = pool[rnd(pool.length)];
    await cell(ann, cellName(m.from, 9)).click();
    for (const c of m.path) await cell(ann, cellName(c, 9)).click();
    if (m.facing) await ann.click(`#board .facing-arrow[data-facing="${m.facing}"]`);
    await ann.keyboard.press("Enter");
  }
  await waitMyTurn(ann, 30000);
  await sleep(1500); // the computer's move has finished moving
  // an elephant chosen and one step taken: the arrows offer its facing
  const mv = (await legal()).find((m) => m.facing && m.path.length === 1);
  if (mv) {
    await cell(ann, cellName(mv.from, 9)).click();
    await cell(ann, cellName(mv.path[0], 9)).click();
  }
  await ann.mouse.move(0, 0);
  await ann.screenshot({ path: path.join(OUT, "web-desktop.png") });
  const phone = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2,
    storageState: await ann.context().storageState() });
  const p = problems.watch(await phone.newPage(), "phone");
  await p.goto(ann.url());
  await p.waitForSelector("#board svg");
  await sleep(500);
  await p.screenshot({ path: path.join(OUT, "web-phone.png") });
  console.log(`wrote ${path.join(OUT, "web-desktop.png")} and web-phone.png${problems.list.length ? `; page problems: ${problems.list}` : ""}`);
} finally {
  await browser.close();
  server.stop();
}

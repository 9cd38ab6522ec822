// The installable app's PNG icons, drawn from the page's icon (client/web/app/favicon.svg) by
// headless Chromium. Run by hand after changing favicon.svg, and commit the output:
//
//   node scripts/icons.mjs        (needs tests/browser/node_modules: scripts/setup.sh; and
//                                  /usr/bin/chromium, or TF_CHROMIUM; it downloads no browser)
//
// Writes client/web/app/icons/:
//   icon-192.png, icon-512.png   favicon.svg as it is (its rounded corners transparent):
//                                the manifest's "any" icons
//   maskable-512.png             the drawing at 80 % on a full square of the icon's background
//                                colour: the manifest's "maskable" icon, whose outer part a phone
//                                may cut to any shape (the safe zone is the central circle of
//                                radius 40 %; the drawing reaches 33 % from the centre)
//   apple-touch-icon.png         180 px, the maskable design: iOS rounds the corners itself and
//                                shows transparency as black
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// playwright-core lives with the browser tests; this script is not part of any package.
const { chromium } = createRequire(path.join(repo, "tests/browser/package.json"))("playwright-core");
const APP = path.join(repo, "client/web/app");
const OUT = path.join(APP, "icons");

// favicon.svg is one background <rect> (a 32 x 32 viewBox) and the drawing after it.
const svg = fs.readFileSync(path.join(APP, "favicon.svg"), "utf8");
const m = svg.match(/^(<svg[^>]*>)<rect ([^>]*)\/>(.*)<\/svg>\s*$/s);
const fill = m?.[2].match(/fill="(#[0-9a-fA-F]{3,6})"/)?.[1];
if (!m || !fill || !/viewBox="0 0 32 32"/.test(m[1])) throw new Error("favicon.svg: expected a 32 x 32 viewBox, a background <rect fill=...> and the drawing");
const fullBleed = `${m[1]}<rect width="32" height="32" fill="${fill}"/><g transform="translate(16 16) scale(0.8) translate(-16 -16)">${m[3]}</g></svg>`;

const icons = [
  ["icon-192.png", svg, 192],
  ["icon-512.png", svg, 512],
  ["maskable-512.png", fullBleed, 512],
  ["apple-touch-icon.png", fullBleed, 180],
];

const browser = await chromium.launch({
  executablePath: process.env.TF_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  fs.mkdirSync(OUT, { recursive: true });
  for (const [name, image, px] of icons) {
    await page.setViewportSize({ width: px, height: px });
    const src = `data:image/svg+xml;base64,${Buffer.from(image).toString("base64")}`;
    await page.setContent(`<html><body style="margin:0"><img src="${src}" width="${px}" height="${px}" style="display:block"></body></html>`);
    await page.waitForFunction(() => document.images[0].complete);
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: px, height: px } });
    fs.writeFileSync(path.join(OUT, name), png);
    console.log(`${path.relative(repo, path.join(OUT, name))}: ${px} x ${px}, ${png.length} bytes`);
  }
} finally {
  await browser.close();
}

// Assembles the web client into <build>/web/ (run by CMake on every build; incremental: a file
// whose content did not change is not rewritten, so its time stamp and ETag stay):
//
//   node client/web/assemble.mjs --app client/web/app --out build/web
//
// - app.js and every module it imports (client/web/app/**/*.js and the rules' JS API,
//   trunkfield-rules.js, which the WebAssembly build writes into --out) become ONE module,
//   app.<hash>.js: the first visit then costs one request instead of one per module and import
//   depth. The sources stay plain ES modules; the bundling relies on two conventions checked
//   here (the build fails otherwise): imports are named imports of relative paths
//   (`import { a, b as c } from "./x.js"`), and no two modules declare the same top-level name
//   (declarations start at column 0). There is no import cycle.
// - botworker.js (the computer opponent's module worker) is bundled the same way, with its own
//   module graph, into botworker.<hash>.js; the literal "/botworker.js" in the app's bundle
//   becomes that name.
// - the emscripten module (trunkfield-rules.mjs, loaded by the API with import()), its
//   trunkfield-rules.wasm, the style sheet, the icons (favicon.svg, icons/*.png) and the web app
//   manifest (manifest.webmanifest, its icons renamed) get content-hashed names too;
//   index.html (never cached: no hash) points at them and preloads the rules module and its
//   .wasm, so they download while the lobby is drawn.
// - sw.js, the service worker, keeps its name (browsers look for updates at a fixed URL); the
//   list of files it caches for offline use and a version are filled in (see sw.js).
// - every text file gets a gzip and a brotli copy next to it (FILE.gz, FILE.br), which
//   trunkfield-server sends to browsers that accept them (server/web/static_files.h); hashed names
//   are cached by browsers for a year.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) => (i % 2 ? a : [...a, [v.replace(/^--/, ""), all[i + 1]]]), []));
const APP = path.resolve(args.app);
const OUT = path.resolve(args.out);

const fail = (msg) => {
  console.error(`assemble: ${msg}`);
  process.exit(1);
};
const hash = (text) => createHash("sha256").update(text).digest("hex").slice(0, 10);
const hashedName = (rel, text) => rel.replace(/(\.[a-z0-9]+)$/, `.${hash(text)}$1`);
const written = new Set();

// Writes OUT/rel unless it already holds exactly this content; then its compressed copies.
function emit(rel, content) {
  const file = path.join(OUT, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const buf = Buffer.isBuffer(content) ? content : Buffer.from(content);
  const same = fs.existsSync(file) && fs.readFileSync(file).equals(buf);
  if (!same) fs.writeFileSync(file, buf);
  written.add(rel);
  if (!/\.(html|js|mjs|css|svg|json|webmanifest|wasm)$/.test(rel) || buf.length < 256) return;
  const copies = {
    ".gz": () => zlib.gzipSync(buf, { level: 9 }),
    ".br": () => zlib.brotliCompressSync(buf, { params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length } }),
  };
  for (const [ext, make] of Object.entries(copies)) {
    const copy = file + ext;
    // a copy must be at least as new as its file (the server ignores older ones)
    if (same && fs.existsSync(copy) && fs.statSync(copy).mtimeMs >= fs.statSync(file).mtimeMs) {
      written.add(rel + ext);
      continue;
    }
    fs.writeFileSync(copy, make());
    written.add(rel + ext);
  }
}

// ---------------------------------------------------------------- the module graph
// Where a module specifier of the bundle points: the app's own files, or the rules' JS API that
// the WebAssembly build wrote into OUT.
function locate(fromAbs, spec) {
  if (!spec.startsWith("./") && !spec.startsWith("../")) fail(`${fromAbs}: only relative imports can be bundled: ${spec}`);
  const abs = path.resolve(path.dirname(fromAbs), spec);
  if (fs.existsSync(abs)) return abs;
  const built = path.join(OUT, path.relative(APP, abs));
  if (fs.existsSync(built)) return built;
  fail(`${fromAbs}: cannot find ${spec}`);
}

const IMPORT = /^import\s*\{([^}]*)\}\s*from\s*"([^"]+)";?[ \t]*$/;
const DECL = /^(?:export\s+)?(?:async\s+)?(?:function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)/;

function parseModule(abs) {
  const src = fs.readFileSync(abs, "utf8");
  const lines = src.split("\n");
  const deps = [];
  const aliases = [];
  const body = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (/^import\b/.test(line)) {
      while (!/from\s*"[^"]+";?\s*$/.test(line) && i + 1 < lines.length) line += " " + lines[++i].trim();
      const m = line.match(IMPORT);
      if (!m) fail(`${abs}:${i + 1}: only named imports can be bundled: ${line}`);
      deps.push(locate(abs, m[2]));
      for (const part of m[1].split(",").map((s) => s.trim()).filter(Boolean)) {
        const [name, as] = part.split(/\s+as\s+/);
        if (as && as !== name) aliases.push(`const ${as} = ${name};`);
      }
      body.push(""); // keep line numbers close to the source's
      continue;
    }
    if (/^export\s+default\b/.test(line)) {
      body.push("");
      continue;
    }
    if (/^export\s*\{/.test(line)) fail(`${abs}:${i + 1}: export lists cannot be bundled`);
    body.push(line.replace(/^export\s+/, ""));
  }
  const names = [];
  for (const l of body) {
    const m = l.match(DECL);
    if (m) names.push(m[1]);
    const d = l.match(/^(?:const|let|var)\s*\{([^}]*)\}/);
    if (d) names.push(...d[1].split(",").map((s) => s.split(":").pop().trim()).filter(Boolean));
  }
  for (const a of aliases) names.push(a.split(" ")[1]);
  return { abs, deps, text: [...aliases, ...body].join("\n"), names };
}

// Modules in evaluation order (depth first, dependencies before dependents), as ES does.
function bundle(entryAbs) {
  const order = [];
  const state = new Map();
  const visit = (abs, chain) => {
    if (state.get(abs) === "done") return;
    if (state.get(abs) === "open") fail(`import cycle: ${[...chain, abs].map((p) => path.basename(p)).join(" -> ")}`);
    state.set(abs, "open");
    const m = parseModule(abs);
    for (const d of m.deps) visit(d, [...chain, abs]);
    state.set(abs, "done");
    order.push(m);
  };
  visit(entryAbs, []);
  const owner = new Map();
  for (const m of order)
    for (const n of m.names) {
      if (owner.has(n) && owner.get(n) !== m.abs)
        fail(`top-level name "${n}" is declared by both ${path.basename(owner.get(n))} and ${path.basename(m.abs)}`);
      owner.set(n, m.abs);
    }
  return order;
}

// ---------------------------------------------------------------- the languages
// Every language has exactly the keys of English, and every key the code or the page names
// literally exists (keys built at run time, like `rule.${code}`, are covered by the first check).
async function checkLanguages() {
  const dir = path.join(APP, "lang");
  if (!fs.existsSync(dir)) return; // a client without translations
  const langs = {};
  // Imported as data: URLs, which are ES modules to every Node: Debian 12's Node 18 reads a .js
  // file outside a "type": "module" package as CommonJS (the language files import nothing).
  const asModule = (file) =>
    import("data:text/javascript;base64," + fs.readFileSync(file).toString("base64"));
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".js")))
    langs[f.replace(/\.js$/, "")] = Object.values(await asModule(path.join(dir, f)))[0];
  const en = langs.en;
  if (!en) fail("lang/en.js is missing");
  for (const [l, strings] of Object.entries(langs)) {
    const missing = Object.keys(en).filter((k) => !(k in strings));
    const extra = Object.keys(strings).filter((k) => !(k in en));
    if (missing.length || extra.length) fail(`lang/${l}.js: missing ${JSON.stringify(missing)}, unknown ${JSON.stringify(extra)}`);
  }
  const used = new Set();
  for (const f of fs.readdirSync(APP).filter((x) => /\.(js|html)$/.test(x))) {
    const src = fs.readFileSync(path.join(APP, f), "utf8");
    for (const m of src.matchAll(/\bt\("([\w.]+)"|key: "([\w.]+)"|data-i18n(?:-rich)?="([\w.]+)"|data-i18n-attr="([^"]+)"/g)) {
      if (m[4]) for (const pair of m[4].split(";")) used.add(pair.split(":")[1].trim());
      else used.add(m[1] ?? m[2] ?? m[3]);
    }
  }
  const unknown = [...used].filter((k) => !(k in en));
  if (unknown.length) fail(`keys used but not in lang/en.js: ${unknown.join(", ")}`);
}
await checkLanguages();

// ---------------------------------------------------------------- assembling
const rulesMjs = path.join(OUT, "trunkfield-rules.mjs");
const rulesWasm = path.join(OUT, "trunkfield-rules.wasm");
const names = {}; // original absolute URL path -> hashed one
let rulesHashed = null;
let wasmHashed = null;
if (fs.existsSync(rulesWasm)) {
  const bytes = fs.readFileSync(rulesWasm);
  wasmHashed = hashedName("trunkfield-rules.wasm", bytes);
  emit(wasmHashed, bytes);
  names["/trunkfield-rules.wasm"] = `/${wasmHashed}`;
}
if (fs.existsSync(rulesMjs)) {
  const text = fs.readFileSync(rulesMjs);
  rulesHashed = hashedName("trunkfield-rules.mjs", text);
  emit(rulesHashed, text);
  names["/trunkfield-rules.mjs"] = `/${rulesHashed}`;
} else {
  console.warn("assemble: no trunkfield-rules.mjs in the output folder (no WebAssembly build): the page cannot show boards");
}

// One module of `entry` and everything it imports, pointing at the hashed rules module and
// .wasm (both bundles sit at the site root, where those are too).
function bundleText(entry, title) {
  let js = bundle(path.join(APP, entry)).map((m) => `// ---- ${path.relative(APP, m.abs).replace(/^\.\.\/.*\//, "")}\n${m.text}`).join("\n");
  js = js.replace(/import\("\.\/trunkfield-rules\.mjs"\)/g, () => {
    if (!rulesHashed) return 'Promise.reject(new Error("this build has no WebAssembly rules module"))';
    return `import("./${rulesHashed}")`;
  });
  js = js.replace(/"\.\/trunkfield-rules\.wasm"/g, () => (wasmHashed ? `"./${wasmHashed}"` : '"./trunkfield-rules.wasm"'));
  return `// ${title}: client/web/app/${entry} bundled by client/web/assemble.mjs.\n${js}`;
}

// The computer opponent's worker first: the app names it. The app creates it with the literal
// "/botworker.js", which becomes the hashed name here (the literal is not required: an app
// without the worker builds too).
const worker = bundleText("botworker.js", "Trunkfield's computer opponent (a module worker)");
const workerName = hashedName("botworker.js", worker);
emit(workerName, worker);
names["/botworker.js"] = `/${workerName}`;

let js = bundleText("app.js", "Trunkfield web client");
js = js.replace(/"\/botworker\.js"/g, `"/${workerName}"`);
const appName = hashedName("app.js", js);
emit(appName, js);
names["/app.js"] = `/${appName}`;

const icons = fs.existsSync(path.join(APP, "icons")) ? fs.readdirSync(path.join(APP, "icons")).filter((f) => f.endsWith(".png")).map((f) => `icons/${f}`) : [];
for (const rel of ["style.css", "favicon.svg", ...icons]) {
  const text = fs.readFileSync(path.join(APP, rel));
  const h = hashedName(rel, text);
  emit(h, text);
  names[`/${rel}`] = `/${h}`;
}

// The web app manifest (the installable app), naming the hashed icons.
const manifest = JSON.parse(fs.readFileSync(path.join(APP, "manifest.webmanifest"), "utf8"));
for (const icon of manifest.icons ?? []) {
  if (!names[icon.src]) fail(`manifest.webmanifest: no icon ${icon.src} in client/web/app`);
  icon.src = names[icon.src];
}
const manifestText = JSON.stringify(manifest, null, 2) + "\n";
const manifestName = hashedName("manifest.webmanifest", manifestText);
emit(manifestName, manifestText);
names["/manifest.webmanifest"] = `/${manifestName}`;

let html = fs.readFileSync(path.join(APP, "index.html"), "utf8");
html = html.replace(/(href|src)="(\/[^"]+)"/g, (all, attr, url) => (names[url] ? `${attr}="${names[url]}"` : all));
if (!rulesHashed) html = html.replace(/^.*rel="modulepreload".*\n/m, "");
if (!wasmHashed) html = html.replace(/^.*rel="preload".*trunkfield-rules\.wasm.*\n/m, "");
if (/<script(?![^>]*\bsrc=)[^>]*>|\son[a-z]+=|\sstyle=/i.test(html)) fail("index.html has an inline script, handler or style (the Content-Security-Policy refuses them)");
emit("index.html", html);

// The service worker, at its fixed address: it caches every file the page needs ("/" for
// index.html, which every page address serves), and its version changes with any of them.
const offline = ["/", ...Object.values(names)];
const sw = fs.readFileSync(path.join(APP, "sw.js"), "utf8");
const VERSION_LINE = /^const VERSION = .*$/m;
const FILES_LINE = /^const FILES = .*$/m;
if (!VERSION_LINE.test(sw) || !FILES_LINE.test(sw)) fail("sw.js: no line `const VERSION = ...;` or `const FILES = ...;` to fill in");
const version = hash(sw + JSON.stringify(offline) + html);
emit("sw.js", sw
  .replace(VERSION_LINE, `const VERSION = ${JSON.stringify(version)};`)
  .replace(FILES_LINE, `const FILES = ${JSON.stringify(offline)};`));

// Everything else in the folder is from earlier builds (old hashed names, the unbundled copies
// older builds made), except what the WebAssembly build writes there.
const WASM_OUTPUTS = new Set(["trunkfield-rules.js", "trunkfield-rules.mjs", "trunkfield-rules.wasm", "package.json"]);
function walk(dir, rel = "") {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) {
      walk(abs, r);
      if (fs.readdirSync(abs).length === 0) fs.rmdirSync(abs);
    } else if (!written.has(r) && !WASM_OUTPUTS.has(r)) fs.rmSync(abs);
  }
}
walk(OUT);

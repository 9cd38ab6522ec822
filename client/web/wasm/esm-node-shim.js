// --pre-js of the WebAssembly build. Emscripten 3.1.6 emits its Node branch with CommonJS names
// even for -sEXPORT_ES6=1: `scriptDirectory = __dirname + "/"` runs on load and throws in an ES
// module. This `var` (hoisted inside the module factory) gives it the module's own folder. The
// other CommonJS name, `require("fs")`, is only reached to read the .wasm file, which never
// happens: trunkfield-rules.js reads it itself in Node and hands it over as `wasmBinary`.
var __dirname =
  typeof _scriptDir == "string" && _scriptDir.startsWith("file:")
    ? decodeURIComponent(new URL(".", _scriptDir).pathname)
    : "";

# The WebAssembly build of the rules library, driven from the native build.
#
# When emscripten is installed (emcmake on PATH), the native build configures this same source
# tree with the Emscripten toolchain into <build>/wasm/ and builds it as an ExternalProject; the
# bundle lands in <build>/web/: trunkfield-rules.js (the JS API, import this), the module it
# loads (trunkfield-rules.mjs) with its trunkfield-rules.wasm, and a package.json;
# client/web/assemble.mjs then builds the web client around them (tf_web_app, which depends on
# tf_wasm; included before client/ for that). See client/web/wasm/CMakeLists.txt.
# The inner build runs on every build (BUILD_ALWAYS) but is incremental: a no-op takes well
# under a second. -DTF_WASM=OFF skips it. Sets TF_WASM_BUNDLE for tests/CMakeLists.txt.
option(TF_WASM "Build the WebAssembly rules module when emscripten is found" ON)
set(TF_WASM_BUNDLE "")
if(NOT TF_WASM)
  message(STATUS "WebAssembly build: off (TF_WASM=OFF)")
  return()
endif()
find_program(TF_EMCMAKE emcmake)
find_program(TF_EMXX em++)
if(NOT TF_EMCMAKE OR NOT TF_EMXX)
  message(STATUS "WebAssembly build: skipped, emscripten (emcmake, em++) not found")
  return()
endif()
set(TF_WASM_NODE_PATH "/usr/share/nodejs" CACHE STRING
    "NODE_PATH for emscripten's JS tools (Debian keeps acorn & co. there)")

include(ExternalProject)
set(TF_WASM_OUTPUT_DIR "${CMAKE_BINARY_DIR}/web")
set(_tf_wasm_env ${CMAKE_COMMAND} -E env "NODE_PATH=${TF_WASM_NODE_PATH}")
ExternalProject_Add(tf_wasm
  SOURCE_DIR "${CMAKE_SOURCE_DIR}"
  BINARY_DIR "${CMAKE_BINARY_DIR}/wasm"
  PREFIX "${CMAKE_BINARY_DIR}/wasm-ep"
  CONFIGURE_COMMAND ${_tf_wasm_env} ${TF_EMCMAKE} ${CMAKE_COMMAND}
    -S <SOURCE_DIR> -B <BINARY_DIR> -G ${CMAKE_GENERATOR}
    -DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
    -DCMAKE_BUILD_TYPE=Release
    -Dnlohmann_json_DIR=${CMAKE_SOURCE_DIR}/client/web/wasm/cmake/nlohmann_json
    -DTF_WASM_OUTPUT_DIR=${TF_WASM_OUTPUT_DIR}
  BUILD_COMMAND ${_tf_wasm_env} ${CMAKE_COMMAND} --build <BINARY_DIR>
  BUILD_ALWAYS ON
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS "${TF_WASM_OUTPUT_DIR}/trunkfield-rules.mjs" "${TF_WASM_OUTPUT_DIR}/trunkfield-rules.wasm"
                   "${TF_WASM_OUTPUT_DIR}/trunkfield-rules.js"
  USES_TERMINAL_CONFIGURE ON
  USES_TERMINAL_BUILD ON)
set(TF_WASM_BUNDLE "${TF_WASM_OUTPUT_DIR}/trunkfield-rules.js")
message(STATUS "WebAssembly build: ${TF_EMXX} -> ${TF_WASM_OUTPUT_DIR}")

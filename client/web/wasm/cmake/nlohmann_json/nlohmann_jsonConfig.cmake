# nlohmann_json for the emscripten build: the host's header-only package (Debian's
# nlohmann-json3-dev) without its include dir. Adding /usr/include to an emscripten compile would
# pull the host's glibc headers in front of emscripten's libc, so this package exposes a
# build-time folder holding only a link `nlohmann/` -> <host include>/nlohmann.
# Used through -Dnlohmann_json_DIR=<this folder> (cmake/wasm.cmake and the `wasm` preset).
set(TF_HOST_NLOHMANN_INCLUDE "/usr/include" CACHE PATH
    "Host folder that holds nlohmann/json.hpp (only its nlohmann/ subfolder is used)")
if(NOT EXISTS "${TF_HOST_NLOHMANN_INCLUDE}/nlohmann/json.hpp")
  set(nlohmann_json_FOUND FALSE)
  set(nlohmann_json_NOT_FOUND_MESSAGE
      "no ${TF_HOST_NLOHMANN_INCLUDE}/nlohmann/json.hpp (set TF_HOST_NLOHMANN_INCLUDE)")
  return()
endif()

set(_tf_nlohmann_dir "${CMAKE_BINARY_DIR}/_deps/nlohmann_json/include")
if(NOT EXISTS "${_tf_nlohmann_dir}/nlohmann/json.hpp")
  file(MAKE_DIRECTORY "${_tf_nlohmann_dir}")
  file(CREATE_LINK "${TF_HOST_NLOHMANN_INCLUDE}/nlohmann" "${_tf_nlohmann_dir}/nlohmann"
       COPY_ON_ERROR SYMBOLIC)
endif()

if(NOT TARGET nlohmann_json::nlohmann_json)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  # Imported include dirs are system dirs: the header's warnings stay out of -Werror.
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_tf_nlohmann_dir}")
endif()
set(nlohmann_json_FOUND TRUE)

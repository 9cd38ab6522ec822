// The web client's static files on the HTTP port (client/web/app/ + the wasm bundle, copied by
// CMake into <build>/web/). Pure file and path logic: no Beast here (http_session.cpp serves).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace tf::server {

// The folder served at "/": <directory of the running executable>/../web, the build's layout
// (build/bin/trunkfield-server next to build/web/). Empty when it cannot be determined.
std::string default_web_root();

// Maps a request target ("/", "/g/k3v9qa", "/app.js?x=1") to a relative file path under the web
// root: "/" and the shareable game links "/g/CODE" give "index.html". The path is percent-decoded
// and normalised; nullopt (answer 404) for anything suspicious: "..", a backslash, a NUL or
// control byte, a segment starting with ".", a bad %-escape, or a target not starting with "/".
std::optional<std::string> static_relative_path(std::string_view target);

// Content-Type for a file name by extension ("text/javascript; charset=utf-8" for .js/.mjs,
// "image/svg+xml", ...); application/octet-stream when unknown.
std::string_view static_content_type(std::string_view filename);

struct StaticFile {
    std::string body;
    std::string content_type;
    std::string etag;           // weak validator from size and modification time
    std::string cache_control;  // "no-cache": always revalidate (file names are not hashed)
};

// Loads target's file from root. nullopt when the target is refused, the file is missing, not a
// regular file, or (after resolving symlinks) outside root.
std::optional<StaticFile> load_static_file(const std::filesystem::path& root,
                                           std::string_view target);

}  // namespace tf::server

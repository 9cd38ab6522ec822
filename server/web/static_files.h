// The web client's static files on the HTTP port (client/web/app/ + the wasm bundle, assembled by
// CMake into <build>/web/ by client/web/assemble.mjs: content-hashed file names next to gzip and
// brotli copies). Pure file and path logic: no Beast here (http_session.cpp serves).
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
// root: "/" and the shareable game links "/g/CODE" (the code in any letter case) give
// "index.html". The path is percent-decoded
// and normalised; nullopt (answer 404) for anything suspicious: "..", a backslash, a NUL or
// control byte, a segment starting with ".", a bad %-escape, or a target not starting with "/".
std::optional<std::string> static_relative_path(std::string_view target);

// Content-Type for a file name by extension ("text/javascript; charset=utf-8" for .js/.mjs,
// "image/svg+xml", ...); application/octet-stream when unknown.
std::string_view static_content_type(std::string_view filename);

// True for a content-hashed file name, "<name>.<10 lowercase hex digits>.<ext>"
// ("app.3fa2c1d9e0.js"): its content never changes, so it may be cached for good.
bool is_hashed_name(std::string_view filename);

// Whether an Accept-Encoding header value accepts `coding` ("gzip", "br"): listed by name or as
// "*", with no "q=0". Case-insensitive, as RFC 9110 says.
bool accepts_encoding(std::string_view accept_encoding, std::string_view coding);

struct StaticFile {
    std::filesystem::path path;  // the file whose bytes answer (the precompressed copy, if any)
    std::uintmax_t size = 0;
    std::string content_type;
    std::string content_encoding;  // "" (the file itself), "br" or "gzip" (a precompressed copy)
    std::string etag;              // weak validator from size, modification time and encoding
    // "public, max-age=31536000, immutable" for hashed names, else "no-cache" (revalidate)
    std::string cache_control;
    bool vary = false;  // a precompressed copy exists: answers depend on Accept-Encoding
};

// Loads target's file from root. nullopt when the target is refused, the file is missing, not a
// regular file, or (after resolving symlinks) outside root. When `accept_encoding` accepts it and
// a copy at least as new as the file exists next to it, the answer is FILE.br or else FILE.gz.
// Nothing is read: the caller streams `path`.
std::optional<StaticFile> load_static_file(const std::filesystem::path& root,
                                           std::string_view target,
                                           std::string_view accept_encoding = {});

}  // namespace tf::server

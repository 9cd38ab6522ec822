// Small helpers shared by the integration tests: a temporary folder, plain HTTP GETs against the
// server, and the history API's JSON answers.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server_process.h"

namespace tf::test {

// A fresh folder under /tmp, removed with everything in it when destroyed.
struct TempDir {
    std::string path;
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

// Message credits without limit, so that tests are never rate limited.
extern const std::vector<std::string> kFast;
// kFast plus --data `dir`.
std::vector<std::string> with_data(const std::string& dir);

struct HttpReply {
    int status = 0;
    std::string headers, body;
};
// Replaces the --fault-file at `path` with `text` (written beside it, then renamed: a new inode,
// so the server sees a new mtime for sure).
void set_faults(const std::string& path, const std::string& text);

// A GET over a plain socket (HTTP/1.0: the server closes after the answer).
// `headers`: extra request header lines, each ending in \r\n ("Authorization: Bearer T\r\n").
HttpReply http_get(unsigned short port, const std::string& target, const std::string& headers = "");
// A history API answer, checked to have status `want` and a JSON body.
nlohmann::json api(ServerProcess& s, const std::string& target, int want = 200);

}  // namespace tf::test

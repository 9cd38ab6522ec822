#include "test_util.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "client/lib/traffic_log.h"
#include "game_client.h"

namespace tf::test {

TempDir::TempDir() {
    char t[] = "/tmp/tf-test-XXXXXX";
    REQUIRE(mkdtemp(t));
    path = t;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
}

const std::vector<std::string> kFast = {"--rate", "1000000", "--burst", "1000000"};

std::vector<std::string> with_data(const std::string& dir) {
    auto args = kFast;
    args.push_back("--data");
    args.push_back(dir);
    return args;
}

void set_faults(const std::string& path, const std::string& text) {
    std::ofstream(path + ".tmp") << text;
    std::rename((path + ".tmp").c_str(), path.c_str());
}

HttpReply http_get(unsigned short port, const std::string& target, const std::string& headers) {
    int fd = connect_loopback(port);
    std::string req = "GET " + target + " HTTP/1.0\r\nHost: localhost\r\n" + headers + "\r\n";
    REQUIRE(write(fd, req.data(), req.size()) == ssize_t(req.size()));
    std::string all;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) all.append(buf, std::size_t(n));
    close(fd);
    HttpReply r;
    auto end = all.find("\r\n\r\n");
    REQUIRE(end != std::string::npos);
    r.headers = all.substr(0, end);
    r.body = all.substr(end + 4);
    r.status = std::stoi(all.substr(9, 3));
    // The history API's answers are schema-checked with the rest of the traffic.
    if (target.rfind("/api/", 0) == 0) client::traffic::record_http(target, r.status, r.body);
    return r;
}

nlohmann::json api(ServerProcess& s, const std::string& target, int want) {
    auto r = http_get(s.http_port(), target);
    INFO(target << " -> " << r.status << " " << r.body);
    CHECK(r.status == want);
    CHECK(r.headers.find("application/json") != std::string::npos);
    return nlohmann::json::parse(r.body);
}

}  // namespace tf::test

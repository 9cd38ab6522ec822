#include "http_api.h"

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <iostream>

#include "client/lib/http_client.h"
#include "play_cmd.h"
#include "play_input.h"

namespace tf::cli {

using Json = nlohmann::json;

CLI::Option* add_http_server_option(CLI::App* cmd, std::string& server, const std::string& what) {
    return add_server_option(cmd, server, what, true);
}

ApiError::ApiError(unsigned status_, std::string code_, const std::string& words)
    : std::runtime_error(words), status(status_), code(std::move(code_)) {}

Json HttpApi::call(const std::string& method, const std::string& target, const Json& body) const {
    auto r =
        client::http_request(host, port, method, target, body.is_null() ? "" : body.dump(), token);
    auto j = Json::parse(r.body, nullptr, false);
    if (r.status == 404 && (j.is_discarded() || !j.is_object()))
        throw std::runtime_error(target.substr(0, target.find('?')) +
                                 ": this server does not have it (an older version?)");
    if (j.is_discarded() || !j.is_object())
        throw std::runtime_error(target + ": HTTP " + std::to_string(r.status) + ", not JSON");
    if (r.status == 200) return j;
    const Json code = j.value("error", Json()), msg = j.value("message", Json());
    const std::string c = code.is_string() ? play::clean_text(code.get<std::string>(), 60) : "";
    if (r.status == 401)
        throw ApiError(r.status, c,
                       "this server does not know the token: sign in first (trunkfield play, "
                       "then  login NAME), or give --token");
    std::string words = msg.is_string() ? play::clean_text(msg.get<std::string>(), 300)
                                        : target + ": HTTP " + std::to_string(r.status);
    if (!c.empty()) words += " (" + c + ")";
    throw ApiError(r.status, c, words);
}

std::string HttpApi::link(const std::string& path) const {
    const bool v6 = host.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + path;
}

std::optional<HttpApi> http_api(const std::string& server, const std::string& token,
                                std::string& err, bool need_token) {
    HttpApi api;
    if (!play::parse_http_server(server, api.host, api.port)) {
        err = "--server: HOST:PORT (the HTTP port)";
        return std::nullopt;
    }
    api.token = !token.empty() ? token : saved_token_for_host(api.host);
    if (api.token.empty() && need_token) {
        err = "no token for " + api.host +
              ": sign in first (trunkfield play, then  login NAME), or give --token";
        return std::nullopt;
    }
    return api;
}

std::string local_time(const Json& at) {
    const std::string unknown = "(unknown time)  ";
    if (!at.is_number_integer()) return unknown;
    const std::time_t t = std::time_t(at.get<std::int64_t>() / 1000);
    std::tm tm{};
    char buf[32];
    if (!localtime_r(&t, &tm) || !std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm))
        return unknown;
    return buf;
}

std::string text_of(const Json& item, const char* key, const std::string& none, std::size_t max) {
    const Json v = item.value(key, Json());
    return v.is_string() ? play::clean_text(v.get<std::string>(), max) : none;
}

std::optional<std::vector<Json>> list_of(const Json& answer, const char* key) {
    auto it = answer.find(key);
    if (it == answer.end() || !it->is_array()) return std::nullopt;
    std::vector<Json> items;
    for (const Json& item : *it)
        if (item.is_object()) items.push_back(item);
    return items;
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width;
    for (const auto& row : rows) {
        width.resize(std::max(width.size(), row.size()));
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    for (const auto& row : rows) {
        std::string line = " ";
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += " " + row[c];
            if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 1, ' ');
        }
        line.erase(line.find_last_not_of(' ') + 1);  // an empty last cell
        std::cout << line << "\n";
    }
}

}  // namespace tf::cli

// What the commands on the server's HTTP API share (`notifications`, `follow` and the other
// relations, `following`, `report`; proto/PROTOCOL.md): --server for the HTTP port, the account's
// token (--token, TRUNKFIELD_TOKEN, or the one `trunkfield play` saved for that host), one JSON
// request and the server's refusal in words.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_args.h"

namespace tf::cli {

// --server HOST:PORT, the server's HTTP port (play::parse_http_server: "http://HOST:PORT/" too),
// with `what` as its description.
CLI::Option* add_http_server_option(CLI::App* cmd, std::string& server, const std::string& what);

// An error status from the API. `code` is the server's error code ("" when the answer had
// none); what() says it in words, safe to print: the server's message and its code
// ("no account is called zed (unknown_player)"), or for 401 how to sign in.
struct ApiError : std::runtime_error {
    ApiError(unsigned status, std::string code, const std::string& words);
    unsigned status;
    std::string code;
};

// The HTTP API of one server, with one account's token.
struct HttpApi {
    std::string host;
    unsigned short port = 0;
    std::string token;

    // The answer's JSON object. Throws ApiError for an error status, std::runtime_error when
    // the server cannot be reached or does not answer JSON.
    nlohmann::json call(const std::string& method, const std::string& target,
                        const nlohmann::json& body = nullptr) const;
    // "http://HOST:PORT/g/CODE": where a browser watches (or replays) a game.
    std::string game_link(const std::string& code) const { return link("/g/" + code); }
    // "http://HOST:PORT" + path: a page of the web client.
    std::string link(const std::string& path) const;
};

// The API at `server` (HOST:PORT as --server takes it) with `token`, or when it is empty the
// token saved for that host (saved_token_for_host). nullopt, with `err` saying why, when the
// address is malformed or there is no token (and `need_token`: reading public pages needs none).
std::optional<HttpApi> http_api(const std::string& server, const std::string& token,
                                std::string& err, bool need_token = true);

// A string field of the server's answer, safe to print (play::clean_text, at most `max`
// characters); `none` when missing or not a string.
std::string text_of(const nlohmann::json& item, const char* key, const std::string& none = "?",
                    std::size_t max = 60);
// The objects of the list `key` in the answer; nullopt when the server sent no such list (a
// server older than the list).
std::optional<std::vector<nlohmann::json>> list_of(const nlohmann::json& answer, const char* key);
// Rows (the first one a header) printed as a table, each column as wide as its widest cell,
// indented by two spaces.
void print_table(const std::vector<std::vector<std::string>>& rows);

// "2025-05-01 14:03" in local time, from epoch ms; "(unknown time)" padded to the same width
// when `at` is not a whole number.
std::string local_time(const nlohmann::json& at);

}  // namespace tf::cli

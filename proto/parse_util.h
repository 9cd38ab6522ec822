// Helpers of the two strict parsers (parse.cpp for client messages, parse_server.cpp for server
// messages): a field of an exact JSON type, or a Fail naming it. Internal to proto/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>

#include "proto/messages.h"

namespace tf::proto::detail {

struct Fail {
    Error e;
};
[[noreturn]] inline void bad(const std::string& msg) {
    throw Fail{{Err::BadMessage, msg}};
}

inline const Json& field(const Json& j, const char* k) {
    auto it = j.find(k);
    if (it == j.end()) bad(std::string("missing field \"") + k + "\"");
    return *it;
}
// Absent and null both mean "not given".
inline const Json* opt_field(const Json& j, const char* k) {
    auto it = j.find(k);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}
inline const Json& object(const Json& v, const char* k) {
    if (!v.is_object()) bad(std::string("field \"") + k + "\" must be an object");
    return v;
}
inline const Json& array(const Json& v, const char* k) {
    if (!v.is_array()) bad(std::string("field \"") + k + "\" must be an array");
    return v;
}
// Characters (Unicode code points) of UTF-8 text that is valid (nlohmann checked it).
inline std::size_t chars(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}
// A string of at most `max` characters.
inline std::string str(const Json& v, const char* k, std::size_t max = 256) {
    if (!v.is_string()) bad(std::string("field \"") + k + "\" must be a string");
    auto s = v.get<std::string>();
    if (s.size() > max && chars(s) > max)
        bad(std::string("field \"") + k + "\" is longer than " + std::to_string(max) +
            " characters");
    return s;
}
inline std::int64_t integer(const Json& v, const char* k) {
    if (!v.is_number_integer()) bad(std::string("field \"") + k + "\" must be an integer");
    return v.get<std::int64_t>();
}
inline std::int64_t non_negative(const Json& v, const char* k) {
    auto n = integer(v, k);
    if (n < 0) bad(std::string("field \"") + k + "\" must be >= 0");
    return n;
}
inline bool boolean(const Json& v, const char* k) {
    if (!v.is_boolean()) bad(std::string("field \"") + k + "\" must be a boolean");
    return v.get<bool>();
}
// Absent or null: false.
inline bool opt_bool(const Json& j, const char* k) {
    const Json* v = opt_field(j, k);
    return v && boolean(*v, k);
}
// Absent or null: nullopt.
inline std::optional<bool> opt_bool_field(const Json& j, const char* k) {
    if (auto* v = opt_field(j, k)) return boolean(*v, k);
    return std::nullopt;
}
inline std::optional<std::string> opt_str(const Json& j, const char* k, std::size_t max = 256) {
    if (auto* v = opt_field(j, k)) return str(*v, k, max);
    return std::nullopt;
}
inline std::optional<std::int64_t> opt_version(const Json& j, const char* k) {
    if (auto* v = opt_field(j, k)) return non_negative(*v, k);
    return std::nullopt;
}

// One message: its "type" picks the parser in `table`; anything malformed is an Error, whose
// ref is the message's own when one can be read (a client matching answers by ref gets its
// answer).
template <class Msg>
std::variant<Msg, Error> parse_typed(
    const Json& j, const std::unordered_map<std::string, Msg (*)(const Json&)>& table) {
    if (!j.is_object()) return Error{Err::BadJson, "a message must be a JSON object"};
    auto t = j.find("type");
    if (t == j.end() || !t->is_string())
        return Error{Err::UnknownType, "missing string field \"type\""};
    auto it = table.find(t->get<std::string>());
    if (it == table.end()) return Error{Err::UnknownType, "unknown message type"};
    try {
        return it->second(j);
    } catch (const Fail& f) {
        Error e = f.e;
        if (auto r = j.find("ref");
            r != j.end() && r->is_string() && chars(r->get<std::string>()) <= 64)
            e.ref = r->get<std::string>();
        return e;
    }
}

// JSON text into parse_typed.
template <class Msg, class F>
std::variant<Msg, Error> parse_text(std::string_view text, F&& parse) {
    Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Error{Err::BadJson, "malformed JSON"};
    return parse(j);
}

}  // namespace tf::proto::detail

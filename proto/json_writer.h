// A small JSON writer that appends compact JSON to a string: what the server sends is written
// straight into one buffer instead of being built as a tree and dumped. It writes exactly what
// nlohmann::json's dump() writes for the same value (no spaces; strings escaped alike), so
// callers that write object keys in sorted order produce the same bytes as a dumped tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/turn.h"
#include "common/types.h"

namespace tf::proto {

struct TimeControl;

class JsonWriter {
  public:
    explicit JsonWriter(std::string& out) : out_(out) {}

    JsonWriter& begin_object() { return open('{'); }
    JsonWriter& end_object() { return close('}'); }
    JsonWriter& begin_array() { return open('['); }
    JsonWriter& end_array() { return close(']'); }
    // The key of the next value.
    JsonWriter& key(std::string_view k);
    JsonWriter& value(std::string_view s);
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
    JsonWriter& value(std::int64_t v);
    JsonWriter& value(int v) { return value(std::int64_t(v)); }
    JsonWriter& value(bool b);
    JsonWriter& null();
    // An already serialized JSON value.
    JsonWriter& raw(std::string_view json);

  private:
    JsonWriter& open(char c);
    JsonWriter& close(char c);
    void separate();
    void string(std::string_view s);

    std::string& out_;
    static constexpr int kMaxDepth = 32;
    bool first_[kMaxDepth] = {true};
    int depth_ = 0;
    bool after_key_ = false;
};

// The rules' canonical values (spec §6), byte for byte as tf::to_json(...).dump() has them.
void write(JsonWriter& w, Cell c);
void write(JsonWriter& w, const Variant& v);
void write(JsonWriter& w, const Setup& s);
void write(JsonWriter& w, const Turn& t);
void write(JsonWriter& w, Side s);
void write(JsonWriter& w, const TimeControl& t);
void write(JsonWriter& w, const std::optional<TimeControl>& t);  // null when untimed

}  // namespace tf::proto

#include "proto/json_writer.h"

#include <charconv>

#include "proto/messages.h"

namespace tf::proto {

JsonWriter& JsonWriter::open(char c) {
    separate();
    out_ += c;
    if (depth_ + 1 < kMaxDepth) ++depth_;
    first_[depth_] = true;
    return *this;
}

JsonWriter& JsonWriter::close(char c) {
    if (depth_ > 0) --depth_;
    out_ += c;
    return *this;
}

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!first_[depth_]) out_ += ',';
    first_[depth_] = false;
}

JsonWriter& JsonWriter::key(std::string_view k) {
    separate();
    string(k);
    out_ += ':';
    after_key_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
    separate();
    string(s);
    return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
    separate();
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
    return *this;
}

JsonWriter& JsonWriter::value(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    separate();
    out_ += "null";
    return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
    separate();
    out_ += json;
    return *this;
}

// As nlohmann::json escapes: the two-character forms where JSON has one, \u00xx (lower case)
// for the other control characters, everything else (UTF-8 included) as it is.
void JsonWriter::string(std::string_view s) {
    out_ += '"';
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out_.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
            case '"':
                out_ += "\\\"";
                break;
            case '\\':
                out_ += "\\\\";
                break;
            case '\b':
                out_ += "\\b";
                break;
            case '\f':
                out_ += "\\f";
                break;
            case '\n':
                out_ += "\\n";
                break;
            case '\r':
                out_ += "\\r";
                break;
            case '\t':
                out_ += "\\t";
                break;
            default: {
                static const char* hex = "0123456789abcdef";
                out_ += "\\u00";
                out_ += hex[c >> 4];
                out_ += hex[c & 15];
            }
        }
    }
    out_.append(s.data() + run, s.size() - run);
    out_ += '"';
}

void write(JsonWriter& w, Cell c) {
    w.begin_array().value(c.x).value(c.y).end_array();
}

void write(JsonWriter& w, const Variant& v) {
    w.begin_object();
    w.key("burnt").value(v.burnt);
    w.key("elephants").value(v.elephants);
    w.key("quiet").value(v.quiet);
    w.key("size").value(v.size);
    w.end_object();
}

void write(JsonWriter& w, const Setup& s) {
    w.begin_object();
    w.key("elephants").begin_array();
    for (Cell c : s.elephants) write(w, c);
    w.end_array();
    w.key("guardians").begin_array();
    for (Cell c : s.guardians) write(w, c);
    w.end_array();
    w.end_object();
}

void write(JsonWriter& w, const Turn& t) {
    w.begin_object();
    w.key("burnt");
    if (t.burnt)
        write(w, *t.burnt);
    else
        w.null();
    w.key("elephant");
    if (t.elephant) {
        w.begin_object();
        if (t.elephant->facing) {
            const char f[2] = {dir_char(*t.elephant->facing), 0};
            w.key("facing").value(std::string_view(f, 1));
        }
        w.key("from");
        write(w, t.elephant->from);
        w.key("path").begin_array();
        for (Cell c : t.elephant->path) write(w, c);
        w.end_array();
        w.end_object();
    } else {
        w.null();
    }
    w.key("guardians").begin_array();
    for (const GuardianMove& g : t.guardians) {
        w.begin_object();
        w.key("dir").value(rot_name(g.dir));
        w.key("from");
        write(w, g.from);
        w.key("steps").value(g.steps);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

void write(JsonWriter& w, Side s) {
    w.value(side_name(s));
}

void write(JsonWriter& w, const TimeControl& t) {
    w.begin_object();
    if (t.correspondence()) {
        w.key("days_per_move").value(std::int64_t(t.days_per_move));
        w.end_object();
        return;
    }
    if (t.berserk) w.key("berserk").value(true);
    w.key("increment_ms").value(t.increment_ms);
    w.key("initial_ms").value(t.initial_ms);
    w.end_object();
}

void write(JsonWriter& w, const std::optional<TimeControl>& t) {
    if (t)
        write(w, *t);
    else
        w.null();
}

}  // namespace tf::proto

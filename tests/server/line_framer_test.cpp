// The TCP transport's line framing (server/web/line_framer.h): lines split anywhere, CR/LF, blank
// lines, the size limit at its exact boundary, and nothing after a line that is too long.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/web/line_framer.h"

namespace tf::server {
namespace {

using Status = LineFramer::Status;

// Every line available now, then "<need>" or "<too long>".
std::vector<std::string> drain(LineFramer& f) {
    std::vector<std::string> out;
    for (;;) {
        auto r = f.next();
        if (r.status == Status::Line) {
            out.emplace_back(r.line);
            continue;
        }
        out.push_back(r.status == Status::NeedMore ? "<need>" : "<too long>");
        return out;
    }
}

using Lines = std::vector<std::string>;

TEST_CASE("line framer: complete lines, CR LF, blank lines") {
    LineFramer f(100);
    CHECK(drain(f) == Lines{"<need>"});
    f.feed("{\"type\":\"ping\"}\n\n\r\nabc\r\n x \n   \n\t \r\n");
    CHECK(drain(f) == Lines{"{\"type\":\"ping\"}", "abc", " x ", "<need>"});  // blank: skipped
    CHECK(f.pending() == 0);
    // Only one trailing CR goes; a CR elsewhere stays.
    f.feed("a\r\r\nb\rc\n\r");
    CHECK(drain(f) == Lines{"a\r", "b\rc", "<need>"});
    CHECK(f.pending() == 1);
    f.feed("\n");
    CHECK(drain(f) == Lines{"<need>"});
}

TEST_CASE("line framer: a line split over many feeds, one byte at a time") {
    LineFramer f(100);
    std::string text = "hello\r\nworld\n";
    Lines got;
    for (char c : text) {
        f.feed(std::string_view(&c, 1));
        for (auto& l : drain(f))
            if (l != "<need>") got.push_back(l);
    }
    CHECK(got == Lines{"hello", "world"});
}

TEST_CASE("line framer: a line returned stays valid until the next feed") {
    LineFramer f(100);
    f.feed("one\ntwo\nthr");
    auto a = f.next();
    auto b = f.next();
    REQUIRE(a.status == Status::Line);
    REQUIRE(b.status == Status::Line);
    CHECK(a.line == "one");
    CHECK(b.line == "two");
    CHECK(f.next().status == Status::NeedMore);
    f.feed("ee\n");
    CHECK(drain(f) == Lines{"three", "<need>"});
}

TEST_CASE("line framer: the size limit counts the bytes before the newline, CR included") {
    const std::size_t max = 16;
    std::string at_limit(max, 'x');
    SUBCASE("exactly the limit is a line") {
        LineFramer f(max);
        f.feed(at_limit + "\n");
        CHECK(drain(f) == Lines{at_limit, "<need>"});
    }
    SUBCASE("the limit with a CR inside it") {
        LineFramer f(max);
        f.feed(at_limit.substr(1) + "\r\n");
        CHECK(drain(f) == Lines{at_limit.substr(1), "<need>"});
    }
    SUBCASE("one byte more, newline present, is too long") {
        LineFramer f(max);
        f.feed(at_limit + "y\n");
        CHECK(drain(f) == Lines{"<too long>"});
    }
    SUBCASE("the limit plus CR is too long") {
        LineFramer f(max);
        f.feed(at_limit + "\r\n");
        CHECK(drain(f) == Lines{"<too long>"});
    }
    SUBCASE("the limit without a newline waits; one byte more is too long at once") {
        LineFramer f(max);
        f.feed(at_limit);
        CHECK(drain(f) == Lines{"<need>"});
        f.feed("y");
        CHECK(drain(f) == Lines{"<too long>"});
    }
    SUBCASE("lines before the long one are delivered; nothing after it") {
        LineFramer f(max);
        f.feed("a\nb\n" + at_limit + "zz\nc\n");
        CHECK(drain(f) == Lines{"a", "b", "<too long>"});
        f.feed("d\n");
        CHECK(drain(f) == Lines{"<too long>"});
        CHECK(f.pending() == 0);
    }
    SUBCASE("many short lines in one feed are not limited together") {
        LineFramer f(max);
        std::string many;
        for (int i = 0; i < 100; ++i) many += "0123456789\n";
        f.feed(many);
        auto got = drain(f);
        CHECK(got.size() == 101);
        CHECK(got.back() == "<need>");
    }
}

TEST_CASE("line framer: the protocol limit, 16 KiB") {
    const std::size_t max = 16 * 1024;
    LineFramer f(max);
    std::string big(max - 1, 'a');
    f.feed(big + "\r\n");
    CHECK(drain(f) == Lines{big, "<need>"});
    std::string chunk(4096, 'b');
    for (int i = 0; i < 4; ++i) {
        f.feed(chunk);
        CHECK(drain(f) == Lines{"<need>"});
    }
    CHECK(f.pending() == max);
    f.feed("b");
    CHECK(drain(f) == Lines{"<too long>"});
}

}  // namespace
}  // namespace tf::server

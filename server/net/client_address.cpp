#include "server/net/client_address.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

namespace tf::server {

namespace ip = boost::asio::ip;

namespace {

ip::address unmapped(const ip::address& a) {
    if (a.is_v6() && a.to_v6().is_v4_mapped()) return ip::make_address_v4(ip::v4_mapped, a.to_v6());
    return a;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// An X-Forwarded-For entry: an address, maybe with a port ("192.0.2.1:4711", "[2001:db8::1]:80").
std::optional<ip::address> entry_address(std::string_view e) {
    e = trim(e);
    if (e.size() > 64) return std::nullopt;
    if (!e.empty() && e.front() == '[') {
        auto close = e.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        e = e.substr(1, close - 1);
    } else if (std::count(e.begin(), e.end(), ':') == 1) {
        e = e.substr(0, e.find(':'));
    }
    boost::system::error_code ec;
    auto a = ip::make_address(std::string(e), ec);
    if (ec) return std::nullopt;
    return unmapped(a);
}

}  // namespace

std::optional<TrustedProxies> TrustedProxies::parse(const std::vector<std::string>& entries,
                                                    std::string& error) {
    TrustedProxies t;
    for (const std::string& raw : entries) {
        std::string_view e = trim(raw);
        if (e.empty()) continue;
        std::string_view addr = e;
        int prefix = -1;
        if (auto slash = e.find('/'); slash != std::string_view::npos) {
            addr = e.substr(0, slash);
            auto p = e.substr(slash + 1);
            auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), prefix);
            if (ec != std::errc() || end != p.data() + p.size() || prefix < 0) {
                error = "not an address or CIDR block: " + raw;
                return std::nullopt;
            }
        }
        boost::system::error_code ec;
        auto a = ip::make_address(std::string(addr), ec);
        if (ec) {
            error = "not an address or CIDR block: " + raw;
            return std::nullopt;
        }
        a = unmapped(a);
        const int bits = a.is_v4() ? 32 : 128;
        if (prefix < 0) prefix = bits;
        if (prefix > bits) {
            error = "prefix longer than the address in " + raw;
            return std::nullopt;
        }
        t.nets_.push_back({a, prefix});
    }
    return t;
}

bool TrustedProxies::contains(const ip::address& raw) const {
    const ip::address a = unmapped(raw);
    for (const Net& n : nets_) {
        if (n.base.is_v4() != a.is_v4()) continue;
        auto match = [&](const auto& x, const auto& y) {
            int left = n.prefix;
            for (std::size_t i = 0; i < x.size() && left > 0; ++i, left -= 8) {
                const unsigned mask = left >= 8 ? 0xffu : (0xffu << (8 - left)) & 0xffu;
                if ((x[i] & mask) != (y[i] & mask)) return false;
            }
            return true;
        };
        if (a.is_v4() ? match(a.to_v4().to_bytes(), n.base.to_v4().to_bytes())
                      : match(a.to_v6().to_bytes(), n.base.to_v6().to_bytes()))
            return true;
    }
    return false;
}

ip::address forwarded_client(const ip::address& peer, std::string_view forwarded_for,
                             const TrustedProxies& trusted) {
    ip::address client = unmapped(peer);
    if (!trusted.contains(client)) return client;
    while (!trim(forwarded_for).empty()) {
        std::string_view entry = forwarded_for;
        if (auto comma = forwarded_for.rfind(','); comma != std::string_view::npos) {
            entry = forwarded_for.substr(comma + 1);
            forwarded_for = forwarded_for.substr(0, comma);
        } else {
            forwarded_for = {};
        }
        auto a = entry_address(entry);
        if (!a) break;
        client = *a;
        if (!trusted.contains(client)) break;
    }
    return client;
}

namespace {

constexpr std::array<unsigned char, 12> kV2Signature = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D,
                                                        0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
constexpr std::string_view kV1Prefix = "PROXY ";
constexpr std::size_t kV1Max = 107;        // the specification's longest v1 line, CRLF included
constexpr std::size_t kV2Max = 16 + 1024;  // addresses and TLVs: more is refused

ProxyHeader bad(std::string why) {
    ProxyHeader h;
    h.status = ProxyHeader::Status::Bad;
    h.why = std::move(why);
    return h;
}

ProxyHeader parse_v2(std::string_view b) {
    if (b.size() < 16) return {};
    const auto u8 = [&](std::size_t i) { return static_cast<unsigned char>(b[i]); };
    if ((u8(12) >> 4) != 2) return bad("PROXY v2: version is not 2");
    const unsigned command = u8(12) & 0x0F;
    if (command > 1) return bad("PROXY v2: unknown command");
    const std::size_t len = (std::size_t(u8(14)) << 8) | u8(15);
    if (16 + len > kV2Max) return bad("PROXY v2: header too long");
    if (b.size() < 16 + len) return {};
    ProxyHeader h;
    h.status = ProxyHeader::Status::Done;
    h.length = 16 + len;
    if (command == 0) return h;  // LOCAL: the proxy's own connection
    const unsigned family = u8(13) >> 4;
    if (family == 1) {
        if (len < 12) return bad("PROXY v2: IPv4 addresses cut short");
        ip::address_v4::bytes_type a;
        std::memcpy(a.data(), b.data() + 16, 4);
        h.source = ip::address_v4(a);
    } else if (family == 2) {
        if (len < 36) return bad("PROXY v2: IPv6 addresses cut short");
        ip::address_v6::bytes_type a;
        std::memcpy(a.data(), b.data() + 16, 16);
        h.source = unmapped(ip::address_v6(a));
    }
    return h;  // UNSPEC or a Unix socket: no address to believe
}

ProxyHeader parse_v1(std::string_view b) {
    const auto end = b.find("\r\n");
    if (end == std::string_view::npos)
        return b.size() >= kV1Max ? bad("PROXY v1: no end of line within 107 bytes")
                                  : ProxyHeader{};
    if (end + 2 > kV1Max) return bad("PROXY v1: line too long");
    std::string_view line = b.substr(kV1Prefix.size(), end - kV1Prefix.size());
    std::vector<std::string_view> words;
    while (!line.empty()) {
        auto sp = line.find(' ');
        words.push_back(line.substr(0, sp));
        line = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
    }
    ProxyHeader h;
    h.status = ProxyHeader::Status::Done;
    h.length = end + 2;
    if (!words.empty() && words[0] == "UNKNOWN") return h;
    if (words.size() != 5 || (words[0] != "TCP4" && words[0] != "TCP6"))
        return bad("PROXY v1: not TCP4/TCP6 with two addresses and two ports");
    boost::system::error_code ec;
    auto a = ip::make_address(std::string(words[1]), ec);
    if (ec || a.is_v4() != (words[0] == "TCP4")) return bad("PROXY v1: bad source address");
    h.source = unmapped(a);
    return h;
}

}  // namespace

ProxyHeader parse_proxy_header(std::string_view b) {
    const std::size_t n2 = std::min(b.size(), kV2Signature.size());
    if (n2 > 0 && std::memcmp(b.data(), kV2Signature.data(), n2) == 0)
        return n2 < kV2Signature.size() ? ProxyHeader{} : parse_v2(b);
    const std::size_t n1 = std::min(b.size(), kV1Prefix.size());
    if (n1 > 0 && b.substr(0, n1) == kV1Prefix.substr(0, n1))
        return n1 < kV1Prefix.size() ? ProxyHeader{} : parse_v1(b);
    ProxyHeader h;
    h.status = b.empty() ? ProxyHeader::Status::NeedMore : ProxyHeader::Status::NotProxy;
    return h;
}

std::string proxy_v2_header(const ip::address& source, unsigned short port) {
    std::string h(reinterpret_cast<const char*>(kV2Signature.data()), kV2Signature.size());
    const ip::address a = unmapped(source);
    h += char(0x21);                     // version 2, PROXY
    h += char(a.is_v4() ? 0x11 : 0x21);  // TCP over IPv4 / IPv6
    const std::size_t len = a.is_v4() ? 12 : 36;
    h += char(len >> 8);
    h += char(len & 0xff);
    auto put = [&](const auto& bytes) {
        h.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    };
    if (a.is_v4()) {
        put(a.to_v4().to_bytes());
        put(ip::make_address_v4("127.0.0.1").to_bytes());
    } else {
        put(a.to_v6().to_bytes());
        put(ip::make_address_v6("::1").to_bytes());
    }
    h += char(port >> 8);
    h += char(port & 0xff);
    h += char(0x1f);  // destination port 8081
    h += char(0x91);
    return h;
}

}  // namespace tf::server

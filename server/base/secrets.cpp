#include "server/base/secrets.h"

#include <sodium.h>
#include <sys/random.h>

#include <stdexcept>

namespace tf::server {

namespace {

void init_sodium() {
    static const bool ok = sodium_init() >= 0;
    if (!ok) throw std::runtime_error("libsodium cannot be initialised");
}

std::string hex(const unsigned char* p, std::size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        out += digits[p[i] >> 4];
        out += digits[p[i] & 15];
    }
    return out;
}

}  // namespace

std::string random_hex(std::size_t bytes) {
    std::string raw(bytes, '\0');
    std::size_t got = 0;
    while (got < bytes) {
        ssize_t r = getrandom(raw.data() + got, bytes - got, 0);
        if (r < 0) throw std::runtime_error("getrandom failed");
        got += std::size_t(r);
    }
    return hex(reinterpret_cast<const unsigned char*>(raw.data()), bytes);
}

std::string sha256_hex(std::string_view s) {
    unsigned char out[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(out, reinterpret_cast<const unsigned char*>(s.data()), s.size());
    return hex(out, sizeof out);
}

bool constant_time_equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

std::string hash_password(std::string_view password) {
    init_sodium();
    char out[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str_alg(
            out, password.data(), password.size(), crypto_pwhash_OPSLIMIT_INTERACTIVE,
            crypto_pwhash_MEMLIMIT_INTERACTIVE, crypto_pwhash_ALG_ARGON2ID13) != 0)
        throw std::runtime_error("out of memory hashing a password");
    return out;
}

bool check_password(std::string_view password, const std::string& hash) {
    init_sodium();
    if (hash.size() >= crypto_pwhash_STRBYTES) return false;
    return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0;
}

}  // namespace tf::server

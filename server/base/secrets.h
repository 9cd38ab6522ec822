// The server's secrets: random tokens, their stored hashes, and passwords. Tokens carry 128
// random bits, so a fast hash (SHA-256) is enough to keep a copy of the database from logging
// anyone in; passwords are chosen by people, so they get Argon2id (libsodium's crypto_pwhash,
// its "interactive" limits: 64 MiB and 2 passes, about 0.1 s here), computed off the network
// threads. Comparisons of secrets take the same time whatever they hold.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tf::server {

// `bytes` random bytes from the OS (getrandom), as 2 * bytes hex digits.
std::string random_hex(std::size_t bytes);
// Hex SHA-256 of `s`.
std::string sha256_hex(std::string_view s);
bool constant_time_equal(std::string_view a, std::string_view b);

// Argon2id in libsodium's self-describing string format (algorithm, limits and salt included,
// so the limits can change without invalidating stored hashes). Blocking and memory-hungry:
// never on a network thread. Throws std::runtime_error when the memory cannot be had.
std::string hash_password(std::string_view password);
bool check_password(std::string_view password, const std::string& hash);

}  // namespace tf::server

// What a new password must be (register, change_password): beyond the protocol's 8 to 128
// characters, at least 8 characters that are not spaces or controls, at least 5 different ones,
// not the username, and not one of the most common passwords (server/accounts/common-passwords.txt,
// John the Ripper's list of 3,546, compared ignoring letter case).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tf::server {

// Why `password` is too weak for `username`, as a message for the player; nullopt when it will
// do.
std::optional<std::string> password_weakness(std::string_view password, std::string_view username);

}  // namespace tf::server

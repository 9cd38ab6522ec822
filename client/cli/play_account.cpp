// Accounts in `trunkfield play`: register, login, logout, password. Passwords are asked for on
// the lines after the command (the terminal shows stars meanwhile), never taken as arguments,
// so they stay out of the shell's and the client's history.
#include "play_session.h"

namespace tf::play {

void Session::cmd_register(const std::vector<std::string>& w, std::string_view) {
    if (w.size() != 1 || !proto::is_username(w[0]))
        return fail("usage: register USERNAME  (3 to 20 letters, digits, _ or -)");
    if (account_) return fail("You are signed in as " + name_ + ": logout first.");
    secret_ = {Secret::Register, w[0], ""};
}

void Session::cmd_login(const std::vector<std::string>& w, std::string_view) {
    if (w.size() != 1 || w[0].size() > 80) return fail("usage: login USERNAME");
    secret_ = {Secret::Login, w[0], ""};
}

void Session::cmd_logout(const std::vector<std::string>& w, std::string_view) {
    if (!account_) return fail("You are not signed in.");
    proto::Logout m;
    m.everywhere = !w.empty() && w[0] == "everywhere";
    m.ref = "logout";
    send(proto::to_json(m));
}

void Session::cmd_password(const std::vector<std::string>&, std::string_view) {
    if (!account_) return fail("You are not signed in.");
    secret_ = {Secret::Current, name_, ""};
}

// The line typed while a password is asked for. An empty line gives up.
bool Session::on_secret(std::string_view line) {
    if (secret_.stage == Secret::None) return false;
    std::string text(line);
    if (!text.empty() && text.back() == '\r') text.pop_back();
    Secret s = std::exchange(secret_, Secret{});
    if (text.empty()) {
        note("(cancelled)");
        return true;
    }
    switch (s.stage) {
        case Secret::Login:
            send(proto::to_json(proto::Login{s.username, text, "login"}));
            break;
        case Secret::Register:
            if (text.size() < proto::kMinPasswordChars) {
                fail("A password has at least 8 characters.");
                secret_ = {Secret::Register, s.username, ""};
                break;
            }
            secret_ = {Secret::RegisterAgain, s.username, text};
            break;
        case Secret::RegisterAgain:
            if (text != s.first) {
                fail("The two passwords differ; choose one again.");
                secret_ = {Secret::Register, s.username, ""};
                break;
            }
            send(proto::to_json(proto::Register{s.username, text, "register"}));
            break;
        case Secret::Current:
            secret_ = {Secret::New, s.username, text};
            break;
        case Secret::New:
            if (text.size() < proto::kMinPasswordChars) {
                fail("A password has at least 8 characters.");
                secret_ = {Secret::New, s.username, s.first};
                break;
            }
            send(proto::to_json(proto::ChangePassword{s.first, text, "password"}));
            break;
        case Secret::None:
            break;
    }
    return true;
}

}  // namespace tf::play

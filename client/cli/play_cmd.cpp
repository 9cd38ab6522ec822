// `trunkfield play`: options, the token file, and the poll() loop that joins the keyboard, the
// server connection (with reconnection) and the clock display. The game logic is Session's.
#include "play_cmd.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>

#include "play_input.h"
#include "play_net.h"
#include "play_session.h"
#include "play_term.h"
#include "proto/messages.h"

namespace tf::cli {

namespace {

using namespace tf::play;
using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_stop = 0;

void on_signal(int) {
    g_stop = 1;
}

// ---- token file: one "SERVER TOKEN" line per server ------------------------------------------

}  // namespace

std::string default_token_path() {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    if (xdg && *xdg) return std::string(xdg) + "/trunkfield/token";
    const char* home = std::getenv("HOME");
    if (home && *home) return std::string(home) + "/.config/trunkfield/token";
    return "";
}

namespace {

std::string read_token(const std::string& path, const std::string& server) {
    if (path.empty()) return "";
    std::ifstream in(path);
    std::string line, any;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string a, b;
        ls >> a >> b;
        if (a.empty()) continue;
        if (b.empty()) {
            any = a;  // a bare token: good for any server
        } else if (a == server) {
            return b;
        }
    }
    return any;
}

}  // namespace

std::string token_for_server(const std::string& token, const std::string& server) {
    if (!token.empty()) return token;
    std::string host;
    unsigned short port = 8081;
    if (!parse_server(server, host, port)) return "";
    return read_token(default_token_path(), host + ":" + std::to_string(port));
}

std::string saved_token_for_host(const std::string& host) {
    std::ifstream in(default_token_path());
    std::string line, found, bare;
    int matches = 0;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string a, b;
        ls >> a >> b;
        if (b.empty()) {
            bare = a;
        } else if (a.substr(0, a.rfind(':')) == host) {
            found = b;
            ++matches;
        }
    }
    return matches == 1 ? found : bare;
}

namespace {

bool make_dirs(const std::string& dir) {
    if (dir.empty()) return true;
    struct stat st {};
    if (stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
    std::size_t slash = dir.find_last_of('/');
    if (slash != std::string::npos && slash > 0 && !make_dirs(dir.substr(0, slash))) return false;
    return mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST;
}

// Replaces this server's line (keeping the others) by writing a new file and renaming it.
std::string write_token(const std::string& path, const std::string& server,
                        const std::string& token) {
    if (path.empty()) return "no place for the token file (set HOME or --token-file)";
    std::vector<std::string> keep;
    {
        std::ifstream in(path);
        std::string line;
        while (std::getline(in, line) && keep.size() < 1000) {
            std::istringstream ls(line);
            std::string a, b;
            ls >> a >> b;
            if (!a.empty() && !b.empty() && a != server) keep.push_back(a + " " + b);
        }
    }
    keep.push_back(server + " " + token);
    std::size_t slash = path.find_last_of('/');
    if (slash != std::string::npos && !make_dirs(path.substr(0, slash)))
        return "cannot create the folder of " + path;
    const std::string tmp = path + ".tmp";
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return "cannot write " + tmp + ": " + std::strerror(errno);
    std::string text;
    for (auto& l : keep) text += l + "\n";
    bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
    ok = ::close(fd) == 0 && ok;
    if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return "cannot write " + path;
    }
    return "";
}

// ---- the terminal and the connection, as the session sees them -----------------------------

struct App : Session::Io {
    Term& term;
    LineSocket sock;
    std::string token_path, server_key;
    bool stop = false;
    Clock::time_point last_send{};

    explicit App(Term& t) : term(t) {}
    bool send(const nlohmann::json& msg) override {
        if (!sock.is_connected()) return false;
        last_send = Clock::now();
        return sock.send_line(msg.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    void print(const std::string& text) override { term.print(text); }
    void save_token(const std::string& token) override {
        std::string err = write_token(token_path, server_key, token);
        if (!err.empty()) term.print("(could not save your token: " + err + ")");
    }
    void quit() override { stop = true; }
};

bool utf8_locale() {
    for (const char* var : {"LC_ALL", "LC_CTYPE", "LANG"}) {
        const char* v = std::getenv(var);
        if (!v || !*v) continue;
        std::string s = v;
        std::transform(s.begin(), s.end(), s.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        return s.find("utf-8") != std::string::npos || s.find("utf8") != std::string::npos;
    }
    return false;
}

}  // namespace

int run_play(const PlayArgs& args) {
    std::string name = args.name;
    const std::string& token_path = args.token_path;
    std::string host;
    unsigned short port = 8081;
    parse_server(args.server, host, port);  // checked by the parser
    if (name.empty()) {
        const char* user = std::getenv("USER");
        if (user) name = user;
    }
    if (name.size() > 32) name.resize(32);
    name = clean_text(name, 32);

    const bool tty_in = isatty(STDIN_FILENO), tty_out = isatty(STDOUT_FILENO);
    const char* no_color = std::getenv("NO_COLOR");
    const char* term_env = std::getenv("TERM");
    Style style;
    style.color = args.color == 1 || (args.color == -1 && tty_out && !(no_color && *no_color) &&
                                      !(term_env && std::string(term_env) == "dumb"));
    style.unicode = args.unicode == 1 || (args.unicode == -1 && utf8_locale());

    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);

    Term term(tty_in && tty_out);
    App app(term);
    app.token_path = token_path;
    app.server_key = host + ":" + std::to_string(port);
    Session::Options opts;
    opts.name = name;
    opts.token = args.token.empty() ? read_token(token_path, app.server_key) : args.token;
    opts.style = style;
    opts.seed = std::random_device{}();
    opts.start = args.start;
    Session session(app, opts);

    term.print("trunkfield " + args.command + ": connecting to " + app.server_key +
               " (type help for commands)");
    int attempt = 0;
    bool was_welcomed = false;
    Clock::time_point next_connect = Clock::now(), last_recv = Clock::now();
    bool stdin_open = true;
    bool quit_after_wait = false;  // the input ended while the start waits for its answer

    auto schedule_reconnect = [&](const std::string& why, bool was_connected) {
        if (was_connected) {
            session.on_disconnected(why);
        }
        const int ms = std::min(15000, 500 << std::min(attempt, 5));
        const bool quiet = attempt >= 3 && attempt % 10 != 0;  // a long outage: say it less often
        ++attempt;
        next_connect = Clock::now() + std::chrono::milliseconds(ms);
        if (!quiet)
            term.print((was_connected ? std::string("")
                                      : "cannot connect to " + app.server_key + ": " + why + "; ") +
                       "retrying in " + std::to_string((ms + 999) / 1000) + " s (quit to give up)");
    };

    while (!app.stop && !g_stop) {
        Clock::time_point now = Clock::now();
        if (!app.sock.is_open() && now >= next_connect) {
            if (auto err = app.sock.start(host, port)) schedule_reconnect(*err, false);
        }
        pollfd fds[2];
        int nfds = 0;
        int in_idx = -1, sock_idx = -1;
        if (stdin_open) {
            fds[nfds] = {STDIN_FILENO, POLLIN, 0};
            in_idx = nfds++;
        }
        if (app.sock.is_open()) {
            fds[nfds] = {app.sock.fd(), app.sock.poll_events(), 0};
            sock_idx = nfds++;
        }
        int timeout = 1000;
        if (session.clock_running()) timeout = 200;
        if (app.sock.is_connecting()) timeout = 200;
        if (!app.sock.is_open()) {
            auto until =
                std::chrono::duration_cast<std::chrono::milliseconds>(next_connect - now).count();
            timeout = int(std::clamp<long long>(until, 0, 1000));
        }
        term.set_prompt(session.prompt(now, app.sock.is_connected() && session.welcomed()));
        term.set_secret(session.secret_input());
        int rc = poll(fds, nfds_t(nfds), timeout);
        if (rc < 0 && errno != EINTR) {
            term.print(std::string("poll failed: ") + std::strerror(errno));
            break;
        }
        now = Clock::now();
        if (rc > 0 && in_idx >= 0 && fds[in_idx].revents) {
            char buf[4096];
            ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
            auto on_line = [&](const std::string& line) {
                if (app.stop) return;
                session.on_command(line);
                term.set_prompt(
                    session.prompt(Clock::now(), app.sock.is_connected() && session.welcomed()));
                term.set_secret(session.secret_input());
            };
            Term::Input in;
            if (n > 0) {
                in = term.feed(std::string_view(buf, std::size_t(n)), on_line);
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                in = term.end_of_input(on_line);
                stdin_open = false;
            }
            if (in.redraw) session.print_game();
            // The end of piped input does not take a challenge back: its answer (or the join's)
            // is awaited first.
            if (in.eof && !stdin_open && session.start_pending())
                quit_after_wait = true;
            else if (in.eof)
                app.stop = true;
        }
        if (quit_after_wait && !session.start_pending()) app.stop = true;
        if (app.stop) break;
        if (app.sock.is_open()) {
            short rev = rc > 0 && sock_idx >= 0 ? fds[sock_idx].revents : 0;
            const bool was_connected = app.sock.is_connected();
            LineSocket::Result r = app.sock.on_ready(rev, now);
            if (r.connected_now) {
                last_recv = now;
                session.on_connected();
            }
            for (const std::string& line : r.lines) {
                last_recv = now;
                session.on_message(line);
            }
            if (session.welcomed() && !was_welcomed) attempt = 0;
            was_welcomed = session.welcomed();
            if (r.closed) {
                schedule_reconnect(*r.closed, was_connected);
                was_welcomed = false;
            }
        }
        // Keep-alive: a ping after 20 s of silence; nothing at all for 60 s means a dead link.
        if (app.sock.is_connected()) {
            if (now - last_recv > std::chrono::seconds(20) &&
                now - app.last_send > std::chrono::seconds(20))
                app.send(nlohmann::json{{"type", "ping"}});
            if (now - last_recv > std::chrono::seconds(60)) {
                app.sock.close();
                was_welcomed = false;
                schedule_reconnect("no answer from the server for 60 s", true);
            }
        }
    }
    // Leaving while a challenge waits for its answer (Ctrl-C, quit): take it back first, and
    // wait a moment for the server to say so (or that it was accepted just then).
    if (session.challenge_waiting() && session.cancel_challenge()) {
        g_stop = 0;  // a second Ctrl-C leaves at once
        const Clock::time_point until = Clock::now() + std::chrono::seconds(5);
        while (session.challenge_settling() && !g_stop && app.sock.is_connected() &&
               Clock::now() < until) {
            pollfd p{app.sock.fd(), app.sock.poll_events(), 0};
            const int rc = poll(&p, 1, 200);
            if (rc < 0 && errno != EINTR) break;
            LineSocket::Result r = app.sock.on_ready(rc > 0 ? p.revents : 0, Clock::now());
            for (const std::string& line : r.lines) session.on_message(line);
            if (r.closed) break;
        }
        if (session.challenge_settling())
            term.print("(no answer from the server: the challenge lapses without you)");
    }
    term.restore();
    app.sock.close();
    return session.exit_code();
}

CLI::Option* add_server_option(CLI::App* cmd, std::string& server, const std::string& what,
                               bool http) {
    return cmd->add_option("--server", server, what)
        ->type_name("HOST:PORT")
        ->capture_default_str()
        ->check(CLI::Validator(
            [http](std::string& s) -> std::string {
                std::string host;
                unsigned short port = 0;
                if (http ? play::parse_http_server(s, host, port) : parse_server(s, host, port))
                    return "";
                return std::string(http ? "expected HOST:PORT (the HTTP port), got '"
                                        : "expected HOST:PORT, got '") +
                       s + "'";
            },
            ""));
}

CLI::Option* add_token_option(CLI::App* cmd, std::string& token, const std::string& what) {
    return cmd->add_option("--token", token, what)->envname("TRUNKFIELD_TOKEN");
}

CLI::Validator username_check() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            return proto::is_username(s) ? "" : "'" + s + "' is not a username";
        },
        "USERNAME");
}

CLI::Validator game_code_check() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            auto code = proto::game_code(s);
            if (!code) return "'" + s + "' is not a game code";
            s = *code;
            return "";
        },
        "CODE");
}

void add_style_flags(CLI::App* cmd, const std::shared_ptr<PlayArgs>& args, bool color) {
    // Either of a pair may be given more than once: the last one wins.
    auto flag = [&](const char* names, int PlayArgs::*field, int value, const char* what) {
        cmd->add_flag_callback(
               names, [args, field, value] { (*args).*field = value; }, what)
            ->trigger_on_parse();
    };
    flag("--no-color,--no-colour", &PlayArgs::color, 0, "no colours (also when NO_COLOR is set)");
    if (color) flag("--color,--colour", &PlayArgs::color, 1, "colours even when not on a terminal");
    flag("--ascii", &PlayArgs::unicode, 0, "ASCII pieces (^ > v <) instead of arrows");
    flag("--unicode", &PlayArgs::unicode, 1, "arrows even outside a UTF-8 locale");
}

void add_play_command(CLI::App& app, Run& run) {
    CLI::App* play = app.add_subcommand("play", "play on a server in the terminal");
    auto args = std::make_shared<PlayArgs>();
    args->token_path = default_token_path();
    add_server_option(play, args->server, "the server's TCP port");
    play->add_option("--name", args->name, "your display name for a new identity (default: $USER)")
        ->type_name("NAME");
    play->add_option("--token-file", args->token_path,
                     "where your identity token is kept (default: "
                     "$XDG_CONFIG_HOME/trunkfield/token or ~/.config/trunkfield/token)")
        ->type_name("PATH");
    add_style_flags(play, args);
    play->footer("Once connected, type  help  for the commands.");
    play->callback([&run, args] { run = [args] { return run_play(*args); }; });
}

}  // namespace tf::cli

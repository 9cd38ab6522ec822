#include "server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/resource.h>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <thread>

#include "tests/support/pg_test_db.h"

namespace tf::test {

pid_t spawn(std::vector<std::string> args, int out_fd, long nofile) {
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(out_fd, 2);
        if (nofile > 0) {
            rlimit r{rlim_t(nofile), rlim_t(nofile)};
            setrlimit(RLIMIT_NOFILE, &r);
        }
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    return pid;
}

namespace {

// The database of a data directory: "tf_" + its base name (letters, digits and _ only, short)
// + a hash of its absolute path (mkdtemp's names are unique, but tests also pass ".../data").
// Stable across processes, and within PostgreSQL's 63 bytes.
std::string database_for(const std::string& data_dir) {
    const std::string path = std::filesystem::absolute(data_dir).lexically_normal().string();
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char ch : path) h = (h ^ ch) * 1099511628211ull;
    std::string base = std::filesystem::path(path).filename().string();
    if (base.empty()) base = std::filesystem::path(path).parent_path().filename().string();
    std::string name = "tf_";
    for (char ch : base.substr(0, 24))
        name += std::isalnum((unsigned char)ch) ? char(std::tolower((unsigned char)ch)) : '_';
    char hex[20];
    std::snprintf(hex, sizeof hex, "_%016llx", (unsigned long long)h);
    return name + hex;
}

// Databases of data directories the tests made (so several servers may use them in turn):
// dropped when the test program exits.
struct LeftDatabases {
    std::mutex mu;
    std::string base;
    std::set<std::string> names;
    ~LeftDatabases() {
        for (const auto& n : names) {
            try {
                pg_drop_database(base, n);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "server_process: %s\n", e.what());
            }
        }
    }
};
LeftDatabases& left_databases() {
    static LeftDatabases left;
    return left;
}

}  // namespace

ServerProcess::ServerProcess(std::vector<std::string> extra_args) {
    char tmpl[] = "/tmp/tf-server-log-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) throw std::runtime_error("mkstemp failed");
    log_path_ = tmpl;
    std::vector<std::string> args = {TF_SERVER_BIN, "--http-port", "0",        "--tcp-port",
                                     "0",           "--bind",      "127.0.0.1"};
    // The computer answers at once unless a test asks for its human-like pace.
    if (std::find(extra_args.begin(), extra_args.end(), "--bot-pace") == extra_args.end())
        args.insert(args.end(), {"--bot-pace", "0"});
    long nofile = 0;
    for (const auto& a : extra_args)
        if (a.rfind("--test-nofile=", 0) == 0)
            nofile = std::stol(a.substr(14));
        else
            args.push_back(a);
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--data") data_dir_ = args[i + 1];
    if (data_dir_.empty()) {
        char dtmpl[] = "/tmp/tf-data-XXXXXX";
        if (!mkdtemp(dtmpl)) throw std::runtime_error("mkdtemp failed");
        data_dir_ = dtmpl;
        own_data_ = true;
        args.push_back("--data");
        args.push_back(data_dir_);
    }
    const std::string pg = pg_test_url();
    if (!pg.empty() && std::find(args.begin(), args.end(), "--store") == args.end()) {
        const std::string name = database_for(data_dir_);
        try {
            pg_create_database(pg, name);
        } catch (...) {
            close(fd);
            remove_own_files();
            throw;
        }
        database_ = name;
        if (!own_data_) {
            auto& left = left_databases();
            std::lock_guard lock(left.mu);
            left.base = pg;
            left.names.insert(database_);
        }
        args.insert(args.end(),
                    {"--store", "postgres", "--database-url", pg_with_dbname(pg, name)});
    }
    pid_ = spawn(std::move(args), fd, nofile);
    close(fd);
    // Polls the log for the listening line; the deadline only guards against a hung start.
    static const std::regex re(R"(listening http=[^ ]*:(\d+) tcp=[^ ]*:(\d+))");
    for (int i = 0; i < 1000; ++i) {
        std::smatch m;
        std::string text = log();
        if (std::regex_search(text, m, re)) {
            http_ = (unsigned short)std::stoi(m[1]);
            tcp_ = (unsigned short)std::stoi(m[2]);
            return;
        }
        if (!alive()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::string text = log();
    kill_hard();
    remove_own_files();
    throw std::runtime_error("server did not start; log:\n" + text);
}

int ServerProcess::terminate(int seconds) {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    for (int i = 0; i < seconds * 100; ++i) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill_hard();
    return -1;
}

void ServerProcess::kill_hard() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
}

ServerProcess::~ServerProcess() {
    if (pid_ > 0) {
        kill(pid_, SIGTERM);
        for (int i = 0; i < 500; ++i) {
            if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
                pid_ = -1;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    remove_own_files();
}

void ServerProcess::remove_own_files() {
    unlink(log_path_.c_str());
    if (!own_data_) return;
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
    if (database_.empty()) return;
    try {
        pg_drop_database(pg_test_url(), database_);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "server_process: %s\n", e.what());
    }
}

std::string ServerProcess::log() const {
    std::ifstream in(log_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool ServerProcess::alive() {
    if (pid_ <= 0) return false;
    if (waitpid(pid_, nullptr, WNOHANG) == 0) return true;
    pid_ = -1;  // exited and reaped
    return false;
}

}  // namespace tf::test

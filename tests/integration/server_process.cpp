#include "server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace tf::test {

pid_t spawn(std::vector<std::string> args, int out_fd) {
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(out_fd, 2);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    return pid;
}

ServerProcess::ServerProcess(std::vector<std::string> extra_args) {
    char tmpl[] = "/tmp/tf-server-log-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) throw std::runtime_error("mkstemp failed");
    log_path_ = tmpl;
    std::vector<std::string> args = {TF_SERVER_BIN, "--http-port", "0",        "--tcp-port",
                                     "0",           "--bind",      "127.0.0.1"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
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
    pid_ = spawn(std::move(args), fd);
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
    unlink(log_path_.c_str());
    if (own_data_) std::filesystem::remove_all(data_dir_);
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
    unlink(log_path_.c_str());
    if (own_data_) std::filesystem::remove_all(data_dir_);
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

#include "client/lib/engine_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace tf::engine {

std::unique_ptr<EngineProcess> EngineProcess::start(const std::string& command, std::string& err) {
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0) {
        err = std::string("pipe: ") + std::strerror(errno);
        return nullptr;
    }
    if (pipe2(from_child, O_CLOEXEC) != 0) {
        err = std::string("pipe: ") + std::strerror(errno);
        close(to_child[0]);
        close(to_child[1]);
        return nullptr;
    }
    pid_t pid = fork();
    if (pid < 0) {
        err = std::string("fork: ") + std::strerror(errno);
        for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(fd);
        return nullptr;
    }
    if (pid == 0) {  // the child: only async-signal-safe calls until exec
        dup2(to_child[0], STDIN_FILENO);
        dup2(from_child[1], STDOUT_FILENO);
        execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    signal(SIGPIPE, SIG_IGN);  // an engine that exits: send() says so instead
    return std::unique_ptr<EngineProcess>(new EngineProcess(pid, to_child[1], from_child[0]));
}

EngineProcess::~EngineProcess() {
    send("quit");
    close(in_);
    for (int i = 0; i < 20; ++i) {
        if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
            close(out_);
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    close(out_);
}

bool EngineProcess::send(const std::string& line) {
    std::string data = line + "\n";
    std::size_t done = 0;
    while (done < data.size()) {
        ssize_t n = write(in_, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += std::size_t(n);
    }
    return true;
}

std::optional<std::string> EngineProcess::read_line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (auto nl = buf_.find('\n'); nl != std::string::npos) {
            std::string line = buf_.substr(0, std::min(nl, kMaxLine));
            buf_.erase(0, nl + 1);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            return line;
        }
        if (closed_) return std::nullopt;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        pollfd p{out_, POLLIN, 0};
        int r = poll(&p, 1, int(left.count()));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return std::nullopt;
        char chunk[4096];
        ssize_t n = read(out_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            closed_ = true;
            continue;
        }
        std::string_view got(chunk, std::size_t(n));
        if (skipping_) {  // the rest of an overlong line, up to its end
            auto nl = got.find('\n');
            if (nl == std::string_view::npos) continue;
            got.remove_prefix(nl + 1);
            skipping_ = false;
            buf_ += '\n';  // ends the line kept
        }
        buf_.append(got);
        if (buf_.find('\n') == std::string::npos && buf_.size() > kMaxLine) {
            buf_.resize(kMaxLine);
            skipping_ = true;
        }
    }
}

}  // namespace tf::engine

#include "play_net.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "client/lib/traffic_log.h"

namespace tf::play {

std::optional<std::string> LineSocket::start(const std::string& host, unsigned short port) {
    close();
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const std::string service = std::to_string(port);
    int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
    if (rc != 0) return "cannot resolve " + host + ": " + gai_strerror(rc);
    std::string err = "no address for " + host;
    for (addrinfo* a = res; a; a = a->ai_next) {
        int fd =
            socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            err = std::strerror(errno);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) {
            fd_ = fd;
            connecting_ = true;
            started_ = Clock::now();
            break;
        }
        err = std::strerror(errno);
        ::close(fd);
    }
    freeaddrinfo(res);
    if (fd_ < 0) return err;
    return std::nullopt;
}

void LineSocket::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    connecting_ = false;
    in_.clear();
    out_.clear();
}

short LineSocket::poll_events() const {
    if (fd_ < 0) return 0;
    if (connecting_) return POLLOUT;
    return short(POLLIN | (out_.empty() ? 0 : POLLOUT));
}

bool LineSocket::send_line(const std::string& text) {
    if (!is_connected()) return false;
    if (out_.size() + text.size() > kMaxQueued) return false;
    client::traffic::record("sent", "tcp", text);
    out_ += text;
    out_ += '\n';
    std::string err;
    return flush(err);  // an error shows up as a closed connection at the next poll
}

bool LineSocket::flush(std::string& err) {
    while (!out_.empty()) {
        ssize_t n = ::send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL);
        if (n > 0) {
            out_.erase(0, std::size_t(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        err = n < 0 ? std::strerror(errno) : "write failed";
        return false;
    }
    return true;
}

void LineSocket::take_lines(std::vector<std::string>& out) {
    std::size_t start = 0, nl;
    while ((nl = in_.find('\n', start)) != std::string::npos) {
        std::string line = in_.substr(start, nl - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        client::traffic::record("recv", "tcp", line);
        if (!line.empty()) out.push_back(std::move(line));  // blank lines are skipped
        start = nl + 1;
    }
    in_.erase(0, start);
}

LineSocket::Result LineSocket::on_ready(short revents, Clock::time_point now) {
    Result r;
    if (fd_ < 0) return r;
    auto fail = [&](std::string why) {
        r.closed = std::move(why);
        close();
        return r;
    };
    if (connecting_) {
        if (revents & (POLLOUT | POLLERR | POLLHUP)) {
            int soerr = 0;
            socklen_t len = sizeof soerr;
            if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0) soerr = errno;
            if (soerr != 0) return fail(std::strerror(soerr));
            connecting_ = false;
            r.connected_now = true;
            return r;
        }
        if (now - started_ > kConnectTimeout) return fail("connection timed out");
        return r;
    }
    if (revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[16384];
        for (;;) {
            ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
            if (n > 0) {
                in_.append(buf, std::size_t(n));
                if (in_.size() > kMaxLine && in_.find('\n') == std::string::npos)
                    return fail("the server sent a line longer than 8 MiB");
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            // End of stream or an error: hand over the complete lines first.
            std::string why = n == 0 ? "the server closed the connection" : std::strerror(errno);
            take_lines(r.lines);
            r.closed = why;
            close();
            return r;
        }
        take_lines(r.lines);
    }
    if (revents & POLLOUT) {
        std::string err;
        if (!flush(err)) {
            auto lines = std::move(r.lines);
            Result f = fail(err);
            f.lines = std::move(lines);
            return f;
        }
    }
    return r;
}

}  // namespace tf::play

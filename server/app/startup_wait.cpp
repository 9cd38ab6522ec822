#include "server/app/startup_wait.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <mutex>
#include <thread>

namespace tf::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct StartupResponder::Impl {
    asio::io_context ioc;
    tcp::acceptor acceptor{ioc};
    std::thread thread;
    std::mutex m;
    std::string reason = "waiting for PostgreSQL";

    // One request: its first line read (at most 8 KiB, 5 s), answered, closed.
    struct Conn : std::enable_shared_from_this<Conn> {
        Conn(Impl& o, tcp::socket s) : owner(o), sock(std::move(s)), timer(o.ioc) {}
        Impl& owner;
        tcp::socket sock;
        asio::streambuf buf{8192};
        asio::steady_timer timer;
        std::string reply;
        void start() {
            timer.expires_after(std::chrono::seconds(5));
            timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
                if (!ec) self->sock.close();
            });
            asio::async_read_until(
                sock, buf, "\r\n",
                [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                    if (ec) {
                        self->timer.cancel();
                        return;
                    }
                    std::istream in(&self->buf);
                    std::string method, target;
                    in >> method >> target;
                    self->answer(target);
                });
        }
        void answer(const std::string& target) {
            std::string status = "503 Service Unavailable", body;
            if (target == "/healthz") {
                status = "200 OK";
                body = "ok";
            } else {
                std::lock_guard lock(owner.m);
                body = "not ready: " + owner.reason + "\n";
            }
            reply = "HTTP/1.1 " + status +
                    "\r\nContent-Type: text/plain\r\nCache-Control: no-store\r\nRetry-After: "
                    "1\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
            asio::async_write(sock, asio::buffer(reply),
                              [self = shared_from_this()](boost::system::error_code, std::size_t) {
                                  boost::system::error_code ignored;
                                  self->sock.shutdown(tcp::socket::shutdown_both, ignored);
                                  self->sock.close(ignored);
                                  self->timer.cancel();
                              });
        }
    };

    void accept() {
        acceptor.async_accept([this](boost::system::error_code ec, tcp::socket s) {
            if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
            if (!ec) std::make_shared<Conn>(*this, std::move(s))->start();
            accept();
        });
    }
};

StartupResponder::StartupResponder(const std::string& bind, unsigned short port)
    : impl_(std::make_unique<Impl>()) {
    tcp::endpoint ep(asio::ip::make_address(bind), port);
    impl_->acceptor.open(ep.protocol());
    impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
    impl_->acceptor.bind(ep);
    impl_->acceptor.listen();
    impl_->accept();
    impl_->thread = std::thread([i = impl_.get()] { i->ioc.run(); });
}

StartupResponder::~StartupResponder() {
    stop();
}

unsigned short StartupResponder::port() const {
    return impl_->acceptor.local_endpoint().port();
}

void StartupResponder::set_reason(const std::string& why) {
    std::lock_guard lock(impl_->m);
    impl_->reason = why;
}

void StartupResponder::stop() {
    if (!impl_->thread.joinable()) return;
    asio::post(impl_->ioc, [i = impl_.get()] {
        boost::system::error_code ignored;
        i->acceptor.close(ignored);
        i->ioc.stop();
    });
    impl_->thread.join();
}

bool wait_until_reached(const std::function<bool(std::string& why)>& reach, bool fail_fast,
                        const std::function<bool()>& stop, StartupResponder* responder) {
    auto delay = std::chrono::milliseconds(500);
    for (int attempt = 1;; ++attempt) {
        std::string why;
        if (reach(why)) {
            if (attempt > 1) spdlog::info("startup: PostgreSQL reached (attempt {})", attempt);
            return true;
        }
        if (fail_fast) {
            spdlog::critical("startup: PostgreSQL cannot be reached: {} (--fail-fast)", why);
            return false;
        }
        spdlog::warn(
            "startup: PostgreSQL cannot be reached ({}); trying again in {} ms, /readyz says 503 "
            "meanwhile (--fail-fast to exit instead)",
            why, delay.count());
        if (responder) responder->set_reason("waiting for PostgreSQL: " + why);
        for (auto until = std::chrono::steady_clock::now() + delay;
             std::chrono::steady_clock::now() < until;) {
            if (stop()) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        delay = std::min(delay * 2, std::chrono::milliseconds(10000));
    }
}

}  // namespace tf::server

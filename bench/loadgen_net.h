// tf-loadgen's client connections: WebSocket (one text frame per message) or raw TCP
// (one line per message), asynchronous on an Asio strand, with an unbounded outgoing queue
// (the generator itself never floods: each game has at most one move in flight).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace tf::loadgen {

using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;
enum class Transport { Ws, Tcp };

class Conn;
class Connector;

// Callbacks of a connection, all run on the connection's strand.
class ConnHandler {
  public:
    virtual ~ConnHandler() = default;
    virtual void on_open(Conn& c) = 0;
    virtual void on_message(Conn& c, std::string_view text) = 0;
    // The connection failed or was closed by the peer; `what` names the step.
    virtual void on_fail(Conn& c, const char* what, const std::string& message) = 0;
};

class Conn : public std::enable_shared_from_this<Conn> {
  public:
    Conn(ConnHandler& h, int tag) : handler(h), tag(tag) {}
    virtual ~Conn() = default;
    // Connects (and for WebSocket, upgrades at /ws with `host` as Host header), then reads.
    virtual void start(const boost::asio::ip::tcp::endpoint& ep, const std::string& host) = 0;
    // On the strand only.
    virtual void send(std::string text) = 0;

    ConnHandler& handler;
    const int tag;  // the handler's index of this connection
    bool open = false;
    bool failed = false;

  protected:
    friend class Connector;
    // The handshake ended (opened or failed): frees the connector's slot once.
    void settled();
    Connector* connector_ = nullptr;
};

std::shared_ptr<Conn> make_conn(Transport t, Strand ex, ConnHandler& h, int tag);

// Starts connections with at most `parallel` handshakes in flight (a listen backlog
// overflowed by thousands of simultaneous SYNs would only add retransmission delays).
// Thread-safe.
class Connector {
  public:
    Connector(boost::asio::ip::tcp::endpoint ep, std::string host, int parallel)
        : ep_(ep), host_(std::move(host)), parallel_(parallel) {}
    // Connections with an odd tag (each game's second player, every other spectator) go to
    // `ep2` (another node of a cluster: --port2).
    void second(boost::asio::ip::tcp::endpoint ep2) { ep2_ = ep2; }
    // With a third node, spectators (tags 2 and up) go to the three by tag % 3.
    void third(boost::asio::ip::tcp::endpoint ep3) { ep3_ = ep3; }
    void add(std::shared_ptr<Conn> c);

  private:
    friend class Conn;
    void done();
    void launch_locked(std::unique_lock<std::mutex>& lock);
    boost::asio::ip::tcp::endpoint ep_;
    std::optional<boost::asio::ip::tcp::endpoint> ep2_, ep3_;
    std::string host_;
    int parallel_;
    std::mutex m_;
    int in_flight_ = 0;
    std::deque<std::shared_ptr<Conn>> waiting_;
};

}  // namespace tf::loadgen

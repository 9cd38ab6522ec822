// A blocking connection to trunkfield-server over raw TCP (newline-delimited JSON) or
// WebSocket (/ws, one text frame per message). Not thread-safe: one thread per connection.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace tf::client {

// The server closed the connection (for WebSocket, `reason` holds its close reason).
struct Closed : std::runtime_error {
    explicit Closed(const std::string& reason) : std::runtime_error("closed: " + reason) {}
};

class Connection {
  public:
    virtual ~Connection() = default;
    virtual void send_text(const std::string& text) = 0;
    // WebSocket only: sends a binary frame (for tests of the server's refusal).
    virtual void send_binary(const std::string& data) = 0;
    // Blocks until the next message; throws Closed when the connection ends.
    virtual std::string recv_text() = 0;
    // TCP only (WebSocket throws std::logic_error): the next message, or nullopt when none is
    // complete within `timeout`; throws Closed when the connection ends.
    virtual std::optional<std::string> recv_text_for(std::chrono::milliseconds timeout) = 0;
    virtual void close() = 0;

    void send(const nlohmann::json& j) { send_text(j.dump()); }
    nlohmann::json recv() { return nlohmann::json::parse(recv_text()); }
    // Receives until a message of `type` arrives, dropping others (events, lobby updates...).
    nlohmann::json recv_type(const std::string& type);
};

std::unique_ptr<Connection> connect_tcp(const std::string& host, unsigned short port);
std::unique_ptr<Connection> connect_ws(const std::string& host, unsigned short port);

}  // namespace tf::client

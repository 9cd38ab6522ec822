#include "client/lib/http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <stdexcept>

namespace tf::client {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

HttpReply http_request(const std::string& host, unsigned short port, const std::string& method,
                       const std::string& target, const std::string& body,
                       const std::string& token) {
    try {
        net::io_context ioc;
        net::ip::tcp::resolver resolver(ioc);
        beast::tcp_stream stream(ioc);
        stream.expires_after(std::chrono::seconds(30));
        stream.connect(resolver.resolve(host, std::to_string(port)));
        http::request<http::string_body> req(http::string_to_verb(method), target, 11);
        req.set(http::field::host, host + ":" + std::to_string(port));
        req.set(http::field::user_agent, "trunkfield");
        req.set(http::field::accept, "application/json");
        if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
        if (!body.empty()) req.set(http::field::content_type, "application/json");
        req.body() = body;
        req.prepare_payload();
        http::write(stream, req);
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        http::read(stream, buf, res);
        beast::error_code ec;
        stream.socket().shutdown(net::ip::tcp::socket::shutdown_both, ec);
        return {res.result_int(), std::move(res.body())};
    } catch (const boost::system::system_error& e) {
        throw std::runtime_error("http://" + host + ":" + std::to_string(port) + target + ": " +
                                 e.code().message());
    }
}

}  // namespace tf::client

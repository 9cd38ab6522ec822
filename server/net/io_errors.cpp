#include "server/net/io_errors.h"

#include <spdlog/spdlog.h>

#include <boost/asio/error.hpp>

namespace tf::server {

void io_error(std::string_view conn, const boost::system::error_code& ec, std::string_view what) {
    namespace e = boost::asio::error;
    if (!ec || ec == e::operation_aborted) return;
    if (ec == e::eof || ec == e::connection_reset || ec == e::broken_pipe ||
        ec == e::connection_aborted || ec == e::timed_out || ec == e::not_connected ||
        ec == e::bad_descriptor) {
        spdlog::debug("{}: {}: {}", conn, what, ec.message());
        return;
    }
    spdlog::warn("{}: {}: {}", conn, what, ec.message());
}

}  // namespace tf::server

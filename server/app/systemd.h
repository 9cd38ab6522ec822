// The two pieces of systemd's service protocol the server speaks, without libsystemd:
// readiness notification (Type=notify units) and log priorities for the journal.
// packaging/trunkfield-server.service runs the server this way; elsewhere both do nothing.
#pragma once

#include <string>

namespace tf::server {

// Sends `state` ("READY=1", "STOPPING=1", "STATUS=...", newline-separated) to the service
// manager's socket named by $NOTIFY_SOCKET (a path, or "@name" in the abstract namespace).
// False when there is none or the datagram could not be sent.
bool notify_service_manager(const std::string& state);

// True when standard output is the journal's stream ($JOURNAL_STREAM names its device and
// inode): the server then prefixes each log line with its syslog priority ("<4>" for a
// warning) and leaves the time stamp to the journal.
bool stdout_is_journal();

}  // namespace tf::server

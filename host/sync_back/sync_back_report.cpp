#include "host/sync_back/sync_back_report.hpp"

#include "common/utf8.hpp"

namespace liveupdate::host::sync_back {

using common::LogLevel;
using Kind = SyncBackEvent::Kind;

ReportLine report_line(const SyncBackTarget &target, const SyncBackEvent &event) {
    const std::string in = " in container " + target.display;
    const std::string path = common::printable_path(event.container_path);
    const std::string local = common::printable_path(event.local_file);
    switch (event.kind) {
    case Kind::written: return {LogLevel::info, "Sync back: " + path + in + " came back to " + local};
    case Kind::deleted: return {LogLevel::info, "Sync back: " + local + " deleted, as " + path + " was" + in};
    case Kind::agreed: return {LogLevel::debug, "Sync back: " + path + in + " and " + local + " agree"};
    case Kind::conflict:
        // Found again by a watch started in place of a broken one: said when it opened.
        if (event.known) return {LogLevel::debug, "Sync back" + in + ": still open: " + event.message};
        return {LogLevel::warn, "Sync back" + in + ": " + event.message};
    case Kind::refused: return {LogLevel::warn, "Sync back" + in + ": " + event.message};
    case Kind::held:
        return {LogLevel::info, "Sync back: " + local + " is not deleted although " + path + " is gone" + in +
                                    ": its sync root " + target.container_path + " is gone or empty"};
    case Kind::deferred:
        return {LogLevel::debug, "Sync back: " + path + in +
                                     " waits: " + (event.again ? "the local disk is full" : "over the rate limit")};
    case Kind::ignored:
    case Kind::nothing:
    case Kind::in_flight: break;
    }
    return {LogLevel::debug, "Sync back: " + path + in + ": nothing to do"};
}

}  // namespace liveupdate::host::sync_back

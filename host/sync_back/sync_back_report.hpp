// What a sync back event says in the LiveUpdate's log (`describe`, the
// daemon's log, the status page): the level and the line.
#pragma once

#include <string>

#include "common/log_level.hpp"
#include "host/sync_back/container_sync_back.hpp"

namespace liveupdate::host::sync_back {

struct ReportLine {
    common::LogLevel level = common::LogLevel::info;
    std::string text;
};

ReportLine report_line(const SyncBackTarget &target, const SyncBackEvent &event);

}  // namespace liveupdate::host::sync_back

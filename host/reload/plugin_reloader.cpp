#include "host/reload/plugin_reloader.hpp"

#include <time.h>

namespace liveupdate::host::reload {

namespace {

std::chrono::microseconds thread_cpu() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::microseconds(static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000);
}

std::chrono::microseconds micros(std::chrono::steady_clock::duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d);
}

}  // namespace

PluginReloadTimes PluginReloader::reload(const std::filesystem::path &file) {
    using Clock = std::chrono::steady_clock;
    PluginReloadTimes times;
    const Clock::time_point start = Clock::now();
    // The previous reload's unload first (long done unless reloads come back to
    // back): the fresh copy may be mapped where the retired one was, and its
    // restore must come after that unload's last read, not race with it.
    wait_retired();
    std::unique_ptr<host::PluginInstance> fresh = slot_.prepare(host::LiveUpdatePlugin::load(file, load_));
    const Clock::time_point loaded = Clock::now();
    times.load = micros(loaded - start);
    std::unique_ptr<host::PluginInstance> retired;
    {
        const std::chrono::microseconds cpu_before = thread_cpu();
        QuiesceGate::Hold hold = gate_.close();
        times.drain = micros(hold.closed_at() - hold.closing_at());
        retired = slot_.swap_in(std::move(fresh));
        const Clock::time_point swapped = Clock::now();
        times.pause_cpu = thread_cpu() - cpu_before;
        times.swap = micros(swapped - hold.closed_at());
        times.pause = micros(swapped - hold.closing_at());
    }
    times.total = micros(Clock::now() - start);
    retiring_ = std::async(std::launch::async, [old = std::move(retired)]() mutable {
        const Clock::time_point from = Clock::now();
        old.reset();
        return micros(Clock::now() - from);
    });
    return times;
}

std::chrono::microseconds PluginReloader::wait_retired() {
    if (!retiring_.valid()) return {};
    return retiring_.get();
}

}  // namespace liveupdate::host::reload

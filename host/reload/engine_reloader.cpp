#include "reload/engine_reloader.hpp"

namespace liveupdate::reload {

namespace {

std::chrono::microseconds micros(std::chrono::steady_clock::duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d);
}

}  // namespace

EngineReloadTimes EngineReloader::reload(const std::filesystem::path &file) {
    using Clock = std::chrono::steady_clock;
    EngineReloadTimes times;
    const Clock::time_point start = Clock::now();
    auto plugin = host::LiveUpdatePlugin::load(file, host::LoadOptions{.private_copy = true});
    const Clock::time_point loaded = Clock::now();
    times.load = micros(loaded - start);
    std::unique_ptr<host::Engine> retired;
    {
        QuiesceGate::Hold hold = gate_.close();
        times.drain = micros(hold.closed_at() - hold.closing_at());
        retired = slot_.reload(std::move(plugin));
        const Clock::time_point swapped = Clock::now();
        times.swap = micros(swapped - hold.closed_at());
        times.pause = micros(swapped - hold.closing_at());
    }
    retired.reset();  // destroys the old engine and unloads its plugin, with service resumed
    times.total = micros(Clock::now() - start);
    return times;
}

}  // namespace liveupdate::reload

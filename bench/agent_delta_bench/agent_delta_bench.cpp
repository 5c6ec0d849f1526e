// A 1-byte change in the middle of a large file (200 MiB by default) reaching
// an lu-busybox container, in the same run: through lu-agent over `docker exec
// -i` (delta: signatures, copy and data instructions), through the docker
// updater (the same, over its hijacked exec stream), and by the reference
// `tar -c | docker exec -i C tar -x` of that file. Prints medians of time and
// the bytes on the wire (targets: time <= 0.3x, bytes <= 1% of the file); the
// first copy of the file both ways; whole vs delta time by file size (the
// threshold); and, without docker, signature and matching cost by block size.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support/stats.hpp"
#include "common/delta/matcher.hpp"
#include "common/delta/signature.hpp"
#include "tests/agent/delta_cases.hpp"
#include "tests/docker/docker_test_support.hpp"

namespace {

using lu_bench::Clock;
using lu_bench::median;
using lu_bench::ms_since;
namespace fs = std::filesystem;

const std::string kAgent = "/lu-delta-bench-agent";

// The archive read from a tar file on disk, as the host reads its sources.
liveupdate::common::ArchiveReadFn file_reader(int fd) {
    return [fd](void *buffer, std::size_t capacity) -> std::int64_t { return ::read(fd, buffer, capacity); };
}

struct Sent {
    double ms = 0;
    std::uint64_t bytes = 0;  // both ways
};

// A long-lived agent session, as the updaters keep one per container.
std::unique_ptr<lu_agent_test::PipeAgentStream> agent_session(const std::string &container) {
    auto session = std::make_unique<lu_agent_test::PipeAgentStream>(
        std::vector<std::string>{"docker", "exec", "-i", container, kAgent});
    liveupdate::agent_client::handshake(*session, Clock::now() + std::chrono::seconds(30));
    return session;
}

// One update of the tar file's entries through the session.
Sent through_agent(lu_agent_test::PipeAgentStream &session, const std::string &tar_file) {
    const int fd = ::open(tar_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + tar_file);
    const auto read = file_reader(fd);
    const auto bytes_before = session.bytes_sent() + session.bytes_received();
    const auto start = Clock::now();
    liveupdate::agent_client::apply_files_through_agent(session, {}, &read, std::chrono::seconds(60), {"/app"});
    const double ms = ms_since(start);
    ::close(fd);
    return {ms, session.bytes_sent() + session.bytes_received() - bytes_before};
}

double raw_tar(const std::string &container, const std::string &dir, const std::string &name, const std::string &to) {
    lu_test::sh_ok("docker exec " + container + " mkdir -p " + to);
    const auto start = Clock::now();
    lu_test::sh_ok("tar -cf - -C " + dir + " " + name + " | docker exec -i " + container + " tar -x -C " + to +
                   " -f -");
    return ms_since(start);
}

void write_file(const std::string &path, const std::string &content) {
    std::ofstream(path, std::ios::binary) << content;
}

void block_size_table(const std::string &old, const std::string &changed) {
    std::printf(
        "\nblock size (in process, %zu MiB, 1 byte changed): signature ms, matching ms, signature KiB, data KiB\n",
        old.size() >> 20);
    for (const std::uint32_t block :
         {2048u, 4096u, 8192u, liveupdate::delta::block_size_for(old.size()), 32768u, 131072u}) {
        auto start = Clock::now();
        liveupdate::delta::SignatureBuilder builder(block);
        for (std::size_t i = 0; i < old.size(); i += 1 << 20) builder.feed(std::string_view(old).substr(i, 1 << 20));
        const auto signature = builder.finish();
        const double sign_ms = ms_since(start);
        std::size_t literal = 0;
        start = Clock::now();
        liveupdate::delta::Matcher matcher(
            signature, {[](std::uint64_t, std::uint64_t) {}, [&](std::string_view b) { literal += b.size(); }});
        for (std::size_t i = 0; i < changed.size(); i += 256 << 10)
            matcher.feed(std::string_view(changed).substr(i, 256 << 10));
        matcher.finish();
        std::printf("  %6u: %7.1f %7.1f %8zu %8zu\n", block, sign_ms, ms_since(start),
                    liveupdate::delta::encode_signature(signature).size() >> 10, literal >> 10);
    }
}

}  // namespace

int main(int argc, char **argv) {
    try {
        const std::size_t mib = argc > 1 ? static_cast<std::size_t>(std::max(1, std::atoi(argv[1]))) : 200;
        const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
        const fs::path dir = fs::temp_directory_path() / ("lu-delta-bench-" + std::to_string(::getpid()));
        fs::create_directories(dir / "old");
        fs::create_directories(dir / "new");
        const auto old = lu_agent_test::random_bytes(mib << 20, 1);
        auto changed = old;
        changed[changed.size() / 2] ^= 0x01;
        write_file(dir / "old/big.bin", old);
        write_file(dir / "new/big.bin", changed);
        // Archives whose entries land at /app/big.bin.
        lu_test::sh_ok("tar -cf " + (dir / "old.tar").string() + " --transform 's,^,app/,' -C " +
                       (dir / "old").string() + " big.bin");
        lu_test::sh_ok("tar -cf " + (dir / "new.tar").string() + " --transform 's,^,app/,' -C " +
                       (dir / "new").string() + " big.bin");
        lu_test::sh_ok("tar -cf " + (dir / "first.tar").string() + " --transform 's,^,app/first/,' -C " +
                       (dir / "old").string() + " big.bin");

        lu_test::TestContainer container("lu-busybox:latest", "sleep 100000");
        lu_test::sh_ok("docker cp " + std::string(LU_AGENT_PATH) + " " + container.name() + ":" + kAgent);
        const auto &c = container.name();

        // First copies: a new path each time.
        const auto session = agent_session(c);
        const Sent first = through_agent(*session, (dir / "first.tar").string());
        const double first_raw = raw_tar(c, (dir / "old").string(), "big.bin", "/first-raw");

        std::vector<double> agent_ms, raw_ms, updater_ms;
        std::uint64_t agent_bytes = 0;
        raw_tar(c, (dir / "old").string(), "big.bin", "/ref");
        through_agent(*session, (dir / "old.tar").string());
        lu_test::DockerUpdater updater;
        lu_test::Update seed, edit;
        seed.archive = lu_test::TarBuilder().file("srv/big.bin", old).finish();
        edit.archive = lu_test::TarBuilder().file("srv/big.bin", changed).finish();
        seed.copies = edit.copies = {{"/nowhere/srv/big.bin", "/srv/big.bin"}};
        seed.sync_roots = edit.sync_roots = {"/srv"};
        // As lu-host offers it: the updater starts the archive again rather than keeping a copy.
        seed.rewindable = edit.rewindable = true;
        if (updater.update(container.id(), c, seed).kind != LU_OUTCOME_OK) throw std::runtime_error("seed failed");
        for (int round = 0; round < rounds; ++round) {
            // Each round changes the one byte back and forth, for every side.
            const bool to_new = round % 2 == 0;
            const auto s = through_agent(*session, (dir / (to_new ? "new.tar" : "old.tar")).string());
            agent_ms.push_back(s.ms);
            agent_bytes = std::max(agent_bytes, s.bytes);
            raw_ms.push_back(raw_tar(c, (dir / (to_new ? "new" : "old")).string(), "big.bin", "/ref"));
            const auto start = Clock::now();
            const auto outcome = updater.update(container.id(), c, to_new ? edit : seed);
            updater_ms.push_back(ms_since(start));
            if (outcome.kind != LU_OUTCOME_OK) throw std::runtime_error("updater: " + outcome.message);
        }
        const auto there = lu_test::sh_ok(
            "docker exec " + c + " md5sum /app/big.bin /ref/big.bin /srv/big.bin | awk '{print $1}' | sort -u | wc -l");
        const double raw = median(raw_ms);
        const double tar_bytes = static_cast<double>(fs::file_size(dir / "new.tar"));
        std::printf("agent_delta_bench: %zu MiB file, 1 byte changed in the middle, median of %d\n", mib, rounds);
        std::printf("  tar -c | docker exec -i tar -x : %8.1f ms, %10.0f bytes\n", raw, tar_bytes);
        std::printf("  lu-agent, one docker exec -i   : %8.1f ms, %10llu bytes (%.3f%% of the file), %.2fx time\n",
                    median(agent_ms), static_cast<unsigned long long>(agent_bytes),
                    100.0 * static_cast<double>(agent_bytes) / static_cast<double>(old.size()), median(agent_ms) / raw);
        std::printf("  docker updater (lu-agent)      : %8.1f ms, %.2fx time\n", median(updater_ms),
                    median(updater_ms) / raw);
        std::printf("  container copies agree: %s\n", there == "1" ? "yes" : "NO");
        std::printf("first copy: lu-agent %.1f ms (%llu bytes), raw tar %.1f ms: %.2fx\n", first.ms,
                    static_cast<unsigned long long>(first.bytes), first_raw, first.ms / first_raw);

        std::printf("\nthreshold: a 1-byte change by delta vs the whole file (new path), median of 5 ms\n");
        for (const std::size_t size : {std::size_t{1} << 20, std::size_t{4} << 20, std::size_t{16} << 20}) {
            const auto small = lu_agent_test::random_bytes(size, 3);
            auto small_changed = small;
            small_changed[size / 2] ^= 1;
            const std::string a = (dir / "s1.tar").string(), b = (dir / "s2.tar").string();
            write_file(a, lu_agent_test::tar_of({{"app/s/f", small}}));
            write_file(b, lu_agent_test::tar_of({{"app/s/f", small_changed}}));
            through_agent(*session, a);
            std::vector<double> delta_ms, whole_ms;
            for (int i = 0; i < 5; ++i) {
                delta_ms.push_back(through_agent(*session, i % 2 == 0 ? b : a).ms);
                lu_test::sh_ok("docker exec " + c + " rm -f /app/s/f");
                whole_ms.push_back(through_agent(*session, i % 2 == 0 ? b : a).ms);
            }
            std::printf("  %5zu KiB: delta %7.1f, whole %7.1f\n", size >> 10, median(delta_ms), median(whole_ms));
        }
        block_size_table(old, changed);
        fs::remove_all(dir);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "agent_delta_bench: %s\n", e.what());
        return 1;
    }
}

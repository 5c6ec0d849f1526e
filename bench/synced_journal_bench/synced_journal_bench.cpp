// synced_journal_bench: the cost of the synced journal per save. One save is
// the archive of one changed 4 KiB file, built and drained as an update reads
// it; measured without the journal (the reference), with it for a path it
// already holds (the usual save: no write) and for a new path each time (one
// journal append), and the same made durable: fdatasync once per archive
// chunk (what the executor does) or once per path, for one file and for a
// save of a folder of 50 new files, in the same run.
//
//   synced_journal_bench [--rounds N] [--dir DIR]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/bench_support/stats.hpp"
#include "host/core/archive_builder.hpp"
#include "host/core/synced_journal.hpp"

namespace {
namespace fs = std::filesystem;
using liveupdate::host::ArchiveStream;
using liveupdate::host::BeforeBytesLeaveFn;
using liveupdate::host::BeforeEntryFn;

// One save's archive, drained: its time in microseconds.
double one_save(const fs::path &file, BeforeEntryFn before_entry, BeforeBytesLeaveFn before_bytes_leave = {}) {
    const auto start = lu_bench::Clock::now();
    ArchiveStream stream(
        {{file.string(), "/app/src/" + file.filename().string()}}, liveupdate::common::IgnoreSet{},
        [](liveupdate::common::LogLevel, std::string_view) {}, std::move(before_entry), std::move(before_bytes_leave));
    std::vector<char> buffer(std::size_t{64} * 1024);
    while (stream.read(buffer.data(), buffer.size()) > 0) {
    }
    if (auto incomplete = stream.finish(false)) throw std::runtime_error(*incomplete);
    return lu_bench::ms_since(start) * 1000.0;
}

}  // namespace

int main(int argc, char **argv) {
    int rounds = 2000;
    fs::path dir = fs::temp_directory_path() / ("lu-synced-bench-" + std::to_string(::getpid()));
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--rounds")
            rounds = std::atoi(argv[i + 1]);
        else if (option == "--dir")
            dir = argv[i + 1];
        else {
            std::cerr << "usage: synced_journal_bench [--rounds N] [--dir DIR]\n";
            return 2;
        }
    }
    fs::create_directories(dir / "src");
    const fs::path file = dir / "src" / "main.js";
    std::ofstream(file) << std::string(4096, 'x');
    liveupdate::host::SyncedJournals journals((dir / "state").string());
    const auto journal = journals.journal(liveupdate::host::SyncedKey::of("bench", "local", "", dir.string()));

    const fs::path folder = dir / "src" / "many";
    fs::create_directories(folder);
    for (int i = 0; i < 50; ++i) std::ofstream(folder / ("f" + std::to_string(i))) << std::string(4096, 'y');

    std::vector<double> without, known, fresh, durable, folder_chunk, folder_path;
    for (int r = 0; r < rounds; ++r) {
        // Interleaved, so that drift of the machine weighs on each alike.
        const std::string round = "." + std::to_string(r);
        without.push_back(one_save(file, {}));
        known.push_back(one_save(file, [&](const std::string &p) { journal->add({p}); }));
        fresh.push_back(one_save(file, [&](const std::string &p) { journal->add({p + round}); }));
        durable.push_back(one_save(
            file, [&](const std::string &p) { journal->add({p + round + "d"}); }, [&] { journal->sync(); }));
        if (r % 10 != 0) continue;  // the folder saves are 50 times larger
        folder_chunk.push_back(one_save(
            folder, [&](const std::string &p) { journal->add({p + round}); }, [&] { journal->sync(); }));
        folder_path.push_back(one_save(folder, [&](const std::string &p) {
            journal->add({p + round + "p"});
            journal->sync();
        }));
    }
    const double base = lu_bench::median(without);
    std::printf("save of one 4 KiB file, median of %d (microseconds)\n", rounds);
    std::printf("  without the journal     %8.1f\n", base);
    std::printf("  a path already recorded %8.1f  ratio %.2f\n", lu_bench::median(known),
                lu_bench::median(known) / base);
    std::printf("  a new path (one append) %8.1f  ratio %.2f  (+%.1f us)\n", lu_bench::median(fresh),
                lu_bench::median(fresh) / base, lu_bench::median(fresh) - base);
    std::printf("  a new path, synced       %8.1f  ratio %.2f  (+%.1f us)\n", lu_bench::median(durable),
                lu_bench::median(durable) / base, lu_bench::median(durable) - base);
    std::printf("save of a folder of 50 new 4 KiB files, median of %zu (microseconds)\n", folder_chunk.size());
    std::printf("  synced once per chunk   %8.1f\n", lu_bench::median(folder_chunk));
    std::printf("  synced once per path    %8.1f  ratio %.2f\n", lu_bench::median(folder_path),
                lu_bench::median(folder_path) / lu_bench::median(folder_chunk));
    std::printf("  journal: %ju bytes for %zu paths\n", static_cast<std::uintmax_t>(fs::file_size(journal->file())),
                journal->paths().size());
    fs::remove_all(dir);
    return 0;
}

// A fresh temporary folder for a test, removed with everything in it at scope
// exit: the one helper every suite uses.
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace liveupdate::test {

class TempDir {
public:
    // prefix names the suite, so a folder left by a killed test says whose it is.
    explicit TempDir(std::string_view prefix = "lu-test") {
        std::string pattern = (std::filesystem::temp_directory_path() / prefix).string() + "-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr)
            throw std::runtime_error("cannot create a temporary folder " + pattern + ": " + std::strerror(errno));
        // Canonical, so paths the code under test resolves compare equal.
        path_ = std::filesystem::canonical(pattern);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    ~TempDir() {
        // A folder a test made unremovable (modes, mounts) is left behind rather than failing the test twice.
        std::error_code left_behind;
        std::filesystem::remove_all(path_, left_behind);
    }

    const std::filesystem::path &path() const { return path_; }
    std::filesystem::path operator/(std::string_view rel) const { return path_ / rel; }
    // Writes a file at the relative path, creating its parents; its path.
    std::string write(std::string_view rel, std::string_view content = "x") const {
        const std::filesystem::path file = path_ / rel;
        std::filesystem::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
        return file.string();
    }

private:
    std::filesystem::path path_;
};

}  // namespace liveupdate::test

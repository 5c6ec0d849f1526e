// A fresh temporary directory, removed with everything in it at scope exit.
#pragma once

#include <string>

namespace liveupdate::test {

class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;

    const std::string &path() const { return path_; }
    // Writes a file at the relative path, creating parents.
    std::string write(const std::string &rel, const std::string &content = "x") const;

private:
    std::string path_;
};

}  // namespace liveupdate::test

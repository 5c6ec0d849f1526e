#include "updaters/shared/path_preparation.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::updaters {
namespace {

// Arguments: OP ROOT PATH, again and again. OP x: delete PATH; d: a folder
// comes to PATH; f: a file or a symlink does. Plain POSIX sh (busybox ash too).
constexpr const char *kScript = R"sh(
no_folder() { { [ -L "$1" ] && [ ! -e "$1" ]; } || { [ -e "$1" ] && [ ! -d "$1" ]; }; }
link_or_no_folder() { [ -L "$1" ] || { [ -e "$1" ] && [ ! -d "$1" ]; }; }
walk() {
  r=$2 p=$3
  [ "$p" = "$r" ] && return 0
  if no_folder "$r"; then [ "$1" = fix ] || return 1; rm -f "$r" || return 2; return 0; fi
  [ "$r" = / ] && r=
  rest=${p#"$r"/} q=$r
  while :; do
    case $rest in */*) ;; *) return 0 ;; esac
    q=$q/${rest%%/*} rest=${rest#*/}
    if link_or_no_folder "$q"; then [ "$1" = fix ] || return 1; rm -f "$q" || return 2; return 0; fi
    [ -e "$q" ] || return 0
  done
}
status=0
while [ $# -ge 3 ]; do
  op=$1 r=$2 p=$3
  shift 3
  case $op in
  x) if walk check "$r" "$p"; then rm -rf "$p" || status=1; fi ;;
  d) walk fix "$r" "$p" || status=1
     if [ "$p" != "$r" ] && [ -L "$p" ]; then rm -f "$p" || status=1
     elif no_folder "$p"; then rm -f "$p" || status=1; fi ;;
  f) walk fix "$r" "$p" || status=1
     if [ -L "$p" ]; then rm -f "$p" || status=1
     elif [ -d "$p" ]; then rm -rf "$p" || status=1; fi ;;
  esac
done
exit $status
)sh";

int close_file(std::FILE *file) { return std::fclose(file); }

}  // namespace

std::vector<std::vector<std::string>> preparation_commands(const std::vector<PlannedPath> &paths,
                                                           const std::vector<std::string> &sync_roots) {
    std::vector<std::vector<std::string>> commands;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        if (i % kPathsPerPreparation == 0) commands.push_back({"sh", "-c", kScript, "sh"});
        const auto &planned = paths[i];
        commands.back().insert(commands.back().end(),
                               {std::string(1, static_cast<char>(planned.change)),
                                agent_protocol::root_for(planned.path, sync_roots), planned.path});
    }
    return commands;
}

SpooledArchive::SpooledArchive(const common::ArchiveReadFn &in) : file_(std::tmpfile(), &close_file) {
    if (!file_) throw std::runtime_error(std::string("spooling the update's archive: ") + std::strerror(errno));
    std::FILE *file = file_.get();
    copy_without_implied_dirs(
        in,
        [file](const char *data, std::size_t size) {
            if (std::fwrite(data, 1, size, file) != size)
                throw std::runtime_error(std::string("spooling the update's archive: ") + std::strerror(errno));
        },
        std::nullopt,
        [this](const std::string &path, bool folder) {
            if (!path.empty()) entries_.push_back({folder ? PathChange::folder : PathChange::other, "/" + path});
        });
    if (std::fflush(file) != 0)
        throw std::runtime_error(std::string("spooling the update's archive: ") + std::strerror(errno));
}

common::ArchiveReadFn SpooledArchive::reader() const {
    std::rewind(file_.get());
    return [file = file_](void *buffer, std::size_t capacity) -> std::int64_t {
        const auto got = std::fread(buffer, 1, capacity, file.get());
        if (got == 0 && std::ferror(file.get()) != 0) return -1;
        return static_cast<std::int64_t>(got);
    };
}

}  // namespace liveupdate::updaters

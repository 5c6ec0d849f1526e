#include "common/builtin_ignores.hpp"

namespace liveupdate::common {

const std::vector<std::string> &builtin_ignore_patterns() {
    static const std::vector<std::string> patterns{"**/.git",  // version control
                                                   "**/*.swp",
                                                   "**/*.swx",
                                                   "**/*.swo",
                                                   "**/*.swn",
                                                   "**/4913",  // vim
                                                   "**/.#*",
                                                   "**/#*#",
                                                   "**/flymake_*.*",  // emacs
                                                   "**/*~",           // backups
                                                   "**/*___jb_tmp___",
                                                   "**/*___jb_old___",
                                                   "**/.idea/**",  // JetBrains
                                                   "**/.*.kate-swp",
                                                   "**/.goutputstream-*",  // kate, gedit/GIO
                                                   "**/*-go-tmp-umask"};   // go
    return patterns;
}

const IgnorePatterns &builtin_ignores() {
    static const IgnorePatterns compiled("/", builtin_ignore_patterns());
    return compiled;
}

}  // namespace liveupdate::common

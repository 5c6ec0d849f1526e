// common/open_beneath: a name opened through a folder's descriptor never
// leads out of it: `..`, an absolute name and a symlink are refused beneath
// the folder (open_beneath), and kept inside it when resolved as the
// container's root (open_in_root). EINTR's retry is not reached here.
#define BOOST_TEST_MODULE open_beneath
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>

#include "common/open_beneath.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using liveupdate::common::open_beneath;
using liveupdate::common::open_in_root;
using liveupdate::common::OpenedFd;
using liveupdate::common::UniqueFd;
using liveupdate::test::TempDir;

namespace {

// A root folder holding a file, a folder with a file, and beside the root a
// file it must never reach; symlinks inside pointing at each.
struct Tree {
    TempDir top{"lu-open-beneath"};
    fs::path root = top / "root";
    UniqueFd root_fd;

    Tree() {
        top.write("root/file", "inside");
        top.write("root/folder/inner", "inner");
        top.write("outside", "outside");
        fs::create_symlink("folder", root / "folder_link");
        fs::create_symlink("file", root / "file_link");
        fs::create_symlink(top.path() / "outside", root / "out_link");
        fs::create_symlink("/file", root / "absolute_link");
        root_fd.reset(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        BOOST_REQUIRE(root_fd.get() >= 0);
    }
};

std::string content(const OpenedFd &opened) {
    char buffer[64];
    const ssize_t n = ::pread(opened.fd.get(), buffer, sizeof buffer, 0);
    return n < 0 ? "(unreadable)" : std::string(buffer, static_cast<std::size_t>(n));
}

mode_t type_of(const OpenedFd &opened) {
    struct stat st {};
    BOOST_REQUIRE(::fstat(opened.fd.get(), &st) == 0);
    return st.st_mode & S_IFMT;
}

bool closes_on_exec(const OpenedFd &opened) { return (::fcntl(opened.fd.get(), F_GETFD) & FD_CLOEXEC) != 0; }

// The errno open_beneath gives name beneath the tree's root; 0: it opened it.
int refusal(const Tree &tree, const char *name, std::uint64_t flags = O_RDONLY) {
    const OpenedFd opened = open_beneath(tree.root_fd.get(), name, flags);
    BOOST_TEST(opened.ok() == (opened.error == 0), name << ": open, yet errno " << opened.error);
    return opened.error;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_file_and_a_folder_beneath_open) {
    const Tree tree;
    const OpenedFd file = open_beneath(tree.root_fd.get(), "file", O_RDONLY);
    BOOST_REQUIRE(file.ok());
    BOOST_TEST(file.error == 0);
    BOOST_TEST(content(file) == "inside");
    BOOST_TEST(closes_on_exec(file));
    const OpenedFd inner = open_beneath(tree.root_fd.get(), "folder/inner", O_RDONLY);
    BOOST_REQUIRE(inner.ok());
    BOOST_TEST(content(inner) == "inner");
    const OpenedFd folder = open_beneath(tree.root_fd.get(), "folder", O_RDONLY | O_DIRECTORY);
    BOOST_REQUIRE(folder.ok());
    BOOST_TEST(type_of(folder) == S_IFDIR);
}

BOOST_AUTO_TEST_CASE(a_missing_name_is_enoent) {
    const Tree tree;
    BOOST_TEST(refusal(tree, "folder/none") == ENOENT);
}

BOOST_AUTO_TEST_CASE(dot_dot_and_an_absolute_name_do_not_leave_the_folder) {
    const Tree tree;
    for (const char *name : {"../outside", "folder/../../outside", "/etc/hostname", "/file"})
        BOOST_TEST(refusal(tree, name) == EXDEV, name);
    // `..` that stays beneath is no escape.
    const OpenedFd back = open_beneath(tree.root_fd.get(), "folder/../file", O_RDONLY);
    BOOST_REQUIRE(back.ok());
    BOOST_TEST(content(back) == "inside");
}

BOOST_AUTO_TEST_CASE(a_symlink_on_the_way_is_eloop) {
    const Tree tree;
    BOOST_TEST(refusal(tree, "folder_link/inner") == ELOOP);
}

BOOST_AUTO_TEST_CASE(a_symlink_at_the_end_is_eloop) {
    const Tree tree;
    for (const char *name : {"file_link", "out_link", "absolute_link"}) BOOST_TEST(refusal(tree, name) == ELOOP, name);
    // O_DIRECTORY with the added O_NOFOLLOW: the link is not a folder. Sync back's
    // parent_beneath, opening one segment at a time, sees ENOTDIR for a linked folder.
    BOOST_TEST(refusal(tree, "folder_link", O_RDONLY | O_DIRECTORY) == ENOTDIR);
}

// O_NOFOLLOW is added: an O_PATH open of a symlink at the end gives the link
// itself, which the local updater's found_beneath calls neither file nor folder.
BOOST_AUTO_TEST_CASE(o_path_opens_a_symlink_at_the_end_as_itself) {
    const Tree tree;
    const OpenedFd link = open_beneath(tree.root_fd.get(), "out_link", O_PATH);
    BOOST_REQUIRE(link.ok());
    BOOST_TEST(type_of(link) == S_IFLNK);
}

BOOST_AUTO_TEST_CASE(in_root_dot_dot_and_absolute_names_stay_in_the_root) {
    const Tree tree;
    for (const char *name : {"../file", "/file", "/folder/../../file", "absolute_link"}) {
        const OpenedFd opened = open_in_root(tree.root_fd.get(), name, O_RDONLY);
        BOOST_REQUIRE_MESSAGE(opened.ok(), name << ": " << opened.error);
        BOOST_TEST(content(opened) == "inside", name);
        BOOST_TEST(closes_on_exec(opened), name);
    }
}

BOOST_AUTO_TEST_CASE(in_root_symlinks_are_followed_inside_the_root) {
    const Tree tree;
    const OpenedFd through = open_in_root(tree.root_fd.get(), "/folder_link/inner", O_RDONLY);
    BOOST_REQUIRE(through.ok());
    BOOST_TEST(content(through) == "inner");
    const OpenedFd folder = open_in_root(tree.root_fd.get(), "folder_link", O_PATH | O_DIRECTORY);
    BOOST_REQUIRE(folder.ok());
    BOOST_TEST(type_of(folder) == S_IFDIR);
    // The link's absolute target names the host's file: inside the root it is missing.
    const OpenedFd out = open_in_root(tree.root_fd.get(), "out_link", O_RDONLY);
    BOOST_TEST(!out.ok());
    BOOST_TEST(out.error == ENOENT);
}

BOOST_AUTO_TEST_CASE(in_root_a_magic_link_is_refused) {
    const Tree tree;
    const UniqueFd proc(::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC));
    BOOST_REQUIRE(proc.get() >= 0);
    const std::string magic = "self/fd/" + std::to_string(tree.root_fd.get()) + "/file";
    const OpenedFd opened = open_in_root(proc.get(), magic, O_RDONLY);
    BOOST_TEST(!opened.ok());
    BOOST_TEST(opened.error == ELOOP);
}

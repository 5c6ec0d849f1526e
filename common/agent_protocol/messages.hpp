// The lu-agent protocol's messages, each a value type whose `fields` lists
// its payload in order; encode() and decode() work from that list.
#pragma once

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/agent_protocol/frame.hpp"

namespace liveupdate::agent_protocol {

// An owner field left at this keeps the agent's own (its exec user).
inline constexpr std::int64_t kKeepOwner = -1;

struct Hello {
    static constexpr MessageType type = MessageType::hello;
    std::uint32_t version = kProtocolVersion;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.version);
    }
};

struct HelloReply {
    static constexpr MessageType type = MessageType::hello_reply;
    std::uint32_t version = kProtocolVersion;
    std::string agent;  // e.g. "lu-agent 1 (pid 12, uid 0)"
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.version);
        f(s.agent);
    }
};

// Every write and delete names its `root`, the sync's container path that
// holds `path` (or `path` itself): down to the root symlinks are followed, as
// `tar -C` follows its folder; below it none is, so nothing outside the root
// is touched. A symlink or a file below the root where a folder is needed is
// replaced by a folder, and what is at `path` gives way to the new kind
// (a folder to a file, a file to a folder), as tar does.

// Replaces `path` with `content` (temporary file in the same folder, then a
// rename); missing parent folders are created.
struct WriteFile {
    static constexpr MessageType type = MessageType::write_file;
    std::string path;
    std::string root;
    std::uint32_t mode = 0644;
    std::int64_t uid = kKeepOwner;
    std::int64_t gid = kKeepOwner;
    std::string content;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.path);
        f(s.root);
        f(s.mode);
        f(s.uid);
        f(s.gid);
        f(s.content);
    }
};

// A large file, in parts: FileBegin, FileParts, FileCommit, answered by one
// Result after the commit (begin and parts get none, so they stream). The
// agent builds a temporary file in the same folder and renames it at the
// commit when its size and XXH3-128 are the commit's; otherwise, or when the
// session ends first, the temporary file goes and `path` stays as it was.
// With `from_base` the parts' copy instructions read the regular file now at
// `path` (whose BlockSignatures the host asked for). `size`, the content's
// size as the archive says: from kDeltaMinSize the agent keeps the new file's
// signatures for the next delta.
inline constexpr std::uint64_t kDeltaMinSize = std::uint64_t{1} << 20;
struct FileBegin {
    static constexpr MessageType type = MessageType::file_begin;
    std::string path;
    std::string root;
    std::uint32_t mode = 0644;
    std::int64_t uid = kKeepOwner;
    std::int64_t gid = kKeepOwner;
    std::uint8_t from_base = 0;
    std::uint64_t size = 0;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.path);
        f(s.root);
        f(s.mode);
        f(s.uid);
        f(s.gid);
        f(s.from_base);
        f(s.size);
    }
};

// The next stretch of the file begun: common/delta instructions (copy from
// the base, data). Decoded, a view of the frame's payload: a part's data is
// not copied out of it.
struct FilePart {
    static constexpr MessageType type = MessageType::file_part;
    std::string_view instructions;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.instructions);
    }
};

struct FileCommit {
    static constexpr MessageType type = MessageType::file_commit;
    std::uint64_t size = 0;
    std::uint64_t hash_low = 0;  // XXH3-128 of the whole content
    std::uint64_t hash_high = 0;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.size);
        f(s.hash_low);
        f(s.hash_high);
    }
};

// Asks for the block signatures of the regular file at `path` (symlinks not
// followed below `root`); answered by BlockSignaturesReply.
struct BlockSignatures {
    static constexpr MessageType type = MessageType::block_signatures;
    std::string path;
    std::string root;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.path);
        f(s.root);
    }
};

// error 0: `signature` is common/delta's encoding (block size chosen by the
// agent from the file's size); else an errno value (ENOENT: nothing there,
// EINVAL: not a regular file, EAGAIN: it changed while read) and what failed.
struct BlockSignaturesReply {
    static constexpr MessageType type = MessageType::block_signatures_reply;
    std::int32_t error = 0;
    std::string message;
    std::string signature;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.error);
        f(s.message);
        f(s.signature);
    }
};

// Creates a folder and its missing parents; an existing folder (at the root,
// a symlink to one too) is kept as it is.
struct MakeDir {
    static constexpr MessageType type = MessageType::make_dir;
    std::string path;
    std::string root;
    std::uint32_t mode = 0755;
    std::int64_t uid = kKeepOwner;
    std::int64_t gid = kKeepOwner;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.path);
        f(s.root);
        f(s.mode);
        f(s.uid);
        f(s.gid);
    }
};

struct Symlink {
    static constexpr MessageType type = MessageType::symlink;
    std::string path;
    std::string root;
    std::string target;
    std::int64_t uid = kKeepOwner;
    std::int64_t gid = kKeepOwner;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.path);
        f(s.root);
        f(s.target);
        f(s.uid);
        f(s.gid);
    }
};

// Deletes a path and what lies beneath, never following a symlink below the
// root; a missing path, or one beneath a file or a symlink, is fine (gone).
struct Remove {
    static constexpr MessageType type = MessageType::remove;
    std::string path;
    std::string root;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.path);
        f(s.root);
    }
};

// The forward guard (version 8, docs/sync-back.md): what the next WriteFile,
// FileBegin or Remove, which names the same path and comes right after it,
// may replace; it holds for that request only and gets no answer of its own,
// so writes keep streaming. `absent`: nothing may be at the path (a file, a
// folder, a symlink there is the app's). `digest`: a regular file whose
// content's XXH3-64 is `hash` (as DigestEntry's); a Remove finding nothing
// there is done (the path is gone either way). A write's content is compared
// just before its rename (a large file's at FileCommit); anything else there
// refuses the request: its Result says kNotAsExpected and what the path holds,
// and nothing of it is left behind.
enum class ExpectedKind : std::uint8_t { absent = 1, digest = 2 };
struct ExpectContent {
    static constexpr MessageType type = MessageType::expect_content;
    std::string path;
    std::uint8_t kind = static_cast<std::uint8_t>(ExpectedKind::absent);
    std::uint64_t hash = 0;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.path);
        f(s.kind);
        f(s.hash);
    }
};

// A request refused by its ExpectContent: the path holds something else (its
// Result's message says what: "holds other content (12 bytes)"). No other
// request of the agent answers with it: a filesystem's own ESTALE (NFS) is
// passed on as EIO.
inline constexpr std::int32_t kNotAsExpected = ESTALE;

// Runs argv (PATH searched) in cwd with env ("NAME=value", added to the
// agent's); answered by Output frames, then ExitStatus.
struct Run {
    static constexpr MessageType type = MessageType::run;
    std::vector<std::string> argv;
    std::string cwd;  // empty: the agent's
    std::vector<std::string> env;
    std::uint32_t timeout_ms = 0;  // 0: none; past it the process group is killed
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.argv);
        f(s.cwd);
        f(s.env);
        f(s.timeout_ms);
    }
};

// Lists a tree: DigestEntry frames, then a Result. The content of a file is
// read only when hash_all or its path (relative to `path`) is in hash_paths;
// past max_bytes read or max_ms spent (0: no limit) the walk stops and the
// Result says the digest is incomplete (ETIMEDOUT).
struct Digest {
    static constexpr MessageType type = MessageType::digest;
    std::string path;
    std::vector<std::string> hash_paths;
    std::uint8_t hash_all = 1;
    std::uint64_t max_bytes = 0;
    std::uint32_t max_ms = 0;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.path);
        f(s.hash_paths);
        f(s.hash_all);
        f(s.max_bytes);
        f(s.max_ms);
    }
};

// The answer to write, file commit, mkdir, symlink, delete, digest and watch: error 0 is success,
// else an errno value with what failed.
struct Result {
    static constexpr MessageType type = MessageType::result;
    std::int32_t error = 0;
    std::string message;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.error);
        f(s.message);
    }
};

struct Output {
    static constexpr MessageType type = MessageType::output;
    std::uint8_t stream = 1;  // 1 stdout, 2 stderr
    std::string data;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.stream);
        f(s.data);
    }
};

struct ExitStatus {
    static constexpr MessageType type = MessageType::exit_status;
    std::int32_t code = 0;       // 128 + signal when killed by one; 127 not found, 126 not executable
    std::uint8_t timed_out = 0;  // killed at the time limit
    std::string message;         // why it could not start, when it could not
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.code);
        f(s.timed_out);
        f(s.message);
    }
};

enum class EntryType : std::uint8_t { file = 1, dir = 2, symlink = 3, other = 4 };

struct DigestEntry {
    static constexpr MessageType type = MessageType::digest_entry;
    std::string path;  // relative to the digested folder; "" for the folder itself
    std::uint8_t kind = 0;
    std::uint32_t mode = 0;
    std::uint64_t size = 0;
    std::uint64_t hash = 0;  // XXH3-64 of the content (a symlink: of its target); 0 for folders
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.path);
        f(s.kind);
        f(s.mode);
        f(s.size);
        f(s.hash);
    }
};

// Moves the session from the agent's stdin and stdout to a unix socket the
// agent listens on, mode 0600 in `dir` (its own folder), for a host that
// reaches the container's filesystem (a local engine: /proc/PID/root), so
// frames skip the engine's exec stream. Answered by SocketReply on stdout;
// then the agent waits up to wait_ms for one connection, and gives up at
// once when stdin has more (the host could not connect). The connection's
// first frame is SocketHello with client_token, answered by SocketWelcome
// with agent_token: each side proves it got the tokens through the exec.
// From then on requests come on the socket; stdin only ends the session.
struct OpenSocket {
    static constexpr MessageType type = MessageType::open_socket;
    std::string dir;
    std::string client_token;
    std::string agent_token;
    std::uint32_t wait_ms = 0;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.dir);
        f(s.client_token);
        f(s.agent_token);
        f(s.wait_ms);
    }
};

// error 0: listening at `path` (in the container); else an errno value and what failed.
struct SocketReply {
    static constexpr MessageType type = MessageType::socket_reply;
    std::int32_t error = 0;
    std::string message;
    std::string path;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.error);
        f(s.message);
        f(s.path);
    }
};

struct SocketHello {
    static constexpr MessageType type = MessageType::socket_hello;
    std::string token;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.token);
    }
};

struct SocketWelcome {
    static constexpr MessageType type = MessageType::socket_welcome;
    std::string token;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.token);
    }
};

// Restarts the process `lu-agent supervise` runs in the agent's container
// (agent/supervisor_link.hpp): SIGTERM, up to grace_ms for it to end,
// SIGKILL, then the same command again. Answered by a Result once it started
// again: error 0 with its old and new PIDs in `message`; kNoSupervisor when
// no supervisor listens in the container; else an errno value and what failed.
inline constexpr std::int32_t kNoSupervisor = ESRCH;
struct RestartProcess {
    static constexpr MessageType type = MessageType::restart_process;
    std::uint32_t grace_ms = 0;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.grace_ms);
    }
};

// Sync back (version 7, docs/sync-back.md): the agent watches `root` (a sync
// rule's containerPath) with inotify, recursively, never following a symlink,
// and sends a ContainerChange, unasked, for each file beneath it whose name
// relative to root the patterns (the ignore syntax) ask for, once its writer
// closed it or it stopped changing for debounce_ms (one written and not
// closed yet: for 200 ms at least, so that an in-place rewrite does not come
// back empty first). With report_existing the files there now come too,
// else only changes after the watch began; of those, a file among
// agreed_paths whose content hashes to its agreed_hashes entry (XXH3-64) is
// not sent, and one of agreed_paths no longer there comes as deleted: what
// changed while no watch ran. Answered by a Result (error 0: watching; else
// an errno value, e.g. ENOENT: no root yet). A watch_id used again replaces
// that watch.
struct WatchChanges {
    static constexpr MessageType type = MessageType::watch_changes;
    std::uint32_t watch_id = 0;
    std::string root;
    std::vector<std::string> patterns;
    std::uint64_t max_file_bytes = 0;  // larger files come without content (0: none comes with it)
    std::uint32_t debounce_ms = 0;
    std::uint8_t report_existing = 0;
    std::vector<std::string> agreed_paths;     // relative to root
    std::vector<std::uint64_t> agreed_hashes;  // one per agreed path
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.watch_id);
        f(s.root);
        f(s.patterns);
        f(s.max_file_bytes);
        f(s.debounce_ms);
        f(s.report_existing);
        f(s.agreed_paths);
        f(s.agreed_hashes);
    }
};

// What a path beneath a watch's root is now. A symlink, FIFO, socket or
// device is reported as what it is and never opened nor followed; `rescan`
// (path "") says the kernel's events overflowed: the files come again, each
// as it is now, and those gone since as deleted.
enum class ChangeKind : std::uint8_t { written = 1, deleted = 2, symlink = 3, other = 4, rescan = 5 };

// The content a ContainerChange carries fits one frame; a larger file's
// content comes first in ContainerChangeParts of kChangePartBytes each.
inline constexpr std::uint64_t kMaxChangeContent = kMaxPayload - 64 * 1024;
inline constexpr std::uint64_t kChangePartBytes = 1u << 20;

// A change in the container, unasked (between any two answers). `path` is the
// name relative to the watch's root as the filesystem has it (bytes
// unchecked: the host judges them). A written file has its mode, size and,
// when its content came (has_content), that content and its XXH3-64; else
// `note` says why not (over max_file_bytes, unreadable). Of a file past
// kMaxChangeContent, `content` is the last part: the ContainerChangeParts of
// the same watch and path sent just before it carry the rest, in order.
struct ContainerChange {
    static constexpr MessageType type = MessageType::container_change;
    std::uint32_t watch_id = 0;
    std::string path;
    std::uint8_t kind = 0;
    std::uint32_t mode = 0;
    std::uint64_t size = 0;
    std::uint64_t hash = 0;
    std::uint8_t has_content = 0;
    std::string content;
    std::string note;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.watch_id);
        f(s.path);
        f(s.kind);
        f(s.mode);
        f(s.size);
        f(s.hash);
        f(s.has_content);
        f(s.content);
        f(s.note);
    }
};

// The next bytes of a large file's content, before its ContainerChange
// (nothing else of the watches comes between them).
struct ContainerChangePart {
    static constexpr MessageType type = MessageType::container_change_part;
    std::uint32_t watch_id = 0;
    std::string path;
    std::string data;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.watch_id);
        f(s.path);
        f(s.data);
    }
};

// The session ends: the agent says why.
struct Fatal {
    static constexpr MessageType type = MessageType::fatal;
    std::string message;
    template <class S, class F>
    static void fields(S &s, F &&f) {
        f(s.message);
    }
};

template <class M>
std::string encode(const M &message) {
    FieldWriter writer;
    M::fields(message, [&writer](const auto &field) { writer.put(field); });
    return writer.frame(M::type);
}

// Throws ProtocolError when the frame is another type or its payload does not parse.
template <class M>
M decode(const Frame &frame) {
    if (frame.type != M::type)
        throw ProtocolError(std::string("expected a ") + type_name(M::type) + " frame, got " + type_name(frame.type));
    FieldReader reader(frame.payload);
    M message;
    try {
        M::fields(message, [&reader](auto &field) { reader.get(field); });
        reader.expect_end();
    } catch (const ProtocolError &e) {
        throw ProtocolError(std::string(type_name(M::type)) + " frame: " + e.what());
    }
    return message;
}

// The start of a FilePart frame whose instructions are instructions_head and
// then `rest` bytes sent after it as they are (a large part's data, uncopied).
std::string file_part_head(std::string_view instructions_head, std::size_t rest);

// Why a container path is refused, or "" when it is absolute, has no `..`
// component and no NUL byte.
std::string path_problem(std::string_view path);

// Whether path is root or lies beneath it (names compared; empty and "." names skipped).
bool is_within(std::string_view root, std::string_view path);

// The longest of roots that holds path; none: path itself (followed down to
// it, as a host without sync roots had it; archive entries above every sync).
std::string root_for(const std::string &path, const std::vector<std::string> &roots);

}  // namespace liveupdate::agent_protocol

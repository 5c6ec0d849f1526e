// The lu-agent frame codec: round trips, streams cut anywhere, malformed input refused.
#define BOOST_TEST_MODULE agent_protocol
#include <boost/test/unit_test.hpp>

#include "common/agent_protocol/messages.hpp"

using namespace liveupdate::agent_protocol;

BOOST_AUTO_TEST_CASE(every_request_round_trips) {
    const WriteFile write{"/app/a b.txt", "/app", 0755, 1000, -1, std::string("x\0y", 3)};
    const auto w = decode<WriteFile>(*[&] {
        FrameDecoder d;
        d.feed(encode(write));
        return d.next();
    }());
    BOOST_TEST(w.path == write.path);
    BOOST_TEST(w.root == "/app");
    BOOST_TEST(w.mode == 0755u);
    BOOST_TEST(w.uid == 1000);
    BOOST_TEST(w.gid == -1);
    BOOST_TEST(w.content == write.content);

    const Run run{{"sh", "-c", "echo hi"}, "/app", {"A=1", "B="}, 1500};
    FrameDecoder d;
    d.feed(encode(run));
    const auto r = decode<Run>(*d.next());
    BOOST_TEST(r.argv == run.argv);
    BOOST_TEST(r.cwd == "/app");
    BOOST_TEST(r.env == run.env);
    BOOST_TEST(r.timeout_ms == 1500u);

    FrameDecoder restart;
    restart.feed(encode(RestartProcess{4321}));
    const auto frame = restart.next();
    BOOST_REQUIRE(frame.has_value());
    BOOST_TEST(type_name(frame->type) == std::string("restart process"));
    BOOST_TEST(decode<RestartProcess>(*frame).grace_ms == 4321u);
}

BOOST_AUTO_TEST_CASE(a_stream_cut_at_every_byte_gives_the_same_frames) {
    const std::string stream =
        encode(Hello{}) + encode(Remove{"/x", "/"}) + encode(Output{2, "err"}) + encode(Result{2, "no"});
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        FrameDecoder d;
        std::vector<Frame> frames;
        d.feed(std::string_view(stream).substr(0, cut));
        while (auto f = d.next()) frames.push_back(*f);
        d.feed(std::string_view(stream).substr(cut));
        while (auto f = d.next()) frames.push_back(*f);
        BOOST_REQUIRE(frames.size() == 4u);
        BOOST_TEST(decode<Remove>(frames[1]).path == "/x");
        BOOST_TEST(decode<Output>(frames[2]).data == "err");
        BOOST_TEST(decode<Result>(frames[3]).error == 2);
        BOOST_TEST(!d.pending());
    }
}

BOOST_AUTO_TEST_CASE(malformed_frames_are_protocol_errors) {
    FrameDecoder unknown;
    unknown.feed(std::string("\0\0\0\0\x7f", 5));
    BOOST_CHECK_THROW(unknown.next(), ProtocolError);

    FrameDecoder oversized;
    oversized.feed(std::string("\xff\xff\xff\xff\x02", 5));
    BOOST_CHECK_THROW(oversized.next(), ProtocolError);
    // A peer announcing a frame of 16 MiB and a byte is refused before the daemon buffers it.
    FrameDecoder just_over;
    just_over.feed(frame_header(MessageType::write_file, 1) + "x");
    BOOST_REQUIRE(just_over.next().has_value());
    just_over.feed(std::string("\x01\0\0\x01\x02", 5));
    BOOST_CHECK_THROW(just_over.next(), ProtocolError);
    BOOST_CHECK_THROW(frame_header(MessageType::file_part, (std::size_t{16} << 20) + 1), ProtocolError);
    BOOST_CHECK_NO_THROW(frame_header(MessageType::file_part, std::size_t{16} << 20));

    // A string claiming more bytes than the payload holds.
    FrameDecoder d;
    d.feed(std::string("\x04\0\0\0\x05\x10\0\0\0", 9));
    const auto frame = d.next();
    BOOST_REQUIRE(frame.has_value());
    BOOST_CHECK_THROW(decode<Remove>(*frame), ProtocolError);
    // Trailing bytes, and the wrong type.
    FrameDecoder t;
    t.feed(encode(Result{0, ""}));
    BOOST_CHECK_THROW(decode<Remove>(*t.next()), ProtocolError);
    FieldWriter extra;
    extra.put(std::string("/x"));
    extra.put(std::uint8_t{1});
    FrameDecoder e;
    e.feed(extra.frame(MessageType::remove));
    BOOST_CHECK_THROW(decode<Remove>(*e.next()), ProtocolError);
    // A list count beyond what the payload could hold is refused before any allocation.
    FieldWriter lie;
    lie.put(std::uint32_t{0x7fffffff});
    FrameDecoder l;
    l.feed(lie.frame(MessageType::run));
    BOOST_CHECK_THROW(decode<Run>(*l.next()), ProtocolError);
}

BOOST_AUTO_TEST_CASE(paths_must_be_absolute_and_free_of_dotdot) {
    BOOST_TEST(path_problem("/app/src/a.txt").empty());
    BOOST_TEST(path_problem("/app/..x/a..b").empty());
    BOOST_TEST(!path_problem("app/a").empty());
    BOOST_TEST(!path_problem("").empty());
    BOOST_TEST(!path_problem("/app/../etc/passwd").empty());
    BOOST_TEST(!path_problem("/app/..").empty());
    BOOST_TEST(!path_problem(std::string("/a\0b", 4)).empty());
}

BOOST_AUTO_TEST_CASE(a_path_goes_with_the_longest_sync_root_that_holds_it) {
    const std::vector<std::string> roots{"/app", "/app/static", "/srv/data"};
    BOOST_TEST(root_for("/app/x/y", roots) == "/app");
    BOOST_TEST(root_for("/app/static/a.css", roots) == "/app/static");
    BOOST_TEST(root_for("/app/static", roots) == "/app/static");
    // Outside every sync root (an older host, an entry above the syncs): followed down to the path itself.
    BOOST_TEST(root_for("/application/x", roots) == "/application/x");
    BOOST_TEST(root_for("/etc/x", {}) == "/etc/x");
    BOOST_TEST(is_within("/", "/anything"));
    BOOST_TEST(!is_within("/app/x", "/app"));
}

BOOST_AUTO_TEST_CASE(sync_back_frames_round_trip_with_any_bytes) {
    const WatchChanges watch{
        3, "/app", {"package-lock.json", "db/**", "!db/tmp"}, 64u << 20, 50, 1, {"db/a.sql", "x\xff"}, {~0ULL, 7}};
    FrameDecoder d;
    d.feed(encode(watch));
    const auto frame = d.next();
    BOOST_REQUIRE(frame.has_value());
    BOOST_TEST(type_name(frame->type) == std::string("watch changes"));
    const auto w = decode<WatchChanges>(*frame);
    BOOST_TEST(w.watch_id == 3u);
    BOOST_TEST(w.root == "/app");
    BOOST_TEST(w.patterns == watch.patterns);
    BOOST_TEST(w.max_file_bytes == (64u << 20));
    BOOST_TEST(w.debounce_ms == 50u);
    BOOST_TEST(w.report_existing == 1u);
    BOOST_TEST(w.agreed_paths == watch.agreed_paths);
    BOOST_TEST(w.agreed_hashes == watch.agreed_hashes);
    // A list of numbers longer than its bytes could hold is refused, not allocated.
    std::string lying = encode(watch);
    lying.resize(lying.size() - 16 - 4);
    lying += std::string("\xff\xff\xff\x0f", 4);
    FrameDecoder liar;
    liar.feed(frame_header(MessageType::watch_changes, lying.size() - kHeaderSize) + lying.substr(kHeaderSize));
    const auto lied = liar.next();
    BOOST_REQUIRE(lied.has_value());
    BOOST_CHECK_THROW(decode<WatchChanges>(*lied), ProtocolError);

    // A container's names and content are bytes: a NUL, non-UTF-8, a "..": carried as they are.
    const ContainerChange change{3,
                                 std::string("a/..\xff\0b", 7),
                                 static_cast<std::uint8_t>(ChangeKind::written),
                                 0640,
                                 5,
                                 0x0123456789abcdefull,
                                 1,
                                 std::string("x\0y\nz", 5),
                                 ""};
    d.feed(encode(change) +
           encode(ContainerChange{3, "gone", static_cast<std::uint8_t>(ChangeKind::deleted), 0, 0, 0, 0, "", ""}));
    const auto c = decode<ContainerChange>(*d.next());
    BOOST_TEST(c.watch_id == 3u);
    BOOST_TEST(c.path == change.path);
    BOOST_TEST(c.kind == static_cast<std::uint8_t>(ChangeKind::written));
    BOOST_TEST(c.mode == 0640u);
    BOOST_TEST(c.size == 5u);
    BOOST_TEST(c.hash == 0x0123456789abcdefull);
    BOOST_TEST(c.has_content == 1u);
    BOOST_TEST(c.content == change.content);
    const auto deleted = decode<ContainerChange>(*d.next());
    BOOST_TEST(deleted.kind == static_cast<std::uint8_t>(ChangeKind::deleted));
    BOOST_TEST(!deleted.has_content);
    BOOST_TEST(!d.pending());

    // The start of a large file's content, in a part before its change.
    d.feed(encode(ContainerChangePart{3, "big", std::string("\0\xff", 2)}));
    const auto part_frame = d.next();
    BOOST_REQUIRE(part_frame.has_value());
    BOOST_TEST(type_name(part_frame->type) == std::string("container change part"));
    const auto part = decode<ContainerChangePart>(*part_frame);
    BOOST_TEST(part.watch_id == 3u);
    BOOST_TEST(part.path == "big");
    BOOST_TEST(part.data == std::string("\0\xff", 2));

    // A change cut short is refused, as every frame is.
    std::string cut = encode(change);
    cut.resize(cut.size() - 1);
    cut[0] = static_cast<char>(cut[0] - 1);
    FrameDecoder short_one;
    short_one.feed(cut);
    BOOST_CHECK_THROW(decode<ContainerChange>(*short_one.next()), ProtocolError);
}

BOOST_AUTO_TEST_CASE(version_8_adds_the_forward_guard_over_version_7) {
    BOOST_TEST(kProtocolVersion == 8u);
    BOOST_TEST(kOldestProtocolVersion == 6u);
    BOOST_TEST(kSyncBackVersion == 7u);
    BOOST_TEST(kForwardGuardVersion == kProtocolVersion);
}

BOOST_AUTO_TEST_CASE(an_expect_content_round_trips) {
    const ExpectContent sent{"/app/a b.txt", static_cast<std::uint8_t>(ExpectedKind::digest), 0x0123456789abcdefu};
    FrameDecoder d;
    d.feed(encode(sent));
    const auto frame = d.next();
    BOOST_REQUIRE(frame.has_value());
    BOOST_TEST(type_name(frame->type) == std::string("expect content"));
    const auto got = decode<ExpectContent>(*frame);
    BOOST_TEST(got.path == sent.path);
    BOOST_TEST(got.kind == 2u);
    BOOST_TEST(got.hash == sent.hash);
    // The refusal's code is no errno the agent passes on for anything else.
    BOOST_TEST(kNotAsExpected == ESTALE);

    std::string cut = encode(sent);
    cut.resize(cut.size() - 1);
    cut[0] = static_cast<char>(cut[0] - 1);
    FrameDecoder short_one;
    short_one.feed(cut);
    BOOST_CHECK_THROW(decode<ExpectContent>(*short_one.next()), ProtocolError);
}

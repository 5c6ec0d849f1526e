// The byte stream of one agent exec, as an updater's transport carries it
// (docker: the hijacked exec with its frame demuxer; kubernetes: the API
// server's exec WebSocket with its channels): the agent's stdin out, its
// stdout and stderr back. AgentSession speaks the protocol over it.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace liveupdate::agent_client {

class AgentTransport {
public:
    using Clock = std::chrono::steady_clock;

    // Where the bytes that come back go, as they arrive.
    class Sink {
    public:
        virtual void stdout_bytes(std::string_view data) = 0;
        virtual void stderr_bytes(std::string_view data) = 0;

    protected:
        ~Sink() = default;
    };

    enum class Progress { done, timed_out, ended };

    struct End {
        int exit_code = -1;   // the agent exec's, -1 when unknown
        std::string failure;  // why the stream broke, when the transport knows
    };

    virtual ~AgentTransport() = default;
    // Writes all of data by the deadline, handing what arrives meanwhile to
    // sink (so a long pipeline never deadlocks against the answers).
    virtual Progress write(std::string_view data, Clock::time_point deadline, Sink &sink) = 0;
    // Waits for some bytes (handed to sink) until the deadline; `ended` once
    // the stream ended and all of it was handed over.
    virtual Progress read(Clock::time_point deadline, Sink &sink) = 0;
    // Hands over what has arrived without waiting. False when the stream
    // cannot take a request now: ended, or holding output nobody asked for.
    virtual bool idle(Sink &sink) = 0;
    // How the stream ended (meaningful once write or read said `ended`).
    virtual End end() = 0;
    // A descriptor that polls readable when idle() has something to hand
    // over (bytes or the end), for waiting on this stream with another; -1: none.
    virtual int readable_fd() const { return -1; }
    // Whether interrupt() ends a read()'s wait; false: a reader that must
    // notice its owner stopping waits in short steps.
    virtual bool interruptible() const { return false; }
    // [thread-safe] Ends the read() waiting now, and makes every later one
    // return timed_out at once: the owner stops. Nothing for a transport
    // that is not interruptible().
    virtual void interrupt() {}
};

}  // namespace liveupdate::agent_client

// The load patterns: a closed loop of N clients, or an open loop that starts requests on a schedule.
#pragma once

#include <algorithm>     // std::min
#include <chrono>        // std::chrono
#include <csignal>       // SIGINT, SIGTERM
#include <cstddef>       // std::size_t
#include <cstdint>       // std::int32_t
#include <exception>     // std::exception_ptr, std::rethrow_exception
#include <functional>    // std::function
#include <memory>        // std::unique_ptr, std::make_unique
#include <optional>      // std::optional
#include <string>        // std::string, std::to_string
#include <string_view>   // std::string_view
#include <unordered_set> // std::unordered_set
#include <utility>       // std::exchange (Boost 1.74's awaitable.hpp uses it without the include), std::move
#include <vector>        // std::vector

#include <boost/asio/co_spawn.hpp>     // boost::asio::co_spawn
#include <boost/asio/io_context.hpp>   // boost::asio::io_context
#include <boost/asio/signal_set.hpp>   // boost::asio::signal_set
#include <boost/asio/steady_timer.hpp> // boost::asio::steady_timer
#include <fmt/format.h>               // fmt::format

#include "servestat/core/errors.hpp"  // error, usage_error
#include "servestat/load/client.hpp"  // connection, endpoint, http_options, prepared_request
#include "servestat/load/conversation.hpp" // conversation, session_script, session_request_options

namespace servestat::load {

// A request as the workload and the context budget made it, before it is sent.
struct planned_request {
    prepared_request http;
    std::int32_t prompt_tokens = 0; // the driver's count; the server's usage replaces it when it has one
    std::int32_t max_tokens = 0;
    std::optional<std::int32_t> prompt_tokens_original;
    bool trimmed = false;
};

// How requests start. Closed loop: `concurrency` clients, each sending its next request when the
// previous one ends (t_sched = that moment), for `requests` requests or until `duration`. Open loop:
// request i is due at schedule[i]; a request that cannot start on time (max_concurrency reached)
// keeps its t_sched, so the wait shows as client_queue instead of vanishing (coordinated omission).
struct load_pattern {
    std::int32_t concurrency = 0;
    std::optional<std::size_t> requests;
    std::optional<double> duration;
    std::vector<double> schedule;
    std::int32_t max_concurrency = 0; // open loop: at most this many in flight; 0 = no limit

    bool is_open_loop() const { return !schedule.empty(); }
};

struct run_totals {
    std::size_t sent = 0;
    std::size_t ok = 0;
    double wall_seconds = 0;
    bool stopped = false; // stop() ended it early
    // drain() ended it early: what asked (run_observer.hpp's stop_request.kind) and why; empty kind
    // when the run sent everything it was to send, or was stopped.
    std::string drained_kind, drained_reason;
    std::size_t connections = 0;     // opened during the run (a closed loop's before its clock too)
    std::size_t turns_not_sent = 0;  // sessions: later turns of sessions whose turn failed
};

// A multi-turn run: `in_flight` sessions at once, each running its turns in order (a turn is sent
// its think time after the previous reply ended), a new session starting when one ends; the
// sessions in file order, until `sessions` of them or `duration` seconds (no session starts after).
struct session_pattern {
    std::int32_t in_flight = 1;
    std::optional<std::size_t> sessions;
    std::optional<double> duration;
};

// Servers close idle keep-alive connections (uvicorn, under vLLM, after 5 s); an open loop does not
// reuse a connection idle for longer than this, so a request never races the server's close.
inline constexpr double reuse_idle_seconds = 4.0;

// The client's measurement of itself (self_measure.hpp) hooked into the run it measures: `begin` on the
// run's thread just before anything is sent (it arms a timer on the io_context), `end` when the run's
// last request is done (it cancels that timer, or io_context::run would never return), and `late`
// with how long the client took to start a request that it could have started: an open loop's start
// behind its t_sched, or behind the moment --max-concurrency freed its slot when it had to wait for
// one (that wait is the test's, logged as client_queue); a session turn's behind its t_sched; a closed
// loop client's next request behind the end of its previous response (`turnaround`).
class run_probe {
public:
    enum class lateness { schedule, turnaround };
    virtual ~run_probe() = default;
    virtual void begin(net::io_context& io, steady::time_point run_start) = 0;
    virtual void end() = 0;
    virtual void late(lateness kind, double seconds) = 0;
};

class driver {
public:
    using plan_function = std::function<const planned_request&(std::size_t index)>;
    using result_function = std::function<void(const request_result&)>;
    // When (seconds after sending) the driver aborts the request with this key, or nothing.
    using cancel_function = std::function<std::optional<double>(std::size_t key)>;

private:
    struct state {
        const load_pattern& pattern;
        const plan_function& plan;
        const result_function& on_result;
        steady::time_point start;
        std::size_t next = 0;
        std::size_t sent = 0;
        std::size_t ok = 0;
        std::int32_t in_flight = 0;
        bool stopping = false;
        bool draining = false; // drain(): nothing new starts, what is in flight completes
        std::string drained_kind, drained_reason;
        std::vector<std::unique_ptr<connection>> idle;
        std::unordered_set<connection*> active;
        net::steady_timer* due = nullptr; // the dispatcher's wait for the next start
        net::steady_timer slot;           // cancelled when an open-loop request ends
        std::optional<steady::time_point> slot_freed; // when a slot came free since the dispatcher began to wait
        net::signal_set* signals = nullptr;
        std::size_t live = 0; // coroutines of this run still going
        std::size_t connections = 0;
        // Sessions.
        std::vector<net::steady_timer*> thinking; // think-time waits, cancelled by stop()
        std::size_t turns_not_sent = 0;

        state(net::io_context& io, const load_pattern& p, const plan_function& f, const result_function& r)
            : pattern(p), plan(f), on_result(r), start(steady::now()), slot(io) {}
    };

public:
    driver(net::io_context& io, endpoint where, http_options options)
        : io_(io), where_(std::move(where)), options_(std::move(options)) {
        tcp::resolver resolver(io_);
        boost::system::error_code ec;
        addresses_ = resolver.resolve(where_.host, where_.port, ec);
        if (ec) throw error(fmt::format("cannot resolve {}: {}", where_.host, ec.message()));
    }

    const endpoint& where() const { return where_; }
    void set_cancellation(cancel_function f) { cancel_ = std::move(f); }
    // Called when a run's clock starts (t = 0 of its logged times), before anything is sent.
    void on_start(std::function<void(steady::time_point)> f) { on_start_ = std::move(f); }
    // Told how the client itself keeps up (run_probe above); nullptr for none.
    void set_probe(run_probe* p) { probe_ = p; }
    const tcp::resolver::results_type& addresses() const { return addresses_; }
    const http_options& options() const { return options_; }
    // Requests sent and not yet completed (0 between runs).
    std::size_t in_flight() const { return state_ ? state_->active.size() : 0; }

    // Runs the pattern to the end (or to stop()); `on_result` sees every request as it completes.
    run_totals run(const load_pattern& pattern, const plan_function& plan, const result_function& on_result) {
        validate(pattern);
        // The closed loop's clients connect before the clock starts: otherwise each one's first
        // request would hold a TCP connect (512 at once take some 10 ms on loopback).
        std::vector<std::unique_ptr<connection>> clients;
        if (!pattern.is_open_loop()) {
            auto count = static_cast<std::size_t>(pattern.concurrency);
            if (pattern.requests) count = std::min(count, *pattern.requests); // more would never send
            clients = open_connections(count);
        }
        state s(io_, pattern, plan, on_result);
        return run_state(s, [&] {
            if (pattern.is_open_loop()) {
                spawn(s, dispatch(s));
            } else {
                for (auto& client : clients) spawn(s, closed_client(s, *client));
            }
        });
    }

    // Runs sessions (see session_pattern); `on_result` sees every turn as it completes.
    run_totals run_sessions(const session_pattern& pattern, const std::vector<session_script>& scripts,
                            const session_request_options& options, const result_function& on_result) {
        if (pattern.in_flight <= 0) throw usage_error("--sessions-in-flight must be at least 1");
        auto count = std::min(static_cast<std::size_t>(pattern.in_flight), scripts.size());
        if (pattern.sessions) count = std::min(count, *pattern.sessions);
        auto clients = open_connections(count);
        const load_pattern unused;
        const plan_function no_plan;
        state s(io_, unused, no_plan, on_result);
        session_run run{pattern, scripts, options};
        return run_state(s, [&] {
            for (auto& client : clients) spawn(s, session_client(s, run, *client));
        });
    }

    // Ends the run early but gently: nothing new starts, requests in flight complete (or time out)
    // and are logged as they are. `kind` and `reason` go to run_totals. Call it from the io_context's
    // thread (an on_result callback); a second call keeps the first reason.
    void drain(std::string kind, std::string reason) {
        if (!state_ || state_->draining) return;
        state_->draining = true;
        state_->drained_kind = std::move(kind);
        state_->drained_reason = std::move(reason);
        if (state_->due) state_->due->cancel();
        state_->slot.cancel();
        for (auto* t : state_->thinking) t->cancel();
    }

    // Ends the run early: nothing new starts, requests in flight end as `cancelled`. Call it from the
    // io_context's thread (a signal_set handler).
    void stop() {
        if (!state_) return;
        state_->stopping = true;
        if (state_->due) state_->due->cancel();
        state_->slot.cancel();
        for (auto* t : state_->thinking) t->cancel();
        for (auto* c : state_->active) c->cancel();
    }

private:
    // What run_sessions shares between its clients.
    struct session_run {
        const session_pattern& pattern;
        const std::vector<session_script>& scripts;
        const session_request_options& options;
        std::size_t next = 0;
        std::unordered_set<std::string_view> systems_sent; // shared system prompts a cache may hold
    };

    template <class Start>
    run_totals run_state(state& s, Start&& start) {
        state_ = &s;
        // SIGINT/SIGTERM end the run as stop() does; the log keeps every request that completed.
        net::signal_set signals(io_, SIGINT, SIGTERM);
        s.signals = &signals;
        signals.async_wait([this](const boost::system::error_code& ec, int) {
            if (!ec) stop();
        });
        if (on_start_) on_start_(s.start);
        if (probe_) probe_->begin(io_, s.start);
        start();
        io_.restart();
        try {
            io_.run();
        } catch (...) {
            if (probe_) probe_->end();
            state_ = nullptr;
            throw;
        }
        state_ = nullptr;
        return {s.sent, s.ok, detail::seconds_since(s.start), s.stopping, s.drained_kind, s.drained_reason,
                s.connections, s.turns_not_sent};
    }

    // Runs a coroutine of the run; when the last one ends the signal wait is dropped so that
    // io_context::run returns.
    void spawn(state& s, net::awaitable<void> work) {
        ++s.live;
        net::co_spawn(io_, std::move(work), [this, &s](std::exception_ptr e) {
            if (--s.live == 0) {
                if (s.signals) s.signals->cancel();
                if (probe_) probe_->end();
            }
            if (e) std::rethrow_exception(e);
        });
    }

    static void validate(const load_pattern& p) {
        if (p.is_open_loop()) return;
        if (p.concurrency <= 0) throw usage_error("--concurrency must be at least 1");
        if (!p.requests && !p.duration) throw usage_error("give a number of requests (-n) or a --duration");
    }

    // Returns the request's t_end.
    net::awaitable<double> send_one(state& s, connection& conn, std::size_t index, double t_sched) {
        const planned_request& p = s.plan(index);
        request_result r;
        r.id = std::to_string(index);
        r.t_sched = t_sched;
        r.prompt_tokens = p.prompt_tokens;
        r.max_tokens = p.max_tokens;
        r.prompt_tokens_original = p.prompt_tokens_original;
        r.trimmed = p.trimmed;
        co_await send_tracked(s, conn, p.http, r, index);
        s.on_result(r);
        co_return r.t_end;
    }

    // Sends on `conn` and counts what the run totals need; `key` picks the request's cancellation.
    net::awaitable<void> send_tracked(state& s, connection& conn, const prepared_request& request, request_result& r,
                                      std::size_t key) {
        ++s.sent;
        s.active.insert(&conn);
        // Decided before the co_await: GCC 12 miscompiles a conditional inside a co_await's operands.
        std::optional<double> cancel_after;
        if (cancel_) cancel_after = cancel_(key);
        co_await conn.send(request, s.start, r, cancel_after);
        s.active.erase(&conn);
        if (r.status == request_status::ok) ++s.ok;
        if (r.connect_time) ++s.connections;
    }

    static bool starting_ended(const state& s) { return s.stopping || s.draining; }

    bool sessions_done(const state& s, const session_run& run) const {
        if (starting_ended(s) || run.next >= run.scripts.size()) return true;
        if (run.pattern.sessions && run.next >= *run.pattern.sessions) return true;
        return run.pattern.duration && detail::seconds_since(s.start) >= *run.pattern.duration;
    }

    // One client of a session run: a session's turns in order, then the next session.
    net::awaitable<void> session_client(state& s, session_run& run, connection& conn) {
        net::steady_timer think(io_);
        s.thinking.push_back(&think);
        while (!sessions_done(s, run)) {
            const std::size_t session_index = run.next++;
            const auto& script = run.scripts[session_index];
            conversation c(script, run.options);
            auto previous_end = steady::now();
            while (!c.done() && !starting_ended(s)) {
                const auto due = previous_end + std::chrono::duration_cast<steady::duration>(
                                                    std::chrono::duration<double>(c.think_time()));
                if (c.think_time() > 0) {
                    think.expires_at(due);
                    boost::system::error_code ec;
                    co_await think.async_wait(net::redirect_error(net::use_awaitable, ec));
                    if (starting_ended(s)) break;
                }
                // A first turn starts when its session is picked: it has no schedule to be late for.
                if (probe_ && c.next_turn() > 1)
                    probe_->late(run_probe::lateness::schedule, std::chrono::duration<double>(steady::now() - due).count());
                request_result r;
                r.id = std::to_string(s.sent);
                r.t_sched = std::chrono::duration<double>(due - s.start).count();
                r.session = script.id;
                r.turn = c.next_turn();
                // What a prefix cache could hold of this prompt: all but the turn's new text once the
                // rest was sent before (a later turn; a first turn whose system prompt another session
                // sent). An upper bound under any chat template: the new text's frame counts as cacheable.
                const bool sent_before = c.next_turn() > 1 || (!script.system.empty() &&
                                                               !run.systems_sent.insert(script.system).second);
                const auto new_tokens = script.turns[static_cast<std::size_t>(c.next_turn() - 1)].new_tokens;
                const auto request = c.next_request();
                co_await send_tracked(s, conn, request, r, session_index * 1'000'003 + static_cast<std::size_t>(*r.turn));
                r.cacheable_tokens = sent_before ? std::max(0, r.prompt_tokens - new_tokens) : 0;
                previous_end = steady::now();
                const std::size_t left = script.turns.size() - static_cast<std::size_t>(*r.turn);
                if (!c.take_reply(r)) s.turns_not_sent += left;
                s.on_result(r);
            }
        }
        std::erase(s.thinking, &think);
        conn.close();
    }

    bool closed_loop_done(const state& s) const {
        if (starting_ended(s)) return true;
        if (s.pattern.requests && s.next >= *s.pattern.requests) return true;
        return s.pattern.duration && detail::seconds_since(s.start) >= *s.pattern.duration;
    }

    std::vector<std::unique_ptr<connection>> open_connections(std::size_t count) {
        std::vector<std::unique_ptr<connection>> out;
        for (std::size_t i = 0; i < count; ++i) {
            out.push_back(std::make_unique<connection>(io_.get_executor(), where_, addresses_, options_));
            net::co_spawn(io_, out.back()->open(), [](std::exception_ptr e) {
                if (e) std::rethrow_exception(e);
            });
        }
        io_.restart();
        io_.run();
        return out;
    }

    net::awaitable<void> closed_client(state& s, connection& conn) {
        double previous_end = -1; // this client's previous response's end, when it had one
        while (!closed_loop_done(s)) {
            const auto index = s.next++;
            const double now = detail::seconds_since(s.start);
            if (probe_ && previous_end >= 0) probe_->late(run_probe::lateness::turnaround, now - previous_end);
            previous_end = co_await send_one(s, conn, index, now);
        }
        conn.close();
    }

    std::unique_ptr<connection> take_connection(state& s) {
        while (!s.idle.empty()) {
            auto c = std::move(s.idle.back());
            s.idle.pop_back();
            if (c->is_open() && std::chrono::duration<double>(steady::now() - c->last_used()).count() < reuse_idle_seconds)
                return c;
        }
        return std::make_unique<connection>(io_.get_executor(), where_, addresses_, options_);
    }

    // `earliest`: when the request could have started (its t_sched, or when its slot came free).
    net::awaitable<void> open_request(state& s, std::size_t index, steady::time_point earliest) {
        if (probe_)
            probe_->late(run_probe::lateness::schedule,
                         std::max(0.0, std::chrono::duration<double>(steady::now() - earliest).count()));
        auto conn = take_connection(s);
        co_await send_one(s, *conn, index, s.pattern.schedule[index]);
        --s.in_flight;
        if (!s.slot_freed) s.slot_freed = steady::now();
        s.slot.cancel();
        if (conn->is_open() && !s.stopping) s.idle.push_back(std::move(conn));
    }

    net::awaitable<void> dispatch(state& s) {
        net::steady_timer due(io_);
        s.due = &due;
        const auto& schedule = s.pattern.schedule;
        // When the slot the dispatcher last waited for came free: no later request could start before.
        steady::time_point free_since = s.start;
        for (std::size_t i = 0; i < schedule.size() && !starting_ended(s); ++i) {
            const auto due_at = s.start + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(schedule[i]));
            due.expires_at(due_at);
            boost::system::error_code ec;
            co_await due.async_wait(net::redirect_error(net::use_awaitable, ec));
            const bool full = s.pattern.max_concurrency > 0 && s.in_flight >= s.pattern.max_concurrency;
            if (full) s.slot_freed.reset();
            while (s.pattern.max_concurrency > 0 && s.in_flight >= s.pattern.max_concurrency && !starting_ended(s)) {
                s.slot.expires_at(steady::time_point::max());
                co_await s.slot.async_wait(net::redirect_error(net::use_awaitable, ec));
            }
            if (starting_ended(s)) break;
            if (full && s.slot_freed) free_since = *s.slot_freed;
            ++s.in_flight;
            spawn(s, open_request(s, i, std::max(due_at, free_since)));
        }
        s.due = nullptr;
    }

    net::io_context& io_;
    endpoint where_;
    http_options options_;
    tcp::resolver::results_type addresses_;
    state* state_ = nullptr;
    cancel_function cancel_;
    std::function<void(steady::time_point)> on_start_;
    run_probe* probe_ = nullptr;
};

} // namespace servestat::load

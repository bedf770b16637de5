// Running independent pieces of work on several threads: the pieces of one file, the summaries of
// a run's subsets. Results land where the caller puts them by index, so the outcome never depends
// on which thread finished first.
#pragma once

#include <algorithm>  // std::min, std::max
#include <atomic>     // std::atomic
#include <cstddef>    // std::size_t
#include <exception>  // std::exception_ptr, std::current_exception, std::rethrow_exception
#include <system_error> // std::system_error
#include <thread>     // std::thread
#include <type_traits> // std::is_invocable_v
#include <vector>     // std::vector

namespace servestat {

// 0 = every hardware thread (what `--threads` defaults to); at least 1.
inline std::size_t resolve_threads(std::size_t threads) {
    if (threads > 0) return threads;
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware > 0 ? hardware : 1;
}

// How many threads parallel_for(count, threads, ...) runs on: its `worker` argument is below this.
inline std::size_t worker_count(std::size_t count, std::size_t threads) {
    return std::max<std::size_t>(1, std::min(resolve_threads(threads), count));
}

// Calls work(i) (or work(i, worker), worker < worker_count(count, threads), for scratch space kept
// per thread) for every i in [0, count) on up to `threads` threads, this one among them, each
// taking the next index as it becomes free. If calls throw, the exception of the lowest index is
// rethrown once all have finished, so which error a user sees does not depend on timing.
template <class Work>
void parallel_for(std::size_t count, std::size_t threads, Work work) {
    const auto call = [&](std::size_t i, std::size_t worker) {
        if constexpr (std::is_invocable_v<Work&, std::size_t, std::size_t>) work(i, worker);
        else work(i);
    };
    const std::size_t workers = worker_count(count, threads);
    if (workers == 1) {
        for (std::size_t i = 0; i < count; ++i) call(i, 0);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> failures(count);
    auto run = [&](std::size_t worker) {
        for (std::size_t i; (i = next.fetch_add(1)) < count;) {
            try {
                call(i, worker);
            } catch (...) {
                failures[i] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (std::size_t w = 1; w < workers; ++w) {
        try {
            pool.emplace_back(run, w);
        } catch (const std::system_error&) { // no more threads to be had: the ones started do the rest
            break;
        }
    }
    run(0);
    for (auto& t : pool) t.join();
    for (const auto& f : failures)
        if (f) std::rethrow_exception(f);
}

} // namespace servestat

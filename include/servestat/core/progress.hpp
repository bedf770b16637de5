// How far long work has got, counted by the library for a display that another thread draws (the
// CLI's app/progress_display.hpp): the library counts, it never prints. Whatever reads, resamples
// or renders takes an optional `progress_state*` (or `progress_item*`) in its options; null costs one
// branch. Counting is per chunk of work (a megabyte read, a block of resamples, a run), never per
// request, so the atomic adds stay out of the hot loops.
#pragma once

#include <algorithm>   // std::max
#include <atomic>      // std::atomic
#include <chrono>      // std::chrono::steady_clock
#include <cstdint>     // std::uint64_t
#include <list>        // std::list
#include <mutex>       // std::mutex, std::lock_guard
#include <optional>    // std::optional
#include <string>      // std::string
#include <utility>     // std::move
#include <vector>      // std::vector

namespace servestat {

// What a stage counts.
enum class progress_unit { bytes, resamples, runs };

class progress_state;

// One thing worked through within a stage (an input file, a pair's bootstrap, a run's charts): its
// name, its size in the stage's unit (0 = unknown, e.g. standard input) and how much of it is done.
// What is added to an item is added to its stage too. Begun and ended by progress_state (or
// progress_scope); add() may be called from any thread.
class progress_item {
public:
    progress_item(progress_state& owner, std::string name, std::uint64_t total)
        : owner_(owner), name_(std::move(name)), total_(total), began_(std::chrono::steady_clock::now()) {}

    inline void add(std::uint64_t n) noexcept;
    std::uint64_t done() const noexcept { return done_.load(std::memory_order_relaxed); }
    std::uint64_t total() const noexcept { return total_; }
    const std::string& name() const noexcept { return name_; }
    std::chrono::steady_clock::time_point began() const noexcept { return began_; }

private:
    progress_state& owner_;
    std::string name_;
    std::uint64_t total_;
    std::chrono::steady_clock::time_point began_;
    std::atomic<std::uint64_t> done_{0};
};

// The state a display samples: the current stage ("reading", "bootstrap", "charts") with its done
// and total, and the items in flight. Counters are relaxed atomics; names are guarded by a mutex
// taken only when a stage or an item begins or ends, and when the display samples.
class progress_state {
public:
    struct item_sample {
        std::string name;
        std::uint64_t done = 0, total = 0;
        std::chrono::steady_clock::time_point began;
    };
    struct sample {
        std::uint64_t stage = 0; // 0: no stage begun yet; each begin_stage counts one on
        std::string what;
        progress_unit unit = progress_unit::bytes;
        std::uint64_t done = 0, total = 0; // total 0: unknown
        std::chrono::steady_clock::time_point began;
        std::vector<item_sample> items;  // in flight, oldest first
        std::optional<item_sample> last; // the item that ended last, as it ended
    };

    // A new stage of `total` (0 = unknown yet) in `unit`; what was counted before is dropped.
    void begin_stage(std::string what, progress_unit unit, std::uint64_t total = 0) {
        std::lock_guard lock(mutex_);
        what_ = std::move(what);
        unit_ = unit;
        total_.store(total, std::memory_order_relaxed);
        done_.store(0, std::memory_order_relaxed);
        began_ = std::chrono::steady_clock::now();
        last_.reset();
        ++stage_;
    }
    void add_total(std::uint64_t n) noexcept { total_.fetch_add(n, std::memory_order_relaxed); }
    void add_done(std::uint64_t n) noexcept { done_.fetch_add(n, std::memory_order_relaxed); }
    std::uint64_t done() const noexcept { return done_.load(std::memory_order_relaxed); }
    std::uint64_t total() const noexcept { return total_.load(std::memory_order_relaxed); }

    // An item of the current stage; its total is not added to the stage's (the stage's total is
    // known up front, e.g. the sum of every input's size). The reference stays valid until end_item.
    progress_item& begin_item(std::string name, std::uint64_t total) {
        std::lock_guard lock(mutex_);
        return items_.emplace_back(*this, std::move(name), total);
    }

    // The item done: the part of its total not counted yet is counted now (a reader that counts
    // nothing itself is counted whole when it ends), and it leaves the items in flight.
    void end_item(progress_item& item) {
        const std::uint64_t done = item.done();
        if (done < item.total()) add_done(item.total() - done);
        std::lock_guard lock(mutex_);
        last_ = item_sample{item.name(), std::max(done, item.total()), item.total(), item.began()};
        items_.remove_if([&](const progress_item& i) { return &i == &item; });
    }

    sample read() const {
        std::lock_guard lock(mutex_);
        sample out{stage_, what_, unit_, done(), total(), began_, {}, last_};
        for (const auto& i : items_) out.items.push_back({i.name(), i.done(), i.total(), i.began()});
        return out;
    }

private:
    mutable std::mutex mutex_;
    std::uint64_t stage_ = 0;
    std::string what_;
    progress_unit unit_ = progress_unit::bytes;
    std::chrono::steady_clock::time_point began_ = std::chrono::steady_clock::now();
    std::atomic<std::uint64_t> done_{0}, total_{0};
    std::list<progress_item> items_; // a list: items keep their address while others come and go
    std::optional<item_sample> last_;
};

inline void progress_item::add(std::uint64_t n) noexcept {
    done_.fetch_add(n, std::memory_order_relaxed);
    owner_.add_done(n);
}

// An item begun for a scope and ended with it (counted whole then, also when the scope is left by
// an exception: the stage is over for the command then anyway). Nothing at all when `p` is null.
class progress_scope {
public:
    progress_scope(progress_state* p, std::string name, std::uint64_t total)
        : owner_(p), item_(p ? &p->begin_item(std::move(name), total) : nullptr) {}
    progress_scope(const progress_scope&) = delete;
    progress_scope& operator=(const progress_scope&) = delete;
    ~progress_scope() {
        if (item_) owner_->end_item(*item_);
    }
    progress_item* item() const noexcept { return item_; }

private:
    progress_state* owner_;
    progress_item* item_;
};

} // namespace servestat

// vLLM's automatic prefix caching in miniature: chained hashes of full token blocks, an LRU of blocks.
#pragma once

#include <cstddef>       // std::size_t
#include <cstdint>       // std::int32_t, std::uint64_t
#include <list>          // std::list
#include <span>          // std::span
#include <unordered_map> // std::unordered_map
#include <vector>        // std::vector

#include "servestat/core/random.hpp" // detail::mix64

// As vLLM V1's KVCacheManager (vllm/v1/core/kv_cache_utils.py, hash_block_tokens): a prompt is cut
// into blocks of block_size tokens; only full blocks are cached; the key of block i hashes block
// i - 1's key with block i's tokens, so a block matches only behind the same whole prefix. A lookup
// is the longest run of leading blocks present. Capacity is in blocks; when it is full the least
// recently used block goes first. A request's blocks are touched from its last block to its first,
// so of one request the tail is evicted before the head, as vLLM frees a request's blocks in
// reverse order (a cut chain keeps its usable head).
// The engine (engine.hpp) owns one and decides when to look up, touch and insert.

namespace servestat::sim {

// The keys of the full blocks of `tokens`: tokens.size() / block_size of them, each chained to the one
// before.
inline std::vector<std::uint64_t> block_hashes(std::span<const std::uint64_t> tokens, std::int32_t block_size) {
    std::vector<std::uint64_t> out;
    if (block_size < 1) return out;
    const auto size = static_cast<std::size_t>(block_size);
    out.reserve(tokens.size() / size);
    std::uint64_t parent = 0x5eed'cafe'f00d'0001ULL; // the root's key: no block before the first
    for (std::size_t start = 0; start + size <= tokens.size(); start += size) {
        std::uint64_t h = servestat::detail::mix64(parent);
        for (std::size_t i = start; i < start + size; ++i) h = servestat::detail::mix64(h ^ tokens[i]);
        out.push_back(h);
        parent = h;
    }
    return out;
}

class prefix_cache {
public:
    prefix_cache(std::int32_t block_size, std::size_t capacity_blocks)
        : block_size_(block_size), capacity_(capacity_blocks) {}

    std::int32_t block_size() const { return block_size_; }
    std::size_t capacity() const { return capacity_; }
    std::size_t size() const { return index_.size(); }
    bool contains(std::uint64_t key) const { return index_.count(key) != 0; }

    // How many leading blocks of `keys` are cached; changes nothing.
    std::size_t lookup(std::span<const std::uint64_t> keys) const {
        std::size_t n = 0;
        while (n < keys.size() && index_.count(keys[n]) != 0) ++n;
        return n;
    }

    // Marks the first `n` blocks of `keys` (all cached) used now, the first one most recently.
    void touch(std::span<const std::uint64_t> keys, std::size_t n) {
        for (std::size_t i = n; i-- > 0;) {
            const auto it = index_.find(keys[i]);
            if (it != index_.end()) lru_.splice(lru_.begin(), lru_, it->second);
        }
    }

    // Caches every block of `keys` (a chain from the first block), touched as above, then evicts the
    // least recently used blocks beyond the capacity.
    void insert(std::span<const std::uint64_t> keys) {
        for (std::size_t i = keys.size(); i-- > 0;) {
            const auto it = index_.find(keys[i]);
            if (it != index_.end()) {
                lru_.splice(lru_.begin(), lru_, it->second);
            } else {
                lru_.push_front(keys[i]);
                index_.emplace(keys[i], lru_.begin());
            }
        }
        while (index_.size() > capacity_) {
            index_.erase(lru_.back());
            lru_.pop_back();
        }
    }

private:
    std::int32_t block_size_;
    std::size_t capacity_;
    std::list<std::uint64_t> lru_; // most recently used first
    std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> index_;
};

} // namespace servestat::sim

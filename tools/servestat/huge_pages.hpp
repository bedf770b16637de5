// Transparent huge pages for the tool's large columns. A 4·10^6-request log fills about 250 MB of
// fresh memory, and where a kernel gives huge pages only to memory that asks for them
// (/sys/kernel/mm/transparent_hugepage/enabled = madvise, Debian's default), each 4 KiB page of it
// costs a fault: on a paravirtualised VM 13 % of `stats` went to those faults. glibc's malloc asks
// for huge pages when started with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc 2.35 and later; Debian
// 12 has 2.36), and tunables are read only when a process starts, so the tool re-executes itself
// once with it set. A user's own setting of the tunable is left as it is.
#pragma once

#include <cstdlib>    // std::getenv
#include <cstring>    // std::strstr
#include <fstream>    // std::ifstream
#include <string>     // std::string

#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h> // execv
#endif

namespace servestat::cli {

namespace detail {

inline bool huge_pages_only_when_asked() {
    std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    return std::getline(setting, line) && line.find("[madvise]") != std::string::npos;
}

} // namespace detail

// Returns only when no re-execution was needed or it failed; then the tool runs with the pages it has.
inline void restart_with_huge_pages([[maybe_unused]] char** argv) {
    // Sanitizer builds allocate through their own allocator, which ignores the tunable.
#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
    constexpr const char* tunable = "glibc.malloc.hugetlb";
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables && std::strstr(tunables, tunable)) return;
    if (!detail::huge_pages_only_when_asked()) return;
    const std::string value = (tunables && *tunables ? std::string(tunables) + ":" : std::string()) + tunable + "=1";
    if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
    execv("/proc/self/exe", argv);
#endif
}

} // namespace servestat::cli

// What `servestat --version` prints: the version and the source revision the tool was built from.
// Defined in a file written at build time (cmake/source_revision.cmake), so that a new commit
// recompiles that small file only.
#pragma once

namespace servestat::cli {
extern const char* const version_line;
} // namespace servestat::cli

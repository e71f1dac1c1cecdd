// delta/fs.hpp: the file-system primitives the Delta commit protocol relies on, for a local
// or mounted POSIX file system (docs/delta.md says why object stores need another protocol).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "util/status.hpp"

namespace ocppgw::delta {

util::Status fsync_file(const std::filesystem::path& path);
util::Status fsync_dir(const std::filesystem::path& dir);

enum class CreateResult { kCreated, kExists };
// Creates `path` with exactly `content`, or leaves it alone if it already exists: the content
// is written and fsynced under a unique temporary name, then link()ed to `path`, which the
// kernel refuses (EEXIST) when another writer got there first. Readers never see a partial file.
CreateResult create_exclusive(const std::filesystem::path& path, std::string_view content,
                              util::Status* status);

// Replaces `path` with `content` atomically (temporary file, fsync, rename).
util::Status replace_file(const std::filesystem::path& path, std::string_view content);

std::string read_file(const std::filesystem::path& path, util::Status* status);

// Fault injection for the crash-safety and race tests (tests/delta). When the environment
// variable OCPPGW_DELTA_CRASH_AT names `point` (or `point:detail`, e.g.
// "committed:silver_events"), the process kills itself with SIGKILL right here, as `kill -9` at
// that moment would. OCPPGW_DELTA_PAUSE_AT="point[:detail]=milliseconds" sleeps here instead, so
// that two processes meet at the same step. Unset in production: two getenv calls.
void fault_point(std::string_view point, std::string_view detail = {});

// A random (version 4) UUID, for table ids and data file names.
std::string random_uuid();

}  // namespace ocppgw::delta

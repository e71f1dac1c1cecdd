// analytics/delta_staging.hpp: the staging folders of the Delta mirror's cycles
// (<table>/_staging/<cycle>/) and the clean-up of what earlier cycles left in them. Internal to
// the mirror (analytics/delta_mirror.cpp); a file of its own because recognising and undoing a
// crashed cycle (docs/delta.md, "Crash safety") does not depend on what a cycle writes.
// Threading: a StagingDir belongs to the thread running its cycle; clean_staging runs at the
// start of a table's cycle and may meet other processes' cycles in the same folder.
#pragma once

#include <chrono>
#include <filesystem>
#include <utility>
#include <vector>

#include "delta/log.hpp"
#include "util/status.hpp"

namespace ocppgw::analytics {

// The folder under a table's root that holds the cycles' staging folders (readers of the
// table ignore it: its name starts with '_').
inline constexpr const char* kStagingDir = "_staging";

// A cycle's private folder under <table>/_staging/. While the cycle runs it holds an exclusive
// flock on the folder's lock file; the kernel drops the lock when the process dies, so the
// next cycle knows precisely which folders a crashed cycle left behind. Before the cycle moves
// its files into the table it lists them in the folder's manifest: what a crash between
// moving and committing leaves in the table is exactly that list minus what got committed.
class StagingDir {
 public:
  static constexpr const char* kLock = ".lock";
  static constexpr const char* kManifest = "placed";
  static constexpr const char* kAuditFailed = "AUDIT_FAILED";

  explicit StagingDir(std::filesystem::path path) : path_(std::move(path)) {}
  ~StagingDir();
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;

  util::Status create();
  const std::filesystem::path& path() const { return path_; }
  util::Status write_manifest(const std::vector<std::filesystem::path>& relative) const;
  // Kept for inspection (deleted after the staging retention).
  void mark_audit_failed() const;
  void remove() const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

// Cleans what earlier cycles left under <table>/_staging/: folders of failed audits after the
// retention; folders of cycles that died (their lock is free) at once, together with the
// files they had moved into the table but not committed.
void clean_staging(const delta::DeltaLog& log, std::chrono::seconds retention);

}  // namespace ocppgw::analytics

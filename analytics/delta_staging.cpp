// analytics/delta_staging.cpp: the flock and the manifest of a cycle's staging folder, and the
// clean-up that reads them (see delta_staging.hpp).
#include "analytics/delta_staging.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <set>
#include <string>

#include "delta/fs.hpp"
#include "delta/maintenance.hpp"
#include "util/logging.hpp"

namespace ocppgw::analytics {

namespace fs = std::filesystem;
using util::Status;

StagingDir::~StagingDir() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

Status StagingDir::create() {
  std::error_code ec;
  fs::create_directories(path_, ec);
  if (ec) return Status::error("creating " + path_.string() + ": " + ec.message());
  fd_ = ::open((path_ / kLock).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0 || ::flock(fd_, LOCK_EX | LOCK_NB) != 0)
    return Status::error("locking " + (path_ / kLock).string());
  return {};
}

Status StagingDir::write_manifest(const std::vector<fs::path>& relative) const {
  std::string text;
  for (const auto& r : relative) text += r.generic_string() + "\n";
  return delta::replace_file(path_ / kManifest, text);
}

void StagingDir::mark_audit_failed() const {
  std::ofstream(path_ / kAuditFailed) << "see /health\n";
}

void StagingDir::remove() const {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void clean_staging(const delta::DeltaLog& log, std::chrono::seconds retention) {
  std::error_code ec;
  const fs::path staging = log.root() / kStagingDir;
  if (!fs::exists(staging, ec)) return;
  const auto cutoff = fs::file_time_type::clock::now() - retention;
  for (const auto& entry : fs::directory_iterator(staging, ec)) {
    const fs::path dir = entry.path();
    if (fs::exists(dir / StagingDir::kAuditFailed, ec)) {
      if (entry.last_write_time(ec) < cutoff) fs::remove_all(dir, ec);
      continue;
    }
    const int fd = ::open((dir / StagingDir::kLock).c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      // No lock file: a folder being created right now, or one from before locks existed.
      if (entry.last_write_time(ec) < cutoff) fs::remove_all(dir, ec);
      continue;
    }
    const bool owner_gone = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (owner_gone) {
      std::ifstream manifest(dir / StagingDir::kManifest);
      std::vector<std::string> placed;
      for (std::string line; std::getline(manifest, line);)
        if (!line.empty()) placed.push_back(line);
      Status s;
      auto snap = placed.empty() ? std::nullopt : log.snapshot(std::nullopt, &s);
      if (!placed.empty() && !snap) {
        ::close(fd);
        continue;  // the log cannot be read now: keep the evidence for the next cycle
      }
      std::set<std::string> live;
      if (snap)
        for (const auto& [path, add] : snap->files) live.insert(delta::decode_log_path(path));
      for (const std::string& p : placed)
        if (!live.count(p)) {
          fs::remove(log.root() / p, ec);
          log::info("delta_mirror", "",
                    {{"table", log.root().filename().string()},
                     {"deleted_uncommitted_file", p},
                     {"why", "left by a mirror cycle that died before its commit"}});
        }
      fs::remove_all(dir, ec);
    }
    ::close(fd);
  }
}

}  // namespace ocppgw::analytics

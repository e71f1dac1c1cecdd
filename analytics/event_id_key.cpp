// analytics/event_id_key.cpp: see event_id_key.hpp.
#include "analytics/event_id_key.hpp"

#include <sqlite3.h>

#include <array>
#include <string_view>

#include "util/hex.hpp"

namespace ocppgw::analytics {
namespace {

constexpr size_t kPackedBytes = 16;

// Only the digits util::to_hex writes: an id in upper case stays text (see the header).
bool is_lower_hex(unsigned char c) {
  return util::hex_digit(static_cast<char>(c)) >= 0 && !(c >= 'A' && c <= 'F');
}

void event_id_key(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const auto* text = sqlite3_value_text(argv[0]);  // null for a NULL
  bool hex = text != nullptr && sqlite3_value_bytes(argv[0]) == 2 * static_cast<int>(kPackedBytes);
  for (size_t i = 0; hex && i < 2 * kPackedBytes; ++i) hex = is_lower_hex(text[i]);
  if (!hex) return sqlite3_result_value(ctx, argv[0]);  // NULL and every other id as they are
  std::array<unsigned char, kPackedBytes> packed{};
  for (size_t i = 0; i < kPackedBytes; ++i)
    packed[i] = static_cast<unsigned char>(util::hex_digit(static_cast<char>(text[2 * i])) * 16 +
                                           util::hex_digit(static_cast<char>(text[2 * i + 1])));
  sqlite3_result_blob(ctx, packed.data(), kPackedBytes, SQLITE_TRANSIENT);
}

}  // namespace

storage::Status register_event_id_key(storage::Db& db) {
  const int rc = sqlite3_create_function_v2(db.handle(), "event_id_key", 1,
                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                            nullptr, event_id_key, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK)
    return storage::Status::error(std::string("event_id_key: ") + sqlite3_errstr(rc));
  return storage::Status();
}

}  // namespace ocppgw::analytics

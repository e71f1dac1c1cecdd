// analytics/event_id_key.cpp: see event_id_key.hpp.
#include "analytics/event_id_key.hpp"

#include <sqlite3.h>

#include <array>
#include <string_view>

namespace ocppgw::analytics {
namespace {

constexpr size_t kPackedBytes = 16;

// The digit's value for 0-9 and a-f only; -1 otherwise (upper case included, see the header).
int lower_hex_digit(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

void event_id_key(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const auto* text = sqlite3_value_text(argv[0]);
  const int size = sqlite3_value_bytes(argv[0]);
  std::array<unsigned char, kPackedBytes> packed{};
  bool hex = text != nullptr && size == 2 * static_cast<int>(kPackedBytes);
  for (size_t i = 0; hex && i < kPackedBytes; ++i) {
    const int hi = lower_hex_digit(text[2 * i]), lo = lower_hex_digit(text[2 * i + 1]);
    hex = hi >= 0 && lo >= 0;
    packed[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  if (hex) return sqlite3_result_blob(ctx, packed.data(), kPackedBytes, SQLITE_TRANSIENT);
  sqlite3_result_text(ctx, reinterpret_cast<const char*>(text), size, SQLITE_TRANSIENT);
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

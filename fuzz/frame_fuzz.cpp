// fuzz/frame_fuzz.cpp: the OCPP-J frame parser on arbitrary text. It must never throw, and a
// frame it accepts must come back the same through the serializer (what the gateway stores
// and forwards is what the charge point sent). The fast JSON reader (util/json_read.hpp) must
// agree with json::parse wherever it answers: same tree, same number types; a tape must agree
// with that reader wherever it reads.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rpc/frame.hpp"
#include "util/json_read.hpp"
#include "util/json_tape.hpp"
#include "util/json_text.hpp"

using namespace ocppgw::rpc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto fast = ocppgw::util::try_parse_json(text, kMaxNestingDepth)) {
    const auto reference =
        nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    // dump() tells number types apart (1 vs 1.0) where operator== does not.
    if (reference.is_discarded() || *fast != reference || fast->dump() != reference.dump())
      std::abort();
  }
  // A tape (util/json_tape.hpp) reads only what the fast reader reads, to the same text.
  static ocppgw::util::JsonTape tape;
  if (tape.read(text, kMaxNestingDepth)) {
    const auto tree = ocppgw::util::try_parse_json(text, kMaxNestingDepth);
    std::string written;
    tape.root().append_text(written);
    if (!tree || written != ocppgw::util::to_json_text(*tree) ||
        tape.root().to_tree().dump() != tree->dump())
      std::abort();
  }
  const ParseResult parsed = parse_frame(text);
  if (!parsed.frame) {
    if (parsed.error.code == RpcError::GenericError && parsed.error.description.empty())
      std::abort();  // a refusal always says why
    return 0;
  }
  const Frame& f = *parsed.frame;
  if (f.message_id.size() > kMaxMessageIdLength) std::abort();
  std::string again;
  switch (f.type) {
    case MessageType::Call:
      again = serialize_call(f.message_id, f.action, f.payload);
      break;
    case MessageType::CallResult:
      again = serialize_call_result(f.message_id, f.payload);
      break;
    case MessageType::CallError:
      return 0;  // error codes are re-mapped on the way out
  }
  const ParseResult round = parse_frame(again);
  if (!round.frame || round.frame->message_id != f.message_id || round.frame->action != f.action ||
      round.frame->payload != f.payload)
    std::abort();
  return 0;
}

// rpc/frame.cpp
#include "rpc/frame.hpp"

#include "util/json_read.hpp"

namespace ocppgw::rpc {
namespace {

using nlohmann::json;

ParseResult failure(RpcError code, std::string description) {
  ParseResult r;
  r.error = {code, std::move(description)};
  return r;
}

// Bracket depth outside string literals; a linear scan, far cheaper than the parse it guards.
bool nesting_within(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

// Parses `text`, dropping (iteratively, without recursion) every value nested deeper than the
// limit; `too_deep` says whether anything was dropped. Throws json::exception on invalid JSON.
json parse_shallow(std::string_view text, bool& too_deep) {
  too_deep = false;
  return json::parse(text.begin(), text.end(), [&too_deep](int depth, json::parse_event_t, json&) {
    if (depth <= kMaxNestingDepth) return true;
    too_deep = true;
    return false;
  });
}

// What can still be read of a frame that is not valid JSON as a whole (a number beyond double
// range, a NUL byte, a cut-off end): the message type, id and action, when the text begins
// like `[<integer>, "<id>", "<action>"`, so that the CALLERROR can carry the id the peer
// waits on. A forward scan of three tokens; each string token is decoded by the JSON parser
// alone, so escapes and UTF-8 are judged as in a full parse.
void scan_header(std::string_view text, ParseResult& r) {
  size_t i = 0;
  auto skip_blanks = [&] {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
      ++i;
  };
  auto expect = [&](char c) {
    skip_blanks();
    if (i >= text.size() || text[i] != c) return false;
    ++i;
    return true;
  };
  auto string_token = [&]() -> std::optional<std::string> {
    skip_blanks();
    if (i >= text.size() || text[i] != '"') return std::nullopt;
    const size_t start = i++;
    for (bool escaped = false; i < text.size(); ++i) {
      if (escaped)
        escaped = false;
      else if (text[i] == '\\')
        escaped = true;
      else if (text[i] == '"')
        break;
    }
    if (i >= text.size()) return std::nullopt;
    ++i;
    const std::string_view token = text.substr(start, i - start);
    json value = json::parse(token.begin(), token.end(), nullptr, /*allow_exceptions=*/false);
    if (!value.is_string()) return std::nullopt;
    return value.get<std::string>();
  };
  if (!expect('[')) return;
  skip_blanks();
  const size_t type_start = i;
  if (i < text.size() && text[i] == '-') ++i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  const std::string_view type = text.substr(type_start, i - type_start);
  if (type.empty() || !expect(',')) return;
  r.message_id = string_token();
  if (!r.message_id) return;
  if (type.size() == 1 && type[0] >= '2' && type[0] <= '4')
    r.type = static_cast<MessageType>(type[0] - '0');
  if (r.type == MessageType::Call && expect(',')) r.action = string_token();
}

}  // namespace

ParseResult parse_frame(std::string_view text) {
  // nlohmann/json takes a NUL byte for the end of the input, so "[...]\0<anything>" would parse;
  // JSON text never contains one (not even inside a string), so it is refused like any other
  // trailing garbage.
  const bool has_nul = text.find('\0') != std::string_view::npos;
  bool too_deep = false;
  bool out_of_range = false;
  json doc;
  if (!has_nul) {
    try {
      // The reader bounds the depth itself and refuses any NUL, so the bracket scan is only
      // needed for what it hands over.
      if (auto fast = util::try_parse_json(text, kMaxNestingDepth))
        doc = std::move(*fast);
      else if (!nesting_within(text, kMaxNestingDepth))
        doc = parse_shallow(text, too_deep);
      else
        doc = json::parse(text.begin(), text.end());  // the reference: its verdict, its error
    } catch (const json::out_of_range&) {
      out_of_range = true;  // a number beyond double range, such as 1e400
      doc = json(json::value_t::discarded);
    } catch (const json::exception&) {
      doc = json(json::value_t::discarded);
    }
  }
  if (has_nul || doc.is_discarded()) {
    ParseResult r = failure(RpcError::FormationViolation,
                            has_nul        ? "frame is not valid JSON: it contains a NUL byte"
                            : out_of_range ? "frame is not valid JSON: a number is out of range"
                                           : "frame is not valid JSON");
    scan_header(text, r);
    return r;
  }
  if (!doc.is_array() || doc.empty())
    return failure(RpcError::FormationViolation, "frame is not a non-empty JSON array");

  // Recover what can be echoed before judging the frame.
  ParseResult r;
  if (doc.size() >= 2 && doc[1].is_string()) r.message_id = doc[1].get<std::string>();
  // Compared as unsigned so that e.g. 2^32 + 2 cannot wrap around to a CALL.
  const std::optional<uint64_t> type =
      doc[0].is_number_unsigned() ? std::optional<uint64_t>(doc[0].get<uint64_t>()) : std::nullopt;
  if (type && *type >= 2 && *type <= 4) r.type = static_cast<MessageType>(*type);
  if (r.type == MessageType::Call && doc.size() >= 3 && doc[2].is_string())
    r.action = doc[2].get<std::string>();

  auto fail = [&r](RpcError code, std::string description) {
    r.error = {code, std::move(description)};
    return r;
  };
  if (!doc[0].is_number_integer())
    return fail(RpcError::FormationViolation, "message type is not an integer");
  if (doc.size() < 2 || !doc[1].is_string())
    return fail(RpcError::FormationViolation, "message id is missing or not a string");
  if (r.message_id->empty() || r.message_id->size() > kMaxMessageIdLength)
    return fail(RpcError::FormationViolation, "message id must be 1-36 characters");
  if (!r.type)
    return fail(RpcError::MessageTypeNotSupported,
                "message type " + doc[0].dump() + " is not 2, 3 or 4");
  if (too_deep)
    return fail(RpcError::FormationViolation,
                "JSON nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels");

  Frame f;
  f.message_id = *r.message_id;
  switch (*r.type) {
    case MessageType::Call:
      if (doc.size() != 4)
        return fail(RpcError::FormationViolation, "CALL must have exactly 4 elements");
      if (!r.action || r.action->empty())
        return fail(RpcError::FormationViolation, "CALL action is not a non-empty string");
      if (!doc[3].is_object())
        return fail(RpcError::FormationViolation, "CALL payload is not a JSON object");
      f.type = MessageType::Call;
      f.action = *r.action;
      f.payload = std::move(doc[3]);
      break;
    case MessageType::CallResult:
      if (doc.size() != 3)
        return fail(RpcError::FormationViolation, "CALLRESULT must have exactly 3 elements");
      if (!doc[2].is_object())
        return fail(RpcError::FormationViolation, "CALLRESULT payload is not a JSON object");
      f.type = MessageType::CallResult;
      f.payload = std::move(doc[2]);
      break;
    case MessageType::CallError:
      if (doc.size() != 5)
        return fail(RpcError::FormationViolation, "CALLERROR must have exactly 5 elements");
      if (!doc[2].is_string() || !doc[3].is_string() || !doc[4].is_object())
        return fail(RpcError::FormationViolation,
                    "CALLERROR needs string code, string description and object details");
      f.type = MessageType::CallError;
      f.error_code = doc[2].get<std::string>();
      f.error_description = doc[3].get<std::string>();
      f.error_details = std::move(doc[4]);
      break;
  }
  r.frame = std::move(f);
  return r;
}

std::string serialize_call(std::string_view message_id, std::string_view action,
                           const json& payload) {
  return json::array({2, message_id, action, payload}).dump();
}

std::string serialize_call_result(std::string_view message_id, const json& payload) {
  // Written around the payload's own dump: json::array({3, id, payload}) deep-copied the
  // payload into a new tree first (every reply of the ack path; 7 allocations for "{}").
  std::string out = "[3,";
  out += json(message_id).dump();
  out += ',';
  out += payload.dump();
  out += ']';
  return out;
}

std::string serialize_call_error(std::string_view message_id, RpcError code, OcppVersion version,
                                 std::string_view description, const json& details) {
  // A description can come from peer input; dump() escapes it and replaces invalid UTF-8, and it
  // is cut so that an error never grows with the text that caused it.
  constexpr size_t kMaxDescriptionBytes = 512;
  return json::array({4, message_id, wire_name(code, version),
                      description.substr(0, kMaxDescriptionBytes), details})
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace ocppgw::rpc

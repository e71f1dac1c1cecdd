// web/static_files.cpp: see static_files.hpp.
#include "web/static_files.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace ocppgw::web {
namespace {

std::string content_etag(std::string_view bytes) {
  // FNV-1a 64: the ETag only has to change when the content does (it is not a secret).
  uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char text[19];
  std::snprintf(text, sizeof text, "\"%016llx\"", static_cast<unsigned long long>(hash));
  return text;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

HttpResponse redirect_to(const HttpRequest& request, std::string_view location) {
  auto res = make_response(request, http::status::found, "", "text/plain");
  res.set(http::field::location, location);
  return res;
}

}  // namespace

std::string_view content_type_for(std::string_view path) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".woff2", "font/woff2"},
      {".txt", "text/plain; charset=utf-8"},
      {".md", "text/markdown; charset=utf-8"},
  };
  for (const auto& [extension, type] : kTypes)
    if (path.size() > extension.size() && path.ends_with(extension)) return type;
  return "application/octet-stream";
}

bool if_none_match(std::string_view header, std::string_view etag) {
  const auto opaque = [](std::string_view tag) {
    tag = trim(tag);
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    return tag;
  };
  if (trim(header) == "*") return true;
  while (!header.empty()) {
    const size_t comma = header.find(',');
    if (opaque(header.substr(0, comma)) == opaque(etag)) return true;
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return false;
}

StaticFiles::StaticFiles(std::span<const EmbeddedFile> files) {
  files_.reserve(files.size());
  for (const auto& f : files)
    files_.push_back(
        {std::string(f.path), content_type_for(f.path), f.bytes, content_etag(f.bytes)});
  std::sort(files_.begin(), files_.end(),
            [](const File& a, const File& b) { return a.path < b.path; });
}

const StaticFiles::File* StaticFiles::find(std::string_view path) const {
  const auto it = std::lower_bound(files_.begin(), files_.end(), path,
                                   [](const File& f, std::string_view p) { return f.path < p; });
  return it != files_.end() && it->path == path ? &*it : nullptr;
}

HttpResponse StaticFiles::answer(const HttpRequest& request, const File* file) const {
  if (!file) return text_response(request, http::status::not_found, "not found");
  const bool unchanged = if_none_match(request[http::field::if_none_match], file->etag);
  auto res =
      make_response(request, unchanged ? http::status::not_modified : http::status::ok,
                    unchanged ? std::string() : std::string(file->bytes), file->content_type);
  res.set(http::field::cache_control, "no-cache");
  res.set(http::field::etag, file->etag);
  for (const auto& [name, value] : kSecurityHeaders) res.set(name, value);
  return res;
}

void StaticFiles::add_routes(Router& router) const {
  for (const char* path : {"/", "/ui"})
    router.add(http::verb::get, path, [](HttpRequest&& request, HttpRespond respond) {
      respond(redirect_to(request, "/ui/"));
    });
  router.add(http::verb::get, "/ui/", [this](HttpRequest&& request, HttpRespond respond) {
    respond(answer(request, find("index.html")));
  });
  router.add(
      http::verb::get, "/ui/{path+}",
      RouteHandler([this](HttpRequest&& request, const PathParams& params, HttpRespond respond) {
        respond(answer(request, find(params.at("path"))));
      }));
}

}  // namespace ocppgw::web

// Resolving and checking named files. The name is checked as written first (so '/etc/passwd'
// and '../x' fail without touching the file system), then its canonical path, then — after the
// caller opened it — the real path of the open descriptor: the last check is what makes the
// promise hold while another process rearranges the folder.
#include "engine/support/confined_path.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <system_error>

namespace graft {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAllowHint = "--allow-path DIR also allows files under DIR";

/// The canonical form of `p`, absolute, with the symlinks of its existing part resolved and no
/// trailing separator; the lexically normal absolute path when the file system cannot say.
fs::path canonical_or_absolute(const fs::path& p) {
  std::error_code ec;
  fs::path absolute = fs::absolute(p.empty() ? fs::path(".") : p, ec);
  fs::path out = fs::weakly_canonical(absolute, ec);
  if (ec) out = absolute.lexically_normal();
  if (!out.has_filename() && out.has_relative_path()) out = out.parent_path();
  return out;
}

bool has_dot_dot(std::string_view name) {
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

FileConfinement::FileConfinement(const std::string& naming_dir, const PathPolicy& policy,
                                 std::string folder_noun)
    : folder_(canonical_or_absolute(naming_dir)), folder_noun_(std::move(folder_noun)) {
  for (const std::string& root : policy.allowed_roots) roots_.push_back(canonical_or_absolute(root));
}

std::string FileConfinement::printable(std::string_view name) {
  std::string out;
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || c == '\\') {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

std::string FileConfinement::check_name(std::string_view name) const {
  if (name.empty()) return "the file name is empty";
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      return fmt::format("'{}' contains the control character \\x{:02x}; a file name cannot",
                         printable(name), byte);
    }
  }
  if (!roots_.empty()) return "";  // the real location decides (resolve)
  if (name.front() == '/') {
    return fmt::format("'{}' is an absolute path; files named here must lie in {} ({})",
                       printable(name), folder_noun_, kAllowHint);
  }
  if (has_dot_dot(name)) {
    return fmt::format("'{}' leaves {} through '..' ({})", printable(name), folder_noun_,
                       kAllowHint);
  }
  return "";
}

bool FileConfinement::is_within(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (const fs::path& part : root) {
    if (part.empty()) continue;  // a trailing separator
    if (p == path.end() || *p != part) return false;
    ++p;
  }
  return true;
}

bool FileConfinement::allowed(const fs::path& canonical) const {
  if (is_within(canonical, folder_)) return true;
  for (const fs::path& root : roots_) {
    if (is_within(canonical, root)) return true;
  }
  return false;
}

std::string FileConfinement::outside_message(std::string_view name,
                                             const std::string& where) const {
  return fmt::format("'{}' resolves to '{}', outside {} '{}'{}", printable(name),
                     printable(where), folder_noun_, printable(folder_.string()),
                     roots_.empty() ? fmt::format(" ({})", kAllowHint)
                                    : std::string(" and every --allow-path folder"));
}

std::optional<std::string> FileConfinement::resolve(std::string_view name,
                                                    std::string* error) const {
  if (std::string problem = check_name(name); !problem.empty()) {
    *error = std::move(problem);
    return std::nullopt;
  }
  fs::path named{std::string(name)};
  fs::path canonical = canonical_or_absolute(named.is_absolute() ? named : folder_ / named);
  if (!allowed(canonical)) {
    *error = outside_message(name, canonical.string());
    return std::nullopt;
  }
  return canonical.string();
}

bool FileConfinement::check_opened(int fd, const std::string& opened_path,
                                   std::string* error) const {
  std::error_code ec;
  fs::path real = fs::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
  if (!ec) {
    if (allowed(real)) return true;
    *error = outside_message(opened_path, real.string()) + " (it changed while being opened)";
    return false;
  }
  // Without /proc: the descriptor must still be the file the checked path names.
  struct stat opened {}, named {};
  if (::fstat(fd, &opened) == 0 && ::stat(opened_path.c_str(), &named) == 0 &&
      opened.st_dev == named.st_dev && opened.st_ino == named.st_ino) {
    return true;
  }
  *error = fmt::format("'{}' changed while being opened", printable(opened_path));
  return false;
}

}  // namespace graft

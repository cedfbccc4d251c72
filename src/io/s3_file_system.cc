#include "io/s3_file_system.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <random>
#include <thread>

namespace tributary::io {
namespace {

// ---- small helpers

std::string Hex(const unsigned char* p, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; i++) {
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

std::string Digest(std::string_view data, const EVP_MD* md) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), digest, &n, md, nullptr);
  return std::string(reinterpret_cast<const char*>(digest), n);
}
std::string Sha256Hex(std::string_view data) {
  const std::string d = Digest(data, EVP_sha256());
  return Hex(reinterpret_cast<const unsigned char*>(d.data()), d.size());
}

// RFC 3986 encoding of a key or query value; '/' kept in keys (`keep_slash`).
std::string UriEncode(std::string_view s, bool keep_slash) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
  }
  return out;
}

std::string XmlUnescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const size_t semi = s.find(';', i);
    if (semi == std::string_view::npos) {
      out += s[i];
      continue;
    }
    const std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp") {
      out += '&';
    } else if (ent == "lt") {
      out += '<';
    } else if (ent == "gt") {
      out += '>';
    } else if (ent == "quot") {
      out += '"';
    } else if (ent == "apos") {
      out += '\'';
    } else if (!ent.empty() && ent[0] == '#') {
      const long code = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X')
                            ? std::strtol(std::string(ent.substr(2)).c_str(), nullptr, 16)
                            : std::strtol(std::string(ent.substr(1)).c_str(), nullptr, 10);
      if (code > 0 && code < 0x80) {
        out += static_cast<char>(code);
      } else if (code >= 0x80 && code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
      } else if (code >= 0x800 && code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
      }
    } else {
      out += s.substr(i, semi - i + 1);
    }
    i = semi;
  }
  return out;
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The text of each <tag>...</tag> in `xml` (not nested in itself), from `from` on.
std::vector<std::string_view> XmlAll(std::string_view xml, const std::string& tag) {
  std::vector<std::string_view> out;
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  size_t pos = 0;
  while (true) {
    const size_t b = xml.find(open, pos);
    if (b == std::string_view::npos) break;
    const size_t e = xml.find(close, b + open.size());
    if (e == std::string_view::npos) break;
    out.push_back(xml.substr(b + open.size(), e - b - open.size()));
    pos = e + close.size();
  }
  return out;
}
std::string XmlOne(std::string_view xml, const std::string& tag) {
  auto all = XmlAll(xml, tag);
  return all.empty() ? "" : XmlUnescape(all[0]);
}

// "2026-12-05T00:00:00.000Z" -> epoch milliseconds (0 when it does not parse).
int64_t ParseIsoMillis(const std::string& s) {
  struct tm tm {};
  int ms = 0;
  if (s.size() < 19) return 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
    return 0;
  }
  if (s.size() > 20 && s[19] == '.') ms = std::atoi(s.substr(20, 3).c_str());
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsIpOrLocalhost(const std::string& host) {
  if (host == "localhost" || host.rfind("127.", 0) == 0 || host.find(':') != std::string::npos) {
    return true;
  }
  return !host.empty() && std::all_of(host.begin(), host.end(),
                                      [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t WriteHeader(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * n);
  const size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string value = line.substr(colon + 1);
    while (!value.empty() &&
           (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
      value.pop_back();
    }
    const size_t start = value.find_first_not_of(' ');
    (*headers)[Lower(line.substr(0, colon))] =
        start == std::string::npos ? "" : value.substr(start);
  }
  return size * n;
}

struct ReadCursor {
  std::string_view data;
  size_t pos = 0;
};
size_t ReadBody(char* out, size_t size, size_t n, void* user) {
  auto* c = static_cast<ReadCursor*>(user);
  const size_t k = std::min(size * n, c->data.size() - c->pos);
  std::memcpy(out, c->data.data() + c->pos, k);
  c->pos += k;
  return k;
}

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

// ---- configuration

Result<S3Config> S3ConfigFrom(const std::map<std::string, std::string>& options) {
  auto get = [&](const char* key, const char* env1, const char* env2 = nullptr) {
    auto it = options.find(key);
    if (it != options.end()) return it->second;
    std::string v = env1 ? Env(env1) : "";
    if (v.empty() && env2) v = Env(env2);
    return v;
  };
  S3Config c;
  c.endpoint = get("s3.endpoint", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
  const std::string region = get("s3.region", "AWS_REGION", "AWS_DEFAULT_REGION");
  if (!region.empty()) c.region = region;
  c.access_key = get("s3.access-key", "AWS_ACCESS_KEY_ID");
  c.secret_key = get("s3.secret-key", "AWS_SECRET_ACCESS_KEY");
  c.session_token = get("s3.session-token", "AWS_SESSION_TOKEN");
  const std::string path_style = Lower(get("s3.path.style.access", nullptr));
  c.path_style = path_style == "true";
  c.single_writer = Lower(get("s3.single-writer", nullptr)) == "true";
  if (c.access_key.empty() != c.secret_key.empty()) {
    return Status::Invalid(
        "S3 credentials need both an access key and a secret key "
        "('s3.access-key' / 's3.secret-key' or AWS_ACCESS_KEY_ID / "
        "AWS_SECRET_ACCESS_KEY); one of them is missing");
  }
  if (c.access_key.empty()) {
    return Status::Invalid(
        "no S3 credentials: set 's3.access-key' and 's3.secret-key' in the "
        "catalog's options, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  }
  if (!c.endpoint.empty() && c.endpoint.find("://") == std::string::npos) {
    c.endpoint = "https://" + c.endpoint;
  }
  while (!c.endpoint.empty() && c.endpoint.back() == '/') c.endpoint.pop_back();
  return c;
}

Result<std::pair<std::string, std::string>> SplitS3Uri(const std::string& uri) {
  size_t scheme_end = uri.find("://");
  const std::string scheme =
      scheme_end == std::string::npos ? "" : Lower(uri.substr(0, scheme_end));
  if (scheme != "s3" && scheme != "s3a" && scheme != "s3n") {
    return Status::Invalid("'" + uri + "' is not an s3:// URI");
  }
  std::string rest = uri.substr(scheme_end + 3);
  const size_t slash = rest.find('/');
  std::string bucket = rest.substr(0, slash);
  std::string key = slash == std::string::npos ? "" : rest.substr(slash + 1);
  while (!key.empty() && key.back() == '/') key.pop_back();
  if (bucket.empty()) return Status::Invalid("'" + uri + "' names no bucket");
  return std::make_pair(bucket, key);
}

// ---- the curl handles

class S3FileSystem::Handle {
 public:
  Handle() : curl_(curl_easy_init()) {}
  ~Handle() {
    if (curl_) curl_easy_cleanup(curl_);
  }
  CURL* get() { return curl_; }

 private:
  CURL* curl_;
};

struct S3FileSystem::Response {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;
};

S3FileSystem::S3FileSystem(std::string bucket, S3Config config)
    : bucket_(std::move(bucket)), config_(std::move(config)) {}

S3FileSystem::~S3FileSystem() = default;

Result<std::shared_ptr<S3FileSystem>> S3FileSystem::Make(const std::string& root, S3Config config) {
  GlobalInit();
  TRIB_ASSIGN_OR_RETURN(auto parts, SplitS3Uri(root));
  if (config.endpoint.empty()) config.endpoint = "https://s3." + config.region + ".amazonaws.com";
  const size_t scheme_end = config.endpoint.find("://");
  std::string host = config.endpoint.substr(scheme_end + 3);
  const size_t path = host.find('/');
  if (path != std::string::npos) host = host.substr(0, path);
  std::string bare = host;
  if (bare.rfind('[', 0) == 0) {
    bare = bare.substr(1, bare.find(']') - 1);
  } else if (bare.find(':') != std::string::npos) {
    bare = bare.substr(0, bare.find(':'));
  }
  if (IsIpOrLocalhost(bare)) config.path_style = true;
  std::shared_ptr<S3FileSystem> fs(new S3FileSystem(parts.first, std::move(config)));
  fs->host_base_ = fs->config_.endpoint.substr(0, scheme_end + 3) + host;
  // The bucket answers (HEAD bucket): a wrong endpoint, bucket or key fails here, by name.
  TRIB_ASSIGN_OR_RETURN(Response r, fs->Request("HEAD", "", "", {}, {}));
  if (r.status == 404) {
    return Status::NotFound("S3 bucket '" + fs->bucket_ + "' does not exist at " +
                            fs->config_.endpoint + " (NoSuchBucket)");
  }
  if (r.status != 200) return fs->Fail("HEAD bucket", "", r);
  return fs;
}

std::string S3FileSystem::Url(const std::string& key, const std::string& query) const {
  std::string url;
  if (config_.path_style) {
    url = host_base_ + "/" + UriEncode(bucket_, false) +
          (key.empty() ? "" : "/" + UriEncode(key, true));
  } else {
    const size_t scheme_end = host_base_.find("://");
    url = host_base_.substr(0, scheme_end + 3) + bucket_ + "." + host_base_.substr(scheme_end + 3) +
          "/" + UriEncode(key, true);
  }
  if (!query.empty()) url += "?" + query;
  return url;
}

Result<S3FileSystem::Response> S3FileSystem::Request(const std::string& method,
                                                     const std::string& key,
                                                     const std::string& query,
                                                     std::string_view body,
                                                     const std::vector<std::string>& headers) {
  std::unique_ptr<Handle> h;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_[method]++;
    if (!idle_.empty()) {
      h = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!h) h = std::make_unique<Handle>();
  if (!h->get()) return Status::IOError("cannot start an HTTP client (curl_easy_init)");
  const std::string url = Url(key, query);
  const std::string payload_hash = Sha256Hex(body);
  const std::string sigv4 = "aws:amz:" + config_.region + ":s3";
  const std::string userpwd = config_.access_key + ":" + config_.secret_key;
  std::mt19937 rng(std::random_device{}());
  Response r;
  constexpr int kAttempts = 6;
  for (int attempt = 0; attempt < kAttempts; attempt++) {
    CURL* c = h->get();
    curl_easy_reset(c);
    r = Response();
    ReadCursor cursor{body, 0};
    struct curl_slist* list = nullptr;
    list = curl_slist_append(list, ("x-amz-content-sha256: " + payload_hash).c_str());
    if (!config_.session_token.empty()) {
      list = curl_slist_append(list, ("x-amz-security-token: " + config_.session_token).c_str());
    }
    for (const std::string& hdr : headers) list = curl_slist_append(list, hdr.c_str());
    list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(c, CURLOPT_USERPWD, userpwd.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, WriteBody);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, WriteHeader);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (method == "HEAD") {
      curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (method == "PUT") {
      curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(c, CURLOPT_READFUNCTION, ReadBody);
      curl_easy_setopt(c, CURLOPT_READDATA, &cursor);
      curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(body.size()));
    } else if (method == "POST") {
      curl_easy_setopt(c, CURLOPT_POST, 1L);
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.empty() ? "" : body.data());
      curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    } else if (method != "GET") {
      curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    }
    const CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(list);
    bool retry = false;
    if (rc != CURLE_OK) {
      retry = true;  // connection refused / reset / timed out
      r.status = 0;
      r.body = curl_easy_strerror(rc);
    } else {
      curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
      retry = r.status >= 500 || r.status == 429;
    }
    if (!retry || attempt + 1 == kAttempts) break;
    std::this_thread::sleep_for(std::chrono::milliseconds((50 << attempt) + rng() % 50));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(h));
  }
  if (r.status == 0) {
    return Status::IOError("S3 " + method + " of '" + key + "' at " + config_.endpoint +
                           " failed: " + r.body);
  }
  return r;
}

Status S3FileSystem::Fail(const std::string& operation, const std::string& key,
                          const Response& r) const {
  std::string code = XmlOne(r.body, "Code");
  const std::string message = XmlOne(r.body, "Message");
  if (code.empty()) code = "HTTP " + std::to_string(r.status);
  const std::string what = "S3 " + operation + " of 's3://" + bucket_ + "/" + key +
                           "' failed: " + code + (message.empty() ? "" : " (" + message + ")");
  if (r.status == 404) return Status::NotFound(what);
  return Status::IOError(what);
}

Result<std::string> S3FileSystem::KeyOf(const std::string& path) const {
  TRIB_ASSIGN_OR_RETURN(auto parts, SplitS3Uri(path));
  if (parts.first != bucket_) {
    return Status::Invalid("'" + path + "' is not in bucket '" + bucket_ + "'");
  }
  return parts.second;
}

std::map<std::string, int64_t> S3FileSystem::RequestCounts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

// ---- the FileSystem operations

bool S3FileSystem::Immutable(const std::string& key) {
  auto ends = [&](std::string_view s) {
    return key.size() >= s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".parquet") || ends(".orc") || ends(".avro") ||
         key.find("/manifest/manifest-") != std::string::npos ||
         key.find("/index/") != std::string::npos;
}

void S3FileSystem::RememberWritten(const std::string& key, std::string_view data) {
  if (!Immutable(key) || static_cast<int64_t>(data.size()) > kRecentBytes / 4) return;
  auto bytes = std::make_shared<const std::string>(data);
  std::lock_guard<std::mutex> lock(recent_mu_);
  if (recent_.count(key)) return;
  recent_[key] = std::move(bytes);
  recent_order_.push_front(key);
  recent_bytes_ += static_cast<int64_t>(data.size());
  while (recent_bytes_ > kRecentBytes && !recent_order_.empty()) {
    auto it = recent_.find(recent_order_.back());
    if (it != recent_.end()) {
      recent_bytes_ -= static_cast<int64_t>(it->second->size());
      recent_.erase(it);
    }
    recent_order_.pop_back();
  }
}

std::shared_ptr<const std::string> S3FileSystem::Recent(const std::string& key) const {
  std::lock_guard<std::mutex> lock(recent_mu_);
  auto it = recent_.find(key);
  return it == recent_.end() ? nullptr : it->second;
}

void S3FileSystem::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(recent_mu_);
  auto it = recent_.find(key);
  if (it == recent_.end()) return;
  recent_bytes_ -= static_cast<int64_t>(it->second->size());
  recent_.erase(it);
  recent_order_.remove(key);
}

Result<std::string> S3FileSystem::ReadFile(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  if (auto recent = Recent(key)) return *recent;
  TRIB_ASSIGN_OR_RETURN(Response r, Request("GET", key, "", {}, {}));
  if (r.status == 404) return Status::NotFound("'" + path + "' does not exist");
  if (r.status != 200) return Fail("GET", key, r);
  return std::move(r.body);
}

Result<std::string> S3FileSystem::ReadRange(const std::string& path, int64_t offset,
                                            int64_t length) {
  if (offset < 0 || length < 0) return Status::Invalid("a negative range of '" + path + "'");
  if (length == 0) return std::string();
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  if (auto recent = Recent(key)) {
    if (static_cast<size_t>(offset) >= recent->size()) return std::string();
    return recent->substr(static_cast<size_t>(offset), static_cast<size_t>(length));
  }
  const std::string range =
      "Range: bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1);
  TRIB_ASSIGN_OR_RETURN(Response r, Request("GET", key, "", {}, {range}));
  if (r.status == 404) return Status::NotFound("'" + path + "' does not exist");
  if (r.status == 416) return std::string();  // the range starts past the end
  if (r.status == 200) {
    // A store that ignores Range sends the whole object.
    if (static_cast<size_t>(offset) >= r.body.size()) return std::string();
    return r.body.substr(static_cast<size_t>(offset), static_cast<size_t>(length));
  }
  if (r.status != 206) return Fail("ranged GET", key, r);
  int64_t first = 0, last = 0, size = 0;
  if (std::sscanf(r.headers["content-range"].c_str(), "bytes %" SCNd64 "-%" SCNd64 "/%" SCNd64,
                  &first, &last, &size) != 3 ||
      first != offset || last < first || static_cast<int64_t>(r.body.size()) != last - first + 1) {
    return Status::IOError("S3 ranged GET of '" + path + "': an answer of " +
                           std::to_string(r.body.size()) + " bytes with Content-Range '" +
                           r.headers["content-range"] + "' for bytes " + std::to_string(offset) +
                           "-" + std::to_string(offset + length - 1));
  }
  if (r.body.size() > static_cast<size_t>(length)) r.body.resize(static_cast<size_t>(length));
  return std::move(r.body);
}

Result<std::pair<int64_t, std::string>> S3FileSystem::ReadTail(const std::string& path,
                                                               int64_t length) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  if (auto recent = Recent(key)) {
    const int64_t size = static_cast<int64_t>(recent->size());
    const int64_t from = std::max<int64_t>(0, size - std::max<int64_t>(0, length));
    return std::make_pair(size, recent->substr(static_cast<size_t>(from)));
  }
  if (length <= 0) {
    TRIB_ASSIGN_OR_RETURN(int64_t size, FileSize(path));
    return std::make_pair(size, std::string());
  }
  TRIB_ASSIGN_OR_RETURN(Response r,
                        Request("GET", key, "", {}, {"Range: bytes=-" + std::to_string(length)}));
  if (r.status == 404) return Status::NotFound("'" + path + "' does not exist");
  if (r.status == 200 || r.status == 416) {
    // The whole object (a store that ignores Range, or an empty object).
    const int64_t size = static_cast<int64_t>(r.body.size());
    if (size > length) r.body.erase(0, static_cast<size_t>(size - length));
    return std::make_pair(r.status == 416 ? int64_t{0} : size, std::move(r.body));
  }
  if (r.status != 206) return Fail("ranged GET", key, r);
  // The bytes sent are the ones Content-Range names (a store may send a byte more than asked).
  int64_t first = 0, last = 0, size = 0;
  const bool parsed =
      std::sscanf(r.headers["content-range"].c_str(), "bytes %" SCNd64 "-%" SCNd64 "/%" SCNd64,
                  &first, &last, &size) == 3 &&
      first >= 0 && last >= first && last < size;
  if (parsed && (last != size - 1 || first > std::max<int64_t>(0, size - length))) {
    // A store that reads "bytes=-N" as another range (s3rver takes it for "0-N") still says the
    // object's size: then the tail is asked for by its offsets.
    const int64_t from = std::max<int64_t>(0, size - length);
    TRIB_ASSIGN_OR_RETURN(std::string tail, ReadRange(path, from, size - from));
    if (static_cast<int64_t>(tail.size()) != size - from) {
      return Status::IOError("S3 ranged GET of '" + path + "': " + std::to_string(tail.size()) +
                             " bytes for the last " + std::to_string(size - from));
    }
    return std::make_pair(size, std::move(tail));
  }
  if (!parsed || static_cast<int64_t>(r.body.size()) != last - first + 1) {
    return Status::IOError("S3 ranged GET of '" + path + "': an answer of " +
                           std::to_string(r.body.size()) + " bytes with Content-Range '" +
                           r.headers["content-range"] + "' for the last " + std::to_string(length) +
                           " bytes");
  }
  const int64_t want = std::min(size, length);
  if (last - first + 1 > want) r.body.erase(0, static_cast<size_t>(last - first + 1 - want));
  return std::make_pair(size, std::move(r.body));
}

Status S3FileSystem::WriteMultipart(const std::string& key, std::string_view data) {
  TRIB_ASSIGN_OR_RETURN(Response start, Request("POST", key, "uploads=", {}, {}));
  if (start.status != 200) return Fail("CreateMultipartUpload", key, start);
  const std::string upload_id = XmlOne(start.body, "UploadId");
  if (upload_id.empty()) {
    return Status::IOError("S3 CreateMultipartUpload of '" + key + "': no UploadId in the answer");
  }
  const std::string id_query = "uploadId=" + UriEncode(upload_id, false);
  const int64_t part_size = std::max<int64_t>(config_.multipart_size, int64_t{5} << 20);
  const size_t parts =
      static_cast<size_t>((static_cast<int64_t>(data.size()) + part_size - 1) / part_size);
  std::vector<std::string> etags(parts);
  std::vector<Status> failed(parts, Status::OK());
  // Parts go up on a few threads at once (each takes a connection of the pool).
  std::atomic<size_t> next{0};
  auto upload = [&]() {
    for (size_t i = next++; i < parts; i = next++) {
      const size_t from = i * static_cast<size_t>(part_size);
      const std::string_view part =
          data.substr(from, std::min(static_cast<size_t>(part_size), data.size() - from));
      auto r =
          Request("PUT", key, "partNumber=" + std::to_string(i + 1) + "&" + id_query, part, {});
      if (!r.ok()) {
        failed[i] = r.status();
      } else if (r->status != 200) {
        failed[i] = Fail("UploadPart " + std::to_string(i + 1), key, *r);
      } else {
        etags[i] = r->headers["etag"];
      }
    }
  };
  std::vector<std::thread> threads;
  const size_t width = std::min<size_t>(parts, 4);
  for (size_t t = 1; t < width; t++) threads.emplace_back(upload);
  upload();
  for (auto& t : threads) t.join();
  Status st = Status::OK();
  for (const Status& s : failed) {
    if (!s.ok()) {
      st = s;
      break;
    }
  }
  if (st.ok()) {
    std::string xml = "<CompleteMultipartUpload>";
    for (size_t i = 0; i < parts; i++) {
      xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
             XmlEscape(etags[i]) + "</ETag></Part>";
    }
    xml += "</CompleteMultipartUpload>";
    auto done = Request("POST", key, id_query, xml, {"Content-Type: application/xml"});
    if (!done.ok()) {
      st = done.status();
    } else if (done->status != 200 || !XmlAll(done->body, "Error").empty()) {
      // (S3 may answer 200 and put the error in the body.)
      if (done->status == 200) done->status = 500;
      st = Fail("CompleteMultipartUpload", key, *done);
    } else {
      return Status::OK();
    }
  }
  (void)Request("DELETE", key, id_query, {}, {});  // AbortMultipartUpload: no part stays billed
  return st;
}

Status S3FileSystem::WriteFile(const std::string& path, std::string_view data) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  if (static_cast<int64_t>(data.size()) > config_.multipart_threshold) {
    TRIB_RETURN_NOT_OK(WriteMultipart(key, data));
  } else {
    TRIB_ASSIGN_OR_RETURN(Response r, Request("PUT", key, "", data, {}));
    if (r.status != 200) return Fail("PUT", key, r);
  }
  RememberWritten(key, data);
  return Status::OK();
}

Result<bool> S3FileSystem::WriteFileIfAbsent(const std::string& path, std::string_view data) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  if (!conditional_ok_) {
    const size_t slash = path.rfind('/');
    TRIB_ASSIGN_OR_RETURN(bool ok, ProbeConditionalWrites(path.substr(0, slash)));
    conditional_ok_ = ok;
  }
  if (!*conditional_ok_ && !config_.single_writer) {
    return Status::NotSupported(
        "the S3 store at " + config_.endpoint +
        " ignores conditional writes (If-None-Match: *), "
        "so two writers could both publish '" +
        key +
        "'; commits are refused there. Use a "
        "store that honours them (AWS S3 does), or set 's3.single-writer' = 'true' if only one "
        "writer ever writes these tables");
  }
  if (!*conditional_ok_) {
    // One writer only, as the user says: create-if-absent by a check, then a plain PUT.
    TRIB_ASSIGN_OR_RETURN(Response head, Request("HEAD", key, "", {}, {}));
    if (head.status == 200) return false;
    TRIB_RETURN_NOT_OK(WriteFile(path, data));
    return true;
  }
  TRIB_ASSIGN_OR_RETURN(Response r, Request("PUT", key, "", data, {"If-None-Match: *"}));
  if (r.status == 412 || r.status == 409) {
    // Another writer won the name, or this one did: an earlier attempt of the request (retried
    // after a 5xx or a dropped connection) may have stored the object before its answer was
    // lost. The object's bytes say which (a snapshot names its commit user and time).
    TRIB_ASSIGN_OR_RETURN(Response held, Request("GET", key, "", {}, {}));
    return held.status == 200 && held.body == data;
  }
  if (r.status != 200) return Fail("conditional PUT", key, r);
  return true;
}

Result<std::optional<std::string>> S3FileSystem::WriteIfTag(
    const std::string& path, std::string_view data,
    const std::optional<std::string>& expected_tag) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  if (!conditional_ok_) {
    const size_t slash = path.rfind('/');
    TRIB_ASSIGN_OR_RETURN(bool ok, ProbeConditionalWrites(path.substr(0, slash)));
    conditional_ok_ = ok;
  }
  if (!*conditional_ok_) {
    return Status::NotSupported("the S3 store at " + config_.endpoint +
                                " ignores conditional writes, so '" + key +
                                "' cannot be written as a lease");
  }
  const std::string condition =
      expected_tag ? "If-Match: " + *expected_tag : std::string("If-None-Match: *");
  TRIB_ASSIGN_OR_RETURN(Response r, Request("PUT", key, "", data, {condition}));
  Forget(key);
  if (r.status == 412 || r.status == 409 || r.status == 404) {
    // The condition did not hold, or an earlier attempt of this request (its answer lost, the
    // request retried) wrote the object itself: its bytes say which (a lease names its holder
    // and its expiry).
    TRIB_ASSIGN_OR_RETURN(Response held, Request("GET", key, "", {}, {}));
    if (held.status == 200 && held.body == data && held.headers.count("etag")) {
      return std::optional<std::string>(held.headers["etag"]);
    }
    return std::optional<std::string>();
  }
  if (r.status != 200) return Fail("conditional PUT", key, r);
  auto tag = r.headers.find("etag");
  if (tag == r.headers.end()) {
    return Status::IOError("the S3 store at " + config_.endpoint + " answered a PUT of '" + key +
                           "' without an ETag");
  }
  return std::optional<std::string>(tag->second);
}

Result<std::pair<std::string, std::string>> S3FileSystem::ReadWithTag(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  TRIB_ASSIGN_OR_RETURN(Response r, Request("GET", key, "", {}, {}));
  if (r.status == 404) return Status::NotFound("'" + path + "' does not exist");
  if (r.status != 200) return Fail("GET", key, r);
  auto tag = r.headers.find("etag");
  if (tag == r.headers.end()) {
    return Status::IOError("the S3 store at " + config_.endpoint + " answered a GET of '" + key +
                           "' without an ETag");
  }
  return std::make_pair(std::move(r.body), tag->second);
}

Result<bool> S3FileSystem::ProbeConditionalWrites(const std::string& dir) {
  TRIB_ASSIGN_OR_RETURN(std::string prefix, KeyOf(dir));
  std::mt19937_64 rng(std::random_device{}());
  const std::string key =
      (prefix.empty() ? "" : prefix + "/") + ".tributary-probe-" + std::to_string(rng());
  TRIB_ASSIGN_OR_RETURN(Response first, Request("PUT", key, "", "1", {"If-None-Match: *"}));
  if (first.status != 200) return Fail("conditional PUT (probe)", key, first);
  TRIB_ASSIGN_OR_RETURN(Response second, Request("PUT", key, "", "2", {"If-None-Match: *"}));
  (void)Request("DELETE", key, "", {}, {});
  if (second.status == 412 || second.status == 409) return true;
  // Only a second write that succeeds shows the condition ignored; any other answer (a 5xx
  // that outlasted the retries, a 403) says nothing about the store, and is its error.
  if (second.status / 100 == 2) return false;
  return Fail("conditional PUT (probe)", key, second);
}

Result<std::optional<std::string>> S3FileSystem::Version(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  TRIB_ASSIGN_OR_RETURN(Response r, Request("HEAD", key, "", {}, {}));
  if (r.status == 404) return std::optional<std::string>();
  if (r.status != 200) return Fail("HEAD", key, r);
  return std::optional<std::string>(
      VersionOf(r, static_cast<int64_t>(std::atoll(r.headers["content-length"].c_str()))));
}

std::string S3FileSystem::VersionOf(const Response& r, int64_t size) {
  auto header = [&r](const char* name) {
    auto it = r.headers.find(name);
    return it == r.headers.end() ? std::string() : it->second;
  };
  return header("etag") + "/" + std::to_string(size) + "/" + header("last-modified");
}

Result<std::pair<std::string, std::optional<std::string>>> S3FileSystem::ReadFileVersioned(
    const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  using R = std::pair<std::string, std::optional<std::string>>;
  // (Files kept after writing them have never-reused names: no caller asks for their version.)
  if (auto recent = Recent(key)) return R(*recent, std::nullopt);
  TRIB_ASSIGN_OR_RETURN(Response r, Request("GET", key, "", {}, {}));
  if (r.status == 404) return Status::NotFound("'" + path + "' does not exist");
  if (r.status != 200) return Fail("GET", key, r);
  std::string version = VersionOf(r, static_cast<int64_t>(r.body.size()));
  if (r.headers.find("etag") == r.headers.end()) return R(std::move(r.body), std::nullopt);
  return R(std::move(r.body), std::move(version));
}

Result<int64_t> S3FileSystem::FileSize(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  TRIB_ASSIGN_OR_RETURN(Response r, Request("HEAD", key, "", {}, {}));
  if (r.status == 404) return Status::NotFound("'" + path + "' does not exist");
  if (r.status != 200) return Fail("HEAD", key, r);
  return static_cast<int64_t>(std::atoll(r.headers["content-length"].c_str()));
}

Result<bool> S3FileSystem::FileExists(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  if (key.empty()) return false;
  TRIB_ASSIGN_OR_RETURN(Response r, Request("HEAD", key, "", {}, {}));
  if (r.status == 200) return true;
  if (r.status != 404) return Fail("HEAD", key, r);
  return false;
}

Result<bool> S3FileSystem::Exists(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  if (!key.empty()) {
    TRIB_ASSIGN_OR_RETURN(Response r, Request("HEAD", key, "", {}, {}));
    if (r.status == 200) return true;
    if (r.status != 404) return Fail("HEAD", key, r);
  }
  // A "directory": a prefix with something under it.
  std::vector<FileInfo> files;
  std::vector<std::string> dirs;
  // (Any object under the prefix, without a delimiter: stores differ in how they count common
  // prefixes against max-keys.)
  bool marker = false;
  TRIB_RETURN_NOT_OK(List(key.empty() ? "" : key + "/", "", 1, &files, &dirs, &marker));
  return marker || !files.empty() || !dirs.empty();
}

Status S3FileSystem::List(const std::string& prefix, const std::string& delimiter, int64_t max_keys,
                          std::vector<FileInfo>* files, std::vector<std::string>* dirs,
                          bool* marker) {
  std::string token;
  while (true) {
    // Query parameters in sorted order (SigV4 canonicalises them; curl sends them as given).
    std::string query =
        std::string(token.empty() ? "" : "continuation-token=" + UriEncode(token, false) + "&") +
        (delimiter.empty() ? "" : "delimiter=" + UriEncode(delimiter, false) + "&") +
        "list-type=2" + (max_keys > 0 ? "&max-keys=" + std::to_string(max_keys) : "") +
        "&prefix=" + UriEncode(prefix, false);
    TRIB_ASSIGN_OR_RETURN(Response r, Request("GET", "", query, {}, {}));
    if (r.status != 200) return Fail("ListObjectsV2", prefix, r);
    for (std::string_view c : XmlAll(r.body, "Contents")) {
      FileInfo f;
      const std::string key = XmlOne(c, "Key");
      if (key == prefix && marker != nullptr) *marker = true;
      if (key.size() <= prefix.size()) continue;
      f.name = key.substr(prefix.size());
      f.size = std::atoll(XmlOne(c, "Size").c_str());
      f.mtime_millis = ParseIsoMillis(XmlOne(c, "LastModified"));
      files->push_back(std::move(f));
    }
    for (std::string_view p : XmlAll(r.body, "CommonPrefixes")) {
      std::string d = XmlOne(p, "Prefix");
      if (d.size() <= prefix.size()) continue;
      d = d.substr(prefix.size());
      while (!d.empty() && d.back() == '/') d.pop_back();
      dirs->push_back(std::move(d));
    }
    if (max_keys > 0 && static_cast<int64_t>(files->size() + dirs->size()) >= max_keys) break;
    if (XmlOne(r.body, "IsTruncated") != "true") break;
    token = XmlOne(r.body, "NextContinuationToken");
    if (token.empty()) break;
  }
  return Status::OK();
}

Result<std::vector<FileInfo>> S3FileSystem::ListDir(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  std::vector<FileInfo> files;
  std::vector<std::string> dirs;
  TRIB_RETURN_NOT_OK(List(key.empty() ? "" : key + "/", "/", 0, &files, &dirs));
  if (files.empty() && dirs.empty()) {
    return Status::NotFound("'" + path + "' does not exist");
  }
  for (std::string& d : dirs) {
    FileInfo f;
    f.name = std::move(d);
    f.is_dir = true;
    files.push_back(std::move(f));
  }
  return files;
}

Status S3FileSystem::MakeDirMarker(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  if (key.empty()) return Status::OK();  // the bucket itself
  TRIB_ASSIGN_OR_RETURN(Response r, Request("PUT", key + "/", "", {}, {}));
  if (r.status != 200) return Fail("PUT", key + "/", r);
  return Status::OK();
}

Status S3FileSystem::MakeDirs(const std::string& path) {
  (void)path;  // prefixes need no creating
  return Status::OK();
}

Status S3FileSystem::Remove(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  Forget(key);
  TRIB_ASSIGN_OR_RETURN(Response r, Request("DELETE", key, "", {}, {}));
  if (r.status != 204 && r.status != 200 && r.status != 404) return Fail("DELETE", key, r);
  return Status::OK();
}

Status S3FileSystem::DeleteKeys(const std::vector<std::string>& keys) {
  for (const std::string& k : keys) Forget(k);
  for (size_t b = 0; b < keys.size(); b += 1000) {
    std::string xml = "<Delete><Quiet>true</Quiet>";
    for (size_t i = b; i < std::min(keys.size(), b + 1000); i++) {
      xml += "<Object><Key>" + XmlEscape(keys[i]) + "</Key></Object>";
    }
    xml += "</Delete>";
    // DeleteObjects wants the body's MD5 (or a checksum) header.
    const std::string digest = Digest(xml, EVP_md5());
    const unsigned char* md5 = reinterpret_cast<const unsigned char*>(digest.data());
    static const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string b64;
    for (int i = 0; i < 16; i += 3) {
      const uint32_t v =
          (md5[i] << 16) | ((i + 1 < 16 ? md5[i + 1] : 0) << 8) | (i + 2 < 16 ? md5[i + 2] : 0);
      b64 += kB64[(v >> 18) & 63];
      b64 += kB64[(v >> 12) & 63];
      b64 += i + 1 < 16 ? kB64[(v >> 6) & 63] : '=';
      b64 += i + 2 < 16 ? kB64[v & 63] : '=';
    }
    TRIB_ASSIGN_OR_RETURN(Response r,
                          Request("POST", "", "delete=", xml,
                                  {"Content-MD5: " + b64, "Content-Type: application/xml"}));
    if (r.status != 200) return Fail("DeleteObjects", keys[b], r);
    if (!XmlAll(r.body, "Error").empty()) {
      Response first;
      first.status = 500;
      first.body = std::string(XmlAll(r.body, "Error")[0]);
      return Fail("DeleteObjects", XmlOne(first.body, "Key"), first);
    }
  }
  return Status::OK();
}

Status S3FileSystem::RemoveFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> keys;
  for (const std::string& p : paths) {
    TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(p));
    keys.push_back(std::move(key));
  }
  return DeleteKeys(keys);
}

Status S3FileSystem::RemoveAll(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  std::vector<FileInfo> files;
  std::vector<std::string> dirs;
  bool marker = false;
  TRIB_RETURN_NOT_OK(List(key.empty() ? "" : key + "/", "", 0, &files, &dirs, &marker));
  std::vector<std::string> keys;
  for (const FileInfo& f : files) keys.push_back((key.empty() ? "" : key + "/") + f.name);
  if (!key.empty()) keys.push_back(key);  // the path itself, if it is an object
  if (marker) keys.push_back(key + "/");  // its directory marker (MakeDirMarker), last
  return DeleteKeys(keys);
}

Result<bool> S3FileSystem::RemoveDirIfEmpty(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string key, KeyOf(path));
  std::vector<FileInfo> files;
  std::vector<std::string> dirs;
  TRIB_RETURN_NOT_OK(List(key.empty() ? "" : key + "/", "", 1, &files, &dirs));
  return files.empty() && dirs.empty();  // nothing to remove: a prefix is no object
}

Status S3FileSystem::RenameDir(const std::string& from, const std::string& to) {
  TRIB_ASSIGN_OR_RETURN(std::string from_key, KeyOf(from));
  TRIB_ASSIGN_OR_RETURN(std::string to_key, KeyOf(to));
  std::vector<FileInfo> files;
  std::vector<std::string> dirs;
  TRIB_RETURN_NOT_OK(List(from_key + "/", "", 0, &files, &dirs));
  if (files.empty()) return Status::NotFound("'" + from + "' does not exist");
  // Object storage has no rename: each object is copied, then the old ones deleted (not atomic;
  // a failure part-way leaves both, never neither).
  for (const FileInfo& f : files) {
    const std::string source = "/" + bucket_ + "/" + UriEncode(from_key + "/" + f.name, true);
    TRIB_ASSIGN_OR_RETURN(Response r, Request("PUT", to_key + "/" + f.name, "", {},
                                              {"x-amz-copy-source: " + source}));
    if (r.status != 200 || !XmlAll(r.body, "Error").empty()) {
      return Fail("CopyObject", to_key + "/" + f.name, r);
    }
  }
  return RemoveAll(from);
}

}  // namespace tributary::io

// S3FileSystem: a warehouse on S3-compatible object storage (AWS S3, MinIO, ...), behind the same
// FileSystem interface as local disk. Paths are URIs, "s3://<bucket>/<key>". Requests go through
// libcurl, signed with AWS Signature Version 4 (CURLOPT_AWS_SIGV4), with connection reuse,
// timeouts and retries with backoff on 5xx, 429 and connection failures (never on other 4xx).
//
// Object storage has no directories and no rename: a "directory" is a key prefix (MakeDirs does
// nothing; ListDir lists one level with a delimiter; a prefix with nothing under it does not
// exist), and WriteFileIfAbsent is a conditional PUT (If-None-Match: *), which S3 answers with
// 412 when the key exists: the create-if-absent publish a commit needs, without a lock
// (docs/format/object-storage.md). A store that ignores the condition is found at first use
// (ProbeConditionalWrites) and then refuses WriteFileIfAbsent unless told a single writer is
// guaranteed.
// Thread-safety: thread-safe (a pool of curl handles).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "io/file_system.h"

namespace tributary::io {

struct S3Config {
  // "http://127.0.0.1:9000", "https://s3.eu-west-1.amazonaws.com"; empty: AWS's endpoint of
  // `region`.
  std::string endpoint;
  std::string region = "us-east-1";
  std::string access_key;
  std::string secret_key;
  std::string session_token;
  // Path-style addressing (http://endpoint/bucket/key) instead of virtual-hosted
  // (http://bucket.endpoint/key); forced for an IP address or localhost.
  bool path_style = false;
  // Commits trust a store that ignores If-None-Match (only one writer may write the tables).
  bool single_writer = false;
  // A file larger than `multipart_threshold` is uploaded in parts of `multipart_size` bytes,
  // several at once (S3's multipart upload; parts are at least 5 MiB).
  int64_t multipart_threshold = int64_t{32} << 20;
  int64_t multipart_size = int64_t{16} << 20;
};

// The configuration of a warehouse at `uri` from catalog options (Paimon's keys: s3.endpoint,
// s3.access-key, s3.secret-key, s3.region, s3.path.style.access, and Tributary's
// s3.single-writer), falling back to the standard environment (AWS_ENDPOINT_URL,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION /
// AWS_DEFAULT_REGION). Errors never quote a secret.
Result<S3Config> S3ConfigFrom(const std::map<std::string, std::string>& options);

// "s3://bucket/a/b" -> ("bucket", "a/b"); also s3a:// and s3n://. Invalid: not such a URI.
Result<std::pair<std::string, std::string>> SplitS3Uri(const std::string& uri);

class S3FileSystem : public FileSystem {
 public:
  // A file system for the bucket named by `root` ("s3://bucket[/prefix]"); checks that the
  // bucket answers (an error naming the store's code: NoSuchBucket, AccessDenied,
  // SignatureDoesNotMatch, ...).
  static Result<std::shared_ptr<S3FileSystem>> Make(const std::string& root, S3Config config);
  ~S3FileSystem() override;

  Result<std::string> ReadFile(const std::string& path) override;
  Result<std::string> ReadRange(const std::string& path, int64_t offset, int64_t length) override;
  Result<std::pair<int64_t, std::string>> ReadTail(const std::string& path,
                                                   int64_t length) override;
  Status WriteFile(const std::string& path, std::string_view data) override;
  Result<bool> WriteFileIfAbsent(const std::string& path, std::string_view data) override;
  Result<std::optional<std::string>> WriteIfTag(
      const std::string& path, std::string_view data,
      const std::optional<std::string>& expected_tag) override;
  Result<std::pair<std::string, std::string>> ReadWithTag(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Result<bool> FileExists(const std::string& path) override;
  Result<std::optional<std::string>> Version(const std::string& path) override;
  Result<std::pair<std::string, std::optional<std::string>>> ReadFileVersioned(
      const std::string& path) override;
  Result<std::vector<FileInfo>> ListDir(const std::string& path) override;
  Status MakeDirs(const std::string& path) override;
  Status MakeDirMarker(const std::string& path) override;
  Status Remove(const std::string& path) override;
  Status RemoveAll(const std::string& path) override;
  Status RemoveFiles(const std::vector<std::string>& paths) override;
  Result<bool> RemoveDirIfEmpty(const std::string& path) override;
  Result<int64_t> FileSize(const std::string& path) override;
  // The whole object read, whatever its size.
  Result<std::shared_ptr<const MappedFile>> MapFile(const std::string& path, size_t) override {
    TRIB_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
    return MappedFile::FromBytes(std::move(bytes));
  }
  Status RenameDir(const std::string& from, const std::string& to) override;
  bool IsRemote() const override { return true; }

  // Writes a probe object twice with If-None-Match: *; false when the second write succeeded
  // too (the store ignores the condition), an error when it failed otherwise than with 412.
  // Removes the probe.
  Result<bool> ProbeConditionalWrites(const std::string& dir);

  // Requests made so far, by method ("GET", "PUT", ...), for tests and benchmarks.
  std::map<std::string, int64_t> RequestCounts() const;

 private:
  S3FileSystem(std::string bucket, S3Config config);
  struct Response;
  class Handle;
  // One request with retries. `key` is the object key (no leading '/'); `query` is already
  // encoded ("list-type=2&prefix=...").
  Result<Response> Request(const std::string& method, const std::string& key,
                           const std::string& query, std::string_view body,
                           const std::vector<std::string>& headers);
  // The key of `path` in this file system's bucket (an error for another bucket).
  Result<std::string> KeyOf(const std::string& path) const;
  std::string Url(const std::string& key, const std::string& query) const;
  // Lists keys under `prefix` (recursively when `delimiter` is empty).
  // `marker`, if given, is set when the prefix's own directory marker (the key "<prefix>", see
  // MakeDirMarker) is among the keys; it is no entry of *files.
  Status List(const std::string& prefix, const std::string& delimiter, int64_t max_keys,
              std::vector<FileInfo>* files, std::vector<std::string>* dirs, bool* marker = nullptr);
  Status DeleteKeys(const std::vector<std::string>& keys);
  // Uploads `data` to `key` in parts (CreateMultipartUpload, UploadPart, CompleteMultipartUpload;
  // AbortMultipartUpload when a part fails, so no part is left behind).
  Status WriteMultipart(const std::string& key, std::string_view data);
  // Version's string for an object of `size` bytes answered with `r`'s headers (a HEAD's or a
  // whole GET's: ETag, size, Last-Modified).
  static std::string VersionOf(const Response& r, int64_t size);
  Status Fail(const std::string& operation, const std::string& key, const Response& r) const;
  // Objects this process just wrote whose names are never reused (data and changelog files,
  // manifests, index files: UUID names), kept up to kRecentBytes in all, newest first, so that a
  // read soon after (a compaction of files a commit just wrote) costs no request. A removed
  // object is forgotten.
  static bool Immutable(const std::string& key);
  void RememberWritten(const std::string& key, std::string_view data);
  std::shared_ptr<const std::string> Recent(const std::string& key) const;
  void Forget(const std::string& key);
  static constexpr int64_t kRecentBytes = int64_t{64} << 20;
  mutable std::mutex recent_mu_;
  std::list<std::string> recent_order_;  // newest first
  std::map<std::string, std::shared_ptr<const std::string>> recent_;
  int64_t recent_bytes_ = 0;

  std::string bucket_;
  S3Config config_;
  std::string host_base_;  // scheme://host[:port] of the endpoint
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Handle>> idle_;  // curl handles kept for reuse
  std::map<std::string, int64_t> requests_;
  std::optional<bool> conditional_ok_;  // ProbeConditionalWrites' answer
};

}  // namespace tributary::io

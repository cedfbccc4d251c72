#include "datafile/file_index_filter.h"

#include "io/file_cache.h"
#include "io/file_system.h"

namespace tributary::datafile {
namespace {

Result<DataFileIndex> Parse(std::string_view bytes, const std::string& what,
                            std::map<std::string, format::BloomFilter64>* blooms) {
  TRIB_ASSIGN_OR_RETURN(auto columns, format::ParseFileIndex(bytes, what));
  for (auto& c : columns) {
    for (auto& [type, body] : c.indexes) {
      if (type != format::kBloomFilterIndexType || body.empty()) continue;  // others: unused
      auto bloom = format::BloomFilter64::Parse(body);
      if (!bloom.ok()) {
        return Status::Corruption("file index of " + what + ", column '" + c.column +
                                  "': " + bloom.status().message());
      }
      blooms->emplace(c.column, std::move(*bloom));
    }
  }
  return DataFileIndex();
}

}  // namespace

Result<std::shared_ptr<const DataFileIndex>> DataFileIndex::Load(const meta::DataFileMeta& f,
                                                                 const std::string& dir) {
  // A damaged index (a checksum that does not match, a broken structure) is ignored in favour
  // of the data: the file is read as if it had no index, so the answer stays right.
  auto parse = [&](std::string_view bytes, const std::string& what) -> Result<DataFileIndex> {
    DataFileIndex index;
    Status st = Parse(bytes, what, &index.blooms_).status();
    if (st.code() == StatusCode::kCorruption) return DataFileIndex();
    TRIB_RETURN_NOT_OK(st);
    return index;
  };
  if (f.embedded_file_index) {
    TRIB_ASSIGN_OR_RETURN(DataFileIndex index,
                          parse(*f.embedded_file_index, "data file '" + f.file_name + "'"));
    return std::make_shared<const DataFileIndex>(std::move(index));
  }
  if (dir.empty()) return std::shared_ptr<const DataFileIndex>();
  for (const std::string& extra : f.extra_files) {
    if (!extra.ends_with(".index")) continue;
    const std::string path = io::JoinPath(dir, extra);
    // Index files are immutable, as data files: cached by path.
    return io::FileCache::Instance().GetOrLoad<DataFileIndex>(
        "file-index:" + path, [&]() -> Result<std::pair<DataFileIndex, int64_t>> {
          TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
          TRIB_ASSIGN_OR_RETURN(DataFileIndex index, parse(bytes, "'" + path + "'"));
          return std::make_pair(std::move(index), static_cast<int64_t>(bytes.size()) + 256);
        });
  }
  return std::shared_ptr<const DataFileIndex>();
}

bool DataFileIndex::MightContain(const std::string& column, const Value& v,
                                 const DataType& type) const {
  auto it = blooms_.find(column);
  if (it == blooms_.end() || !format::BloomFilterSupports(type)) return true;
  const std::optional<uint64_t> h = format::BloomFilterHash(v, type);
  return !h || it->second.MightContainHash(*h);
}

bool DataFileIndex::MayMatch(const Predicate& p, const std::string& column,
                             const DataType& type) const {
  if (p.op == Predicate::Op::kEq && p.literals.size() == 1) {
    return MightContain(column, p.literals[0], type);
  }
  if (p.op == Predicate::Op::kIn) {
    for (const Value& v : p.literals) {
      if (v.is_null() || MightContain(column, v, type)) return true;
    }
    return false;
  }
  return true;
}

}  // namespace tributary::datafile

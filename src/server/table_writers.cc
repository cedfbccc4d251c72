#include "server/table_writers.h"

#include <map>

#include "meta/schema_manager.h"
#include "server/connection.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::server {

struct TableWriters::Entry {
  std::timed_mutex mu;
  std::unique_ptr<Table> table;
  std::unique_ptr<TableWriter> writer;
  int64_t schema_id = -1;
  std::string incarnation;
  uint64_t generation = 0;  // bumped at each new writer
};

namespace {
std::mutex entries_mu;
std::map<std::string, std::unique_ptr<TableWriters::Entry>>& Entries() {
  static std::map<std::string, std::unique_ptr<TableWriters::Entry>> entries;  // by table path
  return entries;
}
}  // namespace

TableWriters& TableWriters::Instance() {
  static TableWriters writers;
  return writers;
}

TableWriters::Lease::Lease(Entry* entry, std::unique_lock<std::timed_mutex> lock)
    : entry_(entry), lock_(std::move(lock)) {}
TableWriters::Lease::Lease(Lease&&) noexcept = default;
TableWriters::Lease::~Lease() = default;
Table& TableWriters::Lease::table() { return *entry_->table; }
TableWriter& TableWriters::Lease::writer() { return *entry_->writer; }

void TableWriters::Lease::Discard() {
  if (entry_->writer) entry_->writer->Abort();
  entry_->writer.reset();
}

namespace {
std::mutex commit_user_mu;
std::string& CommitUser() {
  static std::string user;
  return user;
}
WriteOptions SharedWriterOptions() {
  WriteOptions options;
  std::lock_guard<std::mutex> lock(commit_user_mu);
  options.commit_user = CommitUser();
  return options;
}
}  // namespace

void TableWriters::set_commit_user(std::string user) {
  std::lock_guard<std::mutex> lock(commit_user_mu);
  CommitUser() = std::move(user);
}

Status TableWriters::Lease::Reopen() {
  if (entry_->writer) entry_->writer->Abort();
  entry_->generation++;
  TRIB_ASSIGN_OR_RETURN(entry_->writer, entry_->table->NewWriter(SharedWriterOptions()));
  return Status::OK();
}

uint64_t TableWriters::Lease::generation() const { return entry_->generation; }

Result<std::optional<TableWriters::Lease>> TableWriters::Acquire(Catalog& catalog,
                                                                 const Identifier& id,
                                                                 std::chrono::milliseconds wait) {
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, catalog.GetTable(id));
  return Acquire(std::move(table), wait);
}

Result<std::optional<TableWriters::Lease>> TableWriters::Acquire(std::unique_ptr<Table> table,
                                                                 std::chrono::milliseconds wait) {
  TRIB_ASSIGN_OR_RETURN(std::string incarnation, meta::TableIncarnation(table->path()));
  Entry* entry = nullptr;
  {
    std::lock_guard<std::mutex> lock(entries_mu);
    auto& slot = Entries()[table->path()];
    if (!slot) slot = std::make_unique<Entry>();
    entry = slot.get();
  }
  std::unique_lock<std::timed_mutex> lock(entry->mu, std::defer_lock);
  if (!lock.try_lock_for(wait)) return std::optional<Lease>();
  Lease lease(entry, std::move(lock));
  // A writer opened on another schema or another incarnation of the name is not this table's.
  if (entry->writer &&
      (entry->schema_id != table->schema()->id || entry->incarnation != incarnation)) {
    entry->writer->Abort();
    entry->writer.reset();
  }
  if (!entry->writer) {
    // (The writer may refer to the Table it came from: they stay together.) Its compactions run
    // in its statements' commits, not in the background: an idle writer does nothing, so a table
    // dropped meanwhile gets no file from it.
    entry->generation++;
    TRIB_ASSIGN_OR_RETURN(entry->writer, table->NewWriter(SharedWriterOptions()));
    entry->table = std::move(table);
    entry->schema_id = entry->table->schema()->id;
    entry->incarnation = incarnation;
  }
  return std::optional<Lease>(std::move(lease));
}

void TableWriters::CloseAll() {
  std::lock_guard<std::mutex> lock(entries_mu);
  for (auto& [path, entry] : Entries()) {
    std::unique_lock<std::timed_mutex> held(entry->mu, std::try_to_lock);
    if (held.owns_lock()) entry->writer.reset();  // (else a statement still runs there)
  }
}

}  // namespace tributary::server

#include "server/connection.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "server/cancel.h"
#include "server/copy.h"
#include "server/cursors.h"
#include "server/describe.h"
#include "server/hot_tier.h"
#include "server/jobs.h"
#include "server/pg_binary.h"
#include "server/pg_catalog.h"
#include "server/pg_settings.h"
#include "server/pg_wire.h"
#include "server/statement_facts.h"
#include "server/stats.h"
#include "server/table_writers.h"
#include "server/tags.h"
#include "server/tls.h"
#include "server/union_reads.h"
#include "server/wire.h"
#include "sql/binder/cast.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/parser/lexer.h"
#include "sql/session/prepared.h"
#include "sql/session/session.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::server {

namespace {

class Connection {
 public:
  Connection(int fd, std::shared_ptr<const ConnectionConfig> config, std::string peer)
      : wire_(fd, peer),
        config_(std::move(config)),
        warehouse_(config_->warehouse),
        peer_(std::move(peer)) {}
  ~Connection() {
    if (cancel_pid_) CancelKeys::Instance().Release(cancel_pid_);
    ServerStats::Get().subscriptions_open -= subscriptions_;
  }

  void Run() {
    sql::DoubleQuotedIdentifiers dialect;  // PostgreSQL's clients quote identifiers so
    ServerStats& stats = ServerStats::Get();
    stats.connections_total++;
    stats.connections_open++;
    Status st = Serve();
    stats.connections_open--;
    if (!st.ok()) Log("connection from " + peer_ + " ended: " + st.message());
  }

 private:
  Status Serve() {
    // The startup packet, after any encryption requests (answered 'N': not here).
    pg::StartupPacket startup;
    while (true) {
      std::string head, rest;
      TRIB_ASSIGN_OR_RETURN(bool more, wire_.ReadExactly(4, &head));
      if (!more) return Status::OK();
      TRIB_ASSIGN_OR_RETURN(int32_t len, pg::StartupLength(head));
      TRIB_ASSIGN_OR_RETURN(more, wire_.ReadExactly(static_cast<size_t>(len) - 4, &rest));
      if (!more) return Status::OK();
      auto parsed = pg::ParseStartup(head + rest);
      if (!parsed.ok()) return wire_.Refuse("08P01", parsed.status().message());
      startup = std::move(*parsed);
      if (startup.kind == pg::StartupPacket::Kind::kCancel) {
        // As PostgreSQL: no answer; the connection that asks ends here.
        if (CancelKeys::Instance().Cancel(startup.cancel_pid, startup.cancel_secret)) {
          Log("cancel request from " + peer_ + " for connection " +
              std::to_string(startup.cancel_pid));
        }
        return Status::OK();
      }
      if (startup.kind == pg::StartupPacket::Kind::kStartup) break;
      if (startup.kind == pg::StartupPacket::Kind::kSslRequest && config_->tls && !wire_.tls()) {
        // Bytes that came with the request would be read as if they had come encrypted: a
        // man in the middle's (CVE-2021-23214). The client waits for the answer first.
        if (wire_.HasUnreadBytes()) {
          return wire_.Refuse("08P01", "received unencrypted data after SSL request");
        }
        out_.push_back('S');
        TRIB_RETURN_NOT_OK(wire_.Flush());
        if (Status tls = wire_.StartTls(config_->tls.get()); !tls.ok()) {
          Log("connection from " + peer_ + " ended: " + tls.message());
          return Status::OK();
        }
        continue;
      }
      if (startup.kind == pg::StartupPacket::Kind::kSslRequest && wire_.tls()) {
        return wire_.Refuse("08P01", "SSL request on an encrypted connection");
      }
      out_.push_back('N');  // no TLS here, or GSS encryption (never)
      TRIB_RETURN_NOT_OK(wire_.Flush());
    }
    const std::string user = startup.params["user"];
    if (const std::string why =
            TlsRefusal(config_->tls_required, config_->client_certificates, wire_.tls(), user);
        !why.empty()) {
      return wire_.Refuse("28000", why);
    }
    if (user != "tributary") {
      return wire_.Refuse("28000",
                          "role \"" + user + "\" does not exist (connect as user tributary)");
    }
    if (config_->password) {
      TRIB_ASSIGN_OR_RETURN(bool authenticated, AuthenticateScram(&wire_, *config_->password));
      if (!authenticated) return Status::OK();  // refused, or the client left
    }
    auto session = sql::Session::Open(warehouse_);
    if (!session.ok()) return wire_.Refuse("58030", session.status().message());
    session_ = std::move(*session);
    session_->refuse_unmanaged_jobs();  // (streaming INSERTs run as the server's jobs)
    if (config_->hot) {
      union_reads_ = std::make_shared<UnionReads>(config_->hot);
      session_->set_pending_source(union_reads_);
    }
    cursors_ = std::make_unique<Cursors>(session_.get(), &cancel_);
    // Plain INSERT, UPDATE and DELETE into the server's tables go through their shared writers
    // (server/table_writers.h), as COPY does; a table of another catalog, or one the shared
    // writers cannot reach, gets a writer of its own.
    session_->set_writer_lender([this](Table& t) -> Result<std::optional<sql::LentWriter>> {
      std::optional<sql::LentWriter> none;
      if (!catalog_) {
        TRIB_ASSIGN_OR_RETURN(catalog_, Catalog::Open(warehouse_));
      }
      if (config_->hot && HotTier::Takes(t)) {  // the statement's rows go to the table's log
        auto mine = catalog_->GetTable(t.identifier());
        if (!mine.ok() || (*mine)->path() != t.path()) return none;
        std::shared_ptr<TableWriter> writer = config_->hot->NewStatementWriter(t);
        sql::LentWriter lent;
        lent.writer = writer.get();
        lent.give_back = [writer](bool) {};
        return std::optional<sql::LentWriter>(std::move(lent));
      }
      auto lease = TableWriters::Instance().Acquire(*catalog_, t.identifier(), TableWriters::kWait);
      if (!lease.ok() || !*lease || (*lease)->table().path() != t.path()) return none;
      auto held = std::make_shared<TableWriters::Lease>(std::move(**lease));
      sql::LentWriter lent;
      lent.writer = &held->writer();
      lent.give_back = [held](bool ok) {
        if (!ok) held->Discard();
      };
      return std::optional<sql::LentWriter>(std::move(lent));
    });
    std::string database = startup.params["database"];
    if (database.empty()) database = "default";
    if (database != session_->current_database()) {
      auto used = session_->ExecuteText("USE `" + database + "`", sql::Pos{});
      if (!used.ok()) {
        return wire_.Refuse("3D000", "database \"" + database + "\" does not exist");
      }
    }
    settings_ = std::make_unique<PgSettings>(session_.get());
    if (Status st = settings_->ApplyStartup(startup.params); !st.ok()) {
      return wire_.Refuse(SqlState(st), st.message());
    }
    pg::AppendAuthenticationOk(&out_);
    Reports();
    const auto [pid, secret] = CancelKeys::Instance().Register(&cancel_);
    cancel_pid_ = pid;
    pg::AppendBackendKeyData(pid, secret, &out_);
    pg::AppendReadyForQuery('I', &out_);
    TRIB_RETURN_NOT_OK(wire_.Flush());
    Log("connection from " + peer_ + " to database " + database +
        (wire_.tls() ? " (" + wire_.tls()->Describe() + ")" : std::string()));

    bool skipping = false;  // an extended-protocol message was refused: skip until Sync
    while (true) {
      char type = 0;
      std::string body;
      TRIB_ASSIGN_OR_RETURN(bool more, wire_.ReadMessage(&type, &body));
      if (!more) return Status::OK();
      switch (type) {
        case 'X':  // Terminate
          return Status::OK();
        case 'Q': {
          if (!body.empty() && body.back() == '\0') body.pop_back();
          TRIB_RETURN_NOT_OK(SimpleQuery(body));
          Reports();
          pg::AppendReadyForQuery('I', &out_);
          TRIB_RETURN_NOT_OK(wire_.Flush());
          break;
        }
        case 'S':  // Sync: the end of an extended-protocol exchange
          skipping = false;
          Reports();
          pg::AppendReadyForQuery('I', &out_);
          TRIB_RETURN_NOT_OK(wire_.Flush());
          break;
        case 'H':  // Flush
          TRIB_RETURN_NOT_OK(wire_.Flush());
          break;
        case 'P':
        case 'B':
        case 'D':
        case 'E':
        case 'C':
        case 'F': {
          // After an error, everything up to the client's Sync is skipped.
          if (skipping) break;
          Status st = type == 'F' ? Status::NotSupported(
                                        "function calls (the Function Call message) are not "
                                        "supported")
                                  : Extended(type, body);
          if (!st.ok()) {
            ServerStats::Get().statements_failed++;
            pg::AppendError(SqlState(st), st.message(), &out_);
            skipping = true;
          }
          break;
        }
        case 'd':
        case 'c':
        case 'f':
          break;  // COPY data from a client: no COPY runs (refused when it is asked for)
        default:
          return wire_.Refuse("08P01", std::string("unknown message type '") + type + "'");
      }
    }
  }

  // A simple query: every statement of `text` in order, until one fails.
  Status SimpleQuery(const std::string& text) {
    // psql's describe commands (\d, \dt, ...) read PostgreSQL's catalog, in PostgreSQL's SQL:
    // answered from the warehouse's catalog (server/pg_catalog.h), not by the SQL engine.
    if (ReadsPgCatalog(text)) {
      ServerStats::Get().statements++;
      if (Status st = CatalogQuery(text); !st.ok()) {
        ServerStats::Get().statements_failed++;
        pg::AppendError(SqlState(st), st.message(), &out_);
      }
      return Status::OK();
    }
    std::vector<sql::StatementText> statements;
    Status split = sql::SplitStatementsPrefix(text, &statements);
    if (statements.empty() && split.ok()) {
      pg::AppendEmptyQueryResponse(&out_);
      return Status::OK();
    }
    // A cancel request stops the statement running (it polls the flag as it does Ctrl-C in the
    // shell); what comes after it in the query does not run.
    cancel_.store(false);
    sql::StopFlagScope stop(&cancel_);
    ServerStats& stats = ServerStats::Get();
    for (const sql::StatementText& st : statements) {
      stats.statements++;
      Status failed = Statement(st);
      // A statement that noticed failed (a query cut short says so itself): cancelled. One that
      // did its work before the request came stands.
      if (cancel_.load() && !failed.ok()) failed = Cancelled();
      stats.subscriptions_open += static_cast<int64_t>(cursors_->size()) - subscriptions_;
      subscriptions_ = static_cast<int64_t>(cursors_->size());
      if (!failed.ok()) {
        (cancel_.load() ? stats.statements_cancelled : stats.statements_failed)++;
        pg::AppendError(SqlState(failed), failed.message(), &out_);
        return Status::OK();
      }
      if (out_.size() > (1 << 16)) TRIB_RETURN_NOT_OK(wire_.Flush());
    }
    if (!split.ok()) pg::AppendError("42601", split.message(), &out_);
    return Status::OK();
  }

  // What the server refuses before running a statement.
  Status CheckAllowed(const std::string& text) const {
    if (!Streaming()) return Status::OK();
    const std::vector<std::string> first = Facts(text).words;
    if (!first.empty() && first[0] != "SET" && first[0] != "RESET" && first[0] != "DECLARE" &&
        first[0] != "FETCH" && first[0] != "CLOSE" && !IsJobStatement(text)) {
      return Status::NotSupported(
          "in streaming mode the server runs subscriptions (DECLARE c CURSOR FOR SELECT ...; "
          "FETCH n FROM c; CLOSE c), jobs (INSERT INTO ... SELECT ...; SHOW JOBS; STOP JOB "
          "'<id>') and SET / RESET; other statements (a streaming SELECT without a cursor) are "
          "not supported yet through it: RESET 'execution.runtime-mode' for batch statements");
    }
    return Status::OK();
  }

  bool Streaming() const { return cursors_ && cursors_->Streaming(); }

  // ---- COPY (server/copy.h): FROM STDIN into a table in one commit, TO STDOUT from a query

  Status Copy(const std::string& text) {
    TRIB_ASSIGN_OR_RETURN(CopyStatement copy, ParseCopy(text));
    if (copy.from_stdin) return CopyIn(copy);
    TRIB_RETURN_NOT_OK(CheckAllowed(CopyOutQuery(copy)));
    return CopyOut(copy, session_.get(), &wire_);
  }

  Status CopyIn(const CopyStatement& copy) {
    TRIB_ASSIGN_OR_RETURN(Identifier id,
                          Identifier::Parse(copy.table, session_->current_database()));
    // The server's warehouse (the default catalog), whatever catalog the session uses.
    if (!catalog_) {
      TRIB_ASSIGN_OR_RETURN(catalog_, Catalog::Open(warehouse_));
    }
    // With the hot tier, a writer of the COPY's own whose commit logs its rows; else the table's
    // shared writer (server/table_writers.h), held until the COPY ends, or a writer of its own
    // when another statement holds that one too long.
    std::optional<TableWriters::Lease> lease;
    std::unique_ptr<Table> own_table;
    if (config_->hot) {
      TRIB_ASSIGN_OR_RETURN(own_table, catalog_->GetTable(id));
    }
    const bool hot = own_table && HotTier::Takes(*own_table);
    if (!hot) {
      auto acquired = TableWriters::Instance().Acquire(*catalog_, id, TableWriters::kWait);
      if (!acquired.ok()) return acquired.status();
      if (*acquired) lease.emplace(std::move(**acquired));
    }
    std::unique_ptr<TableWriter> own_writer;
    if (!lease) {
      if (!own_table) {
        TRIB_ASSIGN_OR_RETURN(own_table, catalog_->GetTable(id));
      }
      if (hot) {
        own_writer = config_->hot->NewStatementWriter(*own_table);
      } else {
        TRIB_ASSIGN_OR_RETURN(own_writer, own_table->NewWriter({}));
      }
    }
    Table* table = lease ? &lease->table() : own_table.get();
    TableWriter* writer = lease ? &lease->writer() : own_writer.get();
    bool dropped = false, done = false;
    auto drop = [&] {  // nothing of the COPY is committed
      dropped = true;
      if (lease) {
        lease->Discard();
      } else {
        writer->Abort();
      }
    };
    // Every way out but a commit drops what the COPY wrote (a client gone, a wire error).
    struct DropUnlessDone {
      std::function<void()> drop;
      const bool* done;
      const bool* dropped;
      ~DropUnlessDone() {
        if (!*done && !*dropped) drop();
      }
    } guard{drop, &done, &dropped};
    const std::vector<Field>& fields = table->schema()->fields;
    std::vector<int> target;  // the table column of each field of a row
    for (const std::string& name : copy.columns) {
      const int c = table->schema()->FieldIndex(name);
      if (c < 0) return Status::Invalid("unknown column '" + name + "' of " + id.ToString());
      target.push_back(c);
    }
    if (copy.columns.empty()) {
      for (size_t c = 0; c < fields.size(); c++) target.push_back(static_cast<int>(c));
    }
    pg::AppendCopyResponse('G', target.size(), &out_, copy.format.binary);
    TRIB_RETURN_NOT_OK(wire_.Flush());
    CopyDecoder decoder(copy.format);
    std::vector<CopyRow> rows;
    int64_t count = 0;
    Status failed;
    auto write = [&]() -> Status {
      for (CopyRow& r : rows) {
        const int64_t line = r.line;
        TRIB_ASSIGN_OR_RETURN(Row row, CopyRowToTable(std::move(r), target, fields, copy.format));
        Status st = writer->Write(RowKind::kInsert, std::move(row));
        if (!st.ok())
          return Status(st.code(), "COPY line " + std::to_string(line) + ": " + st.message());
        count++;
      }
      rows.clear();
      return Status::OK();
    };
    // CopyData until CopyDone or CopyFail; after an error the rest is read and dropped.
    while (true) {
      char type = 0;
      std::string body;
      TRIB_ASSIGN_OR_RETURN(bool more, wire_.ReadMessage(&type, &body));
      if (!more) {
        drop();
        return Status::IOError("the client left during COPY");
      }
      if (type == 'd') {
        if (failed.ok()) failed = decoder.Feed(body, &rows);
        if (failed.ok()) failed = write();
      } else if (type == 'c') {
        if (failed.ok()) failed = decoder.Finish(&rows);
        if (failed.ok()) failed = write();
        break;
      } else if (type == 'f') {
        if (!body.empty() && body.back() == '\0') body.pop_back();
        if (failed.ok()) failed = Status::Invalid("COPY from stdin failed: " + body);
        break;
      } else if (type != 'H' && type != 'S') {
        failed = Status::Invalid(std::string("message '") + type + "' during COPY");
        break;
      }
    }
    if (!failed.ok()) {
      drop();
      return failed;
    }
    auto snapshot = writer->CommitAndWaitForCompaction();  // a statement ends its input
    if (!snapshot.ok()) {
      drop();
      return snapshot.status();
    }
    done = true;
    for (const std::string& w : writer->warnings()) Log("COPY into " + id.ToString() + ": " + w);
    ServerStats::Get().rows_written += count;
    pg::AppendCommandComplete("COPY " + std::to_string(count), &out_);
    return Status::OK();
  }

  // One DataRow per row, TIMESTAMP_LTZ values in the session's zone. `formats`: each column's
  // format code (1 binary: pg_binary.h), or empty for text.
  Status SendRows(const std::vector<Field>& fields, const std::vector<Row>& rows, size_t begin,
                  size_t end, const std::vector<int16_t>& formats = {}) {
    sql::SessionZoneScope zone(session_->time_zone());
    std::vector<std::optional<std::string>> cells(fields.size());
    for (size_t i = begin; i < end; i++) {
      const Row& row = rows[i];
      for (size_t c = 0; c < fields.size(); c++) {
        const DataType& t = fields[c].type;
        if (!formats.empty() && formats[c] == 1) {
          cells[c] = pg::BinaryOf(row[c], t);
          continue;
        }
        cells[c] = SessionZoneText(row[c], t);
      }
      pg::AppendDataRow(cells, &out_);
      if (out_.size() > (1 << 16)) TRIB_RETURN_NOT_OK(wire_.Flush());
    }
    ServerStats::Get().rows_returned += static_cast<int64_t>(end - begin);
    return Status::OK();
  }

  // `formats`: each column's format code (1 binary), or empty for text.
  static std::vector<pg::Column> Columns(const std::vector<Field>& fields,
                                         const std::vector<int16_t>& formats = {}) {
    std::vector<pg::Column> columns;
    for (size_t i = 0; i < fields.size(); i++) {
      columns.push_back(pg::ColumnOf(fields[i].name, fields[i].type));
      if (!formats.empty()) columns.back().format = formats[i];
    }
    return columns;
  }

  // ---- the extended query protocol: Parse, Bind, Describe, Execute, Close

  struct PreparedEntry {
    std::unique_ptr<sql::PreparedStatement> statement;
    std::string text;               // with '?' markers
    std::vector<int> order;         // each marker's parameter number (1-based)
    std::vector<int32_t> declared;  // each parameter's type in Parse (0: unspecified)
    std::vector<int32_t> oids;      // as declared, then as described (server/describe.h)
    std::optional<std::vector<Field>> described;  // the columns a Describe of it answered
    bool describe_tried = false;
    bool typed = false;  // unspecified parameters typed (at a Describe or the first Bind)
  };
  struct Portal {
    std::string statement;
    std::vector<Value> args;            // in marker order
    std::vector<sql::ParamForm> forms;  // bytea: BYTES literals; numeric: DECIMAL ones
    bool ran = false;
    bool has_rows = false;
    std::vector<Field> fields;
    std::vector<Row> rows;  // a query's rows, handed out by Execute (up to its row limit)
    std::vector<int16_t> result_formats;  // as Bind gave them: none text, one for all, or each
    std::function<Status()> sent;         // a FETCH's, once its rows are written to the client
    std::optional<std::string> copy;      // a COPY's text, run by Execute (then emptied)
    size_t next = 0;
    std::string tag;
  };

  // A portal's result format per column: Bind's codes, none (text), one for every column, or
  // one each.
  static Result<std::vector<int16_t>> ResultFormats(const Portal& portal) {
    const std::vector<int16_t>& codes = portal.result_formats;
    const size_t n = portal.fields.size();
    if (codes.empty()) return std::vector<int16_t>();
    if (codes.size() == 1) return std::vector<int16_t>(n, codes[0]);
    if (codes.size() != n) {
      return Status::Invalid("protocol: bind message has " + std::to_string(codes.size()) +
                             " result formats but the query has " + std::to_string(n) + " columns");
    }
    return codes;
  }

  Status Extended(char type, const std::string& body) {
    switch (type) {
      case 'P': {
        TRIB_ASSIGN_OR_RETURN(pg::Parse parse, pg::ParseParse(body));
        TRIB_ASSIGN_OR_RETURN(std::vector<sql::StatementText> statements,
                              sql::SplitStatements(parse.query));
        if (statements.size() > 1) {
          return Status::Invalid(
              "syntax: cannot insert multiple commands into a prepared statement");
        }
        const std::string one = statements.empty() ? std::string() : statements[0].text;
        TRIB_RETURN_NOT_OK(CheckAllowed(one));
        PreparedEntry entry;
        int count = 0;
        entry.text = pg::DollarParamsToMarkers(one, &entry.order, &count);
        if (std::count(entry.order.begin(), entry.order.end(), 0)) {
          return Status::Invalid("there is no parameter $0");
        }
        entry.oids = parse.type_oids;
        if (entry.oids.size() < static_cast<size_t>(count)) entry.oids.resize(count, 0);
        entry.declared = entry.oids;
        // DECLARE, FETCH, CLOSE and COPY are the server's statements (server/cursors.h, copy.h),
        // run at Execute as the simple query runs them.
        const std::vector<std::string> word = LeadingWords(one, 1);
        if (!word.empty() && (word[0] == "DECLARE" || word[0] == "FETCH" || word[0] == "CLOSE" ||
                              word[0] == "COPY" || IsJobStatement(one) || IsCatalogQuery(one))) {
          if (!entry.oids.empty()) {
            return Status::NotSupported("parameters of " + word[0] +
                                        " are not supported yet: write the values in");
          }
          entry.text = one;
          if (word[0] == "SHOW" && PgSettings::IsSettingStatement(one)) {  // its one column
            if (auto shown = settings_->Run(one); shown.ok()) entry.described = shown->fields;
          } else if (IsCatalogQuery(one)) {  // its columns, all text
            if (auto a = AnswerCatalog(one); a.ok()) {
              entry.described.emplace();
              for (const auto& c : a->columns)
                entry.described->push_back({0, c, DataType::String(), ""});
            }
          }
          facts_.Remember(entry.text);
          prepared_[parse.statement] = std::move(entry);
          pg::AppendEmpty('1', &out_);  // ParseComplete
          return Status::OK();
        }
        TRIB_ASSIGN_OR_RETURN(entry.statement,
                              sql::Prepare(session_.get(), entry.text, sql::Pos{}));
        facts_.Remember(entry.text);
        prepared_[parse.statement] = std::move(entry);
        pg::AppendEmpty('1', &out_);  // ParseComplete
        return Status::OK();
      }
      case 'B': {
        TRIB_ASSIGN_OR_RETURN(pg::Bind bind, pg::ParseBind(body));
        auto it = prepared_.find(bind.statement);
        if (it == prepared_.end()) {
          return Status::NotFound("prepared statement \"" + bind.statement + "\" does not exist");
        }
        PreparedEntry& entry = it->second;
        for (const auto* codes : {&bind.param_formats, &bind.result_formats}) {
          for (int16_t f : *codes) {
            if (f != 0 && f != 1) {
              return Status::Invalid("protocol: format code " + std::to_string(f) +
                                     " (0 text, 1 binary)");
            }
          }
        }
        if (bind.param_formats.size() > 1 && bind.param_formats.size() != bind.params.size()) {
          return Status::Invalid(
              "protocol: bind message has " + std::to_string(bind.param_formats.size()) +
              " parameter formats but " + std::to_string(bind.params.size()) + " parameters");
        }
        if (bind.params.size() != entry.oids.size()) {
          return Status::Invalid("bind message supplies " + std::to_string(bind.params.size()) +
                                 " parameters, but prepared statement \"" + bind.statement +
                                 "\" requires " + std::to_string(entry.oids.size()));
        }
        auto binary_at = [&](size_t i) {
          return !bind.param_formats.empty() &&
                 bind.param_formats[bind.param_formats.size() == 1 ? 0 : i] == 1;
        };
        // An unspecified parameter not described yet holding a date with a zone or era after it
        // (pgjdbc's setDate binds '2024-01-02 +00' so, without a Describe on a statement parsed
        // again): the parameters are typed by their context, as PostgreSQL types them at Parse,
        // and the date read as PostgreSQL reads it.
        bool type_them = false;
        for (size_t i = 0; i < bind.params.size() && entry.statement && !entry.typed; i++) {
          type_them = type_them ||
                      (entry.oids[i] == 0 && !binary_at(i) && pg::IsDateWithSuffix(bind.params[i]));
        }
        if (type_them && CheckAllowed(entry.text).ok()) {
          entry.typed = true;
          union_reads_->Reset();
          entry.oids = DescribeStatement(session_.get(), entry.text, entry.declared, entry.order)
                           .parameter_oids;
        }
        std::vector<Value> values;
        for (size_t i = 0; i < bind.params.size(); i++) {
          const bool binary = binary_at(i);
          TRIB_ASSIGN_OR_RETURN(Value v,
                                pg::ParamValue(bind.params[i], entry.oids[i], binary, i + 1));
          if (entry.oids[i] == 1184 && v.is_timestamp()) {  // an instant: the session's wall time
            sql::SessionZoneScope zone(session_->time_zone());
            v = Value::Ts(sql::InstantToLocal(v.timestamp_value()));
          }
          values.push_back(std::move(v));
        }
        Portal portal;
        portal.statement = bind.statement;
        portal.result_formats = std::move(bind.result_formats);
        for (int n : entry.order) {
          portal.args.push_back(values[static_cast<size_t>(n - 1)]);
          const int32_t oid = entry.oids[static_cast<size_t>(n - 1)];
          portal.forms.push_back(oid == 17     ? sql::ParamForm::kBytes
                                 : oid == 1700 ? sql::ParamForm::kNumeric
                                               : sql::ParamForm::kString);
        }
        portals_[bind.portal] = std::move(portal);
        pg::AppendEmpty('2', &out_);  // BindComplete
        return Status::OK();
      }
      case 'D': {
        TRIB_ASSIGN_OR_RETURN(pg::Target target, pg::ParseTarget(body));
        if (target.kind == 'S') {
          auto it = prepared_.find(target.name);
          if (it == prepared_.end()) {
            return Status::NotFound("prepared statement \"" + target.name + "\" does not exist");
          }
          // Unspecified parameters typed by their context, else text (server/describe.h).
          PreparedEntry& entry = it->second;
          if (entry.statement && !entry.describe_tried && CheckAllowed(entry.text).ok()) {
            entry.describe_tried = entry.typed = true;
            union_reads_->Reset();  // (the lake alone: only the types count here)
            Description described =
                DescribeStatement(session_.get(), entry.text, entry.declared, entry.order);
            entry.oids = std::move(described.parameter_oids);
            entry.described = std::move(described.columns);
          }
          for (int32_t& oid : entry.oids) oid = oid == 0 ? 25 : oid;
          pg::AppendParameterDescription(entry.oids, &out_);
          const auto& d = entry.described;
          d ? pg::AppendRowDescription(Columns(*d), &out_) : pg::AppendEmpty('n', &out_);
          return Status::OK();
        }
        TRIB_ASSIGN_OR_RETURN(Portal * portal, RunPortal(target.name));
        if (portal->has_rows) {
          TRIB_ASSIGN_OR_RETURN(auto formats, ResultFormats(*portal));
          pg::AppendRowDescription(Columns(portal->fields, formats), &out_);
        } else {
          pg::AppendEmpty('n', &out_);
        }
        return Status::OK();
      }
      case 'E': {
        TRIB_ASSIGN_OR_RETURN(pg::Execute exec, pg::ParseExecute(body));
        TRIB_ASSIGN_OR_RETURN(Portal * portal, RunPortal(exec.portal));
        if (portal->copy) {  // its data flows now, as after a simple query's (Sync ignored)
          if (portal->copy->empty()) return Status::Invalid("the portal's COPY has run");
          cancel_.store(false);  // cancellable as a simple query's COPY is
          sql::StopFlagScope stop(&cancel_);
          Status st = Copy(std::exchange(*portal->copy, std::string()));
          return cancel_.load() && !st.ok() ? Cancelled() : st;
        }
        if (!portal->has_rows) {
          pg::AppendCommandComplete(portal->tag, &out_);
          return Status::OK();
        }
        const size_t end =
            exec.max_rows > 0
                ? std::min(portal->rows.size(), portal->next + static_cast<size_t>(exec.max_rows))
                : portal->rows.size();
        TRIB_ASSIGN_OR_RETURN(auto formats, ResultFormats(*portal));
        TRIB_RETURN_NOT_OK(SendRows(portal->fields, portal->rows, portal->next, end, formats));
        portal->next = end;
        if (end < portal->rows.size()) {
          pg::AppendEmpty('s', &out_);  // PortalSuspended
          return Status::OK();
        }
        pg::AppendCommandComplete(
            portal->sent ? portal->tag : "SELECT " + std::to_string(portal->rows.size()), &out_);
        if (!portal->sent) return Status::OK();
        TRIB_RETURN_NOT_OK(wire_.Flush());
        auto sent = std::move(portal->sent);
        portal->sent = nullptr;
        return sent();
      }
      case 'C': {
        TRIB_ASSIGN_OR_RETURN(pg::Target target, pg::ParseTarget(body));
        if (target.kind == 'S') {
          prepared_.erase(target.name);
        } else {
          portals_.erase(target.name);
        }
        pg::AppendEmpty('3', &out_);  // CloseComplete
        return Status::OK();
      }
    }
    return Status::Internal("not an extended-protocol message");
  }

  // A portal of DECLARE, FETCH or CLOSE (server/cursors.h): a FETCH's rows are handed out by
  // Execute as a query's are; the consumer id's position moves once they are all written.
  Status RunCursorPortal(const std::string& text, Portal* portal) {
    if (IsCatalogQuery(text)) {  // as the simple query answers it (CatalogQuery)
      TRIB_ASSIGN_OR_RETURN(CatalogAnswer answer, AnswerCatalog(text));
      for (const std::string& name : answer.columns) {
        portal->fields.push_back(Field{0, name, DataType::String(), ""});
      }
      for (const auto& cells : answer.rows) {
        Row& row = portal->rows.emplace_back();
        for (const auto& c : cells) row.push_back(c ? Value::String(*c) : Value::Null());
      }
      portal->ran = portal->has_rows = true;
      portal->tag = "SELECT " + std::to_string(portal->rows.size());
      return Status::OK();
    }
    if (IsJobStatement(text)) {
      TRIB_ASSIGN_OR_RETURN(JobAnswer a, JobStatement(text));
      portal->ran = true;
      portal->has_rows = !a.fields.empty();
      portal->fields = std::move(a.fields);
      portal->rows = std::move(a.rows);
      portal->tag = std::move(a.tag);
      return Status::OK();
    }
    const std::string word = LeadingWords(text, 1)[0];
    if (word != "DECLARE" && word != "CLOSE" && word != "FETCH") {
      return Status::Invalid(
          "the statement was prepared in streaming mode, as a job; the "
          "session is in batch mode now: prepare it again");
    }
    Result<std::string> tag = word == "DECLARE" ? cursors_->Declare(text)
                              : word == "CLOSE" ? cursors_->Close(text)
                                                : std::string("FETCH");
    TRIB_RETURN_NOT_OK(tag.status());
    portal->ran = true;
    portal->tag = *tag;
    if (word != "FETCH") return Status::OK();
    auto fetched = cursors_->Fetch(text);
    if (!fetched.ok()) {
      portal->ran = false;
      return cancel_.load() ? Cancelled() : fetched.status();
    }
    portal->has_rows = true;
    portal->fields = std::move(fetched->fields);
    portal->rows = std::move(fetched->rows);
    portal->tag = "FETCH " + std::to_string(portal->rows.size());
    portal->sent = std::move(fetched->sent);
    return Status::OK();
  }

  // Runs portal `name`'s statement once (at its first Describe or Execute); its rows are kept
  // for the Executes that hand them out.
  Result<Portal*> RunPortal(const std::string& name) {
    auto it = portals_.find(name);
    if (it == portals_.end()) return Status::NotFound("portal \"" + name + "\" does not exist");
    Portal& portal = it->second;
    if (portal.ran) return &portal;
    auto entry = prepared_.find(portal.statement);
    if (entry == prepared_.end()) {
      return Status::NotFound("prepared statement \"" + portal.statement + "\" does not exist");
    }
    TRIB_RETURN_NOT_OK(CheckAllowed(entry->second.text));
    if (!IsCatalogQuery(entry->second.text)) TRIB_RETURN_NOT_OK(Barrier(entry->second.text));
    ServerStats::Get().statements++;
    if (const auto w = Facts(entry->second.text).words; !w.empty() && w[0] == "COPY") {
      portal.ran = true;
      portal.copy = entry->second.text;
      return &portal;
    }
    // Cancellable as a simple query is (see SimpleQuery).
    cancel_.store(false);
    sql::StopFlagScope stop(&cancel_);
    // (A job statement as the mode is now: an INSERT prepared in batch mode starts a job.)
    if (!entry->second.statement || IsJobStatement(entry->second.text)) {
      if (!portal.args.empty()) return Status::NotSupported("parameters of a job statement");
      Status ran = RunCursorPortal(entry->second.text, &portal);
      ServerStats& stats = ServerStats::Get();
      stats.subscriptions_open += static_cast<int64_t>(cursors_->size()) - subscriptions_;
      subscriptions_ = static_cast<int64_t>(cursors_->size());
      TRIB_RETURN_NOT_OK(ran);
      return &portal;
    }
    auto executed = entry->second.statement->Execute(portal.args, &portal.forms);
    if (cancel_.load() && !executed.ok()) return Cancelled();
    TRIB_ASSIGN_OR_RETURN(sql::StatementResult r, std::move(executed));
    portal.ran = true;
    portal.has_rows = r.has_rows;
    if (!r.has_rows) {
      portal.tag = CommandTag(entry->second.text, r.message);
      return &portal;
    }
    portal.fields = r.rows.fields;
    sql::SessionZoneScope zone(session_->time_zone());  // (rows are computed as read)
    if (r.cursor) {
      ColumnBatch batch;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, r.cursor->Next(&batch));
        if (!more) break;
        for (Row& row : sql::BatchRows(batch)) portal.rows.push_back(std::move(row));
      }
    } else {
      portal.rows = std::move(r.rows.rows);
    }
    if (cancel_.load()) {  // operators that noticed stopped early: not the query's result
      portals_.erase(it);
      return Cancelled();
    }
    if (auto& d = entry->second.described; d) {
      Status st = ConformToDescribed(*d, &portal.fields, &portal.rows);
      if (!st.ok()) {  // described again at the next Describe
        d.reset();
        entry->second.describe_tried = false;
        portals_.erase(it);
        return st;
      }
    }
    return &portal;
  }

  // One statement: its rows (RowDescription, DataRow...) and its CommandComplete.
  // A query of PostgreSQL's catalog through the extended protocol (a SELECT naming pg_catalog).
  bool IsCatalogQuery(const std::string& text) const { return Facts(text).catalog; }
  Result<CatalogAnswer> AnswerCatalog(const std::string& text) {
    if (!catalog_) {
      TRIB_ASSIGN_OR_RETURN(catalog_, Catalog::Open(warehouse_));
    }
    return AnswerPgCatalogQuery(text, *catalog_, session_->current_database());
  }
  Status CatalogQuery(const std::string& text) {
    TRIB_ASSIGN_OR_RETURN(CatalogAnswer answer, AnswerCatalog(text));
    std::vector<pg::Column> columns;
    for (const std::string& name : answer.columns) columns.push_back(pg::Column{name});
    pg::AppendRowDescription(columns, &out_);
    for (const auto& row : answer.rows) pg::AppendDataRow(row, &out_);
    ServerStats::Get().rows_returned += static_cast<int64_t>(answer.rows.size());
    pg::AppendCommandComplete("SELECT " + std::to_string(answer.rows.size()), &out_);
    return Status::OK();
  }

  // The read barrier of the hot tier (server/hot_tier.h): before a statement that may read a
  // table (or change one otherwise than by a plain INSERT ... VALUES or COPY FROM), what the
  // logs hold is committed to the lake, so the statement sees every acknowledged write. A query
  // needs none: it reads the lake and the logs together (union reads, UnionReads below).
  Status Barrier(const std::string& text) {
    union_reads_->Reset();
    if (!config_->hot) return Status::OK();
    const StatementFacts facts = Facts(text);
    const std::string w = facts.words.empty() ? "" : facts.words[0];
    if (IsJobStatement(text)) {  // a job reads the lake: it starts after every entry is in it
      return w == "INSERT" ? config_->hot->TierAll() : Status::OK();
    }
    if (facts.query ||
        ReadsUnion(text, *session_, [](const Table& t) { return HotTier::Takes(t); })) {
      union_reads_->Activate();  // until the next statement
      return Status::OK();
    }
    if (w == "SET" || w == "RESET" || w == "CLOSE") return Status::OK();
    if (w == "SHOW" && facts.words.size() > 1 && facts.words[1] == "STATS") return Status::OK();
    if (w == "COPY") {
      auto copy = ParseCopy(text);
      if (copy.ok() && copy->from_stdin) return Status::OK();
    }
    if (w == "INSERT" && IsPlainInsertValues(text)) return Status::OK();
    return config_->hot->TierAll();
  }

  // (SET, RESET and SHOW of PostgreSQL's parameters answer as job statements do.)
  bool IsJobStatement(const std::string& text) const { return Facts(text).job[Streaming()]; }

  StatementFacts Facts(const std::string& text) const { return facts_.Get(text); }

  Result<JobAnswer> JobStatement(const std::string& text) {
    if (PgSettings::IsSettingStatement(text)) return settings_->Run(text);
    if (LeadingWords(text, 1)[0] == "INSERT" && session_->UsesSessionObjects()) {
      return Status::NotSupported(
          "a job does not carry the session's temporary views or current catalog yet: start it "
          "from a session using the default catalog without temporary views");
    }
    return RunJobStatement(text, warehouse_, session_->current_database(), session_->options());
  }

  Status Statement(const sql::StatementText& st) {
    TRIB_RETURN_NOT_OK(CheckAllowed(st.text));
    TRIB_RETURN_NOT_OK(Barrier(st.text));
    if (const auto first = LeadingWords(st.text, 1); !first.empty()) {
      if (first[0] == "COPY") return Copy(st.text);
      if (first[0] == "DECLARE" || first[0] == "CLOSE") {
        TRIB_ASSIGN_OR_RETURN(std::string tag, first[0] == "DECLARE" ? cursors_->Declare(st.text)
                                                                     : cursors_->Close(st.text));
        pg::AppendCommandComplete(tag, &out_);
        return Status::OK();
      }
      if (first[0] == "FETCH") {
        TRIB_ASSIGN_OR_RETURN(Cursors::Fetched f, cursors_->Fetch(st.text));
        pg::AppendRowDescription(Columns(f.fields), &out_);
        TRIB_RETURN_NOT_OK(SendRows(f.fields, f.rows, 0, f.rows.size()));
        pg::AppendCommandComplete("FETCH " + std::to_string(f.rows.size()), &out_);
        TRIB_RETURN_NOT_OK(wire_.Flush());
        return f.sent();
      }
      if (first[0] == "SHOW" &&
          LeadingWords(st.text, 3) == std::vector<std::string>{"SHOW", "STATS"}) {
        return ShowStats();
      }
      if (IsJobStatement(st.text)) {
        TRIB_ASSIGN_OR_RETURN(JobAnswer a, JobStatement(st.text));
        if (!a.fields.empty()) pg::AppendRowDescription(Columns(a.fields), &out_);
        TRIB_RETURN_NOT_OK(SendRows(a.fields, a.rows, 0, a.rows.size()));
        pg::AppendCommandComplete(a.tag, &out_);
        return Status::OK();
      }
    }
    TRIB_ASSIGN_OR_RETURN(sql::StatementResult r, session_->ExecuteText(st.text, st.start));
    if (!r.has_rows) {
      pg::AppendCommandComplete(CommandTag(st.text, r.message), &out_);
      return Status::OK();
    }
    const std::vector<Field>& fields = r.rows.fields;
    pg::AppendRowDescription(Columns(fields), &out_);
    size_t count = 0;
    sql::SessionZoneScope zone(session_->time_zone());  // (rows are computed as read)
    if (r.cursor) {
      ColumnBatch batch;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, r.cursor->Next(&batch));
        if (!more) break;
        const std::vector<Row> rows = sql::BatchRows(batch);
        TRIB_RETURN_NOT_OK(SendRows(fields, rows, 0, rows.size()));
        count += rows.size();
      }
    } else {
      TRIB_RETURN_NOT_OK(SendRows(fields, r.rows.rows, 0, r.rows.rows.size()));
      count = r.rows.rows.size();
    }
    // Operators that noticed a cancel request stopped early: not the query's result.
    if (cancel_.load()) return Cancelled();
    pg::AppendCommandComplete("SELECT " + std::to_string(count), &out_);
    return Status::OK();
  }

  // A ParameterStatus for each reported parameter whose value changed (server/pg_settings.h).
  void Reports() {
    for (const auto& [name, v] : settings_->TakeReports())
      pg::AppendParameterStatus(name, v, &out_);
  }

  // SHOW STATS: the server's counters (server/stats.h), a row each.
  Status ShowStats() {
    const std::vector<Field> fields = {{0, "name", DataType::String(), ""},
                                       {1, "value", DataType::String(), ""}};
    pg::AppendRowDescription(Columns(fields), &out_);
    std::vector<Row> rows;
    for (auto& [name, value] : ServerStats::Get().Rows()) {
      rows.push_back({Value::String(name), Value::String(value)});
    }
    TRIB_RETURN_NOT_OK(SendRows(fields, rows, 0, rows.size()));
    pg::AppendCommandComplete("SHOW", &out_);
    return Status::OK();
  }

  static Status Cancelled() { return StatementCancelled(); }

  Wire wire_;
  std::string& out_ = wire_.out();  // the messages to send at the next wire_.Flush()
  std::shared_ptr<const ConnectionConfig> config_;
  std::atomic<bool> cancel_{false};  // set by a cancel request with this connection's key
  int32_t cancel_pid_ = 0;
  int64_t subscriptions_ = 0;  // cursors_->size() as last counted in ServerStats
  std::string warehouse_;
  std::string peer_;
  std::unique_ptr<sql::Session> session_;
  std::unique_ptr<Catalog> catalog_;  // the warehouse's, for COPY FROM
  // The session's reads of pending writes (server/union_reads.h): while a query runs.
  std::shared_ptr<UnionReads> union_reads_ = std::make_shared<UnionReads>(nullptr);
  StatementFactsMemo facts_{config_->hot != nullptr};  // what texts say (statement_facts.h)
  std::map<std::string, PreparedEntry> prepared_;      // "" the unnamed statement
  std::map<std::string, Portal> portals_;              // "" the unnamed portal
  std::unique_ptr<Cursors> cursors_;                   // subscriptions (DECLARE ... CURSOR)
  std::unique_ptr<PgSettings> settings_;               // PostgreSQL's parameters
};

}  // namespace

void Log(const std::string& line) {
  std::fprintf(stderr, "serve: %s\n", line.c_str());
  std::fflush(stderr);
}

void ServeConnection(int fd, std::shared_ptr<const ConnectionConfig> config, std::string peer) {
  Connection(fd, std::move(config), std::move(peer)).Run();
}

}  // namespace tributary::server

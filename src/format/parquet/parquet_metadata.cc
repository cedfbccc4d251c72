#include "format/parquet/parquet_metadata.h"

#include "format/parquet/thrift.h"

namespace tributary::format::parquet {

namespace {

using T = ThriftType;

// ----------------------------------------------------------------------------- decoding helpers

template <typename E>
Status ReadEnum(ThriftReader& r, T t, E* out) {
  int32_t v;
  TRIB_RETURN_NOT_OK(r.ReadI32(t, &v));
  *out = static_cast<E>(v);
  return Status::OK();
}

template <typename E>
Status ReadEnum(ThriftReader& r, T t, std::optional<E>* out) {
  E v;
  TRIB_RETURN_NOT_OK(ReadEnum(r, t, &v));
  *out = v;
  return Status::OK();
}

template <typename V>
Status ReadOpt(ThriftReader& r, T t, std::optional<V>* out) {
  V v{};
  if constexpr (std::is_same_v<V, int32_t>) {
    TRIB_RETURN_NOT_OK(r.ReadI32(t, &v));
  } else if constexpr (std::is_same_v<V, int64_t>) {
    TRIB_RETURN_NOT_OK(r.ReadI64(t, &v));
  } else if constexpr (std::is_same_v<V, int16_t>) {
    TRIB_RETURN_NOT_OK(r.ReadI16(t, &v));
  } else if constexpr (std::is_same_v<V, bool>) {
    TRIB_RETURN_NOT_OK(r.ReadBool(t, &v));
  } else {
    static_assert(std::is_same_v<V, std::string>);
    TRIB_RETURN_NOT_OK(r.ReadBinary(t, &v));
  }
  *out = std::move(v);
  return Status::OK();
}

// Reads a list whose elements are decoded by `elem(reader, elem_type)`.
template <typename Fn>
Status ReadList(ThriftReader& r, T t, Fn&& elem) {
  T et;
  int32_t n;
  TRIB_RETURN_NOT_OK(r.ReadListHeader(t, &et, &n));
  for (int32_t i = 0; i < n; ++i) TRIB_RETURN_NOT_OK(elem(et));
  return Status::OK();
}

Status Missing(const char* what) {
  return Status::Corruption(std::string("parquet metadata: missing required field ") + what);
}

// Members of the empty-struct unions (TimeUnit, ColumnOrder) carry no data.
Status ReadTimeUnit(ThriftReader& r, TimeUnit* unit) {
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    if (id >= 1 && id <= 3 && t == T::kStruct) *unit = static_cast<TimeUnit>(id);
    return r.Skip(t);
  });
}

Status ReadLogicalType(ThriftReader& r, LogicalType* lt) {
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    if (t != T::kStruct) return r.Skip(t);
    switch (id) {
      case LogicalType::kDecimal:
        lt->kind = LogicalType::kDecimal;
        return r.ReadStruct([&](int16_t fid, T ft) -> Status {
          if (fid == 1) return r.ReadI32(ft, &lt->scale);
          if (fid == 2) return r.ReadI32(ft, &lt->precision);
          return r.Skip(ft);
        });
      case LogicalType::kTime:
      case LogicalType::kTimestamp:
        lt->kind = static_cast<LogicalType::Kind>(id);
        return r.ReadStruct([&](int16_t fid, T ft) -> Status {
          if (fid == 1) return r.ReadBool(ft, &lt->is_adjusted_to_utc);
          if (fid == 2 && ft == T::kStruct) return ReadTimeUnit(r, &lt->unit);
          return r.Skip(ft);
        });
      case LogicalType::kInteger:
        lt->kind = LogicalType::kInteger;
        return r.ReadStruct([&](int16_t fid, T ft) -> Status {
          if (fid == 1) return r.ReadI8(ft, &lt->bit_width);
          if (fid == 2) return r.ReadBool(ft, &lt->is_signed);
          return r.Skip(ft);
        });
      case LogicalType::kString:
      case LogicalType::kMap:
      case LogicalType::kList:
      case LogicalType::kEnum:
      case LogicalType::kDate:
      case LogicalType::kUnknown:
      case LogicalType::kJson:
      case LogicalType::kBson:
      case LogicalType::kUuid:
      case LogicalType::kFloat16:
        lt->kind = static_cast<LogicalType::Kind>(id);
        return r.Skip(t);
      default:
        lt->kind = LogicalType::kOther;
        return r.Skip(t);
    }
  });
}

Status ReadSchemaElement(ThriftReader& r, SchemaElement* e) {
  bool has_name = false;
  TRIB_RETURN_NOT_OK(r.ReadStruct([&](int16_t id, T t) -> Status {
    switch (id) {
      case 1:
        return ReadEnum(r, t, &e->type);
      case 2:
        return ReadOpt(r, t, &e->type_length);
      case 3:
        return ReadEnum(r, t, &e->repetition_type);
      case 4:
        has_name = true;
        return r.ReadBinary(t, &e->name);
      case 5:
        return ReadOpt(r, t, &e->num_children);
      case 6:
        return ReadEnum(r, t, &e->converted_type);
      case 7:
        return ReadOpt(r, t, &e->scale);
      case 8:
        return ReadOpt(r, t, &e->precision);
      case 9:
        return ReadOpt(r, t, &e->field_id);
      case 10:
        if (t != T::kStruct) return r.Skip(t);
        e->logical_type.emplace();
        return ReadLogicalType(r, &*e->logical_type);
      default:
        return r.Skip(t);
    }
  }));
  return has_name ? Status::OK() : Missing("SchemaElement.name");
}

Status ReadStatistics(ThriftReader& r, Statistics* s) {
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    switch (id) {
      case 1:
        return ReadOpt(r, t, &s->max);
      case 2:
        return ReadOpt(r, t, &s->min);
      case 3:
        return ReadOpt(r, t, &s->null_count);
      case 4:
        return ReadOpt(r, t, &s->distinct_count);
      case 5:
        return ReadOpt(r, t, &s->max_value);
      case 6:
        return ReadOpt(r, t, &s->min_value);
      case 7:
        return ReadOpt(r, t, &s->is_max_value_exact);
      case 8:
        return ReadOpt(r, t, &s->is_min_value_exact);
      default:
        return r.Skip(t);
    }
  });
}

Status ReadKeyValue(ThriftReader& r, KeyValue* kv) {
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    if (id == 1) return r.ReadBinary(t, &kv->key);
    if (id == 2) return ReadOpt(r, t, &kv->value);
    return r.Skip(t);
  });
}

Status ReadKeyValues(ThriftReader& r, T t, std::vector<KeyValue>* out) {
  return ReadList(r, t, [&](T et) -> Status {
    if (et != T::kStruct) return Status::Corruption("parquet metadata: bad key/value list");
    out->emplace_back();
    return ReadKeyValue(r, &out->back());
  });
}

Status ReadColumnMetaData(ThriftReader& r, ColumnMetaData* m) {
  uint32_t seen = 0;
  TRIB_RETURN_NOT_OK(r.ReadStruct([&](int16_t id, T t) -> Status {
    if (id >= 1 && id <= 9) seen |= 1u << id;
    switch (id) {
      case 1:
        return ReadEnum(r, t, &m->type);
      case 2:
        return ReadList(r, t, [&](T et) -> Status {
          Encoding e;
          TRIB_RETURN_NOT_OK(ReadEnum(r, et, &e));
          m->encodings.push_back(e);
          return Status::OK();
        });
      case 3:
        return ReadList(r, t, [&](T et) -> Status {
          m->path_in_schema.emplace_back();
          return r.ReadBinary(et, &m->path_in_schema.back());
        });
      case 4:
        return ReadEnum(r, t, &m->codec);
      case 5:
        return r.ReadI64(t, &m->num_values);
      case 6:
        return r.ReadI64(t, &m->total_uncompressed_size);
      case 7:
        return r.ReadI64(t, &m->total_compressed_size);
      case 8:
        return ReadKeyValues(r, t, &m->key_value_metadata);
      case 9:
        return r.ReadI64(t, &m->data_page_offset);
      case 10:
        return ReadOpt(r, t, &m->index_page_offset);
      case 11:
        return ReadOpt(r, t, &m->dictionary_page_offset);
      case 12:
        if (t != T::kStruct) return r.Skip(t);
        m->statistics.emplace();
        return ReadStatistics(r, &*m->statistics);
      default:
        return r.Skip(t);
    }
  }));
  constexpr uint32_t kRequired =
      (1u << 1) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 9);
  return (seen & kRequired) == kRequired ? Status::OK() : Missing("ColumnMetaData fields");
}

Status ReadColumnChunk(ThriftReader& r, ColumnChunk* c) {
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    switch (id) {
      case 1:
        return ReadOpt(r, t, &c->file_path);
      case 2:
        return r.ReadI64(t, &c->file_offset);
      case 3:
        if (t != T::kStruct) return r.Skip(t);
        c->meta_data.emplace();
        return ReadColumnMetaData(r, &*c->meta_data);
      case 4:
        return ReadOpt(r, t, &c->offset_index_offset);
      case 5:
        return ReadOpt(r, t, &c->offset_index_length);
      case 6:
        return ReadOpt(r, t, &c->column_index_offset);
      case 7:
        return ReadOpt(r, t, &c->column_index_length);
      default:
        return r.Skip(t);
    }
  });
}

Status ReadRowGroup(ThriftReader& r, RowGroup* g) {
  bool has_columns = false, has_rows = false;
  TRIB_RETURN_NOT_OK(r.ReadStruct([&](int16_t id, T t) -> Status {
    switch (id) {
      case 1:
        has_columns = true;
        return ReadList(r, t, [&](T et) -> Status {
          if (et != T::kStruct) return Status::Corruption("parquet metadata: bad column list");
          g->columns.emplace_back();
          return ReadColumnChunk(r, &g->columns.back());
        });
      case 2:
        return r.ReadI64(t, &g->total_byte_size);
      case 3:
        has_rows = true;
        return r.ReadI64(t, &g->num_rows);
      case 5:
        return ReadOpt(r, t, &g->file_offset);
      case 6:
        return ReadOpt(r, t, &g->total_compressed_size);
      case 7:
        return ReadOpt(r, t, &g->ordinal);
      default:
        return r.Skip(t);
    }
  }));
  return has_columns && has_rows ? Status::OK() : Missing("RowGroup.columns/num_rows");
}

Status ReadDataPageHeader(ThriftReader& r, DataPageHeader* h) {
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    switch (id) {
      case 1:
        return r.ReadI32(t, &h->num_values);
      case 2:
        return ReadEnum(r, t, &h->encoding);
      case 3:
        return ReadEnum(r, t, &h->definition_level_encoding);
      case 4:
        return ReadEnum(r, t, &h->repetition_level_encoding);
      case 5:
        if (t != T::kStruct) return r.Skip(t);
        h->statistics.emplace();
        return ReadStatistics(r, &*h->statistics);
      default:
        return r.Skip(t);
    }
  });
}

Status ReadDictionaryPageHeader(ThriftReader& r, DictionaryPageHeader* h) {
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    switch (id) {
      case 1:
        return r.ReadI32(t, &h->num_values);
      case 2:
        return ReadEnum(r, t, &h->encoding);
      case 3:
        return ReadOpt(r, t, &h->is_sorted);
      default:
        return r.Skip(t);
    }
  });
}

Status ReadDataPageHeaderV2(ThriftReader& r, DataPageHeaderV2* h) {
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    switch (id) {
      case 1:
        return r.ReadI32(t, &h->num_values);
      case 2:
        return r.ReadI32(t, &h->num_nulls);
      case 3:
        return r.ReadI32(t, &h->num_rows);
      case 4:
        return ReadEnum(r, t, &h->encoding);
      case 5:
        return r.ReadI32(t, &h->definition_levels_byte_length);
      case 6:
        return r.ReadI32(t, &h->repetition_levels_byte_length);
      case 7:
        return r.ReadBool(t, &h->is_compressed);
      case 8:
        if (t != T::kStruct) return r.Skip(t);
        h->statistics.emplace();
        return ReadStatistics(r, &*h->statistics);
      default:
        return r.Skip(t);
    }
  });
}

// ----------------------------------------------------------------------------- encoding helpers

void WriteStatistics(ThriftWriter& w, int16_t id, const Statistics& s) {
  w.FieldStructBegin(id);
  if (s.max) w.FieldBinary(1, *s.max);
  if (s.min) w.FieldBinary(2, *s.min);
  if (s.null_count) w.FieldI64(3, *s.null_count);
  if (s.distinct_count) w.FieldI64(4, *s.distinct_count);
  if (s.max_value) w.FieldBinary(5, *s.max_value);
  if (s.min_value) w.FieldBinary(6, *s.min_value);
  if (s.is_max_value_exact) w.FieldBool(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w.FieldBool(8, *s.is_min_value_exact);
  w.EndStruct();
}

void WriteKeyValues(ThriftWriter& w, int16_t id, const std::vector<KeyValue>& kvs) {
  w.FieldListBegin(id, T::kStruct, static_cast<int32_t>(kvs.size()));
  for (const KeyValue& kv : kvs) {
    w.BeginStruct();
    w.FieldBinary(1, kv.key);
    if (kv.value) w.FieldBinary(2, *kv.value);
    w.EndStruct();
  }
}

void WriteLogicalType(ThriftWriter& w, const LogicalType& lt) {
  w.FieldStructBegin(10);
  w.FieldStructBegin(static_cast<int16_t>(lt.kind));
  switch (lt.kind) {
    case LogicalType::kDecimal:
      w.FieldI32(1, lt.scale);
      w.FieldI32(2, lt.precision);
      break;
    case LogicalType::kTime:
    case LogicalType::kTimestamp:
      w.FieldBool(1, lt.is_adjusted_to_utc);
      w.FieldStructBegin(2);
      w.FieldStructBegin(static_cast<int16_t>(lt.unit));
      w.EndStruct();
      w.EndStruct();
      break;
    case LogicalType::kInteger:
      w.FieldI8(1, lt.bit_width);
      w.FieldBool(2, lt.is_signed);
      break;
    default:
      break;
  }
  w.EndStruct();
  w.EndStruct();
}

void WriteSchemaElement(ThriftWriter& w, const SchemaElement& e) {
  w.BeginStruct();
  if (e.type) w.FieldI32(1, static_cast<int32_t>(*e.type));
  if (e.type_length) w.FieldI32(2, *e.type_length);
  if (e.repetition_type) w.FieldI32(3, static_cast<int32_t>(*e.repetition_type));
  w.FieldBinary(4, e.name);
  if (e.num_children) w.FieldI32(5, *e.num_children);
  if (e.converted_type) w.FieldI32(6, static_cast<int32_t>(*e.converted_type));
  if (e.scale) w.FieldI32(7, *e.scale);
  if (e.precision) w.FieldI32(8, *e.precision);
  if (e.field_id) w.FieldI32(9, *e.field_id);
  if (e.logical_type && e.logical_type->kind != LogicalType::kNone &&
      e.logical_type->kind != LogicalType::kOther) {
    WriteLogicalType(w, *e.logical_type);
  }
  w.EndStruct();
}

void WriteColumnMetaData(ThriftWriter& w, const ColumnMetaData& m) {
  w.FieldStructBegin(3);
  w.FieldI32(1, static_cast<int32_t>(m.type));
  w.FieldListBegin(2, T::kI32, static_cast<int32_t>(m.encodings.size()));
  for (Encoding e : m.encodings) w.ListI32(static_cast<int32_t>(e));
  w.FieldListBegin(3, T::kBinary, static_cast<int32_t>(m.path_in_schema.size()));
  for (const std::string& p : m.path_in_schema) w.ListBinary(p);
  w.FieldI32(4, static_cast<int32_t>(m.codec));
  w.FieldI64(5, m.num_values);
  w.FieldI64(6, m.total_uncompressed_size);
  w.FieldI64(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) WriteKeyValues(w, 8, m.key_value_metadata);
  w.FieldI64(9, m.data_page_offset);
  if (m.index_page_offset) w.FieldI64(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.FieldI64(11, *m.dictionary_page_offset);
  if (m.statistics) WriteStatistics(w, 12, *m.statistics);
  w.EndStruct();
}

void WriteRowGroup(ThriftWriter& w, const RowGroup& g) {
  w.BeginStruct();
  w.FieldListBegin(1, T::kStruct, static_cast<int32_t>(g.columns.size()));
  for (const ColumnChunk& c : g.columns) {
    w.BeginStruct();
    if (c.file_path) w.FieldBinary(1, *c.file_path);
    w.FieldI64(2, c.file_offset);
    if (c.meta_data) WriteColumnMetaData(w, *c.meta_data);
    if (c.offset_index_offset) w.FieldI64(4, *c.offset_index_offset);
    if (c.offset_index_length) w.FieldI32(5, *c.offset_index_length);
    if (c.column_index_offset) w.FieldI64(6, *c.column_index_offset);
    if (c.column_index_length) w.FieldI32(7, *c.column_index_length);
    w.EndStruct();
  }
  w.FieldI64(2, g.total_byte_size);
  w.FieldI64(3, g.num_rows);
  if (g.file_offset) w.FieldI64(5, *g.file_offset);
  if (g.total_compressed_size) w.FieldI64(6, *g.total_compressed_size);
  if (g.ordinal) w.FieldI16(7, *g.ordinal);
  w.EndStruct();
}

}  // namespace

// ----------------------------------------------------------------------------- public decoders

Status DecodeFileMetaData(std::string_view data, FileMetaData* out) {
  ThriftReader r(data);
  uint32_t seen = 0;
  TRIB_RETURN_NOT_OK(r.ReadStruct([&](int16_t id, T t) -> Status {
    if (id >= 1 && id <= 4) seen |= 1u << id;
    switch (id) {
      case 1:
        return r.ReadI32(t, &out->version);
      case 2:
        return ReadList(r, t, [&](T et) -> Status {
          if (et != T::kStruct) return Status::Corruption("parquet metadata: bad schema list");
          out->schema.emplace_back();
          return ReadSchemaElement(r, &out->schema.back());
        });
      case 3:
        return r.ReadI64(t, &out->num_rows);
      case 4:
        return ReadList(r, t, [&](T et) -> Status {
          if (et != T::kStruct) return Status::Corruption("parquet metadata: bad row group list");
          out->row_groups.emplace_back();
          return ReadRowGroup(r, &out->row_groups.back());
        });
      case 5:
        return ReadKeyValues(r, t, &out->key_value_metadata);
      case 6:
        return ReadOpt(r, t, &out->created_by);
      case 7:
        return ReadList(r, t, [&](T et) -> Status {
          if (et != T::kStruct) return Status::Corruption("parquet metadata: bad column orders");
          bool type_order = false;
          TRIB_RETURN_NOT_OK(r.ReadStruct([&](int16_t fid, T ft) -> Status {
            if (fid == 1) type_order = true;
            return r.Skip(ft);
          }));
          out->column_orders.push_back(type_order);
          return Status::OK();
        });
      default:
        return r.Skip(t);
    }
  }));
  constexpr uint32_t kRequired = (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4);
  return (seen & kRequired) == kRequired ? Status::OK() : Missing("FileMetaData fields");
}

Status DecodePageHeader(std::string_view data, PageHeader* out, size_t* consumed) {
  ThriftReader r(data);
  uint32_t seen = 0;
  TRIB_RETURN_NOT_OK(r.ReadStruct([&](int16_t id, T t) -> Status {
    if (id >= 1 && id <= 3) seen |= 1u << id;
    switch (id) {
      case 1:
        return ReadEnum(r, t, &out->type);
      case 2:
        return r.ReadI32(t, &out->uncompressed_page_size);
      case 3:
        return r.ReadI32(t, &out->compressed_page_size);
      case 4:
        return ReadOpt(r, t, &out->crc);
      case 5:
        if (t != T::kStruct) return r.Skip(t);
        out->data_page_header.emplace();
        return ReadDataPageHeader(r, &*out->data_page_header);
      case 7:
        if (t != T::kStruct) return r.Skip(t);
        out->dictionary_page_header.emplace();
        return ReadDictionaryPageHeader(r, &*out->dictionary_page_header);
      case 8:
        if (t != T::kStruct) return r.Skip(t);
        out->data_page_header_v2.emplace();
        return ReadDataPageHeaderV2(r, &*out->data_page_header_v2);
      default:
        return r.Skip(t);
    }
  }));
  if (consumed) *consumed = r.position();
  constexpr uint32_t kRequired = (1u << 1) | (1u << 2) | (1u << 3);
  return (seen & kRequired) == kRequired ? Status::OK() : Missing("PageHeader fields");
}

Status DecodeColumnIndex(std::string_view data, ColumnIndex* out) {
  ThriftReader r(data);
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    switch (id) {
      case 1:
        return ReadList(r, t, [&](T et) -> Status {
          bool b;
          TRIB_RETURN_NOT_OK(r.ReadBool(et, &b));
          out->null_pages.push_back(b);
          return Status::OK();
        });
      case 2:
      case 3: {
        std::vector<std::string>& v = id == 2 ? out->min_values : out->max_values;
        return ReadList(r, t, [&](T et) -> Status {
          v.emplace_back();
          return r.ReadBinary(et, &v.back());
        });
      }
      case 4:
        return ReadEnum(r, t, &out->boundary_order);
      case 5:
        return ReadList(r, t, [&](T et) -> Status {
          int64_t n;
          TRIB_RETURN_NOT_OK(r.ReadI64(et, &n));
          out->null_counts.push_back(n);
          return Status::OK();
        });
      default:
        return r.Skip(t);
    }
  });
}

Status DecodeOffsetIndex(std::string_view data, OffsetIndex* out) {
  ThriftReader r(data);
  return r.ReadStruct([&](int16_t id, T t) -> Status {
    if (id != 1) return r.Skip(t);
    return ReadList(r, t, [&](T et) -> Status {
      if (et != T::kStruct) return Status::Corruption("parquet metadata: bad page locations");
      PageLocation loc;
      TRIB_RETURN_NOT_OK(r.ReadStruct([&](int16_t fid, T ft) -> Status {
        if (fid == 1) return r.ReadI64(ft, &loc.offset);
        if (fid == 2) return r.ReadI32(ft, &loc.compressed_page_size);
        if (fid == 3) return r.ReadI64(ft, &loc.first_row_index);
        return r.Skip(ft);
      }));
      out->page_locations.push_back(loc);
      return Status::OK();
    });
  });
}

// ----------------------------------------------------------------------------- public encoders

std::string EncodeFileMetaData(const FileMetaData& m) {
  ThriftWriter w;
  w.BeginStruct();
  w.FieldI32(1, m.version);
  w.FieldListBegin(2, T::kStruct, static_cast<int32_t>(m.schema.size()));
  for (const SchemaElement& e : m.schema) WriteSchemaElement(w, e);
  w.FieldI64(3, m.num_rows);
  w.FieldListBegin(4, T::kStruct, static_cast<int32_t>(m.row_groups.size()));
  for (const RowGroup& g : m.row_groups) WriteRowGroup(w, g);
  if (!m.key_value_metadata.empty()) WriteKeyValues(w, 5, m.key_value_metadata);
  if (m.created_by) w.FieldBinary(6, *m.created_by);
  if (!m.column_orders.empty()) {
    w.FieldListBegin(7, T::kStruct, static_cast<int32_t>(m.column_orders.size()));
    for (bool type_order : m.column_orders) {
      w.BeginStruct();
      if (type_order) {
        w.FieldStructBegin(1);
        w.EndStruct();
      }
      w.EndStruct();
    }
  }
  w.EndStruct();
  return w.Release();
}

std::string EncodePageHeader(const PageHeader& h) {
  ThriftWriter w;
  w.BeginStruct();
  w.FieldI32(1, static_cast<int32_t>(h.type));
  w.FieldI32(2, h.uncompressed_page_size);
  w.FieldI32(3, h.compressed_page_size);
  if (h.crc) w.FieldI32(4, *h.crc);
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.FieldStructBegin(5);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, static_cast<int32_t>(d.encoding));
    w.FieldI32(3, static_cast<int32_t>(d.definition_level_encoding));
    w.FieldI32(4, static_cast<int32_t>(d.repetition_level_encoding));
    if (d.statistics) WriteStatistics(w, 5, *d.statistics);
    w.EndStruct();
  }
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    w.FieldStructBegin(7);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, static_cast<int32_t>(d.encoding));
    if (d.is_sorted) w.FieldBool(3, *d.is_sorted);
    w.EndStruct();
  }
  if (h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    w.FieldStructBegin(8);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, d.num_nulls);
    w.FieldI32(3, d.num_rows);
    w.FieldI32(4, static_cast<int32_t>(d.encoding));
    w.FieldI32(5, d.definition_levels_byte_length);
    w.FieldI32(6, d.repetition_levels_byte_length);
    w.FieldBool(7, d.is_compressed);
    if (d.statistics) WriteStatistics(w, 8, *d.statistics);
    w.EndStruct();
  }
  w.EndStruct();
  return w.Release();
}

std::string EncodeColumnIndex(const ColumnIndex& c) {
  ThriftWriter w;
  w.BeginStruct();
  w.FieldListBegin(1, T::kBoolTrue, static_cast<int32_t>(c.null_pages.size()));
  for (bool b : c.null_pages) w.ListBool(b);
  w.FieldListBegin(2, T::kBinary, static_cast<int32_t>(c.min_values.size()));
  for (const std::string& v : c.min_values) w.ListBinary(v);
  w.FieldListBegin(3, T::kBinary, static_cast<int32_t>(c.max_values.size()));
  for (const std::string& v : c.max_values) w.ListBinary(v);
  w.FieldI32(4, static_cast<int32_t>(c.boundary_order));
  if (!c.null_counts.empty()) {
    w.FieldListBegin(5, T::kI64, static_cast<int32_t>(c.null_counts.size()));
    for (int64_t n : c.null_counts) w.ListI64(n);
  }
  w.EndStruct();
  return w.Release();
}

std::string EncodeOffsetIndex(const OffsetIndex& o) {
  ThriftWriter w;
  w.BeginStruct();
  w.FieldListBegin(1, T::kStruct, static_cast<int32_t>(o.page_locations.size()));
  for (const PageLocation& p : o.page_locations) {
    w.BeginStruct();
    w.FieldI64(1, p.offset);
    w.FieldI32(2, p.compressed_page_size);
    w.FieldI64(3, p.first_row_index);
    w.EndStruct();
  }
  w.EndStruct();
  return w.Release();
}

// ----------------------------------------------------------------------------- names

const char* PhysicalTypeName(PhysicalType t) {
  switch (t) {
    case PhysicalType::kBoolean:
      return "BOOLEAN";
    case PhysicalType::kInt32:
      return "INT32";
    case PhysicalType::kInt64:
      return "INT64";
    case PhysicalType::kInt96:
      return "INT96";
    case PhysicalType::kFloat:
      return "FLOAT";
    case PhysicalType::kDouble:
      return "DOUBLE";
    case PhysicalType::kByteArray:
      return "BYTE_ARRAY";
    case PhysicalType::kFixedLenByteArray:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN";
}

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::kPlain:
      return "PLAIN";
    case Encoding::kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case Encoding::kRle:
      return "RLE";
    case Encoding::kBitPacked:
      return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
      return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN";
}

const char* CodecName(Codec c) {
  switch (c) {
    case Codec::kUncompressed:
      return "UNCOMPRESSED";
    case Codec::kSnappy:
      return "SNAPPY";
    case Codec::kGzip:
      return "GZIP";
    case Codec::kLzo:
      return "LZO";
    case Codec::kBrotli:
      return "BROTLI";
    case Codec::kLz4:
      return "LZ4";
    case Codec::kZstd:
      return "ZSTD";
    case Codec::kLz4Raw:
      return "LZ4_RAW";
  }
  return "UNKNOWN";
}

}  // namespace tributary::format::parquet

#include "format/parquet/nested.h"

#include <map>

namespace tributary::format::parquet {

namespace {

constexpr int kMaxDepth = 64;

// Paimon's synthetic field ids of list elements and map keys/values (SpecialFields).
constexpr int32_t kStructuredBase = 2147483647 / 4;
constexpr int32_t kDepthLimit = 1 << 10;

bool IsGroup(const SchemaElement& e) { return e.num_children.has_value() && !e.type; }

bool HasConverted(const SchemaElement& e, ConvertedType c) { return e.converted_type == c; }
bool HasLogical(const SchemaElement& e, LogicalType::Kind k) {
  return e.logical_type && e.logical_type->kind == k;
}

// The schema tree as child index lists, and the leaf index of every primitive element.
class TreeBuilder {
 public:
  TreeBuilder(const std::vector<SchemaElement>& elements, const FileSchema& schema)
      : elements_(elements) {
    for (size_t i = 0; i < schema.leaves().size(); ++i) {
      leaf_of_[schema.leaves()[i].schema_index] = static_cast<int>(i);
    }
    leaves_ = &schema.leaves();
  }

  // Children of element `index` (FileSchema::Make already checked the counts).
  std::vector<size_t> Children(size_t index) const {
    std::vector<size_t> out;
    size_t next = index + 1;
    int32_t n = elements_[index].num_children.value_or(0);
    for (int32_t i = 0; i < n && next < elements_.size(); ++i) {
      out.push_back(next);
      next = SubtreeEnd(next, 0);
    }
    return out;
  }

  // Dispatches on the element's repetition: a repeated element is a list of its contents.
  Result<NestedNode> Node(size_t index, int16_t def, int16_t rep, int depth) const {
    if (depth > kMaxDepth) return Status::Corruption("parquet schema: nested too deeply");
    const SchemaElement& e = elements_[index];
    if (e.repetition_type == Repetition::kRepeated) {
      NestedNode list;
      list.kind = NestedNode::Kind::kList;
      list.name = e.name;
      list.field_id = e.field_id;
      list.optional = false;
      list.def = def;
      list.entry_def = static_cast<int16_t>(def + 1);
      list.rep = static_cast<int16_t>(rep + 1);
      TRIB_ASSIGN_OR_RETURN(NestedNode element,
                            Content(index, list.entry_def, list.rep, false, depth + 1));
      list.children.push_back(std::move(element));
      Finish(&list);
      return list;
    }
    bool optional = e.repetition_type.value_or(Repetition::kOptional) == Repetition::kOptional;
    int16_t own = static_cast<int16_t>(def + (optional ? 1 : 0));
    if (IsGroup(e) &&
        (HasConverted(e, ConvertedType::kList) || HasLogical(e, LogicalType::kList))) {
      return List(index, own, rep, optional, depth);
    }
    if (IsGroup(e) &&
        (HasConverted(e, ConvertedType::kMap) || HasConverted(e, ConvertedType::kMapKeyValue) ||
         HasLogical(e, LogicalType::kMap))) {
      return Map(index, own, rep, optional, depth);
    }
    return Content(index, own, rep, optional, depth);
  }

 private:
  size_t SubtreeEnd(size_t index, int depth) const {
    size_t next = index + 1;
    if (depth > kMaxDepth) return elements_.size();
    int32_t n = elements_[index].num_children.value_or(0);
    for (int32_t i = 0; i < n && next < elements_.size(); ++i) next = SubtreeEnd(next, depth + 1);
    return next;
  }

  // The element as a value: a leaf or a struct of its children (repetition already applied).
  Result<NestedNode> Content(size_t index, int16_t def, int16_t rep, bool optional,
                             int depth) const {
    const SchemaElement& e = elements_[index];
    NestedNode n;
    n.name = e.name;
    n.field_id = e.field_id;
    n.optional = optional;
    n.def = def;
    if (!IsGroup(e)) {
      n.kind = NestedNode::Kind::kLeaf;
      auto it = leaf_of_.find(index);
      if (it == leaf_of_.end()) return Status::Corruption("parquet schema: unknown leaf");
      n.leaf = it->second;
      n.first_leaf = n.leaf;
      n.end_leaf = n.leaf + 1;
      TRIB_ASSIGN_OR_RETURN(n.type, LeafDataType((*leaves_)[n.leaf]));
      n.type.nullable = optional;
      return n;
    }
    n.kind = NestedNode::Kind::kStruct;
    for (size_t c : Children(index)) {
      TRIB_ASSIGN_OR_RETURN(NestedNode child, Node(c, def, rep, depth + 1));
      n.children.push_back(std::move(child));
    }
    Finish(&n);
    return n;
  }

  Result<NestedNode> List(size_t index, int16_t def, int16_t rep, bool optional, int depth) const {
    const SchemaElement& g = elements_[index];
    std::vector<size_t> kids = Children(index);
    if (kids.size() != 1 || elements_[kids[0]].repetition_type != Repetition::kRepeated) {
      return Status::NotSupported("parquet: LIST group '" + g.name +
                                  "' does not have exactly one repeated child");
    }
    NestedNode list;
    list.kind = NestedNode::Kind::kList;
    list.name = g.name;
    list.field_id = g.field_id;
    list.optional = optional;
    list.def = def;
    list.entry_def = static_cast<int16_t>(def + 1);
    list.rep = static_cast<int16_t>(rep + 1);
    size_t r = kids[0];
    const SchemaElement& re = elements_[r];
    std::vector<size_t> inner = IsGroup(re) ? Children(r) : std::vector<size_t>{};
    // Backward-compatibility rules of the Parquet spec (LogicalTypes.md, "Lists").
    bool two_level =
        !IsGroup(re) || inner.size() != 1 || re.name == "array" || re.name == g.name + "_tuple";
    NestedNode element;
    if (two_level) {
      TRIB_ASSIGN_OR_RETURN(element, Content(r, list.entry_def, list.rep, false, depth + 1));
    } else {
      TRIB_ASSIGN_OR_RETURN(element, Node(inner[0], list.entry_def, list.rep, depth + 1));
    }
    list.children.push_back(std::move(element));
    Finish(&list);
    return list;
  }

  Result<NestedNode> Map(size_t index, int16_t def, int16_t rep, bool optional, int depth) const {
    const SchemaElement& g = elements_[index];
    std::vector<size_t> kids = Children(index);
    if (kids.size() != 1 || elements_[kids[0]].repetition_type != Repetition::kRepeated ||
        !IsGroup(elements_[kids[0]])) {
      return Status::NotSupported("parquet: MAP group '" + g.name +
                                  "' does not have one repeated key_value group");
    }
    std::vector<size_t> kv = Children(kids[0]);
    if (kv.size() != 2) {
      return Status::NotSupported("parquet: MAP group '" + g.name + "' needs a key and a value");
    }
    NestedNode map;
    map.kind = NestedNode::Kind::kMap;
    map.name = g.name;
    map.field_id = g.field_id;
    map.optional = optional;
    map.def = def;
    map.entry_def = static_cast<int16_t>(def + 1);
    map.rep = static_cast<int16_t>(rep + 1);
    for (size_t c : kv) {
      TRIB_ASSIGN_OR_RETURN(NestedNode child, Node(c, map.entry_def, map.rep, depth + 1));
      map.children.push_back(std::move(child));
    }
    Finish(&map);
    return map;
  }

  // Leaf range and type of a group node from its children.
  void Finish(NestedNode* n) const {
    n->first_leaf = n->children.front().first_leaf;
    n->end_leaf = n->children.back().end_leaf;
    switch (n->kind) {
      case NestedNode::Kind::kList:
        n->type = DataType::Array(n->children[0].type);
        break;
      case NestedNode::Kind::kMap:
        n->type = DataType::Map(n->children[0].type, n->children[1].type);
        break;
      default: {
        std::vector<Field> fields;
        for (const NestedNode& c : n->children) {
          Field f;
          f.name = c.name;
          f.type = c.type;
          f.id = c.field_id.value_or(0);
          fields.push_back(std::move(f));
        }
        n->type = DataType::Row(std::move(fields));
        break;
      }
    }
    n->type.nullable = n->optional;
  }

  const std::vector<SchemaElement>& elements_;
  const std::vector<LeafColumn>* leaves_ = nullptr;
  std::map<size_t, int> leaf_of_;
};

// Assembly state: a cursor into each leaf's levels and values.
struct Cursor {
  const ColumnChunkData* data = nullptr;
  const ValueConverter* conv = nullptr;
  int16_t max_def = 0;
  size_t pos = 0;
  size_t value_pos = 0;
  bool AtEnd() const { return pos >= static_cast<size_t>(data->num_levels); }
  int16_t Def() const { return data->def_levels.empty() ? max_def : data->def_levels[pos]; }
  int16_t Rep() const { return data->rep_levels.empty() ? 0 : data->rep_levels[pos]; }
};

class Assembler {
 public:
  Assembler(const NestedNode& root, std::vector<Cursor> cursors)
      : base_(root.first_leaf), cursors_(std::move(cursors)) {}

  Status Read(const NestedNode& n, Value* out) {
    Cursor& c = cursors_[n.first_leaf - base_];
    if (c.AtEnd()) return Bad();
    int16_t d = c.Def();
    if (n.optional && d < n.def) {
      *out = Value::Null();
      return Skip(n);
    }
    switch (n.kind) {
      case NestedNode::Kind::kLeaf: {
        if (d >= n.def && d == c.max_def) {
          if (c.value_pos >= c.data->values.size()) return Bad();
          *out = c.conv->Convert(c.data->values, c.value_pos++);
        } else {
          *out = Value::Null();
        }
        c.pos++;
        return Status::OK();
      }
      case NestedNode::Kind::kStruct: {
        std::vector<Value> fields(n.children.size());
        for (size_t i = 0; i < n.children.size(); ++i) {
          TRIB_RETURN_NOT_OK(Read(n.children[i], &fields[i]));
        }
        *out = Value::Struct(std::move(fields));
        return Status::OK();
      }
      case NestedNode::Kind::kList:
      case NestedNode::Kind::kMap: {
        std::vector<Value> items, values;
        if (d < n.entry_def) {
          TRIB_RETURN_NOT_OK(Skip(n));
        } else {
          while (true) {
            Value v;
            TRIB_RETURN_NOT_OK(Read(n.children[0], &v));
            items.push_back(std::move(v));
            if (n.kind == NestedNode::Kind::kMap) {
              TRIB_RETURN_NOT_OK(Read(n.children[1], &v));
              values.push_back(std::move(v));
            }
            if (c.AtEnd() || c.Rep() != n.rep) break;
          }
        }
        *out = n.kind == NestedNode::Kind::kList ? Value::Array(std::move(items))
                                                 : Value::Map(std::move(items), std::move(values));
        return Status::OK();
      }
    }
    return Status::OK();
  }

  // Whether every leaf was consumed exactly.
  bool Done() const {
    for (const Cursor& c : cursors_) {
      if (!c.AtEnd() || c.value_pos != c.data->values.size()) return false;
    }
    return true;
  }
  bool AtRowStart(const NestedNode& root) const {
    const Cursor& c = cursors_[root.first_leaf - base_];
    return !c.AtEnd() && c.Rep() == 0;
  }

 private:
  static Status Bad() {
    return Status::Corruption("parquet: nested column levels do not describe whole rows");
  }
  // A null or empty node: one level entry in every leaf below it.
  Status Skip(const NestedNode& n) {
    for (int l = n.first_leaf; l < n.end_leaf; ++l) {
      Cursor& c = cursors_[l - base_];
      if (c.AtEnd()) return Bad();
      if (c.Def() == c.max_def) return Bad();
      c.pos++;
    }
    return Status::OK();
  }

  int base_;
  std::vector<Cursor> cursors_;
};

// Striping.
class Shredder {
 public:
  Shredder(const NestedNode& root, std::vector<LeafLevels>* out)
      : base_(root.first_leaf), out_(out) {}

  Status Write(const NestedNode& n, const Value& v, int16_t rep) {
    if (v.is_null()) {
      if (!n.optional) {
        return Status::Invalid("NULL in NOT NULL nested field '" + n.name + "'");
      }
      Empty(n, static_cast<int16_t>(n.def - 1), rep);
      return Status::OK();
    }
    switch (n.kind) {
      case NestedNode::Kind::kLeaf: {
        if (v.is_nested()) return Mismatch(n);
        LeafLevels& l = (*out_)[n.leaf - base_];
        l.defs.push_back(n.def);
        l.reps.push_back(rep);
        l.values.push_back(v);
        return Status::OK();
      }
      case NestedNode::Kind::kStruct: {
        if (!v.is_struct() || v.struct_fields().size() != n.children.size()) return Mismatch(n);
        for (size_t i = 0; i < n.children.size(); ++i) {
          TRIB_RETURN_NOT_OK(Write(n.children[i], v.struct_fields()[i], rep));
        }
        return Status::OK();
      }
      case NestedNode::Kind::kList:
      case NestedNode::Kind::kMap: {
        bool map = n.kind == NestedNode::Kind::kMap;
        if (map ? !v.is_map() : !v.is_array()) return Mismatch(n);
        const std::vector<Value>& items = v.nested().items;
        if (map && v.nested().values.size() != items.size()) return Mismatch(n);
        if (items.empty()) {
          Empty(n, n.def, rep);
          return Status::OK();
        }
        for (size_t k = 0; k < items.size(); ++k) {
          int16_t r = k == 0 ? rep : n.rep;
          TRIB_RETURN_NOT_OK(Write(n.children[0], items[k], r));
          if (map) TRIB_RETURN_NOT_OK(Write(n.children[1], v.nested().values[k], r));
        }
        return Status::OK();
      }
    }
    return Status::OK();
  }

 private:
  static Status Mismatch(const NestedNode& n) {
    return Status::Invalid("value of nested field '" + n.name + "' does not match its type " +
                           n.type.ToString());
  }
  void Empty(const NestedNode& n, int16_t def, int16_t rep) {
    for (int l = n.first_leaf; l < n.end_leaf; ++l) {
      LeafLevels& out = (*out_)[l - base_];
      out.defs.push_back(def);
      out.reps.push_back(rep);
    }
  }

  int base_;
  std::vector<LeafLevels>* out_;
};

// Schema elements of a nested type. `id_field` / `depth`: the nearest named field's id and the
// number of list/map levels below it, for the synthetic ids.
Status AppendElements(const std::string& name, std::optional<int32_t> field_id, const DataType& t,
                      int32_t id_field, int32_t depth, std::vector<SchemaElement>* out) {
  if (depth > kMaxDepth) return Status::Invalid("type nested too deeply");
  if (!t.IsNested()) {
    Field f;
    f.name = name;
    f.type = t;
    TRIB_ASSIGN_OR_RETURN(SchemaElement e, ColumnSchemaElement(f));
    e.field_id = field_id;
    out->push_back(std::move(e));
    return Status::OK();
  }
  SchemaElement g;
  g.name = name;
  g.field_id = field_id;
  g.repetition_type = t.nullable ? Repetition::kOptional : Repetition::kRequired;
  SchemaElement repeated;
  repeated.repetition_type = Repetition::kRepeated;
  LogicalType lt;
  int32_t child_depth = depth + 1;
  switch (t.id) {
    case TypeId::kArray: {
      g.num_children = 1;
      g.converted_type = ConvertedType::kList;
      lt.kind = LogicalType::kList;
      g.logical_type = lt;
      repeated.name = "list";
      repeated.num_children = 1;
      out->push_back(std::move(g));
      out->push_back(std::move(repeated));
      return AppendElements("element", kStructuredBase + id_field * kDepthLimit + child_depth,
                            t.element(), id_field, child_depth, out);
    }
    case TypeId::kMap:
    case TypeId::kMultiset: {
      g.num_children = 1;
      g.converted_type = ConvertedType::kMap;
      lt.kind = LogicalType::kMap;
      g.logical_type = lt;
      repeated.name = "key_value";
      repeated.num_children = 2;
      repeated.converted_type = ConvertedType::kMapKeyValue;
      out->push_back(std::move(g));
      out->push_back(std::move(repeated));
      TRIB_RETURN_NOT_OK(AppendElements("key",
                                        kStructuredBase - id_field * kDepthLimit - child_depth,
                                        t.key().NotNull(), id_field, child_depth, out));
      return AppendElements("value", kStructuredBase + id_field * kDepthLimit + child_depth,
                            t.value(), id_field, child_depth, out);
    }
    case TypeId::kRow: {
      if (t.fields().empty()) return Status::Invalid("a ROW type needs at least one field");
      g.num_children = static_cast<int32_t>(t.fields().size());
      out->push_back(std::move(g));
      for (const Field& f : t.fields()) {
        TRIB_RETURN_NOT_OK(AppendElements(f.name, f.id, f.type, f.id, 0, out));
      }
      return Status::OK();
    }
    default:
      return Status::Internal("not a nested type");
  }
}

}  // namespace

Result<NestedNode> BuildNestedNode(const std::vector<SchemaElement>& elements,
                                   const FileSchema& schema, int column) {
  const ParquetColumn& col = schema.columns()[column];
  TreeBuilder b(elements, schema);
  auto n = b.Node(static_cast<size_t>(col.schema_index), 0, 0, 0);
  if (!n.ok()) return n.status().WithContext("column '" + col.name + "'");
  return n;
}

Status ApplyNestedType(const DataType& type, NestedNode* node) {
  auto mismatch = [&]() {
    return Status::Internal("nested type " + type.ToString() + " does not match node '" +
                            node->name + "'");
  };
  switch (node->kind) {
    case NestedNode::Kind::kLeaf:
      if (type.IsNested()) return mismatch();
      break;
    case NestedNode::Kind::kStruct:
      if (type.id != TypeId::kRow || type.fields().size() != node->children.size()) {
        return mismatch();
      }
      for (size_t i = 0; i < node->children.size(); ++i) {
        TRIB_RETURN_NOT_OK(ApplyNestedType(type.fields()[i].type, &node->children[i]));
      }
      break;
    case NestedNode::Kind::kList:
      if (type.id != TypeId::kArray) return mismatch();
      TRIB_RETURN_NOT_OK(ApplyNestedType(type.element(), &node->children[0]));
      break;
    case NestedNode::Kind::kMap:
      if (type.id != TypeId::kMap && type.id != TypeId::kMultiset) return mismatch();
      TRIB_RETURN_NOT_OK(ApplyNestedType(type.key().NotNull(), &node->children[0]));
      TRIB_RETURN_NOT_OK(ApplyNestedType(type.value(), &node->children[1]));
      break;
  }
  node->type = type;
  return Status::OK();
}

Result<std::vector<SchemaElement>> NestedSchemaElements(const Field& field) {
  std::vector<SchemaElement> out;
  TRIB_RETURN_NOT_OK(AppendElements(field.name, field.id, field.type, field.id, 0, &out));
  return out;
}

Result<std::vector<Value>> AssembleNested(const NestedNode& root,
                                          const std::vector<ColumnChunkData>& chunks,
                                          const std::vector<ValueConverter>& converters,
                                          int64_t num_rows) {
  size_t leaves = static_cast<size_t>(root.end_leaf - root.first_leaf);
  if (chunks.size() != leaves || converters.size() != leaves) {
    return Status::Invalid("parquet: nested column needs one chunk per leaf");
  }
  std::vector<Cursor> cursors(leaves);
  std::vector<int16_t> max_defs(leaves, 0);
  // Each leaf's maximum definition level: the deepest node's def.
  struct MaxDef {
    static void Walk(const NestedNode& n, int base, std::vector<int16_t>* out) {
      if (n.kind == NestedNode::Kind::kLeaf) (*out)[n.leaf - base] = n.def;
      for (const NestedNode& c : n.children) Walk(c, base, out);
    }
  };
  MaxDef::Walk(root, root.first_leaf, &max_defs);
  for (size_t i = 0; i < leaves; ++i) {
    cursors[i].data = &chunks[i];
    cursors[i].conv = &converters[i];
    cursors[i].max_def = max_defs[i];
    const ColumnChunkData& d = chunks[i];
    if ((!d.def_levels.empty() && d.def_levels.size() != static_cast<size_t>(d.num_levels)) ||
        (!d.rep_levels.empty() && d.rep_levels.size() != static_cast<size_t>(d.num_levels))) {
      return Status::Corruption("parquet: nested column has inconsistent level counts");
    }
  }
  Assembler a(root, std::move(cursors));
  std::vector<Value> out;
  out.reserve(static_cast<size_t>(std::max<int64_t>(0, std::min<int64_t>(num_rows, 1 << 20))));
  for (int64_t r = 0; r < num_rows; ++r) {
    if (!a.AtRowStart(root)) {
      return Status::Corruption("parquet: nested column has fewer rows than its row group");
    }
    Value v;
    TRIB_RETURN_NOT_OK(a.Read(root, &v));
    out.push_back(std::move(v));
  }
  if (!a.Done()) return Status::Corruption("parquet: nested column has more levels than rows");
  return out;
}

Status ShredNested(const NestedNode& root, const Value& v, std::vector<LeafLevels>* out) {
  out->resize(static_cast<size_t>(root.end_leaf - root.first_leaf));
  Shredder s(root, out);
  return s.Write(root, v, 0);
}

}  // namespace tributary::format::parquet

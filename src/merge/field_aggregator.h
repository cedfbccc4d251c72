// FieldAggregator: how the aggregation and partial-update engines combine one column's values
// ('fields.<col>.aggregate-function'). Not thread-safe: one per column per merge function.
#pragma once

#include <memory>
#include <string>

#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary::merge {

class FieldAggregator {
 public:
  virtual ~FieldAggregator() = default;
  const std::string& name() const { return name_; }

  // Called before the first record of a key.
  virtual void Reset() {}
  // Combines the accumulator with a newer input value.
  virtual Result<Value> Agg(const Value& acc, const Value& in) = 0;
  // Combines with an input that is *older* than the accumulator (sequence groups receiving a
  // record with a smaller sequence): first/last functions swap roles.
  virtual Result<Value> AggReversed(const Value& acc, const Value& in) { return Agg(in, acc); }
  // Removes an input (UPDATE_BEFORE / DELETE). Functions that cannot retract return an error.
  virtual Result<Value> Retract(const Value& acc, const Value& in);

  // Creates `function` for a column of type `type`. `delimiter` is for listagg.
  // Errors name the column for functions that do not apply to its type.
  static Result<std::unique_ptr<FieldAggregator>> Make(const std::string& function,
                                                       const std::string& column,
                                                       const DataType& type,
                                                       const std::string& delimiter);

 protected:
  FieldAggregator(std::string name, DataType type) : name_(std::move(name)), type_(type) {}
  std::string name_;
  DataType type_;
};

// Whether a function accepts retraction (UPDATE_BEFORE / DELETE) inputs.
bool AggregatorSupportsRetract(const std::string& function);

}  // namespace tributary::merge

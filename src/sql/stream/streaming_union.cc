// UNION ALL in streaming mode (MakeStreamingUnion): the changes of several streaming inputs,
// each handed out as it comes. The inputs take turns: each is asked in poll mode (PollScope:
// a stream source with nothing new returns at once), so one waiting input never holds up the
// others; when none has anything, the operator waits a little (calling the idle hook, as a
// stream source does) and asks again, until the idle time-out or Ctrl-C.
#include <chrono>
#include <thread>

#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/stream/streaming_operators.h"

namespace tributary::sql {
namespace {

class StreamingUnionOperator : public Operator {
 public:
  StreamingUnionOperator(std::vector<OperatorPtr> inputs, std::vector<Field> fields,
                         std::optional<std::chrono::milliseconds> idle_timeout)
      : inputs_(std::move(inputs)), ended_(inputs_.size(), false), idle_timeout_(idle_timeout) {
    fields_ = std::move(fields);
  }
  std::string Describe() const override {
    return "StreamingUnionAll: " + std::to_string(inputs_.size()) +
           " inputs, each change handed out as it comes (the inputs polled in turn)";
  }
  std::vector<const Operator*> children() const override {
    std::vector<const Operator*> out;
    for (const auto& in : inputs_) out.push_back(in.get());
    return out;
  }
  // Every input passes positions on (MakeStreamingUnion checks); the last batch came from one.
  bool PassesPositions() const override { return true; }
  Status Checkpoint(std::optional<size_t> delivered_of_last) override {
    for (size_t i = 0; i < inputs_.size(); i++) {
      TRIB_RETURN_NOT_OK(
          inputs_[i]->Checkpoint(i == last_ ? delivered_of_last : std::optional<size_t>()));
    }
    return Status::OK();
  }

  Result<bool> Next(ColumnBatch* out) override {
    constexpr std::chrono::milliseconds kWait{50};
    const auto deadline = idle_timeout_ ? std::chrono::steady_clock::now() + *idle_timeout_
                                        : std::chrono::steady_clock::time_point::max();
    while (true) {
      if (Interrupted()) return false;
      bool open = false;
      for (size_t k = 0; k < inputs_.size(); k++) {
        const size_t i = (next_ + k) % inputs_.size();
        if (ended_[i]) continue;
        open = true;
        Result<bool> more = false;
        bool nothing = false;
        {
          PollScope poll;
          more = inputs_[i]->Next(out);
          nothing = PollFoundNothing();
        }
        if (!more.ok()) return more.status();
        if (*more) {
          last_ = i;
          next_ = i + 1;
          return true;
        }
        if (!nothing) ended_[i] = true;  // that input ended (Ctrl-C)
      }
      if (!open) return false;
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      TRIB_RETURN_NOT_OK(RunStreamIdleHook());
      std::this_thread::sleep_for(
          std::min<std::chrono::steady_clock::duration>(kWait, deadline - now));
    }
  }

 private:
  std::vector<OperatorPtr> inputs_;
  std::vector<bool> ended_;
  std::optional<std::chrono::milliseconds> idle_timeout_;
  size_t next_ = 0;         // the input asked first next time
  size_t last_ = SIZE_MAX;  // the input the last batch came from
};

}  // namespace

OperatorPtr MakeStreamingUnion(std::vector<OperatorPtr> inputs, std::vector<Field> fields,
                               std::optional<std::chrono::milliseconds> idle_timeout) {
  return std::make_unique<StreamingUnionOperator>(std::move(inputs), std::move(fields),
                                                  idle_timeout);
}

}  // namespace tributary::sql

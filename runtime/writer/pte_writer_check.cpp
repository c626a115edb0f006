// The consistency checks of ProgramBuilder::build(): everything the reader checks about indices,
// sizes and layouts (pte-format §5, §7, §9), so a program the writer accepts loads, and a
// mistake in a test's program is reported by the writer, naming the method and the value or
// instruction, instead of surfacing as a confusing load error.
#include <set>
#include <string>

#include "vkrt/pte_writer.h"

namespace vkrt {

namespace {

using Value = MethodBuilder::Value;

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::Null: return "Null";
    case Value::Kind::Int: return "Int";
    case Value::Kind::Bool: return "Bool";
    case Value::Kind::Double: return "Double";
    case Value::Kind::String: return "String";
    case Value::Kind::Tensor: return "Tensor";
    case Value::Kind::IntList: return "IntList";
    case Value::Kind::DoubleList: return "DoubleList";
    case Value::Kind::BoolList: return "BoolList";
    case Value::Kind::TensorList: return "TensorList";
    case Value::Kind::OptionalTensorList: return "OptionalTensorList";
  }
  return "?";
}

bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

Status ProgramBuilder::check_program() const {
  std::set<std::string> names;
  for (const auto& m : methods_) {
    VKRT_CHECK_OR_RETURN(!m->name_.empty(), InvalidArgument, "method with an empty name");
    VKRT_CHECK_OR_RETURN(names.insert(m->name_).second, InvalidArgument, "duplicate method name '",
                         m->name_, "'");
    Status s = check_method(*m);
    if (!s.is_ok()) return std::move(s).with_context("method '" + m->name_ + "'");
  }
  std::set<std::string> keys;
  for (const auto& [key, data] : named_data_) {
    VKRT_CHECK_OR_RETURN(keys.insert(key).second, InvalidArgument, "duplicate named_data key '", key,
                         "'");
  }
  return Status::ok();
}

Status ProgramBuilder::check_method(const MethodBuilder& m) const {
  const int64_t num_values = int64_t(m.values_.size());
  auto value_in_range = [&](int64_t index) { return index >= 0 && index < num_values; };
  const std::vector<int64_t> planned = planned_sizes_of(m);

  for (size_t i = 0; i < planned.size(); ++i) {
    VKRT_CHECK_OR_RETURN(planned[i] >= 0, InvalidArgument, "planned buffer ", i + 1,
                         " has negative size ", planned[i]);
  }

  for (int64_t vi = 0; vi < num_values; ++vi) {
    const Value& v = m.values_[size_t(vi)];
    const std::string where = "value " + std::to_string(vi) + " (" + kind_name(v.kind) + "): ";
    switch (v.kind) {
      case Value::Kind::Tensor: {
        const TensorSpec& t = v.tensor;
        VKRT_CHECK_OR_RETURN(is_valid_scalar_type(int(t.dtype)), InvalidArgument, where,
                             "scalar type ", int(t.dtype), " is not in the schema");
        VKRT_CHECK_OR_RETURN(t.sizes.size() <= size_t(kMaxRank), InvalidArgument, where, "rank ",
                             t.sizes.size(), " exceeds ", kMaxRank);
        for (size_t d = 0; d < t.sizes.size(); ++d) {
          VKRT_CHECK_OR_RETURN(t.sizes[d] >= 0, InvalidArgument, where, "size[", d, "] = ",
                               t.sizes[d], " is negative");
        }
        if (!t.dim_order.empty()) {
          VKRT_CHECK_OR_RETURN(t.dim_order.size() == t.sizes.size(), InvalidArgument, where,
                               "dim_order has ", t.dim_order.size(), " entries for rank ",
                               t.sizes.size());
          std::vector<bool> seen(t.sizes.size(), false);
          for (uint8_t d : t.dim_order) {
            VKRT_CHECK_OR_RETURN(d < t.sizes.size() && !seen[d], InvalidArgument, where,
                                 "dim_order is not a permutation of 0..rank-1");
            seen[d] = true;
          }
        }
        VKRT_CHECK_OR_RETURN(t.storage_offset == 0, InvalidArgument, where, "storage_offset ",
                             t.storage_offset, " (must be 0; set validate=false to write it)");
        const uint64_t nbytes = t.nbytes();
        if (t.planned) {
          const uint32_t id = t.planned->memory_id;
          VKRT_CHECK_OR_RETURN(id >= 1 && id <= planned.size(), InvalidArgument, where,
                               "memory_id ", id, " is not a planned buffer (there are ",
                               planned.size(), ", ids are 1-based)");
          VKRT_CHECK_OR_RETURN(t.planned->offset + nbytes <= uint64_t(planned[id - 1]),
                               InvalidArgument, where, "offset ", t.planned->offset, " + ",
                               nbytes, " bytes exceeds planned buffer ", id, " of ",
                               planned[id - 1], " bytes");
        }
        if (!t.external_fqn.empty()) break;  // data comes from a .ptd; data_buffer_idx ignored
        if (t.data_buffer_idx > 0 && !t.planned) {
          VKRT_CHECK_OR_RETURN(t.data_buffer_idx < constants_.size(), InvalidArgument, where,
                               "constant index ", t.data_buffer_idx, " out of range (",
                               constants_.size() - 1, " constants)");
          VKRT_CHECK_OR_RETURN(constants_[t.data_buffer_idx].size() >= nbytes, InvalidArgument,
                               where, "constant ", t.data_buffer_idx, " holds ",
                               constants_[t.data_buffer_idx].size(), " bytes, tensor needs ",
                               nbytes);
        } else if (t.data_buffer_idx > 0) {
          VKRT_CHECK_OR_RETURN(t.data_buffer_idx < mutable_data_.size(), InvalidArgument, where,
                               "mutable-data index ", t.data_buffer_idx, " out of range (",
                               mutable_data_.size() - 1, " entries)");
          VKRT_CHECK_OR_RETURN(mutable_data_[t.data_buffer_idx].size() >= nbytes, InvalidArgument,
                               where, "mutable data ", t.data_buffer_idx, " holds ",
                               mutable_data_[t.data_buffer_idx].size(), " bytes, tensor needs ",
                               nbytes);
        }
        break;
      }
      case Value::Kind::IntList:
        for (size_t k = 0; k < v.int_items.size(); ++k) {
          const int64_t item = v.int_items[k];
          VKRT_CHECK_OR_RETURN(value_in_range(item) && m.values_[size_t(item)].kind == Value::Kind::Int,
                               InvalidArgument, where, "item ", k, " = ", item,
                               " is not the index of an Int value");
        }
        break;
      case Value::Kind::TensorList:
      case Value::Kind::OptionalTensorList:
        for (size_t k = 0; k < v.index_items.size(); ++k) {
          const int32_t item = v.index_items[k];
          if (item == -1 && v.kind == Value::Kind::OptionalTensorList) continue;
          VKRT_CHECK_OR_RETURN(value_in_range(item) && m.values_[size_t(item)].kind == Value::Kind::Tensor,
                               InvalidArgument, where, "item ", k, " = ", item,
                               " is not the index of a Tensor value");
        }
        break;
      default:
        break;
    }
  }

  for (size_t i = 0; i < m.inputs_.size(); ++i) {
    VKRT_CHECK_OR_RETURN(value_in_range(m.inputs_[i]), InvalidArgument, "input ", i, " = value ",
                         m.inputs_[i], " out of range (", num_values, " values)");
  }
  for (size_t i = 0; i < m.outputs_.size(); ++i) {
    VKRT_CHECK_OR_RETURN(value_in_range(m.outputs_[i]), InvalidArgument, "output ", i,
                         " = value ", m.outputs_[i], " out of range (", num_values, " values)");
  }

  using Kind = MethodBuilder::Instruction::Kind;
  const int64_t num_instructions = int64_t(m.instructions_.size());
  for (int64_t ii = 0; ii < num_instructions; ++ii) {
    const auto& instr = m.instructions_[size_t(ii)];
    const std::string where = "instruction " + std::to_string(ii) + ": ";
    for (size_t k = 0; k < instr.args.size(); ++k) {
      VKRT_CHECK_OR_RETURN(value_in_range(instr.args[k]), InvalidArgument, where, "arg ", k, " = ",
                           instr.args[k], " out of range (", num_values, " values)");
    }
    switch (instr.kind) {
      case Kind::Kernel:
        VKRT_CHECK_OR_RETURN(instr.a >= 0 && size_t(instr.a) < m.operators_.size(), InvalidArgument,
                             where, "op_index ", instr.a, " out of range (", m.operators_.size(),
                             " operators)");
        break;
      case Kind::Delegate:
        VKRT_CHECK_OR_RETURN(instr.a >= 0 && size_t(instr.a) < m.delegates_.size(), InvalidArgument,
                             where, "delegate_index ", instr.a, " out of range (",
                             m.delegates_.size(), " delegates)");
        break;
      case Kind::Move:
        VKRT_CHECK_OR_RETURN(value_in_range(instr.a) && value_in_range(instr.b), InvalidArgument,
                             where, "move ", instr.a, " -> ", instr.b, " out of range (",
                             num_values, " values)");
        break;
      case Kind::JumpFalse: {
        VKRT_CHECK_OR_RETURN(value_in_range(instr.a), InvalidArgument, where, "condition value ",
                             instr.a, " out of range (", num_values, " values)");
        const Value& cond = m.values_[size_t(instr.a)];
        VKRT_CHECK_OR_RETURN(cond.kind == Value::Kind::Bool ||
                                 (cond.kind == Value::Kind::Tensor && cond.tensor.dtype == ScalarType::Bool),
                             InvalidArgument, where, "condition value ", instr.a, " is ",
                             kind_name(cond.kind), ", not Bool or a Bool tensor");
        VKRT_CHECK_OR_RETURN(instr.b >= 0 && instr.b <= num_instructions, InvalidArgument, where,
                             "jump destination ", instr.b, " out of range (", num_instructions,
                             " instructions)");
        break;
      }
      case Kind::Free:
        VKRT_CHECK_OR_RETURN(value_in_range(instr.a) && m.values_[size_t(instr.a)].kind == Value::Kind::Tensor,
                             InvalidArgument, where, "free of value ", instr.a,
                             ", which is not a Tensor value");
        break;
    }
  }
  return Status::ok();
}

// Format limits checked even when validate is false: without them the file cannot be laid out.
Status check_layout_options(const PteWriteOptions& o) {
  VKRT_CHECK_OR_RETURN(is_power_of_two(o.segment_alignment), InvalidArgument,
                       "segment_alignment ", o.segment_alignment, " is not a power of two");
  VKRT_CHECK_OR_RETURN(is_power_of_two(o.constant_alignment), InvalidArgument,
                       "constant_alignment ", o.constant_alignment, " is not a power of two");
  return Status::ok();
}

}  // namespace vkrt

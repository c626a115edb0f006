#include "method_meta.h"

namespace vkrt {

std::string operator_full_name(const fb::Operator& op) {
  std::string name = op.name() ? op.name()->str() : "";
  if (op.overload() && op.overload()->size() > 0) name += "." + op.overload()->str();
  return name;
}

Result<Tensor> parse_tensor_layout(const fb::Tensor& t, size_t value_index) {
  int st = int(t.scalar_type());
  if (!is_valid_scalar_type(st))
    return make_error(Error::InvalidProgram, "value ", value_index, ": unknown scalar type ", st);
  if (t.storage_offset() != 0)
    return make_error(Error::InvalidProgram, "value ", value_index, ": storage_offset ", t.storage_offset(),
                      " is not 0");
  auto dyn = t.shape_dynamism();
  if (dyn == fb::TensorShapeDynamism::DYNAMIC_UNBOUND)
    return make_error(Error::NotSupported, "value ", value_index, ": DYNAMIC_UNBOUND tensors are not supported");
  if (dyn != fb::TensorShapeDynamism::STATIC && dyn != fb::TensorShapeDynamism::DYNAMIC_BOUND)
    return make_error(Error::InvalidProgram, "value ", value_index, ": unknown shape dynamism ", int(dyn));
  size_t rank = t.sizes() ? t.sizes()->size() : 0;
  size_t order_len = t.dim_order() ? t.dim_order()->size() : 0;
  if (rank > size_t(kMaxRank))
    return make_error(Error::InvalidProgram, "value ", value_index, ": rank ", rank, " exceeds ", kMaxRank);
  if (order_len != rank)
    return make_error(Error::InvalidProgram, "value ", value_index, ": dim_order has ", order_len,
                      " entries for rank ", rank);
  int32_t sizes[kMaxRank];
  uint8_t order[kMaxRank];
  for (size_t i = 0; i < rank; ++i) {
    sizes[i] = t.sizes()->Get(flatbuffers::uoffset_t(i));
    order[i] = t.dim_order()->Get(flatbuffers::uoffset_t(i));
    if (sizes[i] < 0)
      return make_error(Error::InvalidProgram, "value ", value_index, ": size[", i, "] = ", sizes[i], " < 0");
  }
  auto tensor = Tensor::make(static_cast<ScalarType>(st), std::span<const int32_t>(sizes, rank),
                             std::span<const uint8_t>(order, rank), nullptr,
                             dyn == fb::TensorShapeDynamism::DYNAMIC_BOUND ? ShapeDynamism::DynamicBound
                                                                            : ShapeDynamism::Static);
  if (!tensor.ok())
    return Status(Error::InvalidProgram, "value " + std::to_string(value_index) + ": " + tensor.status().message());
  return tensor;
}

static Result<ValueInfo> value_info(const fb::ExecutionPlan& plan, int32_t index, const char* role, size_t pos) {
  const auto* values = plan.values();
  if (!values || index < 0 || size_t(index) >= values->size())
    return make_error(Error::InvalidProgram, role, " ", pos, " refers to value ", index, " of ",
                      values ? values->size() : 0);
  const auto* ev = values->Get(flatbuffers::uoffset_t(index));
  ValueInfo info;
  if (ev->val_type() != fb::KernelTypes::NONE && !ev->val())
    return make_error(Error::InvalidProgram, "value ", index, " has type tag ", int(ev->val_type()), " but no value");
  switch (ev->val_type()) {
    case fb::KernelTypes::NONE:
    case fb::KernelTypes::Null: info.tag = Tag::None; break;
    case fb::KernelTypes::Int: info.tag = Tag::Int; break;
    case fb::KernelTypes::Bool: info.tag = Tag::Bool; break;
    case fb::KernelTypes::Double: info.tag = Tag::Double; break;
    case fb::KernelTypes::String: info.tag = Tag::String; break;
    case fb::KernelTypes::IntList: info.tag = Tag::IntList; break;
    case fb::KernelTypes::DoubleList: info.tag = Tag::DoubleList; break;
    case fb::KernelTypes::BoolList: info.tag = Tag::BoolList; break;
    case fb::KernelTypes::TensorList: info.tag = Tag::TensorList; break;
    case fb::KernelTypes::OptionalTensorList: info.tag = Tag::OptionalTensorList; break;
    case fb::KernelTypes::Tensor: {
      info.tag = Tag::Tensor;
      const auto* t = ev->val_as_Tensor();
      VKRT_ASSIGN_OR_RETURN(Tensor layout, parse_tensor_layout(*t, size_t(index)));
      info.dtype = layout.dtype();
      info.sizes.assign(layout.sizes().begin(), layout.sizes().end());
      info.dim_order.assign(layout.dim_order().begin(), layout.dim_order().end());
      info.dynamism = layout.dynamism();
      info.nbytes = layout.nbytes();
      info.memory_planned = t->allocation_info() != nullptr || t->data_buffer_idx() != 0;
      break;
    }
    default:
      return make_error(Error::InvalidProgram, "value ", index, " has unknown type tag ", int(ev->val_type()));
  }
  return info;
}

Result<MethodMeta> build_method_meta(const Program& program, const fb::ExecutionPlan& plan) {
  MethodMeta meta;
  meta.name = plan.name() ? plan.name()->str() : "";
  if (!plan.inputs() || !plan.outputs() || !plan.non_const_buffer_sizes())
    return make_error(Error::InvalidProgram, "method ", meta.name,
                      " lacks inputs, outputs or non_const_buffer_sizes");
  for (flatbuffers::uoffset_t i = 0; i < plan.inputs()->size(); ++i) {
    VKRT_ASSIGN_OR_RETURN(ValueInfo v, value_info(plan, plan.inputs()->Get(i), "input", i));
    meta.inputs.push_back(std::move(v));
  }
  for (flatbuffers::uoffset_t i = 0; i < plan.outputs()->size(); ++i) {
    VKRT_ASSIGN_OR_RETURN(ValueInfo v, value_info(plan, plan.outputs()->Get(i), "output", i));
    meta.outputs.push_back(std::move(v));
  }
  const auto* sizes = plan.non_const_buffer_sizes();
  for (flatbuffers::uoffset_t i = 1; i < sizes->size(); ++i) {
    int64_t size = load_element(sizes, i);
    if (size < 0)
      return make_error(Error::InvalidProgram, "method ", meta.name, ": planned buffer ", i - 1, " has size ", size);
    meta.planned_buffer_sizes.push_back(size);
  }
  if (plan.chains() && plan.chains()->size() > 0 && plan.chains()->Get(0)->instructions())
    meta.num_instructions = plan.chains()->Get(0)->instructions()->size();
  if (plan.operators())
    for (const auto* op : *plan.operators()) meta.operators.push_back(operator_full_name(*op));
  if (plan.delegates())
    for (const auto* d : *plan.delegates()) meta.backends.push_back(d->id() ? d->id()->str() : "");
  (void)program;
  return meta;
}

}  // namespace vkrt

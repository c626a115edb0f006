// Random outputs: aten::rand.out, aten::randn.out, aten::native_dropout.out.
//
// Schemas (each + the trailing return slot, pte-format.md §9.5):
//   rand.out(SymInt[] size, *, Tensor(a!) out), randn.out(...)                        -> 3 args
//   native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0,
//                      Tensor(b!) out1)                                                -> 6 args
// rand: uniform in [0, 1), drawn with as many bits as out's dtype holds so that the stored
// value stays below 1; randn: standard normal (Box-Muller in double). Both need a floating out.
// native_dropout as ExecuTorch's portable kernel: when training (train true or None) with
// p != 0, each element is kept with probability 1 - p (mask true) and dropped to 0 otherwise,
// WITHOUT PyTorch's 1 / (1 - p) rescaling (input floating); otherwise out = input (any
// dtype) and the mask is all true. out has input's dtype, the mask is bool, p is in [0, 1].
// Each call draws a fresh stream (RandomBits in create_util.h).
#include <cmath>

#include "copy_util.h"
#include "create_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

enum class Distribution { Uniform, Normal };

// Significand bits of a floating dtype (with the implicit bit).
int significand_bits(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return 11;
    case ScalarType::BFloat16: return 8;
    case ScalarType::Float: return 24;
    default: return 53;
  }
}

Status random_kernel(const char* name, Distribution dist, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Shape shape, size_list_arg(a, 0, "size"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 1, "out", *out));
  VKRT_RETURN_IF_ERROR(resize_output(a, 1, "out", *out, shape.view()));
  RandomBits rng;
  const int bits = significand_bits(out->dtype());
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  // Every element is written, in memory order (the values are independent).
  for (int64_t n = 0; n < out->numel(); ++n) {
    double v;
    if (dist == Distribution::Uniform) {
      v = rng.uniform(bits);
    } else {
      const double u1 = 1.0 - rng.uniform();  // (0, 1]: log is finite
      const double u2 = rng.uniform();
      v = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
    }
    store_elem<double>(out->data(), out->dtype(), n, v);
  }
  return Status::ok();
}

Status rand_out(KernelContext&, std::span<EValue* const> args) {
  return random_kernel("aten::rand.out", Distribution::Uniform, args);
}
Status randn_out(KernelContext&, std::span<EValue* const> args) {
  return random_kernel("aten::randn.out", Distribution::Normal, args);
}

Status native_dropout_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::native_dropout.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(double p, a.double_value(1, "p"));
  bool train = true;  // None trains, as upstream
  if (!a.is_none(2)) {
    VKRT_ASSIGN_OR_RETURN(train, a.bool_value(2, "train"));
  }
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out0"));
  VKRT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(a, 4, "out1"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out0", *out, input->dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 4, "out1", *mask, ScalarType::Bool));
  if (!(p >= 0.0 && p <= 1.0)) {
    return a.error(1, "p", "dropout probability has to be between 0 and 1, got " + std::to_string(p));
  }
  const bool random = train && p != 0.0;
  if (random && !is_float_dtype(input->dtype())) {
    return a.error(0, "input", std::string("training dropout needs a floating dtype, got ") +
                                   scalar_type_name(input->dtype()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out0", *out, input->sizes()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, "out1", *mask, input->sizes()));
  if (!random) {
    copy_same_shape(*input, *out);
    fill_all<bool>(*mask, true);
    return Status::ok();
  }
  RandomBits rng;
  const auto shape = input->sizes();
  StridedWalker<3> walk(shape, {strides_of(*out), strides_of(*mask), strides_of(*input)});
  for (int64_t n = 0; n < input->numel(); ++n, walk.next()) {
    const bool keep = rng.uniform() >= p;
    const double x = keep ? load_elem<double>(input->data(), input->dtype(), walk.offset(2)) : 0.0;
    store_elem<double>(out->data(), out->dtype(), walk.offset(0), x);
    store_elem<bool>(mask->data(), ScalarType::Bool, walk.offset(1), keep);
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::rand.out", rand_out);
VKRT_REGISTER_KERNEL("aten::randn.out", randn_out);
VKRT_REGISTER_KERNEL("aten::native_dropout.out", native_dropout_out);

}  // namespace vkrt::portable

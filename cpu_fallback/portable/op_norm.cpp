// Normalisation: aten::_native_batch_norm_legit.out, ._native_batch_norm_legit.no_stats_out,
// aten::_native_batch_norm_legit_no_training.out, aten::native_group_norm.out,
// aten::native_layer_norm.out.
//
// Schemas (args incl. outs and the return slot):
//   _native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum,
//     float eps, *, Tensor(d!) out, Tensor(e!) save_mean, Tensor(f!) save_invstd)      -> 12
//   _native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
//     bool training, float momentum, float eps, *, out, save_mean, save_invstd)          -> 10
//   _native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor running_mean, Tensor running_var, float momentum, float eps, *, out0, out1,
//     out2)                                                                              -> 11
//   native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//     SymInt HxW, int group, float eps, *, out0, out1, out2)                             -> 12
//   native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//     Tensor? bias, float eps, *, out0, out1, out2)                                      -> 9
// Every tensor shares one floating dtype (float16, bfloat16, float32, float64), as upstream.
// Statistics are computed in double with two passes (mean, then the biased variance), so
// they may differ from upstream's E[x^2] - E[x]^2 in the last bits. As ExecuTorch's portable
// kernels: _native_batch_norm_legit.out only runs inference (training=true is an error) and,
// like the no_training overload, leaves save_mean/save_invstd empty ([0]); no_stats_out
// always normalises with the batch statistics (training is ignored) and running statistics
// are never updated. Any dim order works.
#include <cmath>

#include "norm_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {
using namespace norm;

// weight/bias: optional, input's dtype, shape [C].
Status check_affine(const KernelArgs& a, size_t i, std::string_view name, const Tensor* t, const Tensor& in,
                    int64_t channels) {
  if (t == nullptr) return Status::ok();
  VKRT_RETURN_IF_ERROR(expect_dtype(a, i, name, *t, in.dtype()));
  return expect_vector(a, i, name, *t, channels);
}

double load_at(const Tensor* t, int64_t k, double fallback) {
  return t ? load_elem<double>(t->data(), t->dtype(), k * t->strides()[0]) : fallback;
}

// out[n, c, ...] = (in - mean[c]) * invstd[c] * weight[c] + bias[c] over every n and
// trailing index. `mean`/`invstd` give the statistics of channel c.
template <typename Stats>
void batch_norm_apply(const Tensor& in, const Tensor* weight, const Tensor* bias, Tensor& out, Stats stats) {
  const int64_t batch = in.size(0), channels = in.size(1);
  const auto inner_sizes = in.sizes().subspan(2);
  int64_t inner = 1;
  for (int32_t s : inner_sizes) inner *= s;
  const Strides is = tail_strides(in, 2), os = tail_strides(out, 2);
  for (int64_t c = 0; c < channels; ++c) {
    const auto [mean, invstd] = stats(c);
    const double w = load_at(weight, c, 1.0), b = load_at(bias, c, 0.0);
    for (int64_t n = 0; n < batch; ++n) {
      StridedWalker<2> walk(inner_sizes, {os, is},
                            {n * out.strides()[0] + c * out.strides()[1], n * in.strides()[0] + c * in.strides()[1]});
      for (int64_t k = 0; k < inner; ++k, walk.next()) {
        const double x = load_elem<double>(in.data(), in.dtype(), walk.offset(1));
        store_elem<double>(out.data(), out.dtype(), walk.offset(0), (x - mean) * invstd * w + b);
      }
    }
  }
}

// Reads input, weight and bias (args 0-2) and checks them.
struct BatchNormArgs {
  Tensor* in = nullptr;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
};
Status read_batch_norm_inputs(const KernelArgs& a, BatchNormArgs& b) {
  VKRT_ASSIGN_OR_RETURN(b.in, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(b.weight, optional_tensor_arg(a, 1, "weight"));
  VKRT_ASSIGN_OR_RETURN(b.bias, optional_tensor_arg(a, 2, "bias"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "input", *b.in));
  if (b.in->rank() < 2) {
    return a.error(0, "input", "expected at least 2 dims [N, C, ...], got " + shape_string(b.in->sizes()));
  }
  VKRT_RETURN_IF_ERROR(check_affine(a, 1, "weight", b.weight, *b.in, b.in->size(1)));
  return check_affine(a, 2, "bias", b.bias, *b.in, b.in->size(1));
}

// Checks the three outs (first at `o`): input's dtype; out gets input's shape, the
// statistics `stats_size` elements.
Status batch_norm_outs(const KernelArgs& a, size_t o, const Tensor& in, int32_t stats_size, Tensor*& out,
                       Tensor*& mean_out, Tensor*& invstd_out) {
  VKRT_ASSIGN_OR_RETURN(out, tensor_arg(a, o, "out"));
  VKRT_ASSIGN_OR_RETURN(mean_out, tensor_arg(a, o + 1, "save_mean"));
  VKRT_ASSIGN_OR_RETURN(invstd_out, tensor_arg(a, o + 2, "save_invstd"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, o, "out", *out, in.dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, o + 1, "save_mean", *mean_out, in.dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, o + 2, "save_invstd", *invstd_out, in.dtype()));
  VKRT_RETURN_IF_ERROR(resize_output(a, o, "out", *out, in.sizes()));
  const int32_t stats_shape[1] = {stats_size};
  VKRT_RETURN_IF_ERROR(resize_output(a, o + 1, "save_mean", *mean_out, stats_shape));
  return resize_output(a, o + 2, "save_invstd", *invstd_out, stats_shape);
}

// Inference with running statistics (args: input, weight, bias, running_mean, running_var at
// 0-4; momentum, eps at eps_index - 1 and eps_index; outs at `o`).
Status batch_norm_inference(const KernelArgs& a, size_t eps_index, size_t o) {
  BatchNormArgs b;
  VKRT_RETURN_IF_ERROR(read_batch_norm_inputs(a, b));
  VKRT_ASSIGN_OR_RETURN(Tensor * running_mean, tensor_arg(a, 3, "running_mean"));
  VKRT_ASSIGN_OR_RETURN(Tensor * running_var, tensor_arg(a, 4, "running_var"));
  VKRT_RETURN_IF_ERROR(a.double_value(eps_index - 1, "momentum").status());
  VKRT_ASSIGN_OR_RETURN(double eps, a.double_value(eps_index, "eps"));
  const int64_t channels = b.in->size(1);
  VKRT_RETURN_IF_ERROR(check_affine(a, 3, "running_mean", running_mean, *b.in, channels));
  VKRT_RETURN_IF_ERROR(check_affine(a, 4, "running_var", running_var, *b.in, channels));
  Tensor *out, *mean_out, *invstd_out;
  VKRT_RETURN_IF_ERROR(batch_norm_outs(a, o, *b.in, 0, out, mean_out, invstd_out));
  batch_norm_apply(*b.in, b.weight, b.bias, *out, [&](int64_t c) {
    const double var = load_at(running_var, c, 0.0);
    return std::pair<double, double>(load_at(running_mean, c, 0.0), 1.0 / std::sqrt(var + eps));
  });
  return Status::ok();
}

Status batch_norm_legit_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::_native_batch_norm_legit.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 12));
  VKRT_ASSIGN_OR_RETURN(bool training, a.bool_value(5, "training"));
  if (training) return a.error(5, "training", "the portable kernel only supports inference (training=false)");
  return batch_norm_inference(a, 7, 8);
}

Status batch_norm_legit_no_training_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::_native_batch_norm_legit_no_training.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 11));
  return batch_norm_inference(a, 6, 7);
}

Status batch_norm_legit_no_stats_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::_native_batch_norm_legit.no_stats_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 10));
  BatchNormArgs b;
  VKRT_RETURN_IF_ERROR(read_batch_norm_inputs(a, b));
  VKRT_RETURN_IF_ERROR(a.bool_value(3, "training").status());
  VKRT_RETURN_IF_ERROR(a.double_value(4, "momentum").status());
  VKRT_ASSIGN_OR_RETURN(double eps, a.double_value(5, "eps"));
  const Tensor& in = *b.in;
  Tensor *out, *mean_out, *invstd_out;
  VKRT_RETURN_IF_ERROR(batch_norm_outs(a, 6, in, in.size(1), out, mean_out, invstd_out));
  const int64_t batch = in.size(0);
  const auto inner_sizes = in.sizes().subspan(2);
  int64_t inner = 1;
  for (int32_t s : inner_sizes) inner *= s;
  const Strides is = tail_strides(in, 2);
  const double count = double(batch * inner);
  auto channel_sum = [&](int64_t c, double mean, bool squares) {
    double sum = 0.0;
    for (int64_t n = 0; n < batch; ++n) {
      StridedWalker<1> walk(inner_sizes, {is}, {n * in.strides()[0] + c * in.strides()[1]});
      for (int64_t k = 0; k < inner; ++k, walk.next()) {
        const double x = load_elem<double>(in.data(), in.dtype(), walk.offset(0));
        sum += squares ? (x - mean) * (x - mean) : x;
      }
    }
    return sum;
  };
  for (int64_t c = 0; c < in.size(1); ++c) {
    const double mean = channel_sum(c, 0.0, false) / count;
    const double var = channel_sum(c, mean, true) / count;
    store_elem<double>(mean_out->data(), in.dtype(), c * mean_out->strides()[0], mean);
    store_elem<double>(invstd_out->data(), in.dtype(), c * invstd_out->strides()[0], 1.0 / std::sqrt(var + eps));
  }
  // Normalise with the statistics as stored (rounded to the dtype), as upstream does.
  batch_norm_apply(in, b.weight, b.bias, *out, [&](int64_t c) {
    return std::pair<double, double>(load_at(mean_out, c, 0.0), load_at(invstd_out, c, 0.0));
  });
  return Status::ok();
}

// ---------------------------------------------------------------------------------------
// Group and layer norm: the input in row-major order is `rows` consecutive blocks of `cols`
// elements; each block is normalised by its own mean and rstd (written to the stats outs in
// row-major order). affine(row, col) gives (weight, bias) of element `col` of block `row`.
template <typename Affine>
void normalize_rows(const Tensor& in, Tensor& out, Tensor& mean_out, Tensor& rstd_out, int64_t rows, int64_t cols,
                    double eps, Affine affine) {
  StridedWalker<2> walk(in.sizes(), {strides_of(out), strides_of(in)});
  StridedWalker<2> stats(mean_out.sizes(), {strides_of(mean_out), strides_of(rstd_out)});
  const ScalarType t = in.dtype();
  for (int64_t r = 0; r < rows; ++r, stats.next()) {
    if (cols == 0) {
      store_elem<double>(mean_out.data(), t, stats.offset(0), 0.0);
      store_elem<double>(rstd_out.data(), t, stats.offset(1), std::nan(""));
      continue;
    }
    StridedWalker<2> start = walk;
    double sum = 0.0;
    for (int64_t k = 0; k < cols; ++k, walk.next()) sum += load_elem<double>(in.data(), t, walk.offset(1));
    const double mean = sum / double(cols);
    walk = start;
    double sq = 0.0;
    for (int64_t k = 0; k < cols; ++k, walk.next()) {
      const double d = load_elem<double>(in.data(), t, walk.offset(1)) - mean;
      sq += d * d;
    }
    const double rstd = 1.0 / std::sqrt(sq / double(cols) + eps);
    walk = start;
    for (int64_t k = 0; k < cols; ++k, walk.next()) {
      const auto [w, b] = affine(r, k);
      const double x = load_elem<double>(in.data(), t, walk.offset(1));
      store_elem<double>(out.data(), t, walk.offset(0), (x - mean) * rstd * w + b);
    }
    store_elem<double>(mean_out.data(), t, stats.offset(0), mean);
    store_elem<double>(rstd_out.data(), t, stats.offset(1), rstd);
  }
}

// The three outs of group/layer norm at `o`: input's dtype; out gets input's shape, the
// statistics `stats_shape`.
Status norm_outs(const KernelArgs& a, size_t o, const Tensor& in, std::span<const int32_t> stats_shape,
                 Tensor*& out, Tensor*& mean_out, Tensor*& rstd_out) {
  VKRT_ASSIGN_OR_RETURN(out, tensor_arg(a, o, "out0"));
  VKRT_ASSIGN_OR_RETURN(mean_out, tensor_arg(a, o + 1, "out1"));
  VKRT_ASSIGN_OR_RETURN(rstd_out, tensor_arg(a, o + 2, "out2"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, o, "out0", *out, in.dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, o + 1, "out1", *mean_out, in.dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, o + 2, "out2", *rstd_out, in.dtype()));
  VKRT_RETURN_IF_ERROR(resize_output(a, o, "out0", *out, in.sizes()));
  VKRT_RETURN_IF_ERROR(resize_output(a, o + 1, "out1", *mean_out, stats_shape));
  return resize_output(a, o + 2, "out2", *rstd_out, stats_shape);
}

Status native_group_norm_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::native_group_norm.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 12));
  VKRT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * weight, optional_tensor_arg(a, 1, "weight"));
  VKRT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(a, 2, "bias"));
  VKRT_ASSIGN_OR_RETURN(int64_t n, a.int_value(3, "N"));
  VKRT_ASSIGN_OR_RETURN(int64_t c, a.int_value(4, "C"));
  VKRT_ASSIGN_OR_RETURN(int64_t hxw, a.int_value(5, "HxW"));
  VKRT_ASSIGN_OR_RETURN(int64_t group, a.int_value(6, "group"));
  VKRT_ASSIGN_OR_RETURN(double eps, a.double_value(7, "eps"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "input", *in));
  if (in->rank() < 2) return a.error(0, "input", "expected at least 2 dims, got " + shape_string(in->sizes()));
  if (in->size(0) != n) return a.error(3, "N", "differs from input size(0) " + std::to_string(in->size(0)));
  if (in->size(1) != c) return a.error(4, "C", "differs from input size(1) " + std::to_string(in->size(1)));
  if (hxw < 0 || saturating_mul(saturating_mul(n, c), hxw) != in->numel()) {  // n, c >= 0: sizes
    return a.error(5, "HxW", "N * C * HxW differs from the input's " + std::to_string(in->numel()) + " elements");
  }
  if (group <= 0 || c % group != 0 || group > INT32_MAX) {
    return a.error(6, "group", std::to_string(group) + " does not divide the " + std::to_string(c) + " channels");
  }
  VKRT_RETURN_IF_ERROR(check_affine(a, 1, "weight", weight, *in, c));
  VKRT_RETURN_IF_ERROR(check_affine(a, 2, "bias", bias, *in, c));
  const int32_t stats_shape[2] = {int32_t(n), int32_t(group)};
  Tensor *out, *mean_out, *rstd_out;
  VKRT_RETURN_IF_ERROR(norm_outs(a, 8, *in, stats_shape, out, mean_out, rstd_out));
  const int64_t per_group = c / group;
  normalize_rows(*in, *out, *mean_out, *rstd_out, n * group, per_group * hxw, eps, [&](int64_t row, int64_t col) {
    const int64_t ch = (row % group) * per_group + col / hxw;
    return std::pair<double, double>(load_at(weight, ch, 1.0), load_at(bias, ch, 0.0));
  });
  return Status::ok();
}

Status native_layer_norm_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::native_layer_norm.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 9));
  VKRT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(a, 0, "input"));
  std::array<int64_t, kMaxRank> norm_shape{};
  VKRT_ASSIGN_OR_RETURN(size_t ndim, a.int_list(1, "normalized_shape", norm_shape));
  VKRT_ASSIGN_OR_RETURN(Tensor * weight, optional_tensor_arg(a, 2, "weight"));
  VKRT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(a, 3, "bias"));
  VKRT_ASSIGN_OR_RETURN(double eps, a.double_value(4, "eps"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "input", *in));
  if (ndim < 1 || int(ndim) > in->rank()) {
    return a.error(1, "normalized_shape", "expected 1 to " + std::to_string(in->rank()) + " entries, got " +
                                              std::to_string(ndim));
  }
  const int shift = in->rank() - int(ndim);
  Shape norm = Shape::of(in->sizes().subspan(shift));
  for (int d = 0; d < int(ndim); ++d) {
    if (norm_shape[d] != in->size(shift + d)) {
      return a.error(1, "normalized_shape", "does not match the trailing dims of input " + shape_string(in->sizes()));
    }
  }
  for (auto [i, name, t] : {std::tuple<size_t, const char*, Tensor*>{2, "weight", weight}, {3, "bias", bias}}) {
    if (t == nullptr) continue;
    VKRT_RETURN_IF_ERROR(expect_dtype(a, i, name, *t, in->dtype()));
    VKRT_RETURN_IF_ERROR(expect_shape(a, i, name, *t, norm.view()));
  }
  Shape stats = Shape::of(in->sizes());
  for (int d = shift; d < stats.rank; ++d) stats.dims[d] = 1;
  Tensor *out, *mean_out, *rstd_out;
  VKRT_RETURN_IF_ERROR(norm_outs(a, 5, *in, stats.view(), out, mean_out, rstd_out));
  const int64_t cols = norm.numel();
  const int64_t rows = cols == 0 ? stats.numel() : in->numel() / cols;
  // Weight and bias are read in the block's row-major order through their own strides.
  const Strides ws = weight ? strides_of(*weight) : Strides{}, bs = bias ? strides_of(*bias) : Strides{};
  StridedWalker<2> affine_walk(norm.view(), {ws, bs});
  normalize_rows(*in, *out, *mean_out, *rstd_out, rows, cols, eps, [&](int64_t, int64_t col) {
    if (col == 0) affine_walk = StridedWalker<2>(norm.view(), {ws, bs});
    const double w = weight ? load_elem<double>(weight->data(), weight->dtype(), affine_walk.offset(0)) : 1.0;
    const double b = bias ? load_elem<double>(bias->data(), bias->dtype(), affine_walk.offset(1)) : 0.0;
    affine_walk.next();
    return std::pair<double, double>(w, b);
  });
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::_native_batch_norm_legit.out", batch_norm_legit_out);
VKRT_REGISTER_KERNEL("aten::_native_batch_norm_legit.no_stats_out", batch_norm_legit_no_stats_out);
VKRT_REGISTER_KERNEL("aten::_native_batch_norm_legit_no_training.out", batch_norm_legit_no_training_out);
VKRT_REGISTER_KERNEL("aten::native_group_norm.out", native_group_norm_out);
VKRT_REGISTER_KERNEL("aten::native_layer_norm.out", native_layer_norm_out);

}  // namespace vkrt::portable

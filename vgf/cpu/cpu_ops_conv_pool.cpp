// CPU op table entries (cpu_op_table.h): convolutions, MATMUL, pooling, FFT2D and RFFT2D.
#include <new>

#include "vgf/cpu/cpu_op_table.h"

namespace vkrt::vgf::cpu {
namespace {

// Every kernel here takes the IR's attribute struct as it is (vocabulary.h). CONV2D's plan
// also packs constant int8 and fp32 weights for the GEMM, once.

// A constant operand as the kernels see it, or false when it is not a constant whose bytes
// match its shape.
bool constant_ref(const Graph& graph, TensorId t, tosa::DType dtype, int rank, tosa::TensorRef* ref) {
  const TensorInfo& info = graph.tensors[t];
  if (!info.is_constant || info.dtype != dtype || int(info.shape.size()) != rank) return false;
  uint64_t count = 1;
  for (int64_t d : info.shape) {
    if (d <= 0 || uint64_t(d) > (uint64_t(1) << 40) / count) return false;  // no product past 2^40
    count *= uint64_t(d);
  }
  if (count * tosa::dtype_size(dtype) != info.constant_bytes().size()) return false;
  *ref = tosa::TensorRef{dtype, info.shape, const_cast<uint8_t*>(info.constant_bytes().data())};
  return true;
}

// A fused RESCALE (and CLAMP) that is the requantize becomes the convolution's output stage
// (p.requantize; tosa::conv_requantize).
void plan_output_stage(const PlanContext& ctx, PlannedOp& p) {
  const auto* rescale = ctx.rescale_after ? std::get_if<RescaleAttr>(&ctx.rescale_after->attr) : nullptr;
  const auto* clamp = ctx.clamp_after ? std::get_if<ClampAttr>(&ctx.clamp_after->attr) : nullptr;
  if (rescale == nullptr || (clamp != nullptr) != (ctx.clamp_after != nullptr)) return;
  const Op& last = ctx.clamp_after ? *ctx.clamp_after : *ctx.rescale_after;  // writes the chain's output
  p.requantize = tosa::conv_requantize(*rescale, clamp, ctx.graph.tensors[last.outputs[0]].dtype);
}

Status plan_conv2d(const PlanContext& ctx, PlannedOp& p) {
  const Graph& graph = ctx.graph;
  const Op& op = ctx.op;
  tosa::TensorRef weight, bias;
  const bool int8 = constant_ref(graph, op.inputs[1], tosa::DType::Int8, 4, &weight) &&
                    constant_ref(graph, op.inputs[2], tosa::DType::Int32, 1, &bias);
  // int16 activations (A16W8): int8 weights, an int48 bias; packed into the A16W8 panels.
  const bool int16 = !int8 && constant_ref(graph, op.inputs[1], tosa::DType::Int8, 4, &weight) &&
                     constant_ref(graph, op.inputs[2], tosa::DType::Int48, 1, &bias);
  const bool fp32 = !int8 && !int16 && constant_ref(graph, op.inputs[1], tosa::DType::Fp32, 4, &weight) &&
                    constant_ref(graph, op.inputs[2], tosa::DType::Fp32, 1, &bias);
  if (!int8 && !int16 && !fp32) return Status::ok();  // not constants: packed per call, in the scratch
  const auto& attr = std::get<ConvAttr>(op.attr);
  // The GEMM's output stage, packed with the weights.
  if (int8) plan_output_stage(ctx, p);
  const tosa::ConvRequantize* requantize = p.requantize ? &*p.requantize : nullptr;
  const size_t bytes = tosa::conv2d_packed_weights_bytes(weight, bias, attr, requantize);
  if (bytes == 0) return Status::ok();  // nothing to pack at this ISA level
  VKRT_RETURN_IF_ERROR(ctx.reserve(bytes, "packed weights"));
  try {
    p.packed_weights_memory.resize(bytes);
  } catch (const std::bad_alloc&) {
    return make_error(Error::MemoryAllocationFailed, "VGF cpu executor: op ", ctx.index, " (", op_name(op.kind),
                      "): ", bytes, " bytes of packed weights");
  }
  p.packed_weights = tosa::conv2d_pack_weights(weight, bias, attr, p.packed_weights_memory, requantize);
  return Status::ok();
}

Status run_conv2d(const PlannedOp& p, const KernelArgs& a) {
  const auto& attr = p.ir_attr<ConvAttr>();
  if (a.check_only) return tosa::check_conv2d(a.in[0], a.in[1], a.in[2], attr, a.out[0]);
  return tosa::conv2d(a.in[0], a.in[1], a.in[2], attr, a.out[0], a.runner,
                      tosa::ConvResources{a.scratch, p.packed_weights});
}

size_t conv2d_scratch(const PlannedOp& p, const KernelArgs& a, int threads) {
  return tosa::conv2d_scratch_bytes(a.in[0], a.in[1], a.in[2], p.ir_attr<ConvAttr>(), a.out[0], threads,
                                    p.packed_weights);
}

// The depthwise engine's int8 output stage, where the chain's RESCALE is the requantize.
Status plan_depthwise_conv2d(const PlanContext& ctx, PlannedOp& p) {
  plan_output_stage(ctx, p);
  return Status::ok();
}

Status run_depthwise_conv2d(const PlannedOp& p, const KernelArgs& a) {
  const auto& attr = p.ir_attr<ConvAttr>();
  if (a.check_only) return tosa::check_depthwise_conv2d(a.in[0], a.in[1], a.in[2], attr, a.out[0]);
  return tosa::depthwise_conv2d(a.in[0], a.in[1], a.in[2], attr, a.out[0], a.runner, a.scratch);
}

size_t depthwise_conv2d_scratch(const PlannedOp& p, const KernelArgs& a, int threads) {
  return tosa::depthwise_conv2d_scratch_bytes(a.in[0], a.in[1], a.in[2], p.ir_attr<ConvAttr>(), a.out[0], threads);
}

Status run_conv3d(const PlannedOp& p, const KernelArgs& a) {
  const auto& attr = p.ir_attr<ConvAttr>();
  if (a.check_only) return tosa::check_conv3d(a.in[0], a.in[1], a.in[2], attr, a.out[0]);
  return tosa::conv3d(a.in[0], a.in[1], a.in[2], attr, a.out[0], a.runner, a.scratch);
}

size_t conv3d_scratch(const PlannedOp& p, const KernelArgs& a, int threads) {
  return tosa::conv3d_scratch_bytes(a.in[0], a.in[1], a.in[2], p.ir_attr<ConvAttr>(), a.out[0], threads);
}

Status run_transpose_conv2d(const PlannedOp& p, const KernelArgs& a) {
  const auto& attr = p.ir_attr<TransposeConvAttr>();
  if (a.check_only) return tosa::check_transpose_conv2d(a.in[0], a.in[1], a.in[2], attr, a.out[0]);
  return tosa::transpose_conv2d(a.in[0], a.in[1], a.in[2], attr, a.out[0], a.runner, a.scratch);
}

size_t transpose_conv2d_scratch(const PlannedOp& p, const KernelArgs& a, int threads) {
  return tosa::transpose_conv2d_scratch_bytes(a.in[0], a.in[1], a.in[2], p.ir_attr<TransposeConvAttr>(), a.out[0],
                                              threads);
}

Status run_matmul(const PlannedOp& p, const KernelArgs& a) {
  const auto& attr = p.ir_attr<MatmulAttr>();
  if (a.check_only) return tosa::check_matmul(a.in[0], a.in[1], attr, a.out[0]);
  return tosa::matmul(a.in[0], a.in[1], attr, a.out[0], a.runner, a.scratch);
}

size_t matmul_scratch(const PlannedOp& p, const KernelArgs& a, int threads) {
  return tosa::matmul_scratch_bytes(a.in[0], a.in[1], p.ir_attr<MatmulAttr>(), a.out[0], threads);
}

Status run_fft2d(const PlannedOp& p, const KernelArgs& a) {
  if (a.check_only) return tosa::check_fft2d(a.in[0], a.in[1], p.ir_attr<FftAttr>(), a.out[0], a.out[1]);
  return tosa::fft2d(a.in[0], a.in[1], p.ir_attr<FftAttr>(), a.out[0], a.out[1], a.runner);
}

Status run_rfft2d(const PlannedOp& p, const KernelArgs& a) {
  if (a.check_only) return tosa::check_rfft2d(a.in[0], p.ir_attr<FftAttr>(), a.out[0], a.out[1]);
  return tosa::rfft2d(a.in[0], p.ir_attr<FftAttr>(), a.out[0], a.out[1], a.runner);
}

Status run_avg_pool2d(const PlannedOp& p, const KernelArgs& a) {
  const auto& attr = p.ir_attr<PoolAttr>();
  if (a.check_only) return tosa::check_avg_pool2d(a.in[0], attr, a.out[0]);
  return tosa::avg_pool2d(a.in[0], attr, a.out[0], a.runner);
}

Status run_max_pool2d(const PlannedOp& p, const KernelArgs& a) {
  const auto& attr = p.ir_attr<PoolAttr>();
  if (a.check_only) return tosa::check_max_pool2d(a.in[0], attr, a.out[0]);
  return tosa::max_pool2d(a.in[0], attr, a.out[0], a.runner);
}

constexpr CpuOpImpl kOps[] = {
    {OpKind::CONV2D, plan_conv2d, run_conv2d, conv2d_scratch},
    {OpKind::DEPTHWISE_CONV2D, plan_depthwise_conv2d, run_depthwise_conv2d, depthwise_conv2d_scratch},
    {OpKind::CONV3D, nullptr, run_conv3d, conv3d_scratch},
    {OpKind::TRANSPOSE_CONV2D, nullptr, run_transpose_conv2d, transpose_conv2d_scratch},
    {OpKind::MATMUL, nullptr, run_matmul, matmul_scratch},
    {OpKind::AVG_POOL2D, nullptr, run_avg_pool2d},
    {OpKind::MAX_POOL2D, nullptr, run_max_pool2d},
    {OpKind::FFT2D, nullptr, run_fft2d},
    {OpKind::RFFT2D, nullptr, run_rfft2d},
};

// The chain's output stage as its CONV2D was planned with it (null: rescaled in bands).
const tosa::ConvRequantize* requantize_of(const FusedConvChain& c) {
  return c.conv->requantize ? &*c.conv->requantize : nullptr;
}

}  // namespace

std::span<const CpuOpImpl> conv_pool_ops() { return kOps; }

Status run_fused_conv(const FusedConvChain& c, ParallelRunner* runner, std::span<uint8_t> scratch) {
  const auto& conv = c.conv->ir_attr<ConvAttr>();
  if (c.rescale == nullptr) {  // an fp32 convolution and its CLAMP
    const auto& clamp = c.clamp->ir_attr<ClampAttr>();
    if (c.kind == OpKind::DEPTHWISE_CONV2D)
      return tosa::depthwise_conv2d_clamp(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, clamp, c.clamped,
                                          runner, scratch);
    return tosa::conv2d_clamp(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, clamp, c.clamped, runner,
                              tosa::ConvResources{scratch, c.conv->packed_weights});
  }
  const auto& rescale = c.rescale->ir_attr<RescaleAttr>();
  const ClampAttr* clamp = c.clamp ? &c.clamp->ir_attr<ClampAttr>() : nullptr;
  if (c.kind == OpKind::DEPTHWISE_CONV2D)
    return tosa::depthwise_conv2d_rescale(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, rescale, c.rescaled,
                                          clamp, c.clamped, runner, scratch, requantize_of(c));
  return tosa::conv2d_rescale(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, rescale, c.rescaled, clamp,
                              c.clamped, runner, tosa::ConvResources{scratch, c.conv->packed_weights, requantize_of(c)});
}

bool fused_conv_writes_only_output(const FusedConvChain& c) {
  const auto& conv = c.conv->ir_attr<ConvAttr>();
  if (c.rescale == nullptr) {  // an fp32 convolution and its CLAMP
    const auto& clamp = c.clamp->ir_attr<ClampAttr>();
    if (c.kind == OpKind::DEPTHWISE_CONV2D)
      return tosa::depthwise_conv2d_clamp_fuses(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, clamp,
                                                c.clamped);
    return tosa::conv2d_clamp_fuses(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, clamp, c.clamped,
                                    tosa::ConvResources{{}, c.conv->packed_weights});
  }
  const auto& rescale = c.rescale->ir_attr<RescaleAttr>();
  const ClampAttr* clamp = c.clamp ? &c.clamp->ir_attr<ClampAttr>() : nullptr;
  if (c.kind == OpKind::DEPTHWISE_CONV2D)
    return tosa::depthwise_conv2d_rescale_fuses(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, rescale,
                                                c.rescaled, clamp, c.clamped, requantize_of(c));
  return tosa::conv2d_rescale_fuses(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, rescale, c.rescaled, clamp,
                                    c.clamped, tosa::ConvResources{{}, c.conv->packed_weights, requantize_of(c)});
}

size_t fused_conv_scratch(const FusedConvChain& c, int threads) {
  const auto& conv = c.conv->ir_attr<ConvAttr>();
  if (c.rescale == nullptr)  // an fp32 convolution and its CLAMP: the convolution's own scratch
    return c.kind == OpKind::DEPTHWISE_CONV2D
               ? tosa::depthwise_conv2d_scratch_bytes(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, threads)
               : tosa::conv2d_scratch_bytes(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, threads,
                                            c.conv->packed_weights);
  if (c.kind == OpKind::DEPTHWISE_CONV2D)
    return tosa::depthwise_conv2d_rescale_scratch_bytes(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums,
                                                        threads, requantize_of(c));
  return tosa::conv2d_rescale_scratch_bytes(c.conv_in[0], c.conv_in[1], c.conv_in[2], conv, c.sums, threads,
                                            c.conv->packed_weights, requantize_of(c));
}

}  // namespace vkrt::vgf::cpu

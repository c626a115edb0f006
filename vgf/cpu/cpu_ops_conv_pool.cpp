// CPU op table entries (cpu_op_table.h): convolutions, MATMUL, pooling, FFT2D and RFFT2D.
#include "vgf/cpu/cpu_op_table.h"

namespace vkrt::vgf::cpu {
namespace {

tosa::DType acc_dtype(AccType a) {
  switch (a) {
    case AccType::Int32: return tosa::DType::Int32;
    case AccType::Int48: return tosa::DType::Int48;
    case AccType::Fp16: return tosa::DType::Fp16;
    case AccType::Fp32: return tosa::DType::Fp32;
  }
  return tosa::DType::Unknown;
}

// CONV2D and DEPTHWISE_CONV2D (the IR's ConvAttr also serves CONV3D; only the 2-D part is used).
Status plan_conv2d(const Graph&, const Op& op, PlannedOp& plan) {
  const auto& a = std::get<ConvAttr>(op.attr);
  tosa::Conv2dAttrs k;
  for (int i = 0; i < 4; ++i) k.pad[i] = a.pad[size_t(i)];
  for (int i = 0; i < 2; ++i) {
    k.stride[i] = a.stride[size_t(i)];
    k.dilation[i] = a.dilation[size_t(i)];
  }
  k.input_zp = a.input_zp;
  k.weight_zp = a.weight_zp;
  k.acc_type = acc_dtype(a.acc_type);
  k.local_bound = a.local_bound;
  plan.attrs = k;
  return Status::ok();
}

Status run_conv2d(const PlannedOp& p, const KernelArgs& a) {
  const auto& attrs = std::get<tosa::Conv2dAttrs>(p.attrs);
  if (a.check_only) return tosa::check_conv2d(a.in[0], a.in[1], a.in[2], attrs, a.out[0]);
  return tosa::conv2d(a.in[0], a.in[1], a.in[2], attrs, a.out[0], a.parallel);
}

Status run_depthwise_conv2d(const PlannedOp& p, const KernelArgs& a) {
  const auto& attrs = std::get<tosa::Conv2dAttrs>(p.attrs);
  if (a.check_only) return tosa::check_depthwise_conv2d(a.in[0], a.in[1], a.in[2], attrs, a.out[0]);
  return tosa::depthwise_conv2d(a.in[0], a.in[1], a.in[2], attrs, a.out[0], a.parallel);
}

Status plan_transpose_conv2d(const Graph&, const Op& op, PlannedOp& plan) {
  const auto& a = std::get<TransposeConvAttr>(op.attr);
  tosa::TransposeConv2dAttrs k;
  for (int i = 0; i < 4; ++i) k.out_pad[i] = a.out_pad[size_t(i)];
  for (int i = 0; i < 2; ++i) k.stride[i] = a.stride[size_t(i)];
  k.input_zp = a.input_zp;
  k.weight_zp = a.weight_zp;
  k.acc_type = acc_dtype(a.acc_type);
  k.local_bound = a.local_bound;
  plan.attrs = k;
  return Status::ok();
}

Status run_transpose_conv2d(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_transpose_conv2d, tosa::transpose_conv2d, a.in[0], a.in[1], a.in[2],
                          std::get<tosa::TransposeConv2dAttrs>(p.attrs), a.out[0]);
}

Status run_matmul(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_matmul, tosa::matmul, a.in[0], a.in[1],
                          p.ir_attr<MatmulAttr>(), a.out[0]);
}

// FFT2D and RFFT2D take the IR's FftAttr as it is (vocabulary.h).
Status run_fft2d(const PlannedOp& p, const KernelArgs& a) {
  if (a.check_only) return tosa::check_fft2d(a.in[0], a.in[1], p.ir_attr<FftAttr>(), a.out[0], a.out[1]);
  return tosa::fft2d(a.in[0], a.in[1], p.ir_attr<FftAttr>(), a.out[0], a.out[1], a.parallel);
}

Status run_rfft2d(const PlannedOp& p, const KernelArgs& a) {
  if (a.check_only) return tosa::check_rfft2d(a.in[0], p.ir_attr<FftAttr>(), a.out[0], a.out[1]);
  return tosa::rfft2d(a.in[0], p.ir_attr<FftAttr>(), a.out[0], a.out[1], a.parallel);
}

Status plan_avg_pool2d(const Graph&, const Op& op, PlannedOp& plan) {
  const auto& a = std::get<PoolAttr>(op.attr);
  tosa::AvgPool2dAttrs k;
  for (int i = 0; i < 2; ++i) {
    k.kernel[i] = a.kernel[size_t(i)];
    k.stride[i] = a.stride[size_t(i)];
  }
  for (int i = 0; i < 4; ++i) k.pad[i] = a.pad[size_t(i)];
  k.input_zp = a.input_zp;
  k.output_zp = a.output_zp;
  k.acc_type = acc_dtype(a.acc_type);
  plan.attrs = k;
  return Status::ok();
}

Status run_avg_pool2d(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_avg_pool2d, tosa::avg_pool2d, a.in[0],
                          std::get<tosa::AvgPool2dAttrs>(p.attrs), a.out[0]);
}

Status plan_max_pool2d(const Graph&, const Op& op, PlannedOp& plan) {
  const auto& a = std::get<PoolAttr>(op.attr);
  tosa::MaxPool2dAttrs k;
  for (int i = 0; i < 2; ++i) {
    k.kernel[i] = a.kernel[size_t(i)];
    k.stride[i] = a.stride[size_t(i)];
  }
  for (int i = 0; i < 4; ++i) k.pad[i] = a.pad[size_t(i)];
  k.nan_mode = a.nan_mode;
  plan.attrs = k;
  return Status::ok();
}

Status run_max_pool2d(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_max_pool2d, tosa::max_pool2d, a.in[0],
                          std::get<tosa::MaxPool2dAttrs>(p.attrs), a.out[0]);
}

constexpr CpuOpImpl kOps[] = {
    {OpKind::CONV2D, plan_conv2d, run_conv2d},
    {OpKind::DEPTHWISE_CONV2D, plan_conv2d, run_depthwise_conv2d},
    {OpKind::TRANSPOSE_CONV2D, plan_transpose_conv2d, run_transpose_conv2d},
    {OpKind::MATMUL, nullptr, run_matmul},
    {OpKind::AVG_POOL2D, plan_avg_pool2d, run_avg_pool2d},
    {OpKind::MAX_POOL2D, plan_max_pool2d, run_max_pool2d},
    {OpKind::FFT2D, nullptr, run_fft2d},
    {OpKind::RFFT2D, nullptr, run_rfft2d},
};

}  // namespace

std::span<const CpuOpImpl> conv_pool_ops() { return kOps; }

}  // namespace vkrt::vgf::cpu

// TOSA 1.0 CPU op kernels (library vkrt_tosa_kernels, namespace vkrt::tosa).
//
// Pure functions over raw buffers (TensorRef, tensor_ref.h), independent of any graph IR.
// Every op has
//   * an attribute struct (vocabulary.h, shared with the graph IR). Operands that TOSA 1.0
//     passes as constant tensors (zero points, MUL shift, RESCALE multiplier/shift,
//     PAD/SLICE/TILE/RESIZE shape operands, CLAMP bounds) are plain fields there: the executor
//     reads them once at init;
//   * `check_<op>(...)`: validates dtypes, shapes (the output shape the caller supplies must be
//     the one TOSA defines) and attributes; returns an error Status naming the op and the problem
//     (InvalidArgument for bad shapes/attributes, NotSupported for dtype combinations the kernels
//     do not implement);
//   * `<op>(...)`: the compute function. It runs the same checks first (they are cheap and never
//     allocate on success), so a call with bad arguments returns the error instead of reading out
//     of bounds. No kernel allocates heap memory. The heavy ones (CONV2D, DEPTHWISE_CONV2D,
//     RESCALE, the elementwise binary ops, FFT2D, RFFT2D) take an optional vkrt::ParallelRunner
//     (vkrt/kernel.h; null: the calling thread) to split their work over threads; CONV2D also
//     takes scratch memory and, for int8 and fp32, weights packed ahead (ConvResources), without
//     which it runs the reference loops (int16: the compute core's scratch-free loop).
// Semantics follow shared/docs/tosa.md (section numbers cited at each op). Where TOSA only
// REQUIREs something (undefined result), the kernels still produce a deterministic value:
// int32 accumulators wrap modulo 2^32 (tosa.md §6), out-of-range gather/table indices are
// rejected with an error, scale results saturate.
//
// Dtypes per op are listed at each declaration as (input -> output).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cpu_fallback/tosa/tensor_ref.h"
#include "vkrt/error.h"
#include "vkrt/kernel.h"

namespace vkrt::tosa {

// Threads a kernel may use are a vkrt::ParallelRunner (vkrt/kernel.h, an interface: the kernels
// need its header, not the runtime library): run(count, task) calls task(0..count-1), in any
// order, possibly several at once, and returns when all are done; num_threads() is how many can
// run at once. A kernel splits its work into at most num_threads() independent parts, and only
// when it is large enough to be worth a dispatch. A null runner runs everything on the calling
// thread. The runtime's kernels hand over their KernelContext's threads as a
// vkrt::compute::ContextRunner (cpu_fallback/compute/context_runner.h).

// DType, AccType, NanMode, RoundingMode, ResizeMode, type_min/type_max and the attribute
// structs (ConvAttr, PoolAttr, RescaleAttr, ...) come from vocabulary.h: the graph IR holds the
// same structs, so the VGF CPU executor hands an op's attributes to its kernel as they are.

// ------------------------------------------------------------------------------------------
// Convolutions, matmul (tosa.md §6). Result is the raw accumulator; requantize with RESCALE.
// Dtypes (input, weight -> output == bias dtype, acc_type):
//   Int8,  Int8 -> Int32 (acc Int32; sums wrap modulo 2^32)
//   Int16, Int8 -> Int48 (acc Int48; result clamped to [-2^47, 2^47-1])
//   Fp32,  Fp32 -> Fp32  (acc Fp32)
// Bias has OC elements or 1 (broadcast). Zero points must be 0 unless the type is Int8.
// ConvAttr: pad >= 0, stride and dilation >= 1; acc_type must match the input dtype.

// CONV2D: input [N,IH,IW,IC], weight [OC,KH,KW,IC], bias [OC] or [1] -> output [N,OH,OW,OC].
// The int16 one runs on the compute core's A16W8 convolution (cpu_fallback/compute/conv_s16.h),
// its GEMM-shaped path given conv2d_scratch_bytes() of scratch. The int8 one runs on the compute
// core's GEMM (cpu_fallback/compute/gemm_s8.h) given
// `resources`: scratch of conv2d_scratch_bytes() for the threads of `runner`, and optionally
// the weights packed once by conv2d_pack_weights() (for these weight and bias buffers; a packing
// of other buffers is ignored). Without enough scratch it runs the reference loops: same bytes.
// The int8 output stage that a CONV2D → RESCALE (→ CLAMP) chain's RESCALE is, exactly: scale32,
// every shift in [32, 62], multipliers >= 0, int32 sums (zero point 0) to signed int8, and either
// rounding (compute::RequantizeRow::single_round):
// - double rounding is the CMSIS-NN requantize (cortex-m-ops.md §3). TOSA's
//     (v·m + 2^(s−1) ± 2^30) >> s   (± by v's sign)
//   equals SRDHM(v, m) then a rounding divide by 2^(s−31) (half away from zero) for every int32 v
//   and m >= 0: both are floor((v·m + 2^30 + 2^(s−1) − [v·m < −2^30]·2^31) / 2^s).
// - single rounding (what ExecuTorch's Arm backend emits), (v·m + 2^(s−1)) >> s, is the compute
//   core's one-rounding stage with the same shift 31 − s, by its definition (requantize_row.h).
// So the GEMM writes the int8 outputs from its registers, as the cortex_m kernels do, with no
// int32 band and no second pass.
struct ConvRequantize {
  // What it was derived from: conv2d_rescale uses it only for these attributes.
  const RescaleAttr* rescale = nullptr;
  const ClampAttr* clamp = nullptr;
  std::vector<int32_t> multiplier;
  std::vector<int32_t> shift;  // CMSIS's: 31 − TOSA's shift, in [−31, −1]
  bool per_channel = false;
  int32_t output_offset = 0;  // the RESCALE's output zero point
  int32_t act_min = -128, act_max = 127;  // int8's range, narrowed by the CLAMP
  bool single_round = false;              // the RESCALE's rounding_mode is SINGLE_ROUND
};
// The form of `rescale` (and `clamp`, may be null) after an int8 CONV2D, or nothing where the
// RESCALE is not of that form or the CLAMP's range does not overlap int8's.
std::optional<ConvRequantize> conv_requantize(const RescaleAttr& rescale, const ClampAttr* clamp, DType output);

struct ConvResources {
  std::span<uint8_t> scratch;
  const void* packed_weights = nullptr;
  // conv2d_rescale only: the chain's RESCALE (and CLAMP) as conv_requantize gave them, the same
  // object conv2d_pack_weights packed the weights with.
  const ConvRequantize* requantize = nullptr;
};
Status check_conv2d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                    const ConvAttr& attrs, const TensorRef& output);
Status conv2d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
              const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner = nullptr,
              const ConvResources& resources = {});
// Scratch conv2d needs on `threads` threads (0: none, or operands check_conv2d refuses). The operands are checked as conv2d checks them; their data is not read.
size_t conv2d_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                            const ConvAttr& attrs, const TensorRef& output, int threads,
                            const void* packed_weights = nullptr);
// Bytes conv2d_pack_weights needs (0: nothing to pack: an ISA level with no packed form; fp32
// weights are transposed for the fp32 GEMM, int16 convolutions' (acc_type Int48) packed into
// int16 panels for the A16W8 convolution), and the packing into `memory`,
// which the caller keeps while it is used; null when there is nothing to pack or it does not
// fit. Weight and bias as checked by check_conv2d. With `requantize` (int8 only), the packing is
// for conv2d_rescale's output stage, and conv2d (int32 sums) ignores it.
size_t conv2d_packed_weights_bytes(const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                                   const ConvRequantize* requantize = nullptr);
const void* conv2d_pack_weights(const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                                std::span<uint8_t> memory, const ConvRequantize* requantize = nullptr);

// CONV2D, then RESCALE of its output `sums`, then (clamp_attrs not null) CLAMP of the rescaled
// tensor into `clamped`: the chain the VGF CPU executor fuses where nothing else reads `sums`
// or `rescaled`. Each op is checked as alone. Given conv2d_rescale_scratch_bytes of scratch, the
// int8 convolution writes the final tensor alone, and `sums` and, with a CLAMP, `rescaled` are
// not written: with resources.requantize (conv_requantize of these attributes) as one GEMM
// whose output stage is the requantize; otherwise in bands of output pixels, each rescaled (and
// clamped) while in cache. Without the scratch the three kernels run in turn. The final
// tensor's values are the same every way.
Status conv2d_rescale(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                      const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                      const TensorRef& rescaled, const ClampAttr* clamp_attrs, const TensorRef& clamped,
                      ParallelRunner* runner = nullptr, const ConvResources& resources = {});
size_t conv2d_rescale_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                    const ConvAttr& attrs, const TensorRef& sums, int threads,
                                    const void* packed_weights = nullptr,
                                    const ConvRequantize* requantize = nullptr);
// Whether conv2d_rescale, given conv2d_rescale_scratch_bytes of scratch and these resources
// (their scratch not read), runs fused: it then never writes `sums`, nor `rescaled` where a CLAMP
// follows, and the caller may give them no bytes (no data; the checks take a stand-in). A chain
// given them without bytes that cannot run fused after all reports an error and writes nothing.
// The same holds for the three chains below and their *_fuses. Operands' data are not read.
bool conv2d_rescale_fuses(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                          const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                          const TensorRef& rescaled, const ClampAttr* clamp_attrs, const TensorRef& clamped,
                          const ConvResources& resources = {});

// DEPTHWISE_CONV2D: input [N,IH,IW,C], weight [KH,KW,C,M], bias [C*M] or [1]
// -> output [N,OH,OW,C*M], output channel c*M + m. Same attributes as CONV2D.
Status check_depthwise_conv2d(const TensorRef& input, const TensorRef& weight,
                              const TensorRef& bias, const ConvAttr& attrs,
                              const TensorRef& output);
// The int8 one runs on the compute core's depthwise engine (cpu_fallback/compute/depthwise_s8.h;
// weight_zp 0; otherwise the reference loops); `scratch` of depthwise_conv2d_scratch_bytes() for
// the threads of `runner` lets it take its fastest path (AVX-512 VNNI). Same values either way.
// The int16 one runs on the compute core's A16W8 depthwise (cpu_fallback/compute/conv_s16.h).
Status depthwise_conv2d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                        const ConvAttr& attrs, const TensorRef& output,
                        ParallelRunner* runner = nullptr, std::span<uint8_t> scratch = {});
// Scratch depthwise_conv2d can use on `threads` threads (0: none; operands checked as
// depthwise_conv2d checks them, their data not read).
size_t depthwise_conv2d_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                      const ConvAttr& attrs, const TensorRef& output, int threads);

// DEPTHWISE_CONV2D -> RESCALE (-> CLAMP) as conv2d_rescale does it for CONV2D, given
// depthwise_conv2d_rescale_scratch_bytes of scratch: with `requantize` (conv_requantize of these
// attributes, per channel) the depthwise engine's own int8 output stage, otherwise bands of
// output rows rescaled while in cache; without the scratch the kernels in turn. The final
// tensor's values are the same every way.
Status depthwise_conv2d_rescale(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                                const TensorRef& rescaled, const ClampAttr* clamp_attrs, const TensorRef& clamped,
                                ParallelRunner* runner = nullptr, std::span<uint8_t> scratch = {},
                                const ConvRequantize* requantize = nullptr);
size_t depthwise_conv2d_rescale_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                              const ConvAttr& attrs, const TensorRef& sums, int threads,
                                              const ConvRequantize* requantize = nullptr);
bool depthwise_conv2d_rescale_fuses(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                    const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                                    const TensorRef& rescaled, const ClampAttr* clamp_attrs, const TensorRef& clamped,
                                    const ConvRequantize* requantize = nullptr);

// CONV2D or DEPTHWISE_CONV2D, then CLAMP of its output `sums` into `clamped`: the fp32 chain the
// VGF CPU executor fuses where nothing else reads `sums` (a ReLU6 after a float convolution).
// Each op is checked as alone. On the fp32 fast paths each band of output pixels is clamped as
// it is finished, into `clamped`, and `sums` is not written; otherwise (another dtype, CONV2D
// without conv2d_scratch_bytes of scratch) the two kernels run in turn. `clamped` may be `sums`.
Status conv2d_clamp(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                    const TensorRef& sums, const ClampAttr& clamp_attrs, const TensorRef& clamped,
                    ParallelRunner* runner = nullptr, const ConvResources& resources = {});
Status depthwise_conv2d_clamp(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                              const ConvAttr& attrs, const TensorRef& sums, const ClampAttr& clamp_attrs,
                              const TensorRef& clamped, ParallelRunner* runner = nullptr,
                              std::span<uint8_t> scratch = {});
// Whether the two run fused (see conv2d_rescale_fuses): conv2d_clamp given conv2d_scratch_bytes of
// scratch, depthwise_conv2d_clamp given depthwise_conv2d_scratch_bytes.
bool conv2d_clamp_fuses(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                        const TensorRef& sums, const ClampAttr& clamp_attrs, const TensorRef& clamped,
                        const ConvResources& resources = {});
bool depthwise_conv2d_clamp_fuses(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                  const ConvAttr& attrs, const TensorRef& sums, const ClampAttr& clamp_attrs,
                                  const TensorRef& clamped);

// CONV3D: input [N,ID,IH,IW,IC], weight [OC,KD,KH,KW,IC], bias [OC] or [1] -> [N,OD,OH,OW,OC];
// all six pads and three strides/dilations of ConvAttr.
Status check_conv3d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                    const ConvAttr& attrs, const TensorRef& output);
// Given conv3d_scratch_bytes of scratch, threads from `runner`: int8 on the compute core's int8
// GEMM (each output voxel's window gathered as its row, the padding at the input zero point);
// int16 and fp32 as CONV2D over depth-stacked channels (each output depth's KD input slices side
// by side). Otherwise the reference loops. The same int8 and int16 sums either way; fp32 differs
// by float rounding only.
Status conv3d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
              const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner = nullptr,
              std::span<uint8_t> scratch = {});
size_t conv3d_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                            const ConvAttr& attrs, const TensorRef& output, int threads);

// TRANSPOSE_CONV2D: input [N,IH,IW,IC], weight [OC,KH,KW,IC], bias [OC] or [1]
// -> output [N,(IH-1)*sy+pt+pb+KH, (IW-1)*sx+pl+pr+KW, OC]; each out_pad > -K of its axis.
Status check_transpose_conv2d(const TensorRef& input, const TensorRef& weight,
                              const TensorRef& bias, const TransposeConvAttr& attrs,
                              const TensorRef& output);
// int8 and fp32 on the compute core (compute/transpose_conv.h: the GEMM, then each product added
// into the output pixel its tap reaches) given transpose_conv2d_scratch_bytes of scratch, threads
// from `runner`; otherwise, and for int16, the reference loops. The same int8 sums either way; the
// fp32 ones differ by float rounding (the bias first, the taps in input order).
Status transpose_conv2d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                        const TransposeConvAttr& attrs, const TensorRef& output, ParallelRunner* runner = nullptr,
                        std::span<uint8_t> scratch = {});
size_t transpose_conv2d_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                      const TransposeConvAttr& attrs, const TensorRef& output, int threads);

// MATMUL: A [N,H,C], B [N,C,W] -> [N,H,W]. Int8xInt8 -> Int32, Int16xInt16 -> Int48, Fp32 -> Fp32.
// Int8 runs on the compute core's int8 GEMM (compute/gemm_s8.h: the zero points as its offsets,
// int32 sums wrapping as the definition's), each batch's B transposed into `scratch` first, given
// matmul_scratch_bytes of it (else the reference loops); fp32 on the fp32 GEMM (compute/gemm_f32.h,
// no scratch: each output one chain of fused multiply-adds in C order, where the reference
// loops round each product and sum apart: the two differ by float rounding only); int16 on the
// int16 GEMM (compute/gemm_s16.h: its panel path given matmul_scratch_bytes, else its int64
// loops). Threads from `runner`.
Status check_matmul(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs,
                    const TensorRef& output);
Status matmul(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs,
              const TensorRef& output, ParallelRunner* runner = nullptr, std::span<uint8_t> scratch = {});
// Scratch matmul takes on `threads` threads (0: none; operands checked as matmul checks them,
// their data not read).
size_t matmul_scratch_bytes(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs,
                            const TensorRef& output, int threads);

// ------------------------------------------------------------------------------------------
// Pooling (tosa.md §7). Input/output [N,H,W,C].

// PoolAttr: kernel and stride >= 1, 0 <= pad < kernel of its axis.
// AVG_POOL2D: Int8 -> Int8, Int16 -> Int16, Fp32 -> Fp32. Padding taps are excluded from the count.
// acc_type Int32 for integer inputs, Fp32 for Fp32; zero points Int8 only.
Status check_avg_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output);
Status avg_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output,
                  ParallelRunner* runner = nullptr);

// MAX_POOL2D: Int8, Int16, Fp32 (same in and out). Padding never wins.
Status check_max_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output);
Status max_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output,
                  ParallelRunner* runner = nullptr);

// ------------------------------------------------------------------------------------------
// Elementwise binary ops (tosa.md §9). Broadcast: equal ranks, each dim equal or 1; the output
// dims are the maxima. Both inputs have the same dtype.

enum class BinaryOp : uint32_t {
  Add,                   // Int32 (wraps), Fp32
  Sub,                   // Int32 (wraps), Fp32
  Maximum,               // Int8, Int16, Int32, Fp32 (nan_mode)
  Minimum,               // Int8, Int16, Int32, Fp32 (nan_mode)
  Pow,                   // Fp32
  IntDiv,                // Int32; division by 0 or INT32_MIN / -1 -> error at run time
  BitwiseAnd,            // Int8, Int16, Int32
  BitwiseOr,             // Int8, Int16, Int32
  BitwiseXor,            // Int8, Int16, Int32
  LogicalLeftShift,      // Int8, Int16, Int32; shift amount in [0, bits) else error
  LogicalRightShift,     // Int8, Int16, Int32; shift amount in [0, bits) else error
  ArithmeticRightShift,  // Int8, Int16, Int32; shift amount in [0, bits) else error; `round`
  LogicalAnd,            // Bool
  LogicalOr,             // Bool
  LogicalXor,            // Bool
};
const char* binary_op_name(BinaryOp op);  // "ADD", "SUB", ...

struct BinaryAttrs {
  NanMode nan_mode = NanMode::Propagate;  // MAXIMUM / MINIMUM with floats
  bool round = false;                     // ARITHMETIC_RIGHT_SHIFT
};
Status check_elementwise_binary(BinaryOp op, const TensorRef& input1, const TensorRef& input2,
                                const BinaryAttrs& attrs, const TensorRef& output);
Status elementwise_binary(BinaryOp op, const TensorRef& input1, const TensorRef& input2,
                          const BinaryAttrs& attrs, const TensorRef& output, ParallelRunner* runner = nullptr);

// A residual add as int8 graphs carry it: each int8 input RESCALEd to int32 (`a32`, `b32`),
// their ADD (`sum`), the sum RESCALEd to int8 (`rescaled`) and optionally CLAMPed (`clamped`):
// the chain the VGF CPU executor fuses where nothing else reads the int32 tensors or, with a
// CLAMP, `rescaled`. Each op is checked as alone. With `plan` (plan_residual_add of these
// attributes) and operands of one shape, one pass writes the final tensor from the int8 inputs
// (compute/residual_add_s8.h) and the other tensors are not written; otherwise the ops run in
// turn. The final tensor's values are the same either way.
struct ResidualAdd {
  // What it was planned from: rescale_add_rescale uses it only with these attributes.
  const RescaleAttr* rescale_a = nullptr;
  const RescaleAttr* rescale_b = nullptr;
  const RescaleAttr* rescale_out = nullptr;
  const ClampAttr* clamp = nullptr;
  // The input RESCALEs, found affine over every int8 value v: rescale_a(v) = a_mult·v + a_bias.
  int32_t a_mult = 0, a_bias = 0, b_mult = 0, b_bias = 0;
  // The output range: int8's, narrowed by the CLAMP.
  int32_t lo = -128, hi = 127;
};
// The plan, or nothing where the chain is not that form: input RESCALEs from signed int8 that
// are not affine (per-channel scales, rounding that depends on the value) or whose sum could
// leave int32, an output RESCALE to int8 that is per-channel, scale16 or shifts by less than 32,
// a CLAMP disjoint from int8's range.
std::optional<ResidualAdd> plan_residual_add(const RescaleAttr& rescale_a, const RescaleAttr& rescale_b,
                                             const RescaleAttr& rescale_out, const ClampAttr* clamp);
Status rescale_add_rescale(const TensorRef& a, const RescaleAttr& rescale_a, const TensorRef& a32,
                           const TensorRef& b, const RescaleAttr& rescale_b, const TensorRef& b32,
                           const TensorRef& sum, const RescaleAttr& rescale_out, const TensorRef& rescaled,
                           const ClampAttr* clamp_attrs, const TensorRef& clamped, ParallelRunner* runner = nullptr,
                           const ResidualAdd* plan = nullptr);

// MUL: Int8xInt8 -> Int32, Int16xInt16 -> Int32, Int32xInt32 -> Int32 (with shift, §9), Fp32.
Status check_mul(const TensorRef& input1, const TensorRef& input2, const MulAttr& attrs,
                 const TensorRef& output);
Status mul(const TensorRef& input1, const TensorRef& input2, const MulAttr& attrs,
           const TensorRef& output);

enum class CompareOp : uint32_t { Equal, Greater, GreaterEqual };
const char* compare_op_name(CompareOp op);
// EQUAL / GREATER / GREATER_EQUAL: Int8, Int16, Int32, Fp32 (both inputs alike) -> Bool, broadcast.
Status check_compare(CompareOp op, const TensorRef& input1, const TensorRef& input2,
                     const TensorRef& output);
Status compare(CompareOp op, const TensorRef& input1, const TensorRef& input2,
               const TensorRef& output);

// SELECT: cond Bool, on_true/on_false same dtype (any supported dtype) -> that dtype; broadcast.
Status check_select(const TensorRef& cond, const TensorRef& on_true, const TensorRef& on_false,
                    const TensorRef& output);
Status select(const TensorRef& cond, const TensorRef& on_true, const TensorRef& on_false,
              const TensorRef& output);

// ------------------------------------------------------------------------------------------
// Elementwise unary ops (tosa.md §9, §12). Output shape and dtype equal the input's.

enum class UnaryOp : uint32_t {
  Abs,         // Int8, Int16, Int32 (ABS(INT_MIN) saturates), Fp32
  BitwiseNot,  // Int8, Int16, Int32
  Ceil,        // Fp32
  Clz,         // Int32 (CLZ(0) = 32)
  Cos,         // Fp32
  Exp,         // Fp32
  Floor,       // Fp32
  Log,         // Fp32
  LogicalNot,  // Bool
  Reciprocal,  // Fp32
  Rsqrt,       // Fp32
  Sin,         // Fp32
  Erf,         // Fp32
  Sigmoid,     // Fp32 (integer networks use TABLE)
  Tanh,        // Fp32 (integer networks use TABLE)
};
const char* unary_op_name(UnaryOp op);
Status check_elementwise_unary(UnaryOp op, const TensorRef& input, const TensorRef& output);
Status elementwise_unary(UnaryOp op, const TensorRef& input, const TensorRef& output);

// NEGATE: Int8 (with zero points, saturating), Int16, Int32 (saturating), Fp32.
Status check_negate(const TensorRef& input, const NegateAttr& attrs, const TensorRef& output);
Status negate(const TensorRef& input, const NegateAttr& attrs, const TensorRef& output);

// CLAMP: Int8, Int16, Int32, Fp32 (same in and out). ERROR_IF max < min.
Status check_clamp(const TensorRef& input, const ClampAttr& attrs, const TensorRef& output);
Status clamp(const TensorRef& input, const ClampAttr& attrs, const TensorRef& output);

// ------------------------------------------------------------------------------------------
// RESCALE (tosa.md §5).

// RESCALE: input Int8, Int16, Int32, Int48 -> output Int8, Int16, Int32 (same shape); each shift
// in [2, 62].
// INEXACT_ROUND is computed as SINGLE_ROUND (as Arm's emulation layer does, tosa.md §5).
Status check_rescale(const TensorRef& input, const RescaleAttr& attrs, const TensorRef& output);
Status rescale(const TensorRef& input, const RescaleAttr& attrs, const TensorRef& output,
               ParallelRunner* runner = nullptr);

// ------------------------------------------------------------------------------------------
// TABLE (tosa.md §8): Int8 input + table Int8[256] -> Int8;
// Int16 input + table Int16[513] -> Int32 (interpolated, 16.7 fixed point).
Status check_table(const TensorRef& input, const TensorRef& table, const TensorRef& output);
Status table(const TensorRef& input, const TensorRef& table, const TensorRef& output);

// ------------------------------------------------------------------------------------------
// Data movement (tosa.md §10). Any dtype with a nonzero dtype_size(); output dtype = input dtype.

// CONCAT: inputs of equal rank and dtype, dims equal except `axis`.
Status check_concat(std::span<const TensorRef> inputs, const AxisAttr& attrs, const TensorRef& output);
Status concat(std::span<const TensorRef> inputs, const AxisAttr& attrs, const TensorRef& output);

// PAD (PadAttr, vocabulary.h): 2 * rank padding values >= 0; pad_const_int is the raw value for
// integer types (Bool: nonzero = true; Fp16/Bf16: the 16-bit pattern), pad_const_fp for Fp32.
Status check_pad(const TensorRef& input, const PadAttr& attrs, const TensorRef& output);
Status pad(const TensorRef& input, const PadAttr& attrs, const TensorRef& output);

// RESHAPE: the output's shape is the new shape; element counts must match.
Status check_reshape(const TensorRef& input, const TensorRef& output);
Status reshape(const TensorRef& input, const TensorRef& output);

// SLICE (SliceAttr): `start` per dim; the size is the output shape (`size` is not read).
Status check_slice(const TensorRef& input, const SliceAttr& attrs, const TensorRef& output);
Status slice(const TensorRef& input, const SliceAttr& attrs, const TensorRef& output);

// TILE (TileAttr): multiples per dim, >= 1; output dim = input dim * multiple.
Status check_tile(const TensorRef& input, const TileAttr& attrs, const TensorRef& output);
Status tile(const TensorRef& input, const TileAttr& attrs, const TensorRef& output);

// TRANSPOSE (TransposeAttr): output dim d = input dim perms[d]; a permutation of [0, rank).
Status check_transpose(const TensorRef& input, const TransposeAttr& attrs, const TensorRef& output);
Status transpose(const TensorRef& input, const TransposeAttr& attrs, const TensorRef& output);

Status check_reverse(const TensorRef& input, const AxisAttr& attrs, const TensorRef& output);
Status reverse(const TensorRef& input, const AxisAttr& attrs, const TensorRef& output);

// GATHER: values [N,K,C] (Int8, Int16, Int32, Fp32), indices Int32 [N,W] -> [N,W,C].
// An index outside [0, K) returns InvalidArgument (the output is then partially written).
Status check_gather(const TensorRef& values, const TensorRef& indices, const TensorRef& output);
Status gather(const TensorRef& values, const TensorRef& indices, const TensorRef& output);

// SCATTER: values_in [N,K,C], indices Int32 [N,W], input [N,W,C] -> output [N,K,C] (dtype of
// values_in): a copy of values_in with rows idx[n,w] replaced by input[n,w]. An index outside
// [0, K) returns InvalidArgument. TOSA REQUIREs each row to be written at most once; when a
// graph breaks that, the last write (highest w) wins.
Status check_scatter(const TensorRef& values_in, const TensorRef& indices, const TensorRef& input,
                     const TensorRef& output);
Status scatter(const TensorRef& values_in, const TensorRef& indices, const TensorRef& input,
               const TensorRef& output);

// ------------------------------------------------------------------------------------------
// RESIZE (tosa.md §11): input/output [N,H,W,C].
// NEAREST: Int8 -> Int8, Int16 -> Int16, Fp32 -> Fp32.
// BILINEAR: Int8 -> Int32, Int16 -> Int48 (scaled by y_n*x_n), Fp32 -> Fp32.

Status check_resize(const TensorRef& input, const ResizeAttr& attrs, const TensorRef& output);
Status resize(const TensorRef& input, const ResizeAttr& attrs, const TensorRef& output);

// ------------------------------------------------------------------------------------------
// CAST (tosa.md §12) between Bool, Int8, Int16, Int32, Fp32, Fp16, Bf16 (same shape).
// int narrowing wraps; float -> int saturates and rounds to nearest even; NaN -> 0.
Status check_cast(const TensorRef& input, const TensorRef& output);
Status cast(const TensorRef& input, const TensorRef& output);

// ------------------------------------------------------------------------------------------
// Reductions (tosa.md §12).

// ARGMAX: Int8, Int16, Int32, Fp32 -> Int32; output shape = input shape without `axis`.
// The first occurrence of the maximum wins.
Status check_argmax(const TensorRef& input, const ArgmaxAttr& attrs, const TensorRef& output);
Status argmax(const TensorRef& input, const ArgmaxAttr& attrs, const TensorRef& output);

enum class ReduceOp : uint32_t {
  All,      // Bool
  Any,      // Bool
  Max,      // Int8, Int16, Int32, Fp32
  Min,      // Int8, Int16, Int32, Fp32
  Product,  // Fp32
  Sum,      // Int32 (wraps), Fp32
};
const char* reduce_op_name(ReduceOp op);
// REDUCE_*: output shape = input shape with dim `axis` set to 1; dtype unchanged.
Status check_reduce(ReduceOp op, const TensorRef& input, const AxisAttr& attrs,
                    const TensorRef& output);
Status reduce(ReduceOp op, const TensorRef& input, const AxisAttr& attrs, const TensorRef& output);

// ------------------------------------------------------------------------------------------
// FFT2D, RFFT2D (TOSA 1.0 EXT-FFT; the spec's FFT2D.tosac / RFFT2D.tosac). Fp32 only.
// Unnormalised 2D DFTs over the last two dims of [N,H,W]; H and W must be powers of two
// (ERROR_IF) and at most 8192 (MAX_KERNEL of level 8K). Output (oy, ox) =
//   sum over (iy, ix) of x[iy,ix] * exp(-sign * 2*pi*i * ((iy*oy mod H)/H + (ix*ox mod W)/W)),
// sign = +1 forward, -1 inverse. Computed as that direct sum (no fast transform), in double,
// with exact twiddles at the quarter turns; it is separable, so one output row costs
// O(H*W + W*W) and an image O(H*W*(H+W)). Unlike the other kernels these two allocate a
// scratch of max(H,W) + W complex doubles (at most 256 KiB); if that fails they return
// MemoryAllocationFailed.

// Attributes: FftAttr (vocabulary.h), shared with the graph IR.
// FFT2D: input_real, input_imag [N,H,W] -> output_real, output_imag [N,H,W].
Status check_fft2d(const TensorRef& input_real, const TensorRef& input_imag, const FftAttr& attrs,
                   const TensorRef& output_real, const TensorRef& output_imag);
Status fft2d(const TensorRef& input_real, const TensorRef& input_imag, const FftAttr& attrs,
             const TensorRef& output_real, const TensorRef& output_imag, ParallelRunner* runner = nullptr);

// RFFT2D: input_real [N,H,W] -> output_real, output_imag [N,H,W/2+1]: the forward FFT2D of a real
// input, first W/2+1 columns. The imaginary outputs at (0 or H/2, 0 or W/2) are exactly 0.
Status check_rfft2d(const TensorRef& input_real, const FftAttr& attrs, const TensorRef& output_real,
                    const TensorRef& output_imag);
Status rfft2d(const TensorRef& input_real, const FftAttr& attrs, const TensorRef& output_real,
              const TensorRef& output_imag, ParallelRunner* runner = nullptr);

// The twiddle table both kernels and the Vulkan shader (shaders/glsl/fft2d.comp) use:
// cos_sin[2k] = cos(2*pi*k/size), cos_sin[2k+1] = sin(2*pi*k/size) for 0 <= k < size, computed
// in double and rounded once to fp32. For an [N,H,W] transform size = max(H, W): the angle of
// (ay, ax) is entry (ay*(size/H) + ax*(size/W)) mod size. InvalidArgument unless size is a power
// of two <= 8192 and cos_sin holds 2*size floats.
Status fft2d_twiddles(int64_t size, std::span<float> cos_sin);

}  // namespace vkrt::tosa

# Every embedded shader variant: vkrt_shader(<name> <source> DEFINES...). The executor picks
# variants by name (vgf/vulkan/op_lowering.cpp); names are <op>_<input type>[_<output type>].
# A .comp not listed here or in variants_fast.cmake is built once, without defines, under the
# name of its file (fft2d.comp -> "fft2d": FFT2D and RFFT2D, fp32 only).

# Convolutions and matmul: raw int32 accumulator, or fused RESCALE(+CLAMP) to int8/int16.
foreach(op conv2d depthwise_conv2d matmul)
  vkrt_shader(${op}_i8_i32 ${op}.comp IN_T=int8_t W_T=int8_t OUT_T=int)
  vkrt_shader(${op}_i8_i8 ${op}.comp IN_T=int8_t W_T=int8_t OUT_T=int8_t)
  vkrt_shader(${op}_i8_i16 ${op}.comp IN_T=int8_t W_T=int8_t OUT_T=int16_t)
  vkrt_shader(${op}_f32 ${op}.comp IN_T=float W_T=float OUT_T=float FLOAT_PATH=1)
endforeach()
# int8 depthwise with M == 1 and C % 4 == 0: four channels per invocation (depthwise_conv2d.comp).
foreach(out i32 i8 i16)
  set(out_t_i32 int)
  set(out_t_i8 int8_t)
  set(out_t_i16 int16_t)
  vkrt_shader(depthwise_conv2d_c4_i8_${out} depthwise_conv2d.comp IN_T=int8_t W_T=int8_t OUT_T=${out_t_${out}} CHANNELS4=1)
endforeach()
vkrt_shader(matmul_f16 matmul.comp IN_T=float16_t W_T=float16_t OUT_T=float16_t FLOAT_PATH=1 HALF_STORAGE=1)

# Elementwise binary (same type in and out), MUL widening int8/int16 -> int32, comparisons.
vkrt_shader(binary_i8 binary.comp IN_T=int8_t OUT_T=int8_t BITS=8)
vkrt_shader(binary_i16 binary.comp IN_T=int16_t OUT_T=int16_t BITS=16)
vkrt_shader(binary_i32 binary.comp IN_T=int OUT_T=int BITS=32)
vkrt_shader(binary_f32 binary.comp IN_T=float OUT_T=float FLOAT_PATH=1)
vkrt_shader(binary_i8_i32 binary.comp IN_T=int8_t OUT_T=int BITS=8)
vkrt_shader(binary_i16_i32 binary.comp IN_T=int16_t OUT_T=int BITS=16)
vkrt_shader(compare_i8 binary.comp IN_T=int8_t OUT_T=int8_t BITS=8 COMPARE_OUT=1)
vkrt_shader(compare_i16 binary.comp IN_T=int16_t OUT_T=int8_t BITS=16 COMPARE_OUT=1)
vkrt_shader(compare_i32 binary.comp IN_T=int OUT_T=int8_t BITS=32 COMPARE_OUT=1)
vkrt_shader(compare_f32 binary.comp IN_T=float OUT_T=int8_t FLOAT_PATH=1 COMPARE_OUT=1)

# Elementwise unary (CLAMP included).
vkrt_shader(unary_i8 unary.comp IN_T=int8_t)
vkrt_shader(unary_i16 unary.comp IN_T=int16_t)
vkrt_shader(unary_i32 unary.comp IN_T=int)
vkrt_shader(unary_f32 unary.comp IN_T=float FLOAT_PATH=1)

# RESCALE for every int8/int16/int32 input/output pair.
foreach(in i8 i16 i32)
  foreach(out i8 i16 i32)
    set(types_i8 int8_t)
    set(types_i16 int16_t)
    set(types_i32 int)
    set(bits_i8 8)
    set(bits_i16 16)
    set(bits_i32 32)
    vkrt_shader(rescale_${in}_${out} rescale.comp IN_T=${types_${in}} OUT_T=${types_${out}} IN_BITS=${bits_${in}})
  endforeach()
endforeach()

vkrt_shader(pool2d_i8 pool2d.comp IN_T=int8_t)
vkrt_shader(pool2d_i16 pool2d.comp IN_T=int16_t)
vkrt_shader(pool2d_f32 pool2d.comp IN_T=float FLOAT_PATH=1)

vkrt_shader(table_i8 table.comp TABLE_I8=1)
vkrt_shader(table_i16 table.comp TABLE_I16=1)

# Data movement by element size.
vkrt_shader(copy_nd_8 copy_nd.comp ELEM_T=uint8_t)
vkrt_shader(copy_nd_16 copy_nd.comp ELEM_T=uint16_t)
vkrt_shader(copy_nd_32 copy_nd.comp ELEM_T=uint)
vkrt_shader(copy_nd_64 copy_nd.comp ELEM_T=uvec2)
vkrt_shader(gather_nd_8 gather_nd.comp ELEM_T=uint8_t)
vkrt_shader(gather_nd_16 gather_nd.comp ELEM_T=uint16_t)
vkrt_shader(gather_nd_32 gather_nd.comp ELEM_T=uint)
vkrt_shader(gather_nd_64 gather_nd.comp ELEM_T=uvec2 ELEM_IS_UVEC2=1)

# Reductions and ARGMAX.
vkrt_shader(reduce_i8 reduce.comp IN_T=int8_t)
vkrt_shader(reduce_i16 reduce.comp IN_T=int16_t)
vkrt_shader(reduce_i32 reduce.comp IN_T=int)
vkrt_shader(reduce_f32 reduce.comp IN_T=float FLOAT_PATH=1)
vkrt_shader(argmax_i8 reduce.comp IN_T=int8_t ARGMAX_OUT=1)
vkrt_shader(argmax_i16 reduce.comp IN_T=int16_t ARGMAX_OUT=1)
vkrt_shader(argmax_i32 reduce.comp IN_T=int ARGMAX_OUT=1)
vkrt_shader(argmax_f32 reduce.comp IN_T=float FLOAT_PATH=1 ARGMAX_OUT=1)

# SELECT and GATHER by element size.
vkrt_shader(select_8 select.comp ELEM_T=uint8_t)
vkrt_shader(select_16 select.comp ELEM_T=uint16_t)
vkrt_shader(select_32 select.comp ELEM_T=uint)
vkrt_shader(gather_8 gather.comp ELEM_T=uint8_t)
vkrt_shader(gather_16 gather.comp ELEM_T=uint16_t)
vkrt_shader(gather_32 gather.comp ELEM_T=uint)

# CAST between bool/int8/int16/int32/fp32 (bool uses the int8 variants with out_bool).
foreach(in i8 i16 i32 f32)
  foreach(out i8 i16 i32 f32)
    if(NOT in STREQUAL out)
      set(t_i8 int8_t)
      set(t_i16 int16_t)
      set(t_i32 int)
      set(t_f32 float)
      set(b_i8 8)
      set(b_i16 16)
      set(b_i32 32)
      set(b_f32 32)
      set(extra)
      if(in STREQUAL f32)
        list(APPEND extra IN_FLOAT=1)
      endif()
      if(out STREQUAL f32)
        list(APPEND extra OUT_FLOAT=1)
      endif()
      vkrt_shader(cast_${in}_${out} cast.comp IN_T=${t_${in}} OUT_T=${t_${out}} OUT_BITS=${b_${out}} ${extra})
    endif()
  endforeach()
endforeach()
vkrt_shader(cast_i8_i8 cast.comp IN_T=int8_t OUT_T=int8_t OUT_BITS=8)

# --- RESIZE, TRANSPOSE_CONV2D, int16 conv, SCATTER, CAST ---
# RESIZE: NEAREST keeps the type; integer BILINEAR widens (int8 -> int32, int16 -> int48 in int64).
vkrt_shader(resize_i8 resize.comp IN_T=int8_t OUT_T=int8_t)
vkrt_shader(resize_i8_i32 resize.comp IN_T=int8_t OUT_T=int)
vkrt_shader(resize_i16 resize.comp IN_T=int16_t OUT_T=int16_t)
vkrt_shader(resize_i16_i48 resize.comp IN_T=int16_t OUT_T=int OUT_I48=1)
vkrt_shader(resize_f32 resize.comp IN_T=float OUT_T=float FLOAT_PATH=1)
# TRANSPOSE_CONV2D: int8 -> int32 raw or with the fused RESCALE epilogue (conv2d.comp's), fp32;
# int16 x int8 -> int48 (int64 accumulator, needs shaderInt64).
vkrt_shader(transpose_conv2d_i8_i32 transpose_conv2d.comp IN_T=int8_t W_T=int8_t OUT_T=int)
vkrt_shader(transpose_conv2d_i8_i8 transpose_conv2d.comp IN_T=int8_t W_T=int8_t OUT_T=int8_t)
vkrt_shader(transpose_conv2d_i8_i16 transpose_conv2d.comp IN_T=int8_t W_T=int8_t OUT_T=int16_t)
vkrt_shader(transpose_conv2d_f32 transpose_conv2d.comp IN_T=float W_T=float OUT_T=float FLOAT_PATH=1)
vkrt_shader(transpose_conv2d_i16_i48 transpose_conv2d.comp IN_T=int16_t W_T=int8_t OUT_T=int64_t ACC_I48=1)
# int16 activations x int8 weights -> int48 (CONV2D, DEPTHWISE_CONV2D; TRANSPOSE_CONV2D above);
# MATMUL int16 x int16 -> int48.
vkrt_shader(conv2d_i16_i48 conv_i48.comp)
vkrt_shader(depthwise_conv2d_i16_i48 conv_i48.comp DEPTHWISE=1)
vkrt_shader(matmul_i16_i48 matmul_i48.comp)
# ... with the following RESCALE (apply_scale_16) fused, to int8 or int16.
foreach(out i8 i16)
  set(out_t int8_t)
  if(out STREQUAL "i16")
    set(out_t int16_t)
  endif()
  vkrt_shader(conv2d_i16_${out} conv_i48.comp FUSED_RESCALE=1 OUT_T=${out_t})
  vkrt_shader(depthwise_conv2d_i16_${out} conv_i48.comp DEPTHWISE=1 FUSED_RESCALE=1 OUT_T=${out_t})
  vkrt_shader(matmul_i16_${out} matmul_i48.comp FUSED_RESCALE=1 OUT_T=${out_t})
  vkrt_shader(transpose_conv2d_i16_${out} transpose_conv2d.comp IN_T=int16_t W_T=int8_t OUT_T=${out_t}
              ACC_I48=1 FUSED_RESCALE=1)
endforeach()
# SCATTER by element size.
vkrt_shader(scatter_8 scatter.comp ELEM_T=uint8_t)
vkrt_shader(scatter_16 scatter.comp ELEM_T=uint16_t)
vkrt_shader(scatter_32 scatter.comp ELEM_T=uint)
# CAST to/from fp16 (stored as uint16; bool uses the i8 variants with out_bool).
foreach(t i8 i16 i32 f32)
  set(t_i8 int8_t)
  set(t_i16 int16_t)
  set(t_i32 int)
  set(t_f32 float)
  set(b_i8 8)
  set(b_i16 16)
  set(b_i32 32)
  set(b_f32 32)
  set(in_extra)
  set(out_extra)
  if(t STREQUAL f32)
    set(in_extra IN_FLOAT=1)
    set(out_extra OUT_FLOAT=1)
  endif()
  vkrt_shader(cast_f16_${t} cast_f16.comp IN_T=uint16_t OUT_T=${t_${t}} OUT_BITS=${b_${t}} IN_HALF=1 ${out_extra})
  vkrt_shader(cast_${t}_f16 cast_f16.comp IN_T=${t_${t}} OUT_T=uint16_t OUT_HALF=1 ${in_extra})
endforeach()
# RESCALE of an int48 input (int16 convolutions' accumulators), apply_scale_16 on int64.
vkrt_shader(rescale_i48_i8 rescale_i48.comp OUT_T=int8_t)
vkrt_shader(rescale_i48_i16 rescale_i48.comp OUT_T=int16_t)
vkrt_shader(rescale_i48_i32 rescale_i48.comp OUT_T=int)

# Fast shader variants chosen by device feature (docs/vulkan-executor.md "Fast variants");
# vgf/vulkan/variant_select.cpp picks them, the portable variants in variants.cmake stay the
# fallback. Names: <op>_dot_<in>_<out> (packed int8 dot products, OpSDotKHR through
# GL_EXT_spirv_intrinsics since glslang 12 lacks GL_EXT_integer_dot_product).
set(vkrt_dot_out_names i32 i8 i16)
set(vkrt_dot_out_types int int8_t int16_t)
foreach(out_name out_type IN ZIP_LISTS vkrt_dot_out_names vkrt_dot_out_types)
  vkrt_shader(conv2d_dot_i8_${out_name} conv2d_dot.comp OUT_T=${out_type})
  vkrt_shader(conv2d_1x1_dot_i8_${out_name} conv2d_dot.comp OUT_T=${out_type} POINTWISE=1)
  vkrt_shader(matmul_dot_i8_${out_name} matmul_dot.comp OUT_T=${out_type})
endforeach()

# int8 MATMUL on NV cooperative matrices (GL_NV_cooperative_matrix + GL_NV_integer_cooperative_matrix;
# glslang 12 cannot emit the KHR form). Untested on a real device: opt-in only (variant_select.h).
foreach(out_name out_type IN ZIP_LISTS vkrt_dot_out_names vkrt_dot_out_types)
  vkrt_shader(matmul_coopmat_i8_${out_name} matmul_coopmat.comp OUT_T=${out_type})
endforeach()

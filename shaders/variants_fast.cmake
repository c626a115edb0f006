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

# MATMUL on KHR cooperative matrices (matmul_coopmat.comp), int8 and fp16, and int8 CONV2D 1x1
# (stride 1, no padding: the same GEMM) one variant per matrix
# shape: 8x8x8 on 8-lane subgroups (lavapipe, Mesa 26) and the 16-row shapes on 32-lane
# subgroups (NVIDIA: int8 16x16x32, fp16 16x16x16; vulkan.md §2). Built only where glslang knows
# GL_KHR_cooperative_matrix and spirv-val knows SPV_KHR_cooperative_matrix (glslang >= 14;
# Debian bookworm's 12 does not: scripts/coopmat-toolchain.sh fetches newer tools for a build
# that has them). VKRT_HAVE_COOPMAT_SHADERS tells the tests whether they exist.
set(vkrt_probe_dir ${CMAKE_CURRENT_BINARY_DIR}/coopmat_probe)
file(WRITE ${vkrt_probe_dir}/probe.comp [=[
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { int data[]; };
void main() {
  coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> c = coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(1);
  coopMatStore(c, data, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
]=])
execute_process(
  COMMAND ${VKRT_GLSLANG_VALIDATOR} -V --quiet --target-env ${VKRT_SHADER_ENV} -o ${vkrt_probe_dir}/probe.spv ${vkrt_probe_dir}/probe.comp
  RESULT_VARIABLE vkrt_probe_glslang OUTPUT_QUIET ERROR_QUIET)
set(vkrt_probe_val 1)
if(vkrt_probe_glslang EQUAL 0)
  execute_process(COMMAND ${VKRT_SPIRV_VAL} --target-env ${VKRT_SHADER_ENV} ${vkrt_probe_dir}/probe.spv
                  RESULT_VARIABLE vkrt_probe_val OUTPUT_QUIET ERROR_QUIET)
endif()
if(vkrt_probe_glslang EQUAL 0 AND vkrt_probe_val EQUAL 0)
  set(VKRT_HAVE_COOPMAT_SHADERS ON CACHE INTERNAL "")
  message(STATUS "vkrt: cooperative-matrix shaders: built (glslang knows GL_KHR_cooperative_matrix)")
  # One variant per layout <suffix>: the matrix shape (8 = 8x8x8 on 8-lane subgroups, 16 = the
  # 16-row shapes on 32-lane subgroups), SG_ROWS x SG_COLS subgroups each owning WM x WN tiles of
  # the output block, KSUB matrix steps per staged K block, VEC words per staged chunk. The plain
  # layouts are 64-invocation workgroups on 64x64 (32x32) blocks; the "w" layouts are wide
  # (256 invocations, 128x128 / 64x64 blocks), chosen for GEMMs that fill 256 of them. Tuning
  # candidates, which only VKRT_VULKAN_COOPMAT picks: "b" (128-row blocks, 64 invocations), "x"
  # (128x128 on 128 invocations, 64x64 per subgroup), "y" (128x128 on 256, 32x64 per subgroup),
  # "z" (128x256 on 256, 64x64 per subgroup, one matrix step per K block to fit 48 KiB).
  # variant_select.cpp's table mirrors these.
  set(vkrt_cm_layouts 8 8b 8w 16 16b 16w 16x 16y 16z)
  set(vkrt_cm_defs_8 TM=8 TN=8 SUBGROUP=8 SG_ROWS=4 SG_COLS=2 WM=1 WN=2 KSUB=2 VEC=2)
  set(vkrt_cm_defs_8b TM=8 TN=8 SUBGROUP=8 SG_ROWS=4 SG_COLS=2 WM=4 WN=2 KSUB=1 VEC=2)
  set(vkrt_cm_defs_8w TM=8 TN=8 SUBGROUP=8 SG_ROWS=4 SG_COLS=8 WM=2 WN=1 KSUB=2 VEC=2)
  set(vkrt_cm_defs_16 TM=16 TN=16 SUBGROUP=32 SG_ROWS=2 SG_COLS=1 WM=2 WN=4 KSUB=2 VEC=4)
  set(vkrt_cm_defs_16b TM=16 TN=16 SUBGROUP=32 SG_ROWS=2 SG_COLS=1 WM=4 WN=4 KSUB=1 VEC=4)
  set(vkrt_cm_defs_16w TM=16 TN=16 SUBGROUP=32 SG_ROWS=2 SG_COLS=4 WM=4 WN=2 KSUB=2 VEC=4)
  set(vkrt_cm_defs_16x TM=16 TN=16 SUBGROUP=32 SG_ROWS=2 SG_COLS=2 WM=4 WN=4 KSUB=2 VEC=4)
  set(vkrt_cm_defs_16y TM=16 TN=16 SUBGROUP=32 SG_ROWS=4 SG_COLS=2 WM=2 WN=4 KSUB=2 VEC=4)
  set(vkrt_cm_defs_16z TM=16 TN=16 SUBGROUP=32 SG_ROWS=2 SG_COLS=4 WM=4 WN=4 KSUB=1 VEC=4)
  foreach(layout IN LISTS vkrt_cm_layouts)
    string(REGEX MATCH "^[0-9]+" family ${layout})
    if(family STREQUAL "8")
      set(tk_i8 8)
      set(tk_f16 8)
    else()
      set(tk_i8 32)
      set(tk_f16 16)
    endif()
    foreach(out_name out_type IN ZIP_LISTS vkrt_dot_out_names vkrt_dot_out_types)
      vkrt_shader(matmul_coopmat${layout}_i8_${out_name} matmul_coopmat.comp IN_T=int8_t OUT_T=${out_type}
                  TK=${tk_i8} ${vkrt_cm_defs_${layout}})
      vkrt_shader(conv2d_1x1_coopmat${layout}_i8_${out_name} matmul_coopmat.comp IN_T=int8_t OUT_T=${out_type}
                  CONV1X1=1 TK=${tk_i8} ${vkrt_cm_defs_${layout}})
    endforeach()
    vkrt_shader(matmul_coopmat${layout}_f16 matmul_coopmat.comp IN_T=float16_t OUT_T=float16_t FLOAT_PATH=1
                HALF_STORAGE=1 TK=${tk_f16} ${vkrt_cm_defs_${layout}})
  endforeach()
else()
  set(VKRT_HAVE_COOPMAT_SHADERS OFF CACHE INTERNAL "")
  list(APPEND vkrt_shader_sources matmul_coopmat.comp)  # not a default variant either (CMakeLists.txt)
  message(STATUS "vkrt: cooperative-matrix shaders: not built (${VKRT_GLSLANG_VALIDATOR} or "
                 "${VKRT_SPIRV_VAL} lacks GL_KHR_cooperative_matrix; see scripts/coopmat-toolchain.sh)")
endif()

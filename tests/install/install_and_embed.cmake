# Installs vkrt from the build tree into a scratch prefix, builds examples/embedding against the
# installed package with find_package(vkrt), and runs it on a generated sample program.
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, SAMPLE_TOOL.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embedding -B ${WORK_DIR}/app -G Ninja
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/app)
run(${SAMPLE_TOOL} ${WORK_DIR}/samples)
# add_mul.pte computes x * 2 + y; with every input 1 that is 3.
run(${WORK_DIR}/app/embed_app ${WORK_DIR}/samples/add_mul.pte 1)
if(NOT last_output MATCHES "method: forward" OR NOT last_output MATCHES "output 0: tensor\\(sizes=\\[2, 3\\], \\[3\\., 3\\., 3\\., 3\\., 3\\., 3\\.\\]\\)")
  message(FATAL_ERROR "unexpected output from embed_app:\n${last_output}")
endif()
message(STATUS "embed_app output:\n${last_output}")
# The VGF API (vkrt/vgf.h) from the installed package: a bare VGF run by a session and by the
# program to_pte wraps it in, with the same outputs.
if(EXISTS ${WORK_DIR}/samples/small_cnn_int8.vgf)
  run(${WORK_DIR}/app/embed_app ${WORK_DIR}/samples/small_cnn_int8.vgf)
  if(NOT last_output MATCHES "segment 'graph_segment_0' \\(GRAPH\\): (cpu|vulkan)" OR
     NOT last_output MATCHES "VGF outputs agree: session and wrapped program")
    message(FATAL_ERROR "unexpected output from embed_app on a VGF:\n${last_output}")
  endif()
  message(STATUS "embed_app output (VGF):\n${last_output}")
endif()

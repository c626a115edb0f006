# Installs the libraries, public headers and a CMake package so applications can
#   find_package(vkrt REQUIRED)
#   target_link_libraries(app PRIVATE vkrt::vkrt)
# vkrt::vkrt is the runtime plus every kernel library and backend that was built, linked whole
# so their self-registration runs.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(vkrt_component_libraries)
foreach(lib vkrt_pte_writer vkrt_vgf_to_pte vkrt_compute vkrt_arith vkrt_portable vkrt_cortex_m vkrt_tosa_kernels vkrt_vgf vkrt_vgf_backend
            vkrt_vgf_vulkan vkrt_vulkan_cache_file vkrt_shaders vkrt_ethosu)
  if(TARGET ${lib})
    list(APPEND vkrt_component_libraries ${lib})
  endif()
endforeach()

# Component libraries point their include paths into the source tree; those paths are for the
# build only (installed applications include the public headers under include/vkrt).
foreach(lib ${vkrt_component_libraries})
  get_target_property(dirs ${lib} INTERFACE_INCLUDE_DIRECTORIES)
  if(dirs)
    set(wrapped)
    foreach(dir ${dirs})
      if(dir MATCHES "^\\$<")
        list(APPEND wrapped "${dir}")
      else()
        list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
      endif()
    endforeach()
    set_target_properties(${lib} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${wrapped}")
  endif()
endforeach()

add_library(vkrt INTERFACE)
target_link_libraries(vkrt INTERFACE vkrt_runtime)
# Only the libraries with kernel or backend registrars are linked whole (as executor_runner does);
# the others come in through their users' normal link dependencies.
set(vkrt_registering_libraries vkrt_portable vkrt_cortex_m vkrt_vgf_backend vkrt_vgf_vulkan vkrt_ethosu)
foreach(lib ${vkrt_component_libraries})
  if(lib IN_LIST vkrt_registering_libraries)
    # Exported link items keep their spelling, so the installed package names the namespaced target.
    target_link_libraries(vkrt INTERFACE "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,${lib}>>"
                                         "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,vkrt::${lib}>>")
  else()
    target_link_libraries(vkrt INTERFACE ${lib})
  endif()
endforeach()
add_library(vkrt::vkrt ALIAS vkrt)

install(TARGETS vkrt vkrt_runtime ${vkrt_component_libraries}
  EXPORT vkrtTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY runtime/include/vkrt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT vkrtTargets NAMESPACE vkrt:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vkrt)

# The Vulkan executor links glslang and SPIRV-Tools statically (fused elementwise chains are
# compiled at init): a static vkrt_vgf_vulkan carries them in its link interface.
if(TARGET vkrt_vgf_vulkan)
  set(VKRT_CONFIG_NEEDS_GLSLANG ON)
else()
  set(VKRT_CONFIG_NEEDS_GLSLANG OFF)
endif()
configure_package_config_file(cmake/vkrtConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/vkrtConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vkrt)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/vkrtConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/vkrtConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/vkrtConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vkrt)

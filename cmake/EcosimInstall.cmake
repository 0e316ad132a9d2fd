# Installing ecosim: `cmake --install build --prefix P` puts the headers in P/include/ecosim/<module>/, the
# libraries in P/lib, the ecosim executable in P/bin, and ecosimConfig.cmake, ecosimConfigVersion.cmake and
# the exported targets (ecosim::<module>) in P/lib/cmake/ecosim/, for find_package(ecosim) (README.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ECOSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ecosim)
# Installed binaries keep the run path of libraries outside the system folders (the CUDA runtime).
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)

# ecosim_module_library(<module>): makes the library ecosim_<module> (already added) a module of the package:
# the alias ecosim::<module> (the name in-tree and installed alike), the public include folder (the module's
# include/ here, P/include once installed, holding include/ecosim/<module>/), the usage requirements a
# project outside needs, and the install rules.
function(ecosim_module_library module)
  set(target ecosim_${module})
  add_library(ecosim::${module} ALIAS ${target})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
  target_compile_features(${target} PUBLIC cxx_std_20)  # the public headers are C++20
  if(ECOSIM_SANITIZE)  # sanitized objects need the sanitizer runtime wherever the library is linked
    target_link_options(${target} INTERFACE -fsanitize=${ECOSIM_SANITIZE})
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${module})
  install(TARGETS ${target} EXPORT ecosimTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# ecosim_install_package(): the exported targets file and the package configuration, once every module has
# called ecosim_module_library.
function(ecosim_install_package)
  install(EXPORT ecosimTargets NAMESPACE ecosim:: FILE ecosimTargets.cmake DESTINATION ${ECOSIM_INSTALL_CMAKEDIR})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ecosimConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/ecosimConfig.cmake
                                INSTALL_DESTINATION ${ECOSIM_INSTALL_CMAKEDIR})
  # 0.x: a minor version may break the interface.
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/ecosimConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/ecosimConfig.cmake ${PROJECT_BINARY_DIR}/ecosimConfigVersion.cmake
          DESTINATION ${ECOSIM_INSTALL_CMAKEDIR})
endfunction()

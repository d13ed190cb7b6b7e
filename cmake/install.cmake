# Install rules: headers, library, CLI, CMake package and pkg-config file.
include(CMakePackageConfigHelpers)

set(RINGBLOOM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ringbloom)

# The tour's headers stay out: the tour is `ringbloom demo`, not library API.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ringbloom TYPE INCLUDE PATTERN tour EXCLUDE)
install(TARGETS ringbloom EXPORT ringbloom-targets)
if(RINGBLOOM_BUILD_CLI)
  install(TARGETS ringbloom_cli)
endif()
install(EXPORT ringbloom-targets NAMESPACE ringbloom:: DESTINATION ${RINGBLOOM_CMAKE_DIR})

# A static library carries yaml-cpp as a link dependency of its consumers
# ($<LINK_ONLY:yaml-cpp> in the exported target): the package config finds it.
if(TARGET yaml-cpp AND NOT BUILD_SHARED_LIBS)
  set(RINGBLOOM_STATIC_WITH_YAML TRUE)
else()
  set(RINGBLOOM_STATIC_WITH_YAML FALSE)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ringbloom-config.cmake.in
                              ${PROJECT_BINARY_DIR}/ringbloom-config.cmake
                              INSTALL_DESTINATION ${RINGBLOOM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ringbloom-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ringbloom-config.cmake
              ${PROJECT_BINARY_DIR}/ringbloom-config-version.cmake
        DESTINATION ${RINGBLOOM_CMAKE_DIR})

# A static library needs libcrypto at the consumer's link; a shared one only
# when the consumer itself links statically.
if(BUILD_SHARED_LIBS)
  set(RINGBLOOM_PC_REQUIRES "Requires.private")
else()
  set(RINGBLOOM_PC_REQUIRES "Requires")
endif()
# The .pc file finds its prefix relative to where it is installed.
set(RINGBLOOM_PC_DEPENDENCIES libcrypto)
if(TARGET yaml-cpp)
  string(APPEND RINGBLOOM_PC_DEPENDENCIES ", yaml-cpp")
endif()
file(RELATIVE_PATH RINGBLOOM_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ringbloom.pc.in ${PROJECT_BINARY_DIR}/ringbloom.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ringbloom.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

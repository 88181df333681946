# `cmake --install`: the embedding headers, the static libraries, dice-node,
# and a package config so that find_package(dice) gives dice::embed. These
# rules are the component dev, the Debian package dice-dev
# (cmake/dice_package.cmake).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DICE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dice)
install(TARGETS dice_wire dice_core dice_actors dice_embed
        EXPORT dice-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY include/dice DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(EXPORT dice-targets NAMESPACE dice:: DESTINATION ${DICE_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(cmake/dice-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/dice-config.cmake
  INSTALL_DESTINATION ${DICE_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/dice-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/dice-config.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/dice-config-version.cmake
              cmake/FindCAF.cmake
        DESTINATION ${DICE_CMAKE_DIR} COMPONENT dev)

# Debian packages, built by `cmake --build build --target package_deb`
# (CPack, DEB generator, one package per component) into build/packages/:
#   dice      (component node): dice-node, dice, dice-sim (stripped), their
#             man pages (help2man, from each program's --help),
#             /etc/dice/dice-node.conf (from dice-node --help), the systemd
#             units dice-node.service and dice-node@.service, and the
#             maintainer scripts that create the dice user and /var/lib/dice.
#   dice-dev  (component dev): what cmake/dice_install.cmake installs, the
#             embedding headers, static libraries and find_package(dice).
# The node component's install rules are EXCLUDE_FROM_ALL: a plain
# `cmake --install` is unchanged (it writes nothing to /etc or /lib).
# Needs help2man and dpkg-dev (dpkg-shlibdeps); without them the
# package_deb target is left out. cpack itself works too, once the files it
# packs are built: cmake --build build --target dice_package_files
# dice_embed, then cd build && cpack -G DEB.
include(GNUInstallDirs)

set(DICE_DEB_RELEASE 1)
set(DICE_DEB_VERSION ${PROJECT_VERSION}-${DICE_DEB_RELEASE})
execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE DICE_DEB_ARCH
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
# The packages' paths (tests/package checks them).
set(DICE_DEB_MAIN ${PROJECT_BINARY_DIR}/packages/dice_${DICE_DEB_VERSION}_${DICE_DEB_ARCH}.deb)
set(DICE_DEB_DEV ${PROJECT_BINARY_DIR}/packages/dice-dev_${DICE_DEB_VERSION}_${DICE_DEB_ARCH}.deb)

find_program(DICE_HELP2MAN help2man)
find_program(DICE_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_package(Python3 COMPONENTS Interpreter QUIET)
if(NOT DICE_HELP2MAN OR NOT DICE_DPKG_SHLIBDEPS OR NOT Python3_Interpreter_FOUND)
  message(STATUS "help2man, dpkg-shlibdeps or python3 not found: no package_deb target "
                 "(scripts/setup --tests installs them)")
  return()
endif()

set(DICE_PACKAGE_MAINTAINER
  "Seed c5de6147 maintainers <maintainers@users.noreply.a-seed-c5de6147.example>"
  CACHE STRING "Maintainer field of the Debian packages (NAME <EMAIL>)")
set(dice_pkg_src ${PROJECT_SOURCE_DIR}/packaging)
set(dice_pkg_out ${PROJECT_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${dice_pkg_out})

# What the package builds from the programs: man pages and the config file,
# made again whenever a program (its --help) changes.
set(dice_man_pages)
foreach(prog dice-node dice dice-sim)
  if(prog STREQUAL "dice-node")
    set(what "one member of a DiCE cluster (broker-less replicated task queue)")
  elseif(prog STREQUAL "dice")
    set(what "use a DiCE cluster through one node's HTTP API")
  else()
    set(what "a seeded, deterministic simulation of a whole DiCE cluster")
  endif()
  add_custom_command(
    OUTPUT ${dice_pkg_out}/${prog}.1.gz
    COMMAND ${DICE_HELP2MAN} --no-info --no-discard-stderr
            --version-string=${PROJECT_VERSION} --section=1
            --name=${what} --output=${dice_pkg_out}/${prog}.1
            $<TARGET_FILE:${prog}>
    COMMAND gzip -9nf ${dice_pkg_out}/${prog}.1
    DEPENDS ${prog}
    COMMENT "Man page of ${prog} (help2man)"
    VERBATIM)
  list(APPEND dice_man_pages ${dice_pkg_out}/${prog}.1.gz)
endforeach()

add_custom_command(
  OUTPUT ${dice_pkg_out}/dice-node.conf
  COMMAND ${Python3_EXECUTABLE} ${dice_pkg_src}/make_conf.py
          $<TARGET_FILE:dice-node> ${dice_pkg_out}/dice-node.conf
  DEPENDS dice-node ${dice_pkg_src}/make_conf.py
          ${PROJECT_SOURCE_DIR}/scripts/options_reference.py
  COMMENT "/etc/dice/dice-node.conf from dice-node --help"
  VERBATIM)

configure_file(${dice_pkg_src}/changelog.in ${dice_pkg_out}/changelog.Debian @ONLY)
add_custom_command(
  OUTPUT ${dice_pkg_out}/changelog.Debian.gz
  COMMAND gzip -9nkf ${dice_pkg_out}/changelog.Debian
  DEPENDS ${dice_pkg_out}/changelog.Debian
  VERBATIM)

foreach(pkg dice dice-dev)
  set(PACKAGE ${pkg})
  file(MAKE_DIRECTORY ${dice_pkg_out}/overrides-${pkg})
  configure_file(${dice_pkg_src}/lintian-overrides ${dice_pkg_out}/overrides-${pkg}/${pkg} @ONLY)
endforeach()

add_custom_target(dice_package_files
  DEPENDS ${dice_man_pages} ${dice_pkg_out}/dice-node.conf
          ${dice_pkg_out}/changelog.Debian.gz)

# The package's files. The programs' own install rules (apps/) are in the
# default component, which no package takes, so they are named again here.
install(TARGETS dice-node dice dice-sim
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        COMPONENT node EXCLUDE_FROM_ALL)
install(FILES ${dice_man_pages}
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        COMPONENT node EXCLUDE_FROM_ALL)
install(FILES ${dice_pkg_out}/dice-node.conf
        DESTINATION /etc/dice
        COMPONENT node EXCLUDE_FROM_ALL)
install(FILES ${dice_pkg_src}/dice-node.service ${dice_pkg_src}/dice-node@.service
        DESTINATION /lib/systemd/system
        COMPONENT node EXCLUDE_FROM_ALL)
install(FILES ${dice_pkg_src}/copyright ${dice_pkg_out}/changelog.Debian.gz
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/dice
        COMPONENT node EXCLUDE_FROM_ALL)
install(FILES ${PROJECT_SOURCE_DIR}/apps/configs/lan-node.ini
              ${PROJECT_SOURCE_DIR}/apps/configs/local-node1.ini
              ${PROJECT_SOURCE_DIR}/apps/configs/local-node2.ini
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/dice/examples
        COMPONENT node EXCLUDE_FROM_ALL)
install(FILES ${dice_pkg_src}/copyright ${dice_pkg_out}/changelog.Debian.gz
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/dice-dev
        COMPONENT dev EXCLUDE_FROM_ALL)
install(FILES ${dice_pkg_out}/overrides-dice/dice
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides
        COMPONENT node EXCLUDE_FROM_ALL)
install(FILES ${dice_pkg_out}/overrides-dice-dev/dice-dev
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides
        COMPONENT dev EXCLUDE_FROM_ALL)
# What Debian's own packages strip beyond CPack's `strip` of the programs
# (only when the install strips: CPACK_STRIP_FILES, cmake --install
# --strip): the programs' .comment and .note sections, and the static
# libraries' debug sections (600 MB with them).
set(dice_strip_more [[
  if(CMAKE_INSTALL_DO_STRIP)
    foreach(f IN ITEMS @dice_strip_files@)
      set(f "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${f}")
      set(more)
      if(f MATCHES "[.]a$")
        set(more --strip-debug --enable-deterministic-archives)
      endif()
      execute_process(COMMAND "@CMAKE_STRIP@" ${more} --remove-section=.comment
                              --remove-section=.note "${f}"
                      RESULT_VARIABLE failed)
      if(failed)
        message(FATAL_ERROR "could not strip ${f}")
      endif()
    endforeach()
  endif()
]])
set(dice_strip_files)
foreach(prog dice-node dice dice-sim)
  list(APPEND dice_strip_files ${CMAKE_INSTALL_BINDIR}/${prog})
endforeach()
string(CONFIGURE "${dice_strip_more}" dice_strip_node @ONLY)
install(CODE "${dice_strip_node}" COMPONENT node EXCLUDE_FROM_ALL)
set(dice_strip_files)
foreach(lib dice_wire dice_core dice_actors dice_embed)
  list(APPEND dice_strip_files ${CMAKE_INSTALL_LIBDIR}/lib${lib}.a)
endforeach()
string(CONFIGURE "${dice_strip_more}" dice_strip_dev @ONLY)
install(CODE "${dice_strip_dev}" COMPONENT dev EXCLUDE_FROM_ALL)

set(CPACK_PACKAGE_NAME dice)
set(CPACK_PACKAGE_VENDOR "DiCE")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${DICE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_COMPONENTS_ALL node dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${DICE_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${DICE_DEB_ARCH})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${DICE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

set(CPACK_DEBIAN_NODE_PACKAGE_NAME dice)
set(CPACK_DEBIAN_NODE_PACKAGE_SECTION net)
set(CPACK_DEBIAN_NODE_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_NODE_PACKAGE_DEPENDS "adduser")
set(CPACK_COMPONENT_NODE_DESCRIPTION
"broker-less replicated task queue for a LAN
DiCE runs work on clusters of devices that come and go. Every node keeps a
replica of the whole queue, nodes talk by UDP broadcast or multicast, any
node can submit work and any node can run it.

This package holds the node (dice-node) and its systemd units
(dice-node.service, and dice-node@.service for several nodes on one host),
the command line client (dice) and the cluster simulator (dice-sim).")
set(CPACK_DEBIAN_NODE_PACKAGE_CONTROL_EXTRA
  ${dice_pkg_src}/debian/conffiles
  ${dice_pkg_src}/debian/postinst
  ${dice_pkg_src}/debian/prerm
  ${dice_pkg_src}/debian/postrm)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME dice-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "libcaf-dev, libprotobuf-dev, libssl-dev, zlib1g-dev, libarchive-dev, libexpat1-dev, nlohmann-json3-dev, libspdlog-dev, prometheus-cpp-dev, libcpp-httplib-dev, pkg-config")
set(CPACK_COMPONENT_DEV_DESCRIPTION
"broker-less replicated task queue (embedding files)
DiCE runs work on clusters of devices that come and go. Every node keeps a
replica of the whole queue, nodes talk by UDP broadcast or multicast, any
node can submit work and any node can run it.

This package holds what a C++ program needs to run a DiCE node inside
itself with its own task kinds: the headers, the static libraries and the
CMake package config (find_package(dice), target dice::embed).")

# cpack first builds the target preinstall, which depends on every target
# (tests and benchmarks included) unless this is set; package_deb depends
# on exactly what the packages hold instead. It also means `make install`
# no longer builds everything first (cmake --install never did).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
include(CPack)

# cmake --build build --target package_deb: the programs, the libraries
# dice-dev holds and the generated files, then both packages, made again
# only when one of them (or the packaging) changed.
set(dice_pkg_inputs
  ${dice_pkg_out}/dice-node.conf ${dice_man_pages} ${dice_pkg_out}/changelog.Debian.gz
  ${PROJECT_BINARY_DIR}/CPackConfig.cmake ${PROJECT_SOURCE_DIR}/cmake/dice_install.cmake
  ${dice_pkg_src}/dice-node.service ${dice_pkg_src}/dice-node@.service
  ${dice_pkg_src}/copyright ${dice_pkg_src}/lintian-overrides ${dice_pkg_src}/debian/conffiles ${dice_pkg_src}/debian/postinst
  ${dice_pkg_src}/debian/prerm ${dice_pkg_src}/debian/postrm
  ${PROJECT_SOURCE_DIR}/apps/configs/lan-node.ini
  ${PROJECT_SOURCE_DIR}/apps/configs/local-node1.ini
  ${PROJECT_SOURCE_DIR}/apps/configs/local-node2.ini)
file(GLOB dice_pkg_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/dice/*)
add_custom_command(
  OUTPUT ${DICE_DEB_MAIN} ${DICE_DEB_DEV}
  COMMAND ${CMAKE_COMMAND} -E rm -f ${DICE_DEB_MAIN} ${DICE_DEB_DEV}
  COMMAND ${CMAKE_CPACK_COMMAND} -G DEB --config ${PROJECT_BINARY_DIR}/CPackConfig.cmake
  DEPENDS dice-node dice dice-sim dice_wire dice_core dice_actors dice_embed
          ${dice_pkg_inputs} ${dice_pkg_headers}
  WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
  COMMENT "Debian packages into ${PROJECT_BINARY_DIR}/packages"
  VERBATIM)
add_custom_target(package_deb DEPENDS ${DICE_DEB_MAIN} ${DICE_DEB_DEV})

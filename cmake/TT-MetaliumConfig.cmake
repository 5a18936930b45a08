# find_package(TT-Metalium) from a TileKit install: TileKit's emulator as the SDK's targets, so a
# tt-metal program's own CMakeLists.txt builds against it unmodified (docs/sdk_examples.md):
#   TT::Metalium  the emulator library and its SDK-mirror headers (tt-metalium/..., kernel API)
#   TT::STL       tt_stl (TT_FATAL, TT_THROW, TT_ASSERT) with Debian's libfmt
# Kernel paths a program gives relative to its source tree resolve through $TT_METAL_KERNEL_PATH
# (or $TT_METAL_HOME), docs/emulator.md.
include(CMakeFindDependencyMacro)
find_dependency(TileKit CONFIG PATHS "${CMAKE_CURRENT_LIST_DIR}/../TileKit" NO_DEFAULT_PATH)
find_dependency(fmt)
if(NOT TARGET TT::STL)
  add_library(TT::STL INTERFACE IMPORTED)
  # tt_stl/ sits with the SDK-mirror headers of TileKit::emulator.
  get_target_property(_tt_metalium_includes TileKit::emulator INTERFACE_INCLUDE_DIRECTORIES)
  set_target_properties(TT::STL PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_tt_metalium_includes}"
                                           INTERFACE_LINK_LIBRARIES fmt::fmt)
endif()
if(NOT TARGET TT::Metalium)
  add_library(TT::Metalium INTERFACE IMPORTED)
  set_target_properties(TT::Metalium PROPERTIES INTERFACE_LINK_LIBRARIES "TileKit::emulator;TT::STL")
endif()
set(TT-Metalium_FOUND TRUE)

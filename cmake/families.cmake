# The library's families as CMake targets (docs/development.md, "Build
# targets"), and the check that their links follow the dependency rule.
#
#   ringbloom_add_family(NAME SOURCES... [USES FAMILY...])
#     the object library ringbloom_NAME of SOURCES, linking (publicly) the
#     object libraries of the families it may use; recorded, in order, in the
#     global property RINGBLOOM_FAMILIES.
#
#   ringbloom_check_family_links([LIBRARIES LIB...])
#     for each recorded family, the shared library ringbloom_NAME_links of its
#     objects and those of every family it uses (directly or through
#     another), linked with undefined symbols refused (-z defs) against LIBRARIES
#     only (the outside libraries, e.g. OpenSSL): a family calling a function
#     of a family it may not use fails to link, naming the symbol. The object
#     libraries must be position-independent (they are).
#
# cmake/test-family-links.cmake proves that the check can fail.

function(ringbloom_add_family name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "USES")
  add_library(ringbloom_${name} OBJECT ${arg_UNPARSED_ARGUMENTS})
  set_target_properties(ringbloom_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set(closure "")
  foreach(used IN LISTS arg_USES)
    target_link_libraries(ringbloom_${name} PUBLIC ringbloom_${used})
    get_property(used_closure GLOBAL PROPERTY RINGBLOOM_FAMILY_USES_${used})
    list(APPEND closure ${used} ${used_closure})
  endforeach()
  list(REMOVE_DUPLICATES closure)
  set_property(GLOBAL PROPERTY RINGBLOOM_FAMILY_USES_${name} ${closure})
  set_property(GLOBAL APPEND PROPERTY RINGBLOOM_FAMILIES ${name})
endfunction()

function(ringbloom_check_family_links)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "LIBRARIES")
  get_property(families GLOBAL PROPERTY RINGBLOOM_FAMILIES)
  foreach(family IN LISTS families)
    get_property(closure GLOBAL PROPERTY RINGBLOOM_FAMILY_USES_${family})
    set(objects $<TARGET_OBJECTS:ringbloom_${family}>)
    foreach(used IN LISTS closure)
      list(APPEND objects $<TARGET_OBJECTS:ringbloom_${used}>)
    endforeach()
    add_library(ringbloom_${family}_links SHARED ${objects})
    set_target_properties(ringbloom_${family}_links PROPERTIES LINKER_LANGUAGE CXX)
    target_link_options(ringbloom_${family}_links PRIVATE LINKER:-z,defs)
    target_link_libraries(ringbloom_${family}_links PRIVATE ${arg_LIBRARIES})
  endforeach()
endfunction()

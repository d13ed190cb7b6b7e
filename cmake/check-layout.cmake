# The family dependency rule (docs/development.md), checked on every build:
#   cmake -DROOT=<source dir> -P cmake/check-layout.cmake
#
# A family's files (include/ringbloom/<family>/, src/<family>/, tests/<family>/,
# bench/<family>/, fuzz/<family>/, cli/<family>/) may include, of the library's
# headers, only the shared top-level ones (hash, error, version), their own
# family's, and the families listed for it below. The shared top-level headers
# and sources include no family at all. The umbrella header, the CLI's shared
# files and the top-level redis/ and python/ folders may use everything.
#
# To add a family: create its folders and add a line here.
set(ringbloom_family_uses_io "")
set(ringbloom_family_uses_placement io)
set(ringbloom_family_uses_filter io)
set(ringbloom_family_uses_sketch io)
set(ringbloom_family_uses_quantile io)
set(ringbloom_family_uses_merkle io placement)
set(ringbloom_family_uses_tour io placement filter sketch quantile merkle)

cmake_minimum_required(VERSION 3.25)

if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -P check-layout.cmake")
endif()

set(families io placement filter sketch quantile merkle tour)
set(violations "")

# Appends to `violations` every include of `file` naming a family outside
# `allowed`.
function(check_file file allowed)
  file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]ringbloom/[a-z_]+/")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "ringbloom/([a-z_]+)/" _ "${line}")
    set(used ${CMAKE_MATCH_1})
    if(NOT used IN_LIST allowed)
      file(RELATIVE_PATH shown ${ROOT} ${file})
      string(STRIP "${line}" line)
      list(APPEND violations "${shown}: ${line} (family '${used}' is not allowed here)")
    endif()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

foreach(family IN LISTS families)
  set(allowed ${family} ${ringbloom_family_uses_${family}})
  foreach(top include/ringbloom src tests bench fuzz cli)
    file(GLOB_RECURSE files ${ROOT}/${top}/${family}/*.hpp ${ROOT}/${top}/${family}/*.cpp
         ${ROOT}/${top}/${family}/*.h ${ROOT}/${top}/${family}/*.cc)
    foreach(file IN LISTS files)
      check_file(${file} "${allowed}")
    endforeach()
  endforeach()
endforeach()

# The shared pieces at the top depend on no family.
file(GLOB shared ${ROOT}/include/ringbloom/*.hpp ${ROOT}/src/*.cpp ${ROOT}/src/*.hpp)
list(FILTER shared EXCLUDE REGEX "/ringbloom\\.hpp$")
foreach(file IN LISTS shared)
  check_file(${file} "")
endforeach()

if(violations)
  list(JOIN violations "\n  " shown)
  message(FATAL_ERROR
          "ringbloom: a family includes a header it may not use (docs/development.md, "
          "'Dependency rule'):\n  ${shown}\nMove the shared piece to io/ or the top level, "
          "or add the dependency to cmake/check-layout.cmake if it is intended.")
endif()

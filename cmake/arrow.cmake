# Apache Arrow C++ and Parquet C++ for the Delta writer (storage/delta/, docs/delta.md).
# Defines the targets ocppgw::arrow and ocppgw::parquet.
# 1. An installed Arrow (Apache's libarrow-dev / libparquet-dev, or a build of Arrow) found by
#    find_package(Arrow) and find_package(Parquet): the production route.
# 2. Otherwise the C++ libraries of the pinned PyPI pyarrow wheel that scripts/arrow.sh
#    (called by scripts/setup.sh) unpacks into .cache/arrow/pyarrow-<version>. The wheel is
#    built with the C++11 ABI, so g++ links it; its library folder goes on the RPATH of every
#    binary that links it, so they run from the build tree without LD_LIBRARY_PATH.
# Neither: the configure step stops and says to run scripts/setup.sh.
file(READ ${CMAKE_CURRENT_LIST_DIR}/pyarrow.version OCPPGW_PYARROW_VERSION)
string(STRIP "${OCPPGW_PYARROW_VERSION}" OCPPGW_PYARROW_VERSION)

find_package(Arrow CONFIG QUIET)
find_package(Parquet CONFIG QUIET)
if(Arrow_FOUND AND Parquet_FOUND)
  add_library(ocppgw::arrow INTERFACE IMPORTED)
  target_link_libraries(ocppgw::arrow INTERFACE Arrow::arrow_shared)
  add_library(ocppgw::parquet INTERFACE IMPORTED)
  target_link_libraries(ocppgw::parquet INTERFACE Parquet::parquet_shared)
  message(STATUS "Arrow ${Arrow_VERSION} and Parquet: installed (find_package)")
  return()
endif()

set(OCPPGW_PYARROW_DIR ${PROJECT_SOURCE_DIR}/.cache/arrow/pyarrow-${OCPPGW_PYARROW_VERSION}
    CACHE PATH "Arrow/Parquet C++ unpacked from the pyarrow wheel by scripts/arrow.sh")
find_path(OCPPGW_ARROW_INCLUDE_DIR arrow/api.h PATHS ${OCPPGW_PYARROW_DIR}/include NO_DEFAULT_PATH)
find_library(OCPPGW_ARROW_LIBRARY arrow PATHS ${OCPPGW_PYARROW_DIR}/lib NO_DEFAULT_PATH)
find_library(OCPPGW_PARQUET_LIBRARY parquet PATHS ${OCPPGW_PYARROW_DIR}/lib NO_DEFAULT_PATH)
if(NOT OCPPGW_ARROW_INCLUDE_DIR OR NOT OCPPGW_ARROW_LIBRARY OR NOT OCPPGW_PARQUET_LIBRARY)
  message(FATAL_ERROR "Arrow/Parquet C++ not found: neither installed (find_package) nor in "
                      "${OCPPGW_PYARROW_DIR}. Run scripts/setup.sh (it calls scripts/arrow.sh).")
endif()

foreach(lib arrow parquet)
  string(TOUPPER ${lib} LIB)
  add_library(ocppgw::${lib} SHARED IMPORTED)
  set_target_properties(ocppgw::${lib} PROPERTIES
    IMPORTED_LOCATION ${OCPPGW_${LIB}_LIBRARY}
    IMPORTED_NO_SONAME FALSE)
  # SYSTEM: Arrow's headers are not ours to warn about.
  target_include_directories(ocppgw::${lib} SYSTEM INTERFACE ${OCPPGW_ARROW_INCLUDE_DIR})
endforeach()
target_link_libraries(ocppgw::parquet INTERFACE ocppgw::arrow)
# The wheel's libparquet carries a static OpenSSL (3.5) and exports all of it, unversioned.
# Loaded before the system's libssl/libcrypto it wins the symbol lookup, and Debian's libssl
# 3.0 then runs on the wheel's libcrypto: another version's internals, outside Debian's
# security updates. So every binary names the system OpenSSL first, ahead of its objects and
# libraries (CMake's own ordering puts it after Arrow), and binds to it alone
# (TlsContext.OpenSslIsTheSystemOne checks it).
add_link_options("LINKER:--push-state,--no-as-needed" ${OPENSSL_SSL_LIBRARY}
                 ${OPENSSL_CRYPTO_LIBRARY} "LINKER:--pop-state")
# The build tree gets the RPATH from the imported location; an installed binary needs it too.
list(APPEND CMAKE_INSTALL_RPATH ${OCPPGW_PYARROW_DIR}/lib)
message(STATUS "Arrow and Parquet ${OCPPGW_PYARROW_VERSION}: pyarrow wheel in ${OCPPGW_PYARROW_DIR}")

# find_package(tributary): the library (tributary::tributary) and its public headers
# (include/tributary/). Installed by `cmake --install`; see README.md, "The library".
include(CMakeFindDependencyMacro)
find_dependency(Threads)
find_dependency(nlohmann_json)
find_dependency(absl)
find_dependency(ZLIB)
find_dependency(CURL)
find_dependency(OpenSSL)
include("${CMAKE_CURRENT_LIST_DIR}/tributaryTargets.cmake")

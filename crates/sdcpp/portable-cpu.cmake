# CMake toolchain file for the stable-diffusion.cpp build (diffusion-rs-sys), which, unlike
# llama-cpp-sys-2, does not forward GGML_* environment variables to CMake. `.cargo/config.toml`
# points CMAKE_TOOLCHAIN_FILE_x86_64_unknown_linux_gnu here; the cmake crate passes it on.
#
# The same portable x86-64 set as the llama build: AVX2/FMA/F16C/BMI2, never GGML_NATIVE (which
# probes the build machine and can enable AVX-512/AMX kernels that a virtual CPU advertises but
# refuses at run time). Cache entries without FORCE: a build that passes -DGGML_*=... itself (as
# llama-cpp-sys-2 does) keeps its own values.
set(GGML_NATIVE OFF CACHE BOOL "ggml: optimize the build for the current system")
set(GGML_SSE42 ON CACHE BOOL "ggml: enable SSE 4.2")
set(GGML_AVX ON CACHE BOOL "ggml: enable AVX")
set(GGML_AVX2 ON CACHE BOOL "ggml: enable AVX2")
set(GGML_FMA ON CACHE BOOL "ggml: enable FMA")
set(GGML_F16C ON CACHE BOOL "ggml: enable F16C")
set(GGML_BMI2 ON CACHE BOOL "ggml: enable BMI2")

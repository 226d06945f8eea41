# The platforms mcpcore is packaged for (sourced by scripts/dist.sh and scripts/install-test-cross.sh).
#
#   target_vars TRIPLE   sets, for one Rust target triple:
#     zig_target   what scripts/dist/zigcc links for (glibc 2.17 = manylinux2014; musl; macOS 11/10.12)
#     linker       the C compiler and linker: scripts/dist/zigcc, or for Windows mingw-w64's gcc
#                  (Debian's mingw-w64, the linker rustc's windows-gnu target is made for)
#     wheel_tag    the platform tag of the abi3 wheel (maturin --compatibility where it is Linux)
#     npm_name     the napi-rs platform name: npm package mcpcore-<npm_name>, file mcpcore.<npm_name>.node
#     npm_os npm_cpu npm_libc   its package.json os/cpu/libc (libc empty off Linux)
#     jna_dir      JNA's resource folder for the jar's native library (empty: not in the jar; JNA
#                  has no musl folder, and its linux-* folders are loaded on glibc)
#     lib_file     the file name of the uniffi cdylib as cargo writes it
#     exe          the CLI's suffix (.exe on Windows)
#     rustflags    per-target RUSTFLAGS for every build of that target (musl: a dynamic C runtime,
#                  which cdylibs need; the CLI alone is linked with +crt-static, so it is static)
#     desc         the platform in words, for READMEs and messages
ALL_TARGETS=(
  x86_64-unknown-linux-gnu
  aarch64-unknown-linux-gnu
  x86_64-unknown-linux-musl
  aarch64-unknown-linux-musl
  x86_64-pc-windows-gnu
  aarch64-apple-darwin
  x86_64-apple-darwin
)

target_vars() {
  linker=scripts/dist/zigcc zig_target="" wheel_tag="" npm_name="" npm_os="" npm_cpu="" npm_libc="" jna_dir="" lib_file="" exe="" rustflags="" desc=""
  case "$1" in
    x86_64-unknown-linux-gnu)
      zig_target=x86_64-linux-gnu.2.17 wheel_tag=manylinux2014 npm_name=linux-x64-gnu npm_os=linux npm_cpu=x64 npm_libc=glibc
      jna_dir=linux-x86-64 lib_file=libmcpcore_uniffi.so desc="x86_64 Linux (glibc >= 2.17)" ;;
    aarch64-unknown-linux-gnu)
      zig_target=aarch64-linux-gnu.2.17 wheel_tag=manylinux2014 npm_name=linux-arm64-gnu npm_os=linux npm_cpu=arm64 npm_libc=glibc
      jna_dir=linux-aarch64 lib_file=libmcpcore_uniffi.so desc="arm64 Linux (glibc >= 2.17)" ;;
    x86_64-unknown-linux-musl)
      zig_target=x86_64-linux-musl wheel_tag=musllinux_1_2 npm_name=linux-x64-musl npm_os=linux npm_cpu=x64 npm_libc=musl
      lib_file=libmcpcore_uniffi.so rustflags="-C target-feature=-crt-static" desc="x86_64 Linux with musl (Alpine)" ;;
    aarch64-unknown-linux-musl)
      zig_target=aarch64-linux-musl wheel_tag=musllinux_1_2 npm_name=linux-arm64-musl npm_os=linux npm_cpu=arm64 npm_libc=musl
      lib_file=libmcpcore_uniffi.so rustflags="-C target-feature=-crt-static" desc="arm64 Linux with musl (Alpine)" ;;
    x86_64-pc-windows-gnu)
      linker=x86_64-w64-mingw32-gcc wheel_tag=win_amd64 npm_name=win32-x64-gnu npm_os=win32 npm_cpu=x64
      jna_dir=win32-x86-64 lib_file=mcpcore_uniffi.dll exe=.exe desc="x86_64 Windows" ;;
    aarch64-apple-darwin)
      zig_target=aarch64-macos.11.0 wheel_tag=macosx_11_0_arm64 npm_name=darwin-arm64 npm_os=darwin npm_cpu=arm64
      jna_dir=darwin-aarch64 lib_file=libmcpcore_uniffi.dylib desc="macOS on Apple silicon (11 or later)" ;;
    x86_64-apple-darwin)
      zig_target=x86_64-macos.10.12 wheel_tag=macosx_10_12_x86_64 npm_name=darwin-x64 npm_os=darwin npm_cpu=x64
      jna_dir=darwin-x86-64 lib_file=libmcpcore_uniffi.dylib desc="macOS on Intel (10.12 or later)" ;;
    *) echo "unknown target $1 (one of: ${ALL_TARGETS[*]})" >&2; return 1 ;;
  esac
}

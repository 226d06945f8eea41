/* bcryptprimitives.dll for wine 8 (Debian 12), which lacks it, for the cross tests only
 * (scripts/install-test-cross.sh installs it into the test's wine prefix, never into a package).
 *
 * Rust's standard library on Windows (1.78 and later) takes its randomness from ProcessPrng in
 * bcryptprimitives.dll, which every Windows since 10 has; wine added it after 8.0. This one
 * answers ProcessPrng with RtlGenRandom (advapi32's SystemFunction036), which wine has. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}

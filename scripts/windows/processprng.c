/*
 * bcryptprimitives.dll for Wine 8.0, which lacks it: Go >= 1.22 on Windows
 * draws its random bytes from ProcessPrng in bcryptprimitives.dll (loaded
 * from system32 only) and dies before main without it. This stub exports
 * ProcessPrng over RtlGenRandom (advapi32's SystemFunction036), which Wine
 * has. Test use only: scripts/windows-test.sh builds it with mingw and copies
 * it into the Wine prefix's system32; it is never shipped. Real Windows
 * (10 and later) has the real DLL.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}

/* Every /proc parser on the same bytes: none may read past len or crash. */
#include <stddef.h>
#include <stdint.h>

#include "procparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct pstat ps;
	struct psi psi;
	struct swap_dev sw[4];
	pid_t kids[8];
	int64_t v;

	if (procparse_stat(buf, size, &ps) == 0)
		(void)pstat_is_kthread(&ps);
	procparse_schedstat(buf, size, &v);
	procparse_psi(buf, size, &psi);
	procparse_kib(buf, size, "MemFree", &v);
	procparse_kib(buf, size, "VmSwap", &v);
	procparse_swaps(buf, size, sw, 4);
	procparse_children(buf, size, kids, 8);
	return 0;
}

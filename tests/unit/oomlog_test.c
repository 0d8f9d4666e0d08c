#include <string.h>

#include "check.h"
#include "oomlog.h"

/* As kernel 6.18 logged a v1 memory cgroup's kill here. */
TEST(oomlog_parses_kill_and_summary)
{
	struct oom_kill k;

	CHECK_INT(oomlog_parse("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
			       "mems_allowed=0,oom_memcg=/thrashtop-4773,task_memcg=/thrashtop-4773,"
			       "task=unit,pid=4782,uid=0", &k), 2);
	CHECK_INT(k.pid, 4782);
	CHECK_STR(k.comm, "unit");
	CHECK_STR(k.memcg, "/thrashtop-4773");
	CHECK(oomlog_in_cgroup(&k, "/sys/fs/cgroup/memory/thrashtop-4773"));
	CHECK(!oomlog_in_cgroup(&k, "/sys/fs/cgroup/memory/thrashtop-47731"));
	CHECK(!oomlog_in_cgroup(&k, "/sys/fs/cgroup/memory/x/thrashtop-477"));

	CHECK_INT(oomlog_parse("Memory cgroup out of memory: Killed process 4782 (unit) "
			       "total-vm:21474955148kB, anon-rss:39272kB, file-rss:1272kB, "
			       "shmem-rss:0kB, UID:0 pgtables:848kB oom_score_adj:0", &k), 1);
	CHECK_INT(k.pid, 4782);
	CHECK_STR(k.comm, "unit");
	CHECK_STR(k.memcg, "");
	CHECK(!oomlog_in_cgroup(&k, "/sys/fs/cgroup/memory/thrashtop-4773"));

	/* a comm with a space and a parenthesis, cut at 15 bytes */
	CHECK_INT(oomlog_parse("Out of memory: Killed process 12 (a (b) c d e f g h) total-vm:1kB", &k), 1);
	CHECK_STR(k.comm, "a (b) c d e f g");
	CHECK_INT(oomlog_parse("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
			       "mems_allowed=0,global_oom,task_memcg=/,task=a,b,pid=9,uid=0", &k), 2);
	CHECK_STR(k.comm, "a,b");
	CHECK_INT(k.pid, 9);
	CHECK(!oomlog_in_cgroup(&k, "/sys/fs/cgroup/memory/thrashtop-1"));

	CHECK_INT(oomlog_parse("oom_reaper: reaped process 4782 (unit), now anon-rss:0kB", &k), 0);
	CHECK_INT(oomlog_parse("Out of memory: Killed process x (unit)", &k), 0);
	CHECK_INT(oomlog_parse("unit invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL)", &k), 0);
}

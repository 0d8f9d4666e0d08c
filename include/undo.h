/* A state file of the system changes thrashtop makes (memory cgroups, swap
 * files, vm sysctls, balloons), each recorded before it is made, so that a
 * later start can undo what a crashed or SIGKILLed run left behind.
 *
 * The file is DIR/state with DIR = $THRASHTOP_STATE_DIR or /run/thrashtop,
 * one line per change:
 *   OWNERPID OWNERSTART BOOTID cgroup v1|v2 PATH
 *   OWNERPID OWNERSTART BOOTID swap PATH         (a swap file, or a disk /dev/NAME)
 *   OWNERPID OWNERSTART BOOTID zram zramN
 *   OWNERPID OWNERSTART BOOTID sysctl vm.NAME OLDVALUE
 *   OWNERPID OWNERSTART BOOTID param /sys/module/M/parameters/NAME OLDVALUE
 *   OWNERPID OWNERSTART BOOTID balloon PID STARTTIME
 *   OWNERPID OWNERSTART BOOTID tracefs PATH instance|mount
 * OWNERSTART and STARTTIME are /proc/PID/stat start times (clock ticks
 * after boot), so a reused pid is never taken for the owner or the balloon.
 * Every update takes an exclusive flock on DIR/lock and replaces the file by
 * write + fsync + rename, so concurrent instances keep each other's entries.
 * A process that records a change holds DIR/session (undo_claim) for its
 * life, so only one changes the machine at a time. */
#ifndef THRASHTOP_UNDO_H
#define THRASHTOP_UNDO_H

#include <stddef.h>
#include <sys/types.h>

/* In the order undo_all() and undo_recover() undo them: the balloon and the
 * workload's cgroup first frees memory, so swapoff has room to take pages
 * back; sysctls and module parameters (zswap's) last, but vm.nr_hugepages
 * (a hugetlb pool) with the balloons. A tracefs instance (key its
 * directory, val "instance") and a mount of tracefs (key the mount point,
 * val "mount") go last; the instance, recorded after the mount, goes
 * first, as newer records do within a kind. */
enum undo_kind { UNDO_BALLOON, UNDO_CGROUP, UNDO_SWAP, UNDO_ZRAM, UNDO_SYSCTL, UNDO_PARAM,
		 UNDO_TRACEFS };
#define UNDO_LAST UNDO_TRACEFS

/* How a record of one kind is undone (key and val as undo_add took them):
 * 0, or -1 with err filled. The owner of the changes (tuning.c) supplies
 * one per kind, so this module needs none of the modules whose changes it
 * records; a kind with none is left in the state file, said so. */
typedef int (*undo_revert_fn)(const char *key, const char *val, char *err, size_t errlen);
void undo_set_revert(enum undo_kind kind, undo_revert_fn fn);

/* Records a change this process is about to make. key names it (cgroup
 * path, swap file path, zram device, sysctl name, parameter path, balloon
 * pid); val is what undoing it needs (cgroup "v1" or "v2", the sysctl's or
 * parameter's old value, the balloon's start time; "" for swap and zram).
 * key and val must not hold a newline; only the last field (cgroup and swap
 * paths, sysctl and parameter values) may hold spaces. If this
 * process already recorded the same kind and key, the first record stays
 * (a sysctl set twice restores the value from before the first set).
 * Returns 0, or -1 with err filled. */
int undo_add(enum undo_kind kind, const char *key, const char *val,
	     char *err, size_t errlen);

/* One tuning session at a time: takes the lock DIR/session that this
 * process then holds until it exits (undo_add takes it before the first
 * change of any kind). 0, also when already held; -1 with err naming the
 * holder's pid when another process holds it. */
int undo_claim(char *err, size_t errlen);

/* undo_claim that says who holds the lock: 0 once this process holds it;
 * 1 when another does, its pid in *holder and err as undo_claim's; -1
 * when it cannot be taken at all (err). */
int undo_try_claim(pid_t *holder, char *err, size_t errlen);

/* Drops this process's record of kind and key once the change has been
 * undone by the normal path (no record: 0). Returns 0, or -1 with err. */
int undo_forget(enum undo_kind kind, const char *key, char *err, size_t errlen);

/* Copies the val this process recorded for kind and key. Returns 0, 1 when
 * there is no such record, or -1 with err filled. */
int undo_lookup(enum undo_kind kind, const char *key, char *val, size_t vallen,
		char *err, size_t errlen);

/* At start: undoes every record whose owner is no longer running (pid gone,
 * a different start time, a zombie, or a previous boot), and drops it.
 * Changes from a previous boot that the reboot already undid (sysctls,
 * balloons, active swap) are only dropped. msg gets one line per record,
 * '\n'-separated, saying what was cleaned or why it could not be (such a
 * record stays for the next start). Returns how many records were undone,
 * or -1 if any could not be (or the state file could not be used). A
 * missing state file is 0 with msg "". */
int undo_recover(char *msg, size_t msglen);

/* Undoes every record of this process (the exit path, after the modules'
 * own remove/stop/restore calls, which drop their records themselves).
 * msg as for undo_recover. Returns how many were undone, or -1. */
int undo_all(char *msg, size_t msglen);

/* The state file's path (for messages). */
const char *undo_state_file(void);

/* Start time of pid (field 22 of /proc/PID/stat, clock ticks after boot)
 * and its state letter (R, S, D, Z...; state may be NULL). Returns 0, or -1
 * with errno (ESRCH when there is no such process). */
int undo_proc_start(pid_t pid, unsigned long long *start, char *state);

/* What a dead thrashtop left in dir: each entry named PREFIX PID-START-
 * XXXXXX SUFFIX (six letters or digits, as mkstemp and mkdtemp make them)
 * whose process PID with start time START is gone, of type (S_IFREG,
 * S_IFDIR) and owned by this user, removed by rm(dirfd, name) (0: done).
 * Returns how many were. */
int undo_sweep_dead(const char *dir, const char *prefix, const char *suffix, mode_t type,
		    int (*rm)(int dirfd, const char *name));

#endif

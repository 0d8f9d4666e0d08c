/* Another host as the place a session runs (--host [USER@]BOX): the
 * user's own ssh ($THRASHTOP_SSH, else ssh) started with BatchMode on, so
 * a missing key is ssh's own one line and never a password prompt, with
 * BOX's thrashtop as the agent (remote.h) on its standard input and
 * output. With --host-copy this binary is sent over the same connection
 * into a temporary file on BOX, which is removed as the agent starts, so
 * that nothing of it is left there however the session ends. The place
 * is called "ssh". */
#ifndef THRASHTOP_SSHHOST_H
#define THRASHTOP_SSHHOST_H

#include <stddef.h>

#include "cli.h"
#include "place.h"

#define SSHHOST_ARGS_MAX 80

/* The ssh command line for box: ssh_cmd's words (split at spaces; NULL
 * or blank: ssh), BatchMode and no terminal, box, then the remote
 * command: `thrashtop agent`, or with copy_bytes > 0 a script that reads
 * that many bytes of our binary first (script: its room, len bytes).
 * argv points into words (its room, wlen bytes) and script. The number of
 * words, -1 when they do not fit. */
int sshhost_argv(const char *ssh_cmd, const char *box, long long copy_bytes, char *words,
		 size_t wlen, char *script, size_t slen, char *argv[SSHHOST_ARGS_MAX]);

/* o->host's agent started over ssh, and the place over it once ready.
 * NULL with one line in err naming the box: ssh's own last line ("ssh:
 * Permission denied (publickey)."), no thrashtop there, a thrashtop of
 * another version (both named), the agent's own reason. */
struct place *sshhost_open(const struct options *o, char *err, size_t errlen);

/* sshhost_open in two halves, so that several boxes connect at once:
 * start runs ssh (NULL with err); ready waits for the agent and gives
 * the place, else ends ssh (NULL with err, as sshhost_open's). */
struct ssh;
struct ssh *sshhost_start(const struct options *o, char *err, size_t errlen);
struct place *sshhost_ready(struct ssh *h, const struct options *o, char *err, size_t errlen);

#endif

/* `thrashtop kernel [fetch PATTERN... | list | boot [OPTIONS] KERNEL [-- CMD...]]`:
 * the kernels guests boot, on the command line. fetch downloads Debian
 * kernels into the cache, list shows the cache, boot starts a guest that
 * runs CMD (by default a report of what the kernel gives a session) and
 * copies what it writes to its fd 3 to stdout. */
#ifndef THRASHTOP_KERNELCLI_H
#define THRASHTOP_KERNELCLI_H

/* argv[0] is "kernel". The exit status: 0; 1 when a kernel cannot be had
 * or a guest fails (one line on stderr); 2 on bad usage; boot: the guest
 * command's own status. */
int kernelcli_main(int argc, char **argv);

#endif

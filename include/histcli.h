/* `thrashtop history [list | show ID | stats | compare A B... | export |
 * import FILE | rm ID...]`: the run history on the command line. */
#ifndef THRASHTOP_HISTCLI_H
#define THRASHTOP_HISTCLI_H

/* argv[0] is "history"; db_path NULL means history_default_path. Returns
 * the exit status: 0, 1 when the history cannot be read or written, 2 on
 * bad usage or input. Errors go to stderr as one line. */
int histcli_main(int argc, char **argv, const char *db_path);

#endif

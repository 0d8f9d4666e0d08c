#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "sshhost.h"

TEST(sshhost_argv_plain)
{
	char words[256], script[1024], *argv[SSHHOST_ARGS_MAX];
	int n = sshhost_argv(NULL, "root@box", 0, words, sizeof(words), script, sizeof(script),
			     argv);

	CHECK_INT(n, 10);
	CHECK_STR(argv[0], "ssh");
	CHECK_STR(argv[1], "-T");
	CHECK_STR(argv[3], "BatchMode=yes");
	CHECK_STR(argv[8], "root@box");
	CHECK_STR(argv[9], "thrashtop agent");
	CHECK_INT(argv[10] == NULL, 1);
}

/* $THRASHTOP_SSH's words first: ssh takes the first value of an option,
 * so the user's -o win over ours. */
TEST(sshhost_argv_user_command_first)
{
	char words[256], script[1024], *argv[SSHHOST_ARGS_MAX];
	int n = sshhost_argv("  ssh -F  /x/config ", "box", 0, words, sizeof(words), script,
			     sizeof(script), argv);

	CHECK_INT(n, 12);
	CHECK_STR(argv[0], "ssh");
	CHECK_STR(argv[1], "-F");
	CHECK_STR(argv[2], "/x/config");
	CHECK_STR(argv[3], "-T");
	CHECK_STR(argv[10], "box");
	CHECK_INT(sshhost_argv(" ", "box", 0, words, sizeof(words), script, sizeof(script),
			       argv), 10);
	CHECK_STR(argv[0], "ssh");
}

/* The copy: a script in single quotes, none inside, reading exactly the
 * binary's size, unlinking it before it runs. */
TEST(sshhost_argv_copy_script)
{
	char words[256], script[1024], *argv[SSHHOST_ARGS_MAX];
	int n = sshhost_argv(NULL, "box", 1234567, words, sizeof(words), script, sizeof(script),
			     argv);
	const char *body = argv[n - 1] + strlen("exec sh -c '");

	CHECK_INT(n, 10);
	CHECK_INT(strncmp(argv[n - 1], "exec sh -c '", 12), 0);
	CHECK_INT((int)(strchr(body, '\'') - body), (int)strlen(body) - 1);
	CHECK_INT(strstr(body, "head -c 1234567 ") != NULL, 1);
	CHECK_INT(strstr(body, "-eq 1234567 ") != NULL, 1);
	CHECK_INT(strstr(body, "rm -f \"$f\" && exec /proc/self/fd/3 agent") != NULL, 1);
}

TEST(sshhost_argv_too_many_words)
{
	char words[1024], cmd[600] = "ssh", script[256], *argv[SSHHOST_ARGS_MAX];

	for (int i = 0; i < 80; i++)
		strcat(cmd, " -v");
	CHECK_INT(sshhost_argv(cmd, "box", 0, words, sizeof(words), script, sizeof(script), argv),
		  -1);
}

TEST(sshhost_box_checked)
{
	char err[256];

	CHECK_INT(cli_check_host("root@box.example", err, sizeof(err)), 0);
	CHECK_INT(cli_check_host("-oProxyCommand=x", err, sizeof(err)), -1);
	CHECK_STR(err, "--host '-oProxyCommand=x': want [USER@]BOX, a name ssh reaches");
	CHECK_INT(cli_check_host("a b", err, sizeof(err)), -1);
	CHECK_INT(cli_check_host("", err, sizeof(err)), -1);
}

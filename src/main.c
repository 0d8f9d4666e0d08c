#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "histcli.h"

int main(int argc, char **argv)
{
	struct options opt;
	char err[512];
	int rc;

	setlocale(LC_ALL, "");
	if (argc > 1 && !strcmp(argv[1], "history"))
		return histcli_main(argc - 1, argv + 1, NULL);
	if (argc > 3 && !strcmp(argv[1], "--history") && !strcmp(argv[3], "history"))
		return histcli_main(argc - 3, argv + 3, argv[2]);
	rc = cli_parse(argc, argv, &opt, err, sizeof(err));
	if (rc) {
		cli_free(&opt);
		if (rc > 0)
			return 0;
		fprintf(stderr, "thrashtop: %s\n", err);
		return 2;
	}
	rc = app_run(&opt);
	cli_free(&opt);
	return rc;
}
